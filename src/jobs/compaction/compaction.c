/* Room jobs/compaction/: why a compacted partition does or does not
 * shrink. compaction.c, the driver (this file); compaction_feed.c, the one
 * read of a partition; compaction_keys.c, the keys and their latest
 * offsets; compaction_aborted.c, the aborted transactions the cleaner
 * drops; compaction_offsets.c, the cleaner's rule for where it may clean.
 *
 * compaction.c: the compaction job's driver (include/kfsck/compaction.h).
 * For each partition of the inputs, one at a time: is it compacted (an
 * internal topic, its cleanup.policy, or named as a PATH), its cleaner
 * configs (the KRaft metadata's topic config, else the option, else the
 * metadata's cluster-wide broker default, else Kafka's), the data dir's
 * cleaner-offset-, replication-offset- and log-start-offset-checkpoint
 * entries; then the one read of compaction_feed.c, the last stable offset
 * as UnifiedLog.lastStableOffset takes it, and the cleaner's rule
 * (compaction_offsets.c); a transaction that pins the cleaning is named
 * from the txns room's coordinator view of the __transaction_state
 * partitions among the inputs and weighed against its timeout (hanging or
 * live). docs/formats.md §19. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "bytes/opts.h"
#include "bytes/report.h"
#include "jobs/compaction/compaction_internal.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/file.h"
#include "kfsck/sys/names.h"
#include "format/paths.h"

#define CLEANER_CHECKPOINT "cleaner-offset-checkpoint"
#define HW_CHECKPOINT "replication-offset-checkpoint"
#define LOG_START_CHECKPOINT "log-start-offset-checkpoint"

const char *kf_config_source_name(kf_config_source s)
{
    switch (s) {
    case KF_CONFIG_FROM_DEFAULT: return "default";
    case KF_CONFIG_FROM_OPTION: return "option";
    case KF_CONFIG_FROM_METADATA: return "metadata";
    }
    return "unknown";
}

void kf_compaction_opts_init(kf_compaction_opts *o)
{
    *o = (kf_compaction_opts)KF_COMPACTION_OPTIONS_INIT;
}

/* ---- which partitions were named as PATHs -------------------------------- */

typedef struct named_part {
    char topic[256];
    int32_t partition;
} named_part;

typedef struct named_list {
    named_part *v;
    size_t n;
} named_list;

static int add_named(named_list *l, const char *topic, int32_t partition)
{
    named_part *v = realloc(l->v, (l->n + 1) * sizeof *v);
    if (!v)
        return kf_error_nomem();
    l->v = v;
    snprintf(v[l->n].topic, sizeof v[l->n].topic, "%s", topic);
    v[l->n++].partition = partition;
    return KF_OK;
}

static int named_partition_dir(void *ctx, const kf_path_entry *e)
{
    if (e->in_datadir || e->kind != KF_PATH_PARTITION)
        return KF_OK;
    if (!e->partition_named)
        return add_named(ctx, "", -1);
    return add_named(ctx, e->topic, e->partition);
}

/* A segment file PATH names the partition of the directory holding it. */
static int named_file(void *ctx, const kf_path_entry *e)
{
    char *dir = kf_path_dir(e->path);
    if (!dir)
        return KF_ERR_NOMEM;
    char topic[256];
    int32_t partition;
    if (!kf_parse_partition_dir(kf_path_base(dir), topic, sizeof topic, &partition)) {
        topic[0] = 0;
        partition = -1;
    }
    free(dir);
    return add_named(ctx, topic, partition);
}

static int collect_named(const kf_compaction_opts *o, named_list *l)
{
    if (!o->paths || !o->npaths)
        return KF_OK;
    kf_paths_walk_opts w;
    kf_paths_walk_opts_on(&w, named_file, named_partition_dir, NULL, l, NULL, NULL);
    int rc = kf_paths_walk(o->paths, o->npaths, &w);
    return rc == KF_ERR_NOMEM ? rc : KF_OK; /* unusable PATHs were reported by the inputs' walk */
}

static bool is_named(const named_list *l, const kf_partition *p)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].partition == p->partition && !strcmp(l->v[i].topic, p->topic))
            return true;
    return false;
}

/* ---- configs -------------------------------------------------------------- */

/* A topic config and the broker config that is its cluster-wide default. */
typedef struct config_name {
    const char *topic, *broker;
} config_name;

static const config_name CLEANUP_POLICY = {"cleanup.policy", "log.cleanup.policy"};
static const config_name MIN_RATIO = {"min.cleanable.dirty.ratio", "log.cleaner.min.cleanable.ratio"};
static const config_name MIN_LAG = {"min.compaction.lag.ms", "log.cleaner.min.compaction.lag.ms"};
static const config_name MAX_LAG = {"max.compaction.lag.ms", "log.cleaner.max.compaction.lag.ms"};
static const config_name DELETE_RETENTION = {"delete.retention.ms", "log.cleaner.delete.retention.ms"};

static const char *topic_config(const kf_compaction_opts *o, const kf_partition *p, const config_name *n)
{
    return o->metadata && p->topic[0] ? kf_metadata_config(o->metadata, KF_CONFIG_TOPIC, p->topic, n->topic) : NULL;
}

static const char *broker_default(const kf_compaction_opts *o, const config_name *n)
{
    return o->metadata ? kf_metadata_config(o->metadata, KF_CONFIG_BROKER, "", n->broker) : NULL;
}

static bool parse_ms(const char *s, int64_t *v)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || *end)
        return false;
    *v = x;
    return true;
}

static bool parse_ratio(const char *s, double *v)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (errno || *end || !isfinite(x))
        return false;
    *v = x;
    return true;
}

/* A millisecond config: topic, option, broker default, Kafka's default. */
static int64_t ms_config(const kf_compaction_opts *o, const kf_partition *p, const config_name *n, bool has_opt,
                         int64_t opt, int64_t dflt, kf_config_source *src)
{
    int64_t v;
    *src = KF_CONFIG_FROM_METADATA;
    if (parse_ms(topic_config(o, p, n), &v))
        return v;
    *src = KF_CONFIG_FROM_OPTION;
    if (has_opt)
        return opt;
    *src = KF_CONFIG_FROM_METADATA;
    if (parse_ms(broker_default(o, n), &v))
        return v;
    *src = KF_CONFIG_FROM_DEFAULT;
    return dflt;
}

/* cleanup.policy holds "compact" among its comma-separated words. */
static bool policy_compacts(const char *policy)
{
    for (const char *s = policy; s && *s;) {
        while (*s == ' ' || *s == ',')
            s++;
        size_t len = strcspn(s, ", ");
        if (len == 7 && !strncmp(s, "compact", 7))
            return true;
        s += len;
    }
    return false;
}

static bool is_internal(const kf_partition *p)
{
    return !strcmp(p->topic, "__consumer_offsets") || !strcmp(p->topic, "__transaction_state");
}

static void configs_of(const kf_compaction_opts *o, const kf_partition *p, bool named, kf_compaction_result *r)
{
    r->cleanup_policy = topic_config(o, p, &CLEANUP_POLICY);
    r->cleanup_policy_source = KF_CONFIG_FROM_METADATA;
    if (!r->cleanup_policy && (r->cleanup_policy = broker_default(o, &CLEANUP_POLICY)) == NULL)
        r->cleanup_policy_source = KF_CONFIG_FROM_DEFAULT;
    if (is_internal(p))
        r->compacted_by = KF_COMPACTED_INTERNAL;
    else if (policy_compacts(r->cleanup_policy))
        r->compacted_by = KF_COMPACTED_CONFIG;
    else if (named)
        r->compacted_by = KF_COMPACTED_NAMED;
    else
        r->compacted_by = KF_COMPACTED_NOT;

    r->min_cleanable_ratio_source = KF_CONFIG_FROM_METADATA;
    if (!parse_ratio(topic_config(o, p, &MIN_RATIO), &r->min_cleanable_ratio)) {
        r->min_cleanable_ratio_source = KF_CONFIG_FROM_OPTION;
        r->min_cleanable_ratio = o->min_cleanable_ratio;
        if (!o->has_min_cleanable_ratio) {
            r->min_cleanable_ratio_source = KF_CONFIG_FROM_METADATA;
            if (!parse_ratio(broker_default(o, &MIN_RATIO), &r->min_cleanable_ratio)) {
                r->min_cleanable_ratio_source = KF_CONFIG_FROM_DEFAULT;
                r->min_cleanable_ratio = 0.5;
            }
        }
    }
    r->min_compaction_lag_ms = ms_config(o, p, &MIN_LAG, o->has_min_compaction_lag_ms, o->min_compaction_lag_ms, 0,
                                         &r->min_compaction_lag_source);
    r->max_compaction_lag_ms = ms_config(o, p, &MAX_LAG, o->has_max_compaction_lag_ms, o->max_compaction_lag_ms,
                                         INT64_MAX, &r->max_compaction_lag_source);
    r->delete_retention_ms =
        ms_config(o, p, &DELETE_RETENTION, false, 0, 86400000, &r->delete_retention_source);
}

/* ---- the data dir's checkpoints -------------------------------------------- */

/* The data dir holding the first copy: the partition dir's parent (for a
 * lone segment file: its directory's parent). NULL when unknown. */
static char *datadir_of(const kf_partition *p)
{
    if (!p->ncopies || !p->topic[0])
        return NULL;
    const kf_partition_copy *c = &p->copies[0];
    char *part = (c->nseg == 1 && !strcmp(c->segments[0], c->label)) ? kf_path_dir(c->label) : strdup(c->label);
    char *dir = part ? kf_path_dir(part) : NULL;
    free(part);
    return dir;
}

/* Where a checkpoint's problems go: the options' problem_fn, with the
 * file named. */
typedef struct ckpt_where {
    const char *file;
    const kf_compaction_opts *o;
} ckpt_where;

static void ckpt_problem(void *ctx, const kf_problem *pb)
{
    ckpt_where *w = ctx;
    kf_problem q = *pb;
    q.file = w->file;
    if (w->o->problem_fn)
        w->o->problem_fn(w->o->problem_ctx, &q);
}

/* The partition's entry in dir/name: KF_OK (*found says whether there is
 * one) or KF_ERR_NOMEM. A missing file has none; one that cannot be read
 * is a warning. */
static int checkpoint_entry(const kf_compaction_opts *o, const kf_partition *p, const char *dir, const char *name,
                            bool *found, int64_t *offset)
{
    *found = false;
    if (!dir)
        return KF_OK;
    char *path = kf_path_join(dir, name);
    if (!path)
        return KF_ERR_NOMEM;
    ckpt_where w = {path, o};
    int err_no = 0;
    int rc = kf_error_errno(kf_checkpoint_find(path, p->topic, p->partition, found, offset, ckpt_problem, &w), &err_no);
    if (rc == KF_ERR_IO && err_no != ENOENT)
        kf_report_in(o->problem_fn, o->problem_ctx, path, KF_P_UNREADABLE, KF_SEV_WARNING, 0, false, 0,
                     "cannot read: %s", kf_path_error_str(err_no));
    free(path);
    return rc == KF_ERR_NOMEM ? rc : KF_OK;
}

/* ---- one partition ---------------------------------------------------------- */

/* The log's bounds and the last stable offset (UnifiedLog.lastStableOffset:
 * the oldest open transaction's first offset when it is below the high
 * watermark, else the high watermark; with no high watermark known, the log
 * end stands for it). */
static void log_bounds(kf_compaction_result *r, const cp_log *log, bool has_ls, int64_t ls)
{
    r->segments = log->nseg;
    for (size_t i = 0; i < log->nseg; i++)
        r->bytes += log->segs[i].bytes;
    r->log_start_offset = log->segs[0].base_offset;
    if (has_ls && ls > r->log_start_offset)
        r->log_start_offset = ls;
    r->log_end_offset = log->txns.has_log_end ? log->txns.log_end_offset : log->segs[log->nseg - 1].base_offset;
    if (r->log_start_offset > r->log_end_offset)
        r->log_start_offset = r->log_end_offset;
    int64_t hw = r->log_end_offset;
    if (r->has_high_watermark) {
        if (r->high_watermark > r->log_end_offset)
            r->high_watermark = r->log_end_offset;
        if (r->high_watermark < r->log_start_offset)
            r->high_watermark = r->log_start_offset;
        hw = r->high_watermark;
    }
    r->open_transactions = log->txns.open_transactions;
    r->last_stable_offset = hw;
    if (log->has_oldest_open && log->oldest_open.first_offset < hw)
        r->last_stable_offset = log->oldest_open.first_offset;
}

/* The coordinator's view, read the first time a transaction pins a
 * partition: every __transaction_state partition among the inputs replayed
 * (kf_txn_coord_read_inputs). Damage in them is not reported again: the
 * job reads them as compacted partitions too, and says it there. */
typedef struct coord_view {
    const kf_inputs *in;
    bool read;
    kf_txn_coord_inputs v;
} coord_view;

static int coord_of(coord_view *cv, const kf_compaction_opts *o, kf_txn_coord **c)
{
    int rc = KF_OK;
    if (!cv->read) {
        kf_part_reader_opts ro = o->read;
        ro.problem_fn = NULL;
        ro.conflict_fn = NULL;
        ro.hole_fn = NULL;
        rc = kf_txn_coord_read_inputs(&cv->v, cv->in, &ro, o->problem_fn, o->problem_ctx);
        cv->read = true;
    }
    *c = cv->v.coord;
    return rc;
}

/* Who the pinning transaction is and whether it hangs (kf_pinning_txn). */
static int name_pinning(coord_view *cv, const kf_compaction_opts *o, kf_compaction_result *r)
{
    kf_pinning_txn *w = &r->pinning;
    const kf_open_txn *t = &r->pinned_by;
    kf_txn_coord *c;
    int rc = coord_of(cv, o, &c);
    if (rc != KF_OK)
        return rc;
    const kf_txn_coord_entry *e = c ? kf_txn_coord_find(c, t->producer_id) : NULL;
    w->coordinator = c != NULL;
    w->transactional_id = e ? e->transactional_id : NULL;
    w->coordinator_state = e ? e->state : -1;
    w->timeout_from_coordinator = e && e->timeout_ms > 0;
    w->timeout_ms = w->timeout_from_coordinator ? e->timeout_ms : KF_TXN_MAX_TIMEOUT_MS_DEFAULT;
    w->has_age = t->has_first_timestamp;
    w->age_ms = w->has_age ? o->now_ms - t->first_timestamp : 0;
    w->hanging = w->has_age && w->age_ms > w->timeout_ms;
    return KF_OK;
}

static int analyse(const kf_partition *p, const kf_compaction_opts *o, kf_compaction_result *r, bool *unreadable)
{
    char *dir = datadir_of(p);
    if (p->topic[0] && p->partition >= 0 && !dir)
        return kf_error_nomem();
    bool has_ls = false;
    int64_t ls = 0;
    int rc = checkpoint_entry(o, p, dir, CLEANER_CHECKPOINT, &r->has_cleaner_offset, &r->cleaner_offset);
    if (rc == KF_OK)
        rc = checkpoint_entry(o, p, dir, HW_CHECKPOINT, &r->has_high_watermark, &r->high_watermark);
    if (rc == KF_OK)
        rc = checkpoint_entry(o, p, dir, LOG_START_CHECKPOINT, &has_ls, &ls);
    free(dir);
    cp_log log = {0};
    if (rc == KF_OK)
        rc = cp_read_partition(p, o, r, &log, unreadable);
    if (rc != KF_OK) {
        free(log.segs);
        return rc;
    }
    log_bounds(r, &log, has_ls, ls);
    kf_cleanable_input in = {
        .segments = log.segs,
        .nsegments = log.nseg,
        .log_start_offset = r->log_start_offset,
        .log_end_offset = r->log_end_offset,
        .has_checkpoint = r->has_cleaner_offset,
        .checkpoint_offset = r->cleaner_offset,
        .last_stable_offset = r->last_stable_offset,
        .now_ms = o->now_ms,
        .min_compaction_lag_ms = r->min_compaction_lag_ms,
        .max_compaction_lag_ms = r->max_compaction_lag_ms,
        .min_cleanable_ratio = r->min_cleanable_ratio,
    };
    kf_cleanable_offsets(&in, &r->cleanable);
    r->pinned = r->cleanable.reason == KF_UNCLEANABLE_LAST_STABLE_OFFSET && log.has_oldest_open &&
                log.oldest_open.first_offset == r->last_stable_offset;
    if (r->pinned)
        r->pinned_by = log.oldest_open;
    free(log.segs);
    return KF_OK;
}

int kf_compaction_run(const kf_inputs *in, const kf_compaction_opts *o, kf_compaction_fn fn, void *ctx,
                      kf_compaction_totals *tot)
{
    kf_compaction_totals t = {0};
    kf_compaction_opts own;
    if (kf_opts_take(&own, o, sizeof own, KF_COMPACTION_OPTIONS_VERSION, NULL) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    kf_opts_nested(&own.read.version, KF_PART_READER_OPTIONS_VERSION);
    o = &own;
    named_list named = {0};
    coord_view cv = {.in = in};
    int rc = collect_named(o, &named);
    for (size_t i = 0; i < in->n && rc == KF_OK; i++) {
        const kf_partition *p = &in->parts[i];
        if (!strcmp(p->topic, "__cluster_metadata"))
            continue;
        kf_compaction_result r;
        memset(&r, 0, sizeof r);
        r.partition = p;
        r.named = is_named(&named, p);
        configs_of(o, p, r.named, &r);
        if (r.compacted_by != KF_COMPACTED_NOT) {
            rc = analyse(p, o, &r, &t.unreadable);
            if (rc == KF_OK && r.pinned)
                rc = name_pinning(&cv, o, &r);
            t.partitions++;
            t.pinned += r.pinned;
            t.would_clean += r.cleanable.would_clean;
        } else {
            t.skipped++;
        }
        if (rc == KF_OK && fn)
            rc = fn(ctx, &r);
    }
    kf_txn_coord_inputs_free(&cv.v);
    free(named.v);
    if (tot)
        *tot = t;
    return rc;
}
