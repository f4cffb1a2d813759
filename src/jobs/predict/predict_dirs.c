/* predict_dirs.c: the log dirs before any partition is loaded
 * (docs/formats.md §20.3; core/.../log/LogManager.scala: loadLogs, loadLog,
 * isStrayKraftReplica; core/.../log/LocalLog.scala: parseTopicPartitionName;
 * metadata/.../properties/MetaPropertiesEnsemble.java: verify): each log
 * dir's entries from the walk of paths.h, every directory parsed as the
 * broker parses it, then the checks across the log dirs that stop a broker
 * (meta.properties that disagree, two directories of one topic-partition)
 * and the partitions the KRaft image does not place on this broker. */
#include "bytes/error.h"
#include "predict_internal.h"
#include "format/order.h"
#include "bytes/grow.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/file.h"
#include "kfsck/metadata.h"
#include "format/paths.h"

/* ---- directory names: LocalLog.parseTopicPartitionName ----------------------------- */

static bool has_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isspace((unsigned char)s[i]))
            return true;
    return false;
}

/* ^(\S+)-(\S+)\.(\S+)<suffix>$ for the name without its suffix (r, n bytes) */
static bool suffix_pattern(const char *r, size_t n)
{
    if (has_blank(r, n))
        return false;
    size_t dot = 0, dash = 0;
    bool has_dot = false, has_dash = false;
    for (size_t i = 0; i + 1 < n; i++)
        if (r[i] == '.') {
            dot = i;
            has_dot = true;
        }
    for (size_t i = 1; i < n && !has_dash; i++)
        if (r[i] == '-') {
            dash = i;
            has_dash = true;
        }
    return has_dot && has_dash && dash + 2 <= dot;
}

typedef enum { DIR_PLAIN, DIR_DELETE, DIR_FUTURE, DIR_STRAY } dir_kind;

static bool ends_with(const char *s, size_t n, const char *suffix)
{
    size_t m = strlen(suffix);
    return n >= m && !memcmp(s + n - m, suffix, m);
}

/* topic (cap 256) and partition, or false where the broker throws */
static bool kafka_parse_dir(const char *name, char *topic, int32_t *partition, dir_kind *kind)
{
    size_t n = strlen(name);
    if (!n || !strchr(name, '-'))
        return false;
    static const char *const suffixes[] = {"-delete", "-future", "-stray"};
    *kind = DIR_PLAIN;
    size_t end = n;
    for (int k = 0; k < 3; k++)
        if (ends_with(name, n, suffixes[k])) {
            if (!suffix_pattern(name, n - strlen(suffixes[k])))
                return false;
            *kind = (dir_kind)(k + 1);
            end = (size_t)(strrchr(name, '.') - name);
            break;
        }
    size_t dash = end;
    while (dash > 0 && name[dash - 1] != '-')
        dash--;
    if (dash == 0)
        return false;
    dash--; /* at the last '-' */
    if (dash == 0 || dash + 1 == end || dash >= 256)
        return false;
    int64_t v;
    if (!kf_java_long(name + dash + 1, end - dash - 1, &v) || v < INT32_MIN || v > INT32_MAX)
        return false;
    memcpy(topic, name, dash);
    topic[dash] = 0;
    *partition = (int32_t)v;
    return true;
}

/* ---- log dirs -------------------------------------------------------------------- */

int pp_dir_act(pp_dir *d, kf_predict_action_kind kind, const char *file, const char *topic, int32_t partition,
                   const char *fmt, ...)
{
    pp_dir_action *na = realloc(d->acts, (d->nacts + 1) * sizeof *na);
    if (!na)
        return kf_error_nomem();
    d->acts = na;
    pp_dir_action *a = &na[d->nacts];
    va_list ap;
    va_start(ap, fmt);
    char *reason = pp_vformat(fmt, ap);
    va_end(ap);
    *a = (pp_dir_action){kind, strdup(file), reason, partition, topic ? strdup(topic) : NULL};
    if (!a->file || !a->reason || (topic && !a->topic)) {
        free(a->file);
        free(a->reason);
        free(a->topic);
        return kf_error_nomem();
    }
    d->nacts++;
    if (kind == KF_ACT_FATAL)
        d->out.fatal++;
    return KF_OK;
}

bool pp_dir_fifo(pp_dir *d, const char *path, int *rc)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISFIFO(st.st_mode))
        return false;
    d->stops = true;
    *rc = pp_dir_act(d, KF_ACT_FATAL, path, NULL, -1, PP_FIFO_HANGS, path);
    return true;
}

static int add_part(pp_dir *d, const kf_path_entry *e, const char *topic, int32_t partition, dir_kind kind)
{
    if (!KF_GROW(d->parts, d->nparts, d->capparts, 16))
        return kf_error_nomem();
    pp_part *p = &d->parts[d->nparts++];
    memset(p, 0, sizeof *p);
    p->datadir = d->path;
    p->partition = partition;
    p->name = strdup(e->name);
    p->topic = strdup(topic);
    p->dir = strdup(e->path);
    p->state = kind == DIR_DELETE ? KF_PST_DELETING : kind == DIR_FUTURE ? KF_PST_FUTURE
             : kind == DIR_STRAY  ? KF_PST_STRAY
                                  : KF_PST_ONLINE;
    p->deleting = kind == DIR_DELETE;
    if (e->kind == KF_PATH_UNREADABLE) { /* said once it is worked on */
        p->dir_errno = e->err_no ? e->err_no : EIO;
        if (!(p->dir_why = strdup(e->why)))
            return kf_error_nomem();
    }
    return p->name && p->topic && p->dir ? KF_OK : KF_ERR_NOMEM;
}

/* Every directory in a log dir is a topic-partition to the broker (but the
 * tiered-storage cache and the KRaft metadata log); others stop it. */
static int on_entry(void *ctx, const kf_path_entry *e)
{
    pp_dir *d = ctx;
    bool dir = e->kind == KF_PATH_PARTITION || e->kind == KF_PATH_DATADIR || e->kind == KF_PATH_OTHER_DIR ||
               (e->kind == KF_PATH_UNREADABLE && e->partition_named);
    if (!dir || !strcmp(e->name, "remote-log-index-cache"))
        return KF_OK;
    char topic[256];
    int32_t partition;
    dir_kind kind;
    if (!kafka_parse_dir(e->name, topic, &partition, &kind)) {
        d->stops = true;
        return pp_dir_act(d, KF_ACT_FATAL, e->path, NULL, -1,
                       "Found directory %s, '%s' is not in the form of topic-partition or "
                       "topic-partition.uniqueId-delete (if marked for deletion).\n"
                       "Kafka's log directories (and children) should only contain Kafka topic data.",
                       e->path, e->name);
    }
    if (!strcmp(topic, "__cluster_metadata")) {
        d->has_metadata_log = true;
        return KF_OK;
    }
    return add_part(d, e, topic, partition, kind);
}

static int cmp_part(const void *a, const void *b)
{
    const pp_part *x = a, *y = b;
    int c = kf_cmp_topic_partition(x->topic, x->partition, y->topic, y->partition);
    return c ? c : strcmp(x->name, y->name);
}

int pp_list_dir(pp_run *r, pp_dir *d)
{
    int rc = kf_datadir_info_read(&d->info, d->path);
    if (rc != KF_OK)
        return rc;
    char *meta = kf_path_join(d->path, "meta.properties");
    if (!meta)
        return KF_ERR_NOMEM;
    pp_dir_fifo(d, meta, &rc); /* read before anything is loaded */
    free(meta);
    if (rc != KF_OK)
        return rc;
    kf_paths_walk_opts wo;
    kf_paths_walk_opts_on(&wo, NULL, on_entry, NULL, d, NULL, NULL);
    wo.other_entry_fn = on_entry;
    wo.unreadable_partitions = true;
    rc = kf_datadir_walk(d->path, &wo);
    if (rc == KF_ERR_NOMEM)
        return rc;
    if (rc == KF_ERR_IO && kf_error_last()->path[0] && !strcmp(kf_error_last()->path, d->path)) {
        d->offline = true;
        int err_no = kf_error_last()->err_no;
        return pp_dir_act(d, KF_ACT_FATAL, d->path, NULL, -1, "Error while loading log dir %s: %s", d->path,
                       strerror(err_no ? err_no : EIO));
    }
    d->listed = true;
    if (d->nparts > 1)
        qsort(d->parts, d->nparts, sizeof *d->parts, cmp_part);
    (void)r;
    return KF_OK;
}

/* MetaPropertiesEnsemble.verify: one cluster.id, one node id, distinct
 * directory ids, across the log dirs in order. */
int pp_check_meta_properties(pp_run *r)
{
    const char *cluster = NULL, *node_dir = NULL;
    bool has_node = false;
    int32_t node = 0;
    for (size_t i = 0; i < r->ndirs; i++) {
        pp_dir *d = &r->dirs[i];
        if (!d->info.has_meta)
            continue;
        const kf_meta_properties *mp = &d->info.meta;
        const char *path = d->info.meta_path;
        int rc = KF_OK;
        if (mp->cluster_id[0]) {
            if (!cluster)
                cluster = mp->cluster_id;
            else if (strcmp(cluster, mp->cluster_id)) {
                d->stops = true;
                rc = pp_dir_act(d, KF_ACT_FATAL, path, NULL, -1, "Invalid cluster.id in: %s. Expected %s, but read %s",
                             path, cluster, mp->cluster_id);
            }
        }
        bool has = mp->has_node_id || mp->has_broker_id;
        int32_t id = mp->has_node_id ? mp->node_id : mp->broker_id;
        if (rc == KF_OK && has) {
            if (!has_node) {
                has_node = true;
                node = id;
                node_dir = path;
            } else if (id != node) {
                d->stops = true;
                rc = pp_dir_act(d, KF_ACT_FATAL, path, NULL, -1,
                             "Stored node id %" PRId32 " doesn't match previous node id %" PRId32
                             " in %s. If you moved your data, make sure your configured node id matches. If you "
                             "intend to create a new node, you should remove all data in your data directories.",
                             id, node, path);
            }
        }
        for (size_t k = 0; rc == KF_OK && mp->directory_id[0] && k < i; k++) {
            const pp_dir *e = &r->dirs[k];
            if (e->info.has_meta && !strcmp(e->info.meta.directory_id, mp->directory_id)) {
                d->stops = true;
                rc = pp_dir_act(d, KF_ACT_FATAL, path, NULL, -1,
                             "Duplicate directory ID Optional[%s] found. It was the ID of %s, but also of %s",
                             mp->directory_id, e->path, d->path);
                break;
            }
        }
        if (rc != KF_OK)
            return rc;
    }
    (void)node_dir;
    r->has_broker_id = has_node;
    r->broker_id = node;
    return KF_OK;
}

typedef struct part_ref {
    pp_part *p;
    pp_dir *d;
    size_t dir_index;
} part_ref;

static int cmp_ref(const void *a, const void *b)
{
    const part_ref *x = a, *y = b;
    int c = strcmp(x->p->topic, y->p->topic);
    if (c)
        return c;
    if (x->p->partition != y->p->partition)
        return x->p->partition < y->p->partition ? -1 : 1;
    if (x->p->state != y->p->state)
        return x->p->state < y->p->state ? -1 : 1;
    return x->dir_index < y->dir_index ? -1 : x->dir_index > y->dir_index;
}

/* LogManager.loadLog: a second current (or future) log of one
 * topic-partition stops the broker. */
int pp_check_duplicates(pp_run *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->ndirs; i++)
        n += r->dirs[i].nparts;
    part_ref *refs = calloc(n ? n : 1, sizeof *refs);
    if (!refs)
        return kf_error_nomem();
    n = 0;
    for (size_t i = 0; i < r->ndirs; i++)
        for (size_t k = 0; k < r->dirs[i].nparts; k++) {
            pp_part *p = &r->dirs[i].parts[k];
            if (p->state == KF_PST_ONLINE || p->state == KF_PST_FUTURE)
                refs[n++] = (part_ref){p, &r->dirs[i], i};
        }
    qsort(refs, n, sizeof *refs, cmp_ref);
    int rc = KF_OK;
    for (size_t i = 1; i < n && rc == KF_OK; i++) {
        const part_ref *a = &refs[i - 1], *b = &refs[i];
        if (strcmp(a->p->topic, b->p->topic) || a->p->partition != b->p->partition || a->p->state != b->p->state)
            continue;
        b->d->stops = true;
        if (b->p->state == KF_PST_FUTURE)
            rc = pp_dir_act(b->d, KF_ACT_FATAL, b->p->dir, b->p->topic, b->p->partition,
                         "Duplicate log directories found: %s, %s", b->p->dir, a->p->dir);
        else
            rc = pp_dir_act(b->d, KF_ACT_FATAL, b->p->dir, b->p->topic, b->p->partition,
                         "Duplicate log directories for %s-%" PRId32 " are found in both %s and %s. It is likely "
                         "because log directory failure happened while broker was replacing current replica with "
                         "future replica. Recover broker from this failure by manually deleting one of the two "
                         "directories for this partition. It is recommended to delete the partition in the log "
                         "directory that is known to have failed recently.",
                         b->p->topic, b->p->partition, b->p->dir, a->p->dir);
    }
    free(refs);
    return rc;
}

/* The KRaft image, when the metadata log is among the log dirs: the
 * newest intact snapshot's, which is the node's own unless its latest
 * snapshot is cut short: then the node's own (kf_metadata_opts.as_the_node,
 * whose replay may fail: pp_check_kraft_load). */
int pp_build_image(pp_run *r)
{
    bool any = false, torn = false;
    for (size_t i = 0; i < r->ndirs; i++) {
        any |= r->dirs[i].has_metadata_log;
        torn |= r->dirs[i].kraft_snapshot_torn;
    }
    if (!any)
        return KF_OK;
    char **paths = calloc(r->ndirs, sizeof *paths);
    if (!paths)
        return kf_error_nomem();
    for (size_t i = 0; i < r->ndirs; i++)
        paths[i] = (char *)r->dirs[i].path;
    kf_kraft_inputs ki;
    int rc = kf_kraft_inputs_collect(&ki, paths, r->ndirs, NULL, NULL);
    if (rc != KF_ERR_NOMEM && kf_kraft_inputs_found(&ki)) {
        kf_metadata_opts mo;
        kf_metadata_opts_init(&mo);
        mo.max_batch_bytes = r->o.max_batch_bytes;
        mo.as_the_node = torn;
        rc = kf_metadata_build(&r->meta, &ki, &mo);
    }
    kf_kraft_inputs_free(&ki);
    free(paths);
    return rc == KF_ERR_NOMEM ? rc : KF_OK;
}

/* LogManager.isStrayKraftReplica, for a partition about to be loaded. */
void pp_check_stray(pp_run *r, pp_part *p)
{
    if (!r->meta || !r->has_broker_id || (p->state != KF_PST_ONLINE && p->state != KF_PST_FUTURE))
        return;
    char *path = kf_path_join(p->dir, "partition.metadata");
    kf_partition_metadata pm;
    bool has_id = path && kf_partition_metadata_read(path, &pm) == KF_OK;
    free(path);
    if (!has_id) {
        p->stray_reason = pp_strf(p, "The topicId does not exist in %s, treat it as a stray log", p->dir);
    } else {
        const kf_md_topic *t = kf_metadata_topic_by_id(r->meta, pm.topic_id);
        const kf_md_partition *mp = NULL;
        for (uint32_t i = 0; t && i < t->nparts && !mp; i++)
            if (t->parts[i].id == p->partition)
                mp = &t->parts[i];
        if (!mp) {
            p->stray_reason = pp_strf(p, "Found stray log dir %s: the topicId %s does not exist in the metadata image",
                                      p->dir, pm.topic_id_b64);
        } else {
            bool here = false;
            char list[512] = "";
            size_t len = 0;
            for (uint32_t i = 0; i < mp->replicas.n; i++) {
                here |= mp->replicas.v[i] == r->broker_id;
                if (len < sizeof list - 16)
                    len += (size_t)snprintf(list + len, sizeof list - len, "%s%" PRId32, i ? ", " : "",
                                            mp->replicas.v[i]);
            }
            if (!here)
                p->stray_reason = pp_strf(p, "Found stray log dir %s: the current replica assignment [%s] does not "
                                             "contain the local brokerId %" PRId32 ".",
                                          p->dir, list, r->broker_id);
        }
    }
    if (p->stray_reason) {
        p->stray_kraft = true;
        p->state = KF_PST_STRAY;
    }
}
