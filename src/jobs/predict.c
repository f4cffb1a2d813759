/* predict.c: the driver of the predict job (include/kfsck/predict.h,
 * docs/formats.md §20): LogManager.loadLogs over the log dirs. The log dirs'
 * entries come from the walk of paths.h; before any partition is loaded
 * the checks that stop the broker are made across all of them (a directory
 * name that is not a topic-partition, meta.properties that disagree, two
 * directories of one topic-partition) and, when the KRaft metadata log is
 * among them, which partitions it no longer places here (stray). Then each
 * log dir: the clean-shutdown marker, the recovery-point and log-start
 * checkpoints (unreadable: empty, as the broker resets them), and its
 * partitions worked out by a pool of threads (predict_files.c,
 * predict_recovery.c, predict_retention.c), handed back in (topic,
 * partition) order once the log dir's verdict is known. */
#include "predict_internal.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bytes/error.h"
#include "bytes/opts.h"
#include "kfsck/checkpoint.h"
#include "kfsck/clean_shutdown.h"
#include "kfsck/dirs.h"
#include "kfsck/file.h"
#include "kfsck/metadata.h"
#include "kfsck/paths.h"

void kf_predict_opts_init(kf_predict_opts *o)
{
    *o = (kf_predict_opts)KF_PREDICT_OPTIONS_INIT;
}

const char *kf_predict_action_name(kf_predict_action_kind k)
{
    static const char *const names[] = {"delete_file",    "replace_with_swap", "rebuild_index",
                                        "recover_segment", "truncate_segment", "delete_segment",
                                        "delete_partition", "stray_partition", "fatal"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

const char *kf_predict_state_name(kf_predict_state s)
{
    static const char *const names[] = {"online", "future", "deleting", "stray", "offline"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

const char *kf_producer_load_name(kf_producer_load p)
{
    static const char *const names[] = {"snapshot", "rebuild_from_snapshot", "rebuild_from_start", "empty"};
    return (unsigned)p < sizeof names / sizeof names[0] ? names[p] : "?";
}

const char *kf_retention_reason_name(kf_retention_reason r)
{
    static const char *const names[] = {"log_start_offset", "retention_bytes", "retention_ms"};
    return (unsigned)r < sizeof names / sizeof names[0] ? names[r] : "?";
}

/* ---- a partition's kept strings and actions ------------------------------------------ */

static char *keep(pp_part *p, char *s)
{
    if (!s) {
        p->rc = KF_ERR_NOMEM;
        return NULL;
    }
    if (p->nowned == p->capowned) {
        size_t cap = p->capowned ? p->capowned * 2 : 8;
        char **no = realloc(p->owned, cap * sizeof *no);
        if (!no) {
            free(s);
            p->rc = KF_ERR_NOMEM;
            return NULL;
        }
        p->owned = no;
        p->capowned = cap;
    }
    return p->owned[p->nowned++] = s;
}

/* vasprintf's string, NULL when out of memory */
static char *vformat(const char *fmt, va_list ap)
{
    char *s = NULL;
    return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

char *pp_strf(pp_part *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vformat(fmt, ap);
    va_end(ap);
    return keep(p, s);
}

kf_predict_action *pp_act(pp_part *p, kf_predict_action_kind k, const char *file, const char *reason,
                          uint64_t bytes)
{
    if (p->rc != KF_OK || !file || !reason)
        return NULL;
    if (p->nacts == p->capacts) {
        size_t cap = p->capacts ? p->capacts * 2 : 8;
        kf_predict_action *na = realloc(p->acts, cap * sizeof *na);
        if (!na) {
            p->rc = KF_ERR_NOMEM;
            return NULL;
        }
        p->acts = na;
        p->capacts = cap;
    }
    kf_predict_action *a = &p->acts[p->nacts++];
    *a = (kf_predict_action){p->datadir, p->topic, p->partition, p->dir, k, file, reason, bytes, 0, 0, 0};
    return a;
}

void pp_io_error(pp_part *p, const char *path, int err_no)
{
    if (!p->io_error)
        p->io_what = pp_strf(p, "%s: %s", path, err_no ? strerror(err_no) : "cannot be read");
    p->io_error = true;
}

static void part_free(pp_part *p)
{
    for (size_t i = 0; i < p->nfiles; i++)
        free(p->files[i].name);
    free(p->files);
    free(p->segs);
    free(p->snaps);
    free(p->acts);
    free(p->rets);
    for (size_t i = 0; i < p->nowned; i++)
        free(p->owned[i]);
    free(p->owned);
    free(p->name);
    free(p->topic);
    free(p->dir);
}

/* Drop what only the working out needed (the file list, the segments). */
static void part_trim(pp_part *p)
{
    for (size_t i = 0; i < p->nfiles; i++)
        free(p->files[i].name);
    free(p->files);
    p->files = NULL;
    p->nfiles = 0;
    free(p->segs);
    p->segs = NULL;
    p->nsegs = p->capsegs = 0;
    free(p->snaps);
    p->snaps = NULL;
    p->nsnaps = p->capsnaps = 0;
}

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
    if (!pp_java_long(name + dash + 1, end - dash - 1, &v) || v < INT32_MIN || v > INT32_MAX)
        return false;
    memcpy(topic, name, dash);
    topic[dash] = 0;
    *partition = (int32_t)v;
    return true;
}

/* ---- log dirs -------------------------------------------------------------------- */

/* A log-dir action (topic NULL): the marker's deletion, a fatal. */
typedef struct dir_action {
    kf_predict_action_kind kind;
    char *file, *reason;
    int32_t partition;
    char *topic;
} dir_action;

typedef struct pp_dir {
    const char *path;
    kf_datadir_info info;
    bool listed;
    bool has_metadata_log;     /* holds __cluster_metadata-0 */
    pp_part *parts;
    size_t nparts, capparts;
    dir_action *acts;
    size_t nacts;
    kf_predict_datadir out;
    bool offline, stops;
} pp_dir;

typedef struct run {
    kf_predict_opts o;
    const kf_predict_config *cfg;
    pp_dir *dirs;
    size_t ndirs;
    kf_metadata *meta;
    bool has_broker_id;
    int32_t broker_id;
    int64_t now;
    int rc;
    /* the partitions of the log dir being worked on */
    pp_dir *work_dir;
    pp_part *work;
    size_t nwork, next;
    pthread_mutex_t mu;
} run;

static int dir_act(pp_dir *d, kf_predict_action_kind kind, const char *file, const char *topic, int32_t partition,
                   const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static int dir_act(pp_dir *d, kf_predict_action_kind kind, const char *file, const char *topic, int32_t partition,
                   const char *fmt, ...)
{
    dir_action *na = realloc(d->acts, (d->nacts + 1) * sizeof *na);
    if (!na)
        return KF_ERR_NOMEM;
    d->acts = na;
    dir_action *a = &na[d->nacts];
    va_list ap;
    va_start(ap, fmt);
    char *reason = vformat(fmt, ap);
    va_end(ap);
    *a = (dir_action){kind, strdup(file), reason, partition, topic ? strdup(topic) : NULL};
    if (!a->file || !a->reason || (topic && !a->topic)) {
        free(a->file);
        free(a->reason);
        free(a->topic);
        return KF_ERR_NOMEM;
    }
    d->nacts++;
    if (kind == KF_ACT_FATAL)
        d->out.fatal++;
    return KF_OK;
}

static int add_part(pp_dir *d, const kf_path_entry *e, const char *topic, int32_t partition, dir_kind kind)
{
    if (d->nparts == d->capparts) {
        size_t cap = d->capparts ? d->capparts * 2 : 16;
        pp_part *np = realloc(d->parts, cap * sizeof *np);
        if (!np)
            return KF_ERR_NOMEM;
        d->parts = np;
        d->capparts = cap;
    }
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
    if (e->kind == KF_PATH_ERROR)
        p->io_error = true; /* said once it is worked on */
    return p->name && p->topic && p->dir ? KF_OK : KF_ERR_NOMEM;
}

/* Every directory in a log dir is a topic-partition to the broker (but the
 * tiered-storage cache and the KRaft metadata log); others stop it. */
static int on_entry(void *ctx, const kf_path_entry *e)
{
    pp_dir *d = ctx;
    bool dir = e->kind == KF_PATH_PARTITION || e->kind == KF_PATH_DATADIR || e->kind == KF_PATH_OTHER_DIR ||
               (e->kind == KF_PATH_ERROR && e->partition_named);
    if (!dir || !strcmp(e->name, "remote-log-index-cache"))
        return KF_OK;
    char topic[256];
    int32_t partition;
    dir_kind kind;
    if (!kafka_parse_dir(e->name, topic, &partition, &kind)) {
        d->stops = true;
        return dir_act(d, KF_ACT_FATAL, e->path, NULL, -1,
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
    int c = strcmp(x->topic, y->topic);
    if (c)
        return c;
    if (x->partition != y->partition)
        return x->partition < y->partition ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int list_dir(run *r, pp_dir *d)
{
    int rc = kf_datadir_info_read(&d->info, d->path);
    if (rc != KF_OK)
        return rc;
    kf_paths_walk_opts wo;
    kf_paths_walk_opts_init(&wo);
    wo.partition_fn = on_entry;
    wo.other_entry_fn = on_entry;
    wo.unreadable_partitions = true;
    wo.ctx = d;
    rc = kf_datadir_walk(d->path, &wo);
    if (rc == KF_ERR_NOMEM)
        return rc;
    if (rc == KF_ERR_IO && kf_error_last()->path[0] && !strcmp(kf_error_last()->path, d->path)) {
        d->offline = true;
        int err_no = kf_error_last()->err_no;
        return dir_act(d, KF_ACT_FATAL, d->path, NULL, -1, "Error while loading log dir %s: %s", d->path,
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
static int check_meta_properties(run *r)
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
                rc = dir_act(d, KF_ACT_FATAL, path, NULL, -1, "Invalid cluster.id in: %s. Expected %s, but read %s",
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
                rc = dir_act(d, KF_ACT_FATAL, path, NULL, -1,
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
                rc = dir_act(d, KF_ACT_FATAL, path, NULL, -1,
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
static int check_duplicates(run *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->ndirs; i++)
        n += r->dirs[i].nparts;
    part_ref *refs = calloc(n ? n : 1, sizeof *refs);
    if (!refs)
        return KF_ERR_NOMEM;
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
            rc = dir_act(b->d, KF_ACT_FATAL, b->p->dir, b->p->topic, b->p->partition,
                         "Duplicate log directories found: %s, %s", b->p->dir, a->p->dir);
        else
            rc = dir_act(b->d, KF_ACT_FATAL, b->p->dir, b->p->topic, b->p->partition,
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

/* The KRaft image, when the metadata log is among the log dirs. */
static int build_image(run *r)
{
    bool any = false;
    for (size_t i = 0; i < r->ndirs; i++)
        any |= r->dirs[i].has_metadata_log;
    if (!any)
        return KF_OK;
    char **paths = calloc(r->ndirs, sizeof *paths);
    if (!paths)
        return KF_ERR_NOMEM;
    for (size_t i = 0; i < r->ndirs; i++)
        paths[i] = (char *)r->dirs[i].path;
    kf_kraft_inputs ki;
    int rc = kf_kraft_inputs_collect(&ki, paths, r->ndirs, NULL, NULL);
    if (rc != KF_ERR_NOMEM && kf_kraft_inputs_found(&ki)) {
        kf_metadata_opts mo;
        kf_metadata_opts_init(&mo);
        mo.max_batch_bytes = r->o.max_batch_bytes;
        rc = kf_metadata_build(&r->meta, &ki, &mo);
    }
    kf_kraft_inputs_free(&ki);
    free(paths);
    return rc == KF_ERR_NOMEM ? rc : KF_OK;
}

/* LogManager.isStrayKraftReplica, for a partition about to be loaded. */
static void check_stray(run *r, pp_part *p)
{
    if (!r->meta || !r->has_broker_id || (p->state != KF_PST_ONLINE && p->state != KF_PST_FUTURE))
        return;
    char *path = kf_path_join(p->dir, "partition.metadata");
    kf_bytes m = {0};
    kf_partition_metadata pm;
    char msg[160];
    bool has_id = path && kf_file_read_all(path, KF_SMALL_FILE_MAX, &m.data, &m.size) == KF_OK &&
                  kf_partition_metadata_parse(m.data, m.size, &pm, msg, sizeof msg) == KF_OK;
    free(m.data);
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

/* ---- the checkpoints -------------------------------------------------------------- */

enum { CK_RECOVERY, CK_LOG_START, CK_HW, CK_N };
static const char *const CK_NAMES[CK_N] = {"recovery-point-offset-checkpoint", "log-start-offset-checkpoint",
                                           "replication-offset-checkpoint"};

typedef struct ck_join {
    pp_dir *d;
    int k;
} ck_join;

static void set_ck(pp_part *p, int k, int64_t v)
{
    if (k == CK_RECOVERY)
        p->recovery_point = v;
    else if (k == CK_LOG_START)
        p->log_start_ckpt = v;
    else {
        p->has_hw = true;
        p->hw = v;
    }
}

/* An entry to every partition dir of its topic-partition (plain, -future, -delete). */
static void ck_entry(void *ctx, const kf_checkpoint_entry *e)
{
    ck_join *j = ctx;
    pp_dir *d = j->d;
    if (!e->topic)
        return;
    size_t lo = 0, hi = d->nparts;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        pp_part *p = &d->parts[mid];
        int c = strcmp(p->topic, e->topic);
        if (!c)
            c = p->partition < e->partition ? -1 : p->partition > e->partition;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < d->nparts && !strcmp(d->parts[i].topic, e->topic) && d->parts[i].partition == e->partition;
         i++)
        set_ck(&d->parts[i], j->k, e->offset);
}

static int read_checkpoints(pp_dir *d)
{
    for (int k = 0; k < CK_N; k++) {
        char *path = kf_path_join(d->path, CK_NAMES[k]);
        if (!path)
            return KF_ERR_NOMEM;
        struct stat st;
        int rc = KF_OK;
        if (stat(path, &st) == 0) {
            ck_join j = {d, k};
            int32_t version;
            rc = kf_checkpoint_read(path, KF_CKPT_OFFSETS, &version, ck_entry, &j, NULL, NULL);
            if (rc != KF_OK && rc != KF_ERR_NOMEM) {
                /* the broker reads the whole file or none of it: reset */
                for (size_t i = 0; i < d->nparts; i++) {
                    if (k == CK_HW)
                        d->parts[i].has_hw = false;
                    else
                        set_ck(&d->parts[i], k, 0);
                }
                rc = KF_OK;
            }
        }
        free(path);
        if (rc != KF_OK)
            return rc;
    }
    return KF_OK;
}

/* ---- settings ---------------------------------------------------------------------- */

static bool policy_has(const char *policy, const char *what)
{
    size_t n = strlen(what);
    for (const char *s = policy; s && *s;) {
        while (*s == ' ' || *s == ',')
            s++;
        const char *e = s;
        while (*e && *e != ',')
            e++;
        const char *t = e;
        while (t > s && t[-1] == ' ')
            t--;
        if ((size_t)(t - s) == n && !memcmp(s, what, n))
            return true;
        s = e;
    }
    return false;
}

static bool parse_long(const char *s, int64_t *v)
{
    size_t n = strlen(s);
    while (n && s[n - 1] == ' ')
        n--;
    while (n && *s == ' ') {
        s++;
        n--;
    }
    return pp_java_long(s, n, v);
}

/* The retention settings set dynamically (kafka-configs.sh --entity-type
 * brokers) in the KRaft image, over server.properties. A level (this
 * broker's configs, else the cluster-wide default, resource name "") that
 * sets any of log.retention.ms, .minutes, .hours replaces the whole group,
 * as DynamicBrokerConfig.overrideProps drops a key's synonyms; within it
 * ms, else minutes, else hours. log.retention.bytes and log.cleanup.policy
 * likewise, each alone. True when one is set. */
static bool dynamic_broker_settings(run *r, pp_part *p)
{
    static const char *const time_keys[] = {"log.retention.ms", "log.retention.minutes", "log.retention.hours"};
    static const int64_t time_unit[] = {1, 60000, 3600000};
    char id[16];
    snprintf(id, sizeof id, "%" PRId32, r->broker_id);
    const char *levels[2] = {r->has_broker_id ? id : NULL, ""};
    bool any = false, have_time = false, have_bytes = false, have_policy = false;
    int64_t v;
    for (int l = 0; l < 2; l++) {
        if (!levels[l])
            continue;
        for (int k = 0; k < 3 && !have_time; k++) {
            const char *t = kf_metadata_config(r->meta, KF_CONFIG_BROKER, levels[l], time_keys[k]);
            if (t && parse_long(t, &v)) {
                p->retention_ms = v < 0 ? -1 : v * time_unit[k];
                have_time = true;
            }
        }
        const char *bytes = kf_metadata_config(r->meta, KF_CONFIG_BROKER, levels[l], "log.retention.bytes");
        if (!have_bytes && bytes && parse_long(bytes, &v)) {
            p->retention_bytes = v;
            have_bytes = true;
        }
        const char *policy = kf_metadata_config(r->meta, KF_CONFIG_BROKER, levels[l], "log.cleanup.policy");
        if (!have_policy && policy) {
            p->cleanup_policy = policy;
            have_policy = true;
        }
    }
    any = have_time || have_bytes || have_policy;
    return any;
}

/* Topic config from the KRaft image, else a dynamic broker config there,
 * else --config, else Kafka's default. */
static void settings(run *r, pp_part *p)
{
    const kf_predict_config *c = r->cfg;
    const char *src = "default";
    p->retention_ms = 7 * 24 * 3600 * 1000LL;
    p->retention_bytes = -1;
    p->cleanup_policy = "delete";
    if (c && (c->has_retention_ms || c->has_retention_bytes || c->cleanup_policy))
        src = "--config";
    if (c && c->has_retention_ms)
        p->retention_ms = c->retention_ms;
    if (c && c->has_retention_bytes)
        p->retention_bytes = c->retention_bytes;
    if (c && c->cleanup_policy)
        p->cleanup_policy = c->cleanup_policy;
    if (r->meta && dynamic_broker_settings(r, p))
        src = "broker config";
    if (r->meta) {
        int64_t v;
        const char *ms = kf_metadata_config(r->meta, KF_CONFIG_TOPIC, p->topic, "retention.ms");
        const char *bytes = kf_metadata_config(r->meta, KF_CONFIG_TOPIC, p->topic, "retention.bytes");
        const char *policy = kf_metadata_config(r->meta, KF_CONFIG_TOPIC, p->topic, "cleanup.policy");
        if (ms && parse_long(ms, &v)) {
            p->retention_ms = v < 0 ? -1 : v;
            src = "topic config";
        }
        if (bytes && parse_long(bytes, &v)) {
            p->retention_bytes = v;
            src = "topic config";
        }
        if (policy) {
            p->cleanup_policy = policy;
            src = "topic config";
        }
    }
    p->retention_source = src;
    p->compact_only = policy_has(p->cleanup_policy, "compact") && !policy_has(p->cleanup_policy, "delete");
    p->out.retention_source = src;
    p->out.retention_ms = p->retention_ms;
    p->out.retention_bytes = p->retention_bytes;
    p->out.cleanup_policy = p->cleanup_policy;
}

/* ---- one partition, and the pool --------------------------------------------------- */

static void work_partition(run *r, pp_dir *d, pp_part *p)
{
    kf_predict_partition *o = &p->out;
    o->datadir = d->path;
    o->topic = p->topic;
    o->partition = p->partition;
    o->dir = p->dir;
    o->has_high_watermark = p->has_hw;
    o->high_watermark = p->hw;
    p->clean = d->out.clean_shutdown;
    p->max_batch_bytes = r->o.max_batch_bytes;
    p->now_ms = r->now;
    settings(r, p);
    if (p->io_error) {
        pp_io_error(p, p->dir, EACCES);
    } else {
        p->rc = pp_load_files(p);
        if (p->rc == KF_OK && !p->io_error && !p->fatal_what)
            pp_recover_log(p);
        if (p->rc == KF_OK && !p->io_error && !p->fatal_what)
            pp_retention(p);
    }
    if (p->rc == KF_OK && p->deleting)
        pp_act(p, KF_ACT_DELETE_PARTITION, p->dir,
               "marked for deletion (-delete): loaded without recovery, then deleted", 0);
    if (p->rc == KF_OK && p->stray_kraft)
        pp_act(p, KF_ACT_STRAY_PARTITION, p->dir,
               pp_strf(p, "%s; loaded, then renamed %s-%" PRId32 ".<id>-stray and kept out of service",
                       p->stray_reason, p->topic, p->partition),
               0);
    else if (p->rc == KF_OK && p->state == KF_PST_STRAY)
        pp_act(p, KF_ACT_STRAY_PARTITION, p->dir, "a stray replica (-stray): loaded and kept out of service", 0);
    o->state = p->state;
    part_trim(p);
}

static void *worker(void *arg)
{
    run *r = arg;
    for (;;) {
        pthread_mutex_lock(&r->mu);
        size_t i = r->next < r->nwork ? r->next++ : r->nwork;
        pthread_mutex_unlock(&r->mu);
        if (i >= r->nwork)
            return NULL;
        work_partition(r, r->work_dir, &r->work[i]);
    }
}

static unsigned online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)(n > 64 ? 64 : n) : 1;
}

static int work_dir(run *r, pp_dir *d)
{
    r->work_dir = d;
    r->work = d->parts;
    r->nwork = d->nparts;
    r->next = 0;
    unsigned jobs = r->o.jobs ? r->o.jobs : online_cpus();
    size_t nthreads = jobs > 1 && d->nparts > 1 ? (jobs < d->nparts ? jobs : d->nparts) : 0;
    pthread_t *th = calloc(nthreads ? nthreads : 1, sizeof *th);
    if (!th)
        return KF_ERR_NOMEM;
    size_t started = 0;
    for (; started < nthreads; started++)
        if (pthread_create(&th[started], NULL, worker, r) != 0)
            break;
    if (!started)
        worker(r);
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    for (size_t i = 0; i < d->nparts; i++)
        if (d->parts[i].rc != KF_OK)
            return d->parts[i].rc;
    return KF_OK;
}

/* ---- a log dir's forecast ------------------------------------------------------------ */

static int clean_shutdown(run *r, pp_dir *d)
{
    char *path = kf_path_join(d->path, KF_CLEAN_SHUTDOWN_FILE);
    if (!path)
        return KF_ERR_NOMEM;
    struct stat st;
    int rc = KF_OK;
    if (d->listed && stat(path, &st) == 0) {
        d->out.marker_present = true;
        d->out.clean_shutdown = !r->o.assume_unclean;
        kf_bytes m = {0};
        if (kf_file_read_all(path, 1 << 20, &m.data, &m.size) == KF_OK) {
            kf_clean_shutdown cs;
            char msg[160];
            if (kf_clean_shutdown_parse(m.data, (size_t)m.size, &cs, msg, sizeof msg) == KF_OK &&
                cs.has_broker_epoch) {
                d->out.has_broker_epoch = true;
                d->out.broker_epoch = cs.broker_epoch;
            }
            free(m.data);
        }
        rc = dir_act(d, KF_ACT_DELETE_FILE, path, NULL, -1,
                     "the clean-shutdown marker, deleted as loading starts (KAFKA-10471: a crash during start-up "
                     "is then an unclean shutdown)%s",
                     r->o.assume_unclean ? "; --assume-unclean: forecast as if it were absent" : "");
        if (rc == KF_OK)
            d->acts[d->nacts - 1].partition = -1;
    }
    free(path);
    return rc;
}

static void dir_totals(run *r, pp_dir *d)
{
    kf_predict_datadir *o = &d->out;
    o->datadir = d->path;
    o->recovery_threads = r->o.recovery_threads ? r->o.recovery_threads
                        : r->cfg && r->cfg->has_recovery_threads && r->cfg->recovery_threads > 0
                            ? (uint32_t)r->cfg->recovery_threads
                            : KF_PREDICT_DEFAULT_RECOVERY_THREADS;
    o->recovery_rate = r->o.recovery_rate ? r->o.recovery_rate : KF_PREDICT_DEFAULT_RECOVERY_RATE;
    uint64_t *bytes = calloc(d->nparts ? d->nparts : 1, sizeof *bytes);
    for (size_t i = 0; i < d->nparts; i++) {
        pp_part *p = &d->parts[i];
        if (p->io_error) {
            d->offline = true;
            if (p->io_what && dir_act(d, KF_ACT_FATAL, p->dir, p->topic, p->partition,
                                      "Error while loading log dir %s: %s", d->path, p->io_what) != KF_OK)
                r->rc = KF_ERR_NOMEM;
        }
        if (p->fatal_what) {
            d->stops = true;
            if (dir_act(d, KF_ACT_FATAL, p->dir, p->topic, p->partition, "%s", p->fatal_what) != KF_OK)
                r->rc = KF_ERR_NOMEM;
        }
    }
    for (size_t i = 0; i < d->nparts; i++) {
        pp_part *p = &d->parts[i];
        if (d->offline)
            p->out.state = KF_PST_OFFLINE;
        o->partitions++;
        o->segments_to_recover += p->out.segments_to_recover;
        o->bytes_to_recover += p->out.bytes_to_recover;
        o->partitions_to_recover += p->out.segments_to_recover > 0;
        o->offsets_lost += p->out.offsets_lost;
        o->acknowledged_lost += p->out.acknowledged_lost;
        for (size_t k = 0; k < p->out.n_retention_deletes; k++) {
            o->retention_segments++;
            o->retention_bytes += p->out.retention_deletes[k].bytes;
        }
        if (bytes)
            bytes[i] = p->out.bytes_to_recover;
    }
    if (!bytes)
        r->rc = KF_ERR_NOMEM;
    else
        o->estimated_recovery_seconds = pp_estimate_seconds(bytes, d->nparts, o->recovery_threads, o->recovery_rate);
    free(bytes);
    o->offline = d->offline;
    o->stops_broker = d->stops;
    for (size_t i = 0; i < d->nacts && !o->first_fatal; i++)
        if (d->acts[i].kind == KF_ACT_FATAL)
            o->first_fatal = d->acts[i].reason;
}

static void emit_dir_action(run *r, pp_dir *d, const dir_action *a)
{
    kf_predict_action x = {d->path, a->topic, a->partition, a->topic ? a->file : NULL, a->kind, a->file, a->reason,
                           0, 0, 0, 0};
    if (r->o.action_fn)
        r->o.action_fn(r->o.ctx, &x);
}

static void emit_dir(run *r, pp_dir *d)
{
    if (r->o.datadir_fn)
        r->o.datadir_fn(r->o.ctx, &d->out);
    for (size_t i = 0; i < d->nacts; i++)
        if (!d->acts[i].topic)
            emit_dir_action(r, d, &d->acts[i]);
    for (size_t i = 0; i < d->nparts; i++) {
        pp_part *p = &d->parts[i];
        for (size_t k = 0; k < d->nacts; k++) /* its fatals */
            if (d->acts[k].topic && !strcmp(d->acts[k].file, p->dir))
                emit_dir_action(r, d, &d->acts[k]);
        for (size_t k = 0; k < p->nacts && r->o.action_fn; k++)
            r->o.action_fn(r->o.ctx, &p->acts[k]);
        if (r->o.partition_fn)
            r->o.partition_fn(r->o.ctx, &p->out);
    }
}

static int64_t clock_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int kf_predict_run(char *const *datadirs, size_t n, const kf_predict_opts *o, kf_predict_summary *sum)
{
    run r;
    memset(&r, 0, sizeof r);
    memset(sum, 0, sizeof *sum);
    if (kf_opts_take(&r.o, o, sizeof r.o, KF_PREDICT_OPTIONS_VERSION, &r.o.max_batch_bytes) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    r.cfg = r.o.config;
    r.now = r.o.has_now ? r.o.now_ms : clock_ms();
    r.dirs = calloc(n ? n : 1, sizeof *r.dirs);
    if (!r.dirs)
        return KF_ERR_NOMEM;
    r.ndirs = n;
    pthread_mutex_init(&r.mu, NULL);
    int rc = KF_OK;
    for (size_t i = 0; i < n && rc == KF_OK; i++) {
        r.dirs[i].path = datadirs[i];
        rc = list_dir(&r, &r.dirs[i]);
    }
    if (rc == KF_OK)
        rc = check_meta_properties(&r);
    if (rc == KF_OK)
        rc = build_image(&r);
    for (size_t i = 0; i < n && rc == KF_OK; i++)
        for (size_t k = 0; k < r.dirs[i].nparts; k++)
            check_stray(&r, &r.dirs[i].parts[k]);
    if (rc == KF_OK)
        rc = check_duplicates(&r);
    for (size_t i = 0; i < n && rc == KF_OK; i++) {
        pp_dir *d = &r.dirs[i];
        rc = clean_shutdown(&r, d);
        if (rc == KF_OK)
            rc = read_checkpoints(d);
        if (rc == KF_OK)
            rc = work_dir(&r, d);
        if (rc == KF_OK) {
            dir_totals(&r, d);
            rc = r.rc;
        }
        if (rc == KF_OK) {
            emit_dir(&r, d);
            sum->datadirs++;
            sum->partitions += d->out.partitions;
            sum->offsets_lost += d->out.offsets_lost;
            sum->acknowledged_lost += d->out.acknowledged_lost;
            sum->fatal += d->out.fatal;
            if (d->out.estimated_recovery_seconds > sum->estimated_recovery_seconds)
                sum->estimated_recovery_seconds = d->out.estimated_recovery_seconds;
        }
        for (size_t k = 0; k < d->nparts; k++) /* emitted: what it kept can go */
            part_free(&d->parts[k]);
        d->nparts = 0;
    }
    for (size_t i = 0; i < n; i++) {
        pp_dir *d = &r.dirs[i];
        for (size_t k = 0; k < d->nparts; k++)
            part_free(&d->parts[k]);
        free(d->parts);
        for (size_t k = 0; k < d->nacts; k++) {
            free(d->acts[k].file);
            free(d->acts[k].reason);
            free(d->acts[k].topic);
        }
        free(d->acts);
        kf_datadir_info_free(&d->info);
    }
    free(r.dirs);
    kf_metadata_free(r.meta);
    pthread_mutex_destroy(&r.mu);
    if (rc != KF_OK)
        kf_error_set(rc, 0, NULL, "predict: %s", kf_err_str(rc));
    return rc;
}
