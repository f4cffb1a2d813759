/* Room jobs/predict/: what a broker starting on these log dirs does.
 *   predict.c            the driver (this file)
 *   predict_dirs.c       the log dirs' listing and the checks across them
 *   predict_kraft.c      a KRaft node's own start-up checks
 *   predict_files.c      one partition's files: leftovers, indexes, snapshots
 *   predict_recovery.c   where recovery ends and what it cuts
 *   predict_kept.c       the damage it keeps, the acknowledged offsets it misses
 *   predict_groups.c     the group commits a cut of __consumer_offsets changes
 *   predict_retention.c  what retention deletes at start-up
 *   predict_fate.c       whether the next start recovers one segment (verify)
 *   predict_config.c     the broker's settings from server.properties
 *   predict_estimate.c   the recovery time estimate
 *
 * predict.c: the driver of the predict job (include/kfsck/predict.h,
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
 * partition) order once the log dir's verdict is known. The log dirs'
 * listing and the checks across them are predict_dirs.c's. */
#include "predict_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytes/grow.h"
#include "bytes/satmath.h"
#include "bytes/error.h"
#include "bytes/pool.h"
#include "bytes/opts.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/clean_shutdown.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/file.h"
#include "kfsck/metadata.h"
#include "kfsck/paths.h"
#include "kfsck/timestamp.h"

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
    static const char *const names[] = {"online", "future", "deleting", "stray", "offline", "missing"};
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
    if (!KF_GROW(p->owned, p->nowned, p->capowned, 8)) {
        free(s);
        p->rc = KF_ERR_NOMEM;
        return NULL;
    }
    return p->owned[p->nowned++] = s;
}

char *pp_vformat(const char *fmt, va_list ap)
{
    char *s = NULL;
    return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

char *pp_strf(pp_part *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = pp_vformat(fmt, ap);
    va_end(ap);
    return keep(p, s);
}

kf_predict_action *pp_act(pp_part *p, kf_predict_action_kind k, const char *file, const char *reason,
                          uint64_t bytes)
{
    if (p->rc != KF_OK || !file || !reason)
        return NULL;
    if (!KF_GROW(p->acts, p->nacts, p->capacts, 8)) {
        p->rc = KF_ERR_NOMEM;
        return NULL;
    }
    kf_predict_action *a = &p->acts[p->nacts++];
    *a = (kf_predict_action){{p->datadir, p->topic, p->partition, p->dir}, k, file, reason, bytes, 0, 0, 0, false};
    return a;
}

bool pp_grow(pp_part *p, void *pv, size_t *cap, size_t n, size_t sz)
{
    if (p->rc != KF_OK)
        return false;
    if (n < *cap || kf_grow_(pv, cap, sz, 8))
        return true;
    p->rc = KF_ERR_NOMEM;
    return false;
}

void pp_io_error(pp_part *p, const char *path, int err_no)
{
    if (!p->io_error)
        p->io_what = pp_strf(p, "%s: %s", path, err_no ? strerror(err_no) : "cannot be read");
    p->io_error = true;
}

static bool is_symlink(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

static void part_free(pp_part *p)
{
    free(p->dir_why);
    p->dir_why = NULL;
    for (size_t i = 0; i < p->nfiles; i++)
        free(p->files[i].name);
    free(p->files);
    free(p->segs);
    free(p->snaps);
    free(p->acts);
    free(p->rets);
    free(p->kept);
    free(p->groups);
    free(p->cuts);
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
    free(p->cuts);
    p->cuts = NULL;
    p->ncuts = p->capcuts = 0;
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
        if (!pp_dir_fifo(d, path, &rc) && stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
            ck_join j = {d, k};
            int32_t version;
            rc = kf_checkpoint_read(path, KF_CHECKPOINT_OFFSETS, &version, ck_entry, &j, NULL, NULL);
            if (rc != KF_OK && rc != KF_ERR_NOMEM) {
                /* CheckpointFileWithFailureHandler: an IOException (a file that
                 * cannot be read, a malformed line, a wrong count) is reported
                 * to the log dir failure channel, which takes the log dir
                 * offline once loaded; any other exception only resets it
                 * (docs/formats.md §20.3) */
                const kf_error *e = kf_error_last();
                if (rc == KF_ERR_IO || e->err_no == EIO) {
                    char what[sizeof e->message];
                    snprintf(what, sizeof what, "%s", rc == KF_ERR_IO ? kf_read_error_str(rc, e->err_no) : e->message);
                    d->offline = true;
                    rc = pp_dir_act(d, KF_ACT_FATAL, path, NULL, -1,
                                    "Error while reading checkpoint file %s (%s): the log dir is reported failed and "
                                    "goes offline",
                                    path, what);
                    if (rc != KF_OK)
                        break;
                }
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
    return kf_java_long(s, n, v);
}

/* The retention settings set dynamically (kafka-configs.sh --entity-type
 * brokers) in the KRaft image, over server.properties. A level (this
 * broker's configs, else the cluster-wide default, resource name "") that
 * sets any of log.retention.ms, .minutes, .hours replaces the whole group,
 * as DynamicBrokerConfig.overrideProps drops a key's synonyms; within it
 * ms, else minutes, else hours. log.retention.bytes and log.cleanup.policy
 * likewise, each alone. True when one is set. */
static bool dynamic_broker_settings(pp_run *r, pp_part *p)
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

/* Kafka's internal topics, created with cleanup.policy=compact
 * (GroupCoordinator, TransactionStateManager, ShareCoordinator): no time or
 * size retention whatever the broker's defaults say. */
static bool internal_compacted(const char *topic)
{
    static const char *const names[] = {"__consumer_offsets", "__transaction_state", "__share_group_state"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(topic, names[i]))
            return true;
    return false;
}

/* Topic config from the KRaft image, else a dynamic broker config there,
 * else --config, else Kafka's default; an internal topic whose image has no
 * cleanup.policy of its own was created compacted. */
static void settings(pp_run *r, pp_part *p)
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
    if (internal_compacted(p->topic) &&
        !(r->meta && kf_metadata_config(r->meta, KF_CONFIG_TOPIC, p->topic, "cleanup.policy"))) {
        p->cleanup_policy = "compact";
        src = "internal_topic";
    }
    p->retention_source = src;
    p->compact_only = policy_has(p->cleanup_policy, "compact") && !policy_has(p->cleanup_policy, "delete");
    p->out.retention_source = src;
    p->out.retention_ms = p->retention_ms;
    p->out.retention_bytes = p->retention_bytes;
    p->out.cleanup_policy = p->cleanup_policy;
}

/* ---- one partition, and the pool --------------------------------------------------- */

/* A segment recovered and kept whole is routine work; one recovery of a
 * segment that is then cut is not. */
static void mark_routine(pp_part *p)
{
    for (size_t i = 0; i < p->nacts; i++) {
        kf_predict_action *a = &p->acts[i];
        if (a->action != KF_ACT_RECOVER_SEGMENT && a->action != KF_ACT_REBUILD_INDEX)
            continue;
        a->routine = true;
        bool again = false; /* a segment recovered twice (a missing .index, then recoverLog) counts once */
        for (size_t k = 0; k < p->nacts && a->routine; k++) {
            if (p->acts[k].action == KF_ACT_TRUNCATE_SEGMENT && !strcmp(p->acts[k].file, a->file))
                a->routine = false;
            again |= k < i && p->acts[k].routine && !strcmp(p->acts[k].file, a->file);
        }
        p->routine_recoveries += a->routine && !again;
    }
}

static void work_partition(pp_run *r, pp_dir *d, pp_part *p)
{
    kf_predict_partition *o = &p->out;
    o->id = (kf_partition_ref){d->path, p->topic, p->partition, p->dir};
    o->has_high_watermark = p->has_hw;
    o->high_watermark = p->hw;
    p->clean = d->out.clean_shutdown;
    p->max_batch_bytes = r->o.max_batch_bytes;
    p->now_ms = r->now;
    settings(r, p);
    bool symlink_gone = (p->dir_errno == ENOENT || p->dir_errno == ELOOP) && is_symlink(p->dir);
    if (symlink_gone) {
        /* LogManager.loadLogs loads the entries File.isDirectory says are
         * directories: a dangling or looping symlink is not one */
        p->state = KF_PST_MISSING;
        o->missing_why = pp_strf(p, "%s", p->dir_why);
    } else if (p->dir_errno) {
        /* listing it fails as the broker opens its files: an I/O error */
        p->io_what = pp_strf(p, "%s: %s", p->dir, p->dir_why);
        p->io_error = true;
    } else {
        p->rc = pp_load_files(p);
        if (p->rc == KF_OK && !p->io_error && !p->fatal_what)
            pp_recover_log(p);
        if (p->rc == KF_OK && !p->io_error && !p->fatal_what)
            pp_damage_kept(p);
        if (p->rc == KF_OK && !p->io_error && !p->fatal_what)
            pp_groups_affected(p);
        if (p->rc == KF_OK && !p->io_error && !p->fatal_what)
            pp_retention(p);
        mark_routine(p);
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

static void work_one(void *ctx, size_t i)
{
    pp_run *r = ctx;
    work_partition(r, r->work_dir, &r->work_dir->parts[i]);
}

/* The log dir's partitions on the library's worker pool (results stay in
 * d->parts, read once all are done). */
static int work_dir(pp_run *r, pp_dir *d)
{
    r->work_dir = d;
    int rc = kf_pool_run(d->nparts, r->o.jobs, work_one, NULL, r);
    if (rc != KF_OK)
        return rc;
    for (size_t i = 0; i < d->nparts; i++)
        if (d->parts[i].rc != KF_OK)
            return d->parts[i].rc;
    return KF_OK;
}

/* ---- a log dir's forecast ------------------------------------------------------------ */

static int clean_shutdown(pp_run *r, pp_dir *d)
{
    char *path = kf_path_join(d->path, KF_CLEAN_SHUTDOWN_FILE);
    if (!path)
        return KF_ERR_NOMEM;
    struct stat st;
    int rc = KF_OK;
    if (d->listed && stat(path, &st) == 0) {
        d->out.marker_present = true;
        d->out.clean_shutdown = !r->o.assume_unclean;
        kf_file_contents m = {0};
        /* a JSON object of two fields: small by nature, read whole with a
         * cap (KF_META_FILE_MAX); a larger one names no broker epoch */
        if (kf_file_read_all(path, KF_META_FILE_MAX, &m.data, &m.size) == KF_OK) {
            kf_clean_shutdown cs;
            if (kf_clean_shutdown_parse(m.data, (size_t)m.size, &cs) == KF_OK &&
                cs.has_broker_epoch) {
                d->out.has_broker_epoch = true;
                d->out.broker_epoch = cs.broker_epoch;
            }
            free(m.data);
        }
        rc = pp_dir_act(d, KF_ACT_DELETE_FILE, path, NULL, -1,
                     "the clean-shutdown marker, deleted as loading starts (KAFKA-10471: a crash during start-up "
                     "is then an unclean shutdown)%s",
                     r->o.assume_unclean ? "; --assume-unclean: forecast as if it were absent" : "");
        if (rc == KF_OK)
            d->acts[d->nacts - 1].partition = -1;
    }
    free(path);
    return rc;
}

static void dir_totals(pp_run *r, pp_dir *d)
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
            if (p->io_what && pp_dir_act(d, KF_ACT_FATAL, p->dir, p->topic, p->partition,
                                      "Error while loading log dir %s: %s", d->path, p->io_what) != KF_OK)
                r->rc = KF_ERR_NOMEM;
        }
        if (p->fatal_what) {
            d->stops = true;
            if (pp_dir_act(d, KF_ACT_FATAL, p->dir, p->topic, p->partition, "%s", p->fatal_what) != KF_OK)
                r->rc = KF_ERR_NOMEM;
        }
    }
    for (size_t i = 0; i < d->nparts; i++) {
        pp_part *p = &d->parts[i];
        if (d->offline)
            p->out.state = KF_PST_OFFLINE;
        if (kf_predict_partition_harmed(&p->out)) {
            const kf_predict_partition **nh = realloc(d->harmed, (o->n_harmed + 1) * sizeof *nh);
            if (!nh) {
                r->rc = KF_ERR_NOMEM;
            } else {
                d->harmed = nh;
                nh[o->n_harmed++] = &p->out;
            }
        }
        o->acknowledged_missing = kf_sat_add(o->acknowledged_missing, p->out.acknowledged_missing);
        o->damage_kept += p->out.n_damage_kept + p->out.damage_kept_omitted;
        o->groups_affected += p->out.n_groups_affected;
        o->routine_recoveries += p->routine_recoveries;
        o->producer_rebuilds_from_start += p->out.producer_state == KF_PRODUCER_REBUILD_FROM_START;
        o->partitions++;
        o->segments_to_recover += p->out.segments_to_recover;
        o->bytes_to_recover = kf_sat_addu(o->bytes_to_recover, p->out.bytes_to_recover);
        o->partitions_to_recover += p->out.segments_to_recover > 0;
        o->offsets_lost = kf_sat_add(o->offsets_lost, p->out.offsets_lost);
        o->acknowledged_lost = kf_sat_add(o->acknowledged_lost, p->out.acknowledged_lost);
        for (size_t k = 0; k < p->out.n_retention_deletes; k++) {
            o->retention_segments++;
            o->retention_bytes = kf_sat_addu(o->retention_bytes, p->out.retention_deletes[k].bytes);
        }
        if (bytes)
            bytes[i] = p->out.bytes_to_recover;
    }
    if (!bytes)
        r->rc = KF_ERR_NOMEM;
    else
        o->estimated_recovery_seconds = pp_estimate_seconds(bytes, d->nparts, o->recovery_threads, o->recovery_rate);
    free(bytes);
    o->harmed = d->harmed;
    o->kraft_snapshot_cut = d->kraft_snapshot;
    o->offline = d->offline;
    o->stops_broker = d->stops;
    for (size_t i = 0; i < d->nacts && !o->first_fatal; i++)
        if (d->acts[i].kind == KF_ACT_FATAL)
            o->first_fatal = d->acts[i].reason;
}

static void emit_dir_action(pp_run *r, pp_dir *d, const pp_dir_action *a)
{
    kf_predict_action x = {{d->path, a->topic, a->partition, a->topic ? a->file : NULL}, a->kind, a->file, a->reason,
                           0, 0, 0, 0, false};
    if (r->o.action_fn)
        r->o.action_fn(r->o.ctx, &x);
}

static void emit_dir(pp_run *r, pp_dir *d)
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

int kf_predict_run(char *const *datadirs, size_t n, const kf_predict_opts *o, kf_predict_summary *sum)
{
    pp_run r;
    memset(&r, 0, sizeof r);
    memset(sum, 0, sizeof *sum);
    if (kf_opts_take(&r.o, o, sizeof r.o, KF_PREDICT_OPTIONS_VERSION, &r.o.max_batch_bytes) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    r.cfg = r.o.config;
    r.now = r.o.has_now ? r.o.now_ms : kf_now_ms();
    r.dirs = calloc(n ? n : 1, sizeof *r.dirs);
    if (!r.dirs)
        return kf_error_nomem();
    r.ndirs = n;
    int rc = KF_OK;
    for (size_t i = 0; i < n && rc == KF_OK; i++) {
        r.dirs[i].path = datadirs[i];
        rc = pp_list_dir(&r, &r.dirs[i]);
    }
    if (rc == KF_OK)
        rc = pp_check_meta_properties(&r);
    /* the raft layer's own checks first: whether the latest snapshot is
     * whole decides which image the node loads */
    for (size_t i = 0; i < n && rc == KF_OK; i++)
        if (r.dirs[i].has_metadata_log)
            rc = pp_check_kraft(&r, &r.dirs[i]);
    if (rc == KF_OK)
        rc = pp_build_image(&r);
    if (rc == KF_OK)
        rc = pp_check_kraft_load(&r);
    for (size_t i = 0; i < n && rc == KF_OK; i++)
        for (size_t k = 0; k < r.dirs[i].nparts; k++)
            pp_check_stray(&r, &r.dirs[i].parts[k]);
    if (rc == KF_OK)
        rc = pp_check_duplicates(&r);
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
            sum->offsets_lost = kf_sat_add(sum->offsets_lost, d->out.offsets_lost);
            sum->acknowledged_lost = kf_sat_add(sum->acknowledged_lost, d->out.acknowledged_lost);
            sum->fatal += d->out.fatal;
            sum->acknowledged_missing = kf_sat_add(sum->acknowledged_missing, d->out.acknowledged_missing);
            sum->damage_kept = kf_sat_addu(sum->damage_kept, d->out.damage_kept);
            sum->groups_affected += d->out.groups_affected;
            sum->partitions_harmed += d->out.n_harmed;
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
        free(d->harmed);
        free(d->kraft_snapshot);
        kf_datadir_info_free(&d->info);
    }
    free(r.dirs);
    kf_metadata_free(r.meta);
    if (rc != KF_OK)
        kf_error_set(rc, 0, NULL, "predict: %s", kf_err_str(rc));
    return rc;
}
