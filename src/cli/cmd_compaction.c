/* cmd_compaction.c: `kfsck compaction`: why a compacted partition does not
 * shrink and what a cleaning would give back. The KRaft metadata among the
 * inputs (when there is one) gives the topics' cleaner configs; the job
 * (src/jobs/compaction/compaction.c) reads each compacted partition once and says
 * where the cleaner would start and stop, what holds it, and what a full
 * cleaning frees. This file only parses options and prints: per partition a
 * JSON line, or in text (compaction_text.c) a verdict line, then the
 * figures; without --verbose the partitions of a data dir with nothing to
 * say are counted, not listed. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/compaction_text.h"
#include "cli/partitions.h"
#include "cli/walk.h"
#include "kfsck/compaction.h"

typedef struct compaction_run {
    bool json, verbose;
    out *o;
    report rep;
    uint64_t quiet, not_compacted; /* text: partitions not listed (no --verbose) */
} compaction_run;

/* ---- JSON -------------------------------------------------------------------- */

/* A run of count fields of one JSON object. */
typedef struct count_field {
    const char *key;
    uint64_t value;
} count_field;

static void out_counts(out *o, const count_field *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out_uint(o, f[i].key, f[i].value);
}

static void print_json(out *o, const kf_compaction_result *r)
{
    const kf_partition *p = r->partition;
    const kf_cleanable *c = &r->cleanable;
    out_begin(o, "compaction");
    out_str(o, "topic", p->topic[0] ? p->topic : NULL);
    out_opt_int(o, "partition", p->partition >= 0, p->partition);
    out_uint(o, "bytes", r->bytes);
    out_opt_int(o, "cleaner_offset", r->has_cleaner_offset, r->cleaner_offset);
    out_int(o, "first_dirty_offset", c->first_dirty_offset);
    out_str(o, "first_dirty_reason", kf_dirty_reset_name(c->dirty_reset));
    out_int(o, "first_uncleanable_offset", c->first_uncleanable_offset);
    out_str(o, "uncleanable_reason", kf_uncleanable_reason_name(c->reason));
    if (r->pinned) {
        const kf_open_txn *t = &r->pinned_by;
        const kf_pinning_txn *w = &r->pinning;
        const char *st = kf_txn_state_name(w->coordinator_state);
        out_obj_open(o, "pinned_by");
        out_int(o, "producer_id", t->producer_id);
        out_int(o, "producer_epoch", t->producer_epoch);
        out_int(o, "first_offset", t->first_offset);
        out_opt_int(o, "first_timestamp", t->has_first_timestamp, t->first_timestamp);
        /* beyond the contract: who it is, and whether it hangs */
        out_str(o, "transactional_id", w->transactional_id);
        if (w->transactional_id && !st)
            out_int(o, "coordinator_state", w->coordinator_state);
        else
            out_str(o, "coordinator_state", w->transactional_id ? st : NULL);
        out_opt_int(o, "age_ms", w->has_age, w->age_ms);
        out_int(o, "timeout_ms", w->timeout_ms);
        out_str(o, "timeout_source", w->timeout_from_coordinator ? "coordinator" : "default");
        if (w->has_age)
            out_bool(o, "hanging", w->hanging);
        else
            out_null(o, "hanging");
        out_obj_close(o);
    } else {
        out_null(o, "pinned_by");
    }
    out_uint(o, "cleanable_bytes", c->cleanable_bytes);
    if (c->has_ratio)
        out_double(o, "dirty_ratio", c->dirty_ratio);
    else
        out_null(o, "dirty_ratio");
    out_bool(o, "would_clean", c->would_clean);
    const count_field counts[] = {
        {"keys", r->keys}, {"records", r->records}, {"live_records", r->live_records},
        {"reclaimable_bytes", r->reclaimable_bytes},
        /* beyond the contract */
        {"tombstones", r->tombstones}, {"keyless_records", r->keyless_records},
        {"aborted_records", r->aborted_records},
        {"control_batches", r->control_batches}, {"segments", r->segments},
    };
    out_counts(o, counts, sizeof counts / sizeof counts[0]);
    out_int(o, "log_start_offset", r->log_start_offset);
    out_int(o, "log_end_offset", r->log_end_offset);
    out_opt_int(o, "high_watermark", r->has_high_watermark, r->high_watermark);
    out_int(o, "last_stable_offset", r->last_stable_offset);
    out_uint(o, "open_transactions", r->open_transactions);
    out_int(o, "active_segment_offset", c->active_segment_offset);
    out_opt_int(o, "min_compaction_lag_offset", c->has_lag_bound, c->lag_bound_offset);
    out_int(o, "first_uncleanable_segment", c->first_uncleanable_segment);
    out_uint(o, "clean_bytes", c->clean_bytes);
    out_uint(o, "total_bytes", c->total_bytes);
    out_int(o, "compaction_delay_ms", c->compaction_delay_ms);
    out_str(o, "cleanup_policy", r->cleanup_policy);
    out_str(o, "cleanup_policy_source", kf_config_source_name(r->cleanup_policy_source));
    out_double(o, "min_cleanable_ratio", r->min_cleanable_ratio);
    out_str(o, "min_cleanable_ratio_source", kf_config_source_name(r->min_cleanable_ratio_source));
    out_int(o, "min_compaction_lag_ms", r->min_compaction_lag_ms);
    out_str(o, "min_compaction_lag_source", kf_config_source_name(r->min_compaction_lag_source));
    out_int(o, "max_compaction_lag_ms", r->max_compaction_lag_ms);
    out_str(o, "max_compaction_lag_source", kf_config_source_name(r->max_compaction_lag_source));
    out_int(o, "delete_retention_ms", r->delete_retention_ms);
    out_str(o, "delete_retention_source", kf_config_source_name(r->delete_retention_source));
    static const char *const by[] = {"not", "internal_topic", "cleanup_policy", "named"};
    out_str(o, "compacted_because", by[r->compacted_by]);
    out_bool(o, "incomplete", r->incomplete);
    out_end(o);
}

/* ---- what is printed ---------------------------------------------------------- */

/* Text without --verbose lists, of the partitions found in a data dir
 * (not named as PATHs), only those with something to say: the others are
 * counted (quiet, not_compacted). */
static bool quiet(const kf_compaction_result *r)
{
    const kf_cleanable *c = &r->cleanable;
    return !r->named && !r->pinned && !c->would_clean && c->cleanable_bytes == 0 && !r->incomplete;
}

static int print_result(void *ctx, const kf_compaction_result *r)
{
    compaction_run *R = ctx;
    if (!R->json && !R->verbose && r->compacted_by == KF_COMPACTED_NOT && !r->named) {
        R->not_compacted++;
        return KF_OK;
    }
    if (!R->json && !R->verbose && r->compacted_by != KF_COMPACTED_NOT && quiet(r)) {
        R->quiet++;
        return KF_OK;
    }
    if (r->compacted_by == KF_COMPACTED_NOT) {
        if (!R->json) {
            char label[300];
            partition_label(r->partition, label, sizeof label);
            tprintf(R->o->f, "%s: skipped: not compacted (cleanup.policy %s)\n", label,
                    r->cleanup_policy ? r->cleanup_policy : "delete, the default");
        }
        return KF_OK;
    }
    if (R->json)
        print_json(R->o, r);
    else
        compaction_print_text(R->o->f, r);
    return KF_OK;
}

static void print_summary(compaction_run *R, const kf_compaction_totals *t)
{
    if (R->json) {
        out *o = R->o;
        const count_field counts[] = {
            {"partitions", t->partitions}, {"skipped", t->skipped}, {"pinned", t->pinned},
            {"would_clean", t->would_clean}, {"errors", R->rep.errors}, {"warnings", R->rep.warnings},
        };
        out_begin(o, "summary");
        out_counts(o, counts, sizeof counts / sizeof counts[0]);
        out_end(o);
        return;
    }
    if (R->quiet || R->not_compacted) {
        fputs("not listed (--verbose lists them):", R->o->f);
        if (R->quiet)
            tprintf(R->o->f, " %" PRIu64 " partition%s with nothing to clean%s", R->quiet, R->quiet == 1 ? "" : "s",
                    R->not_compacted ? "," : "");
        if (R->not_compacted)
            tprintf(R->o->f, " %" PRIu64 " not compacted", R->not_compacted);
        fputs("\n\n", R->o->f);
    }
    tprintf(R->o->f,
            "%" PRIu64 " compacted partition%s (%" PRIu64 " skipped): %" PRIu64 " pinned by an open transaction, %" PRIu64
            " the cleaner would clean\n",
            t->partitions, t->partitions == 1 ? "" : "s", t->skipped, t->pinned, t->would_clean);
}

/* ---- options -------------------------------------------------------------------- */

static void compaction_usage(FILE *f)
{
    tprintf(f, "usage: kfsck compaction [--now TIME] [--min-cleanable-ratio R] [--min-compaction-lag-ms MS]\n"
               "                        [--max-compaction-lag-ms MS] [--max-batch-bytes N] [--verbose] [--json]\n"
               "                        PATH...\n\n"
               "Why a compacted partition does not shrink, and what a cleaning would give back:\n"
               "for __consumer_offsets, __transaction_state, topics whose cleanup.policy holds\n"
               "compact in the KRaft metadata among the PATHs, and partition dirs named as\n"
               "PATHs, the log cleaner's first dirty and first uncleanable offsets, what sets\n"
               "the latter (last stable offset, active segment, min.compaction.lag.ms), the\n"
               "open transaction pinning it (its transactional id from __transaction_state\n"
               "among the PATHs; hanging when older than its transaction timeout at --now),\n"
               "cleanable bytes and the dirty ratio, and what a full cleaning keeps (distinct\n"
               "keys, live records) and frees.\n"
               "  --now TIME                the cleaner's clock: epoch ms or ISO 8601 (default: now)\n"
               "  --min-cleanable-ratio R   min.cleanable.dirty.ratio where the topic has none (0.5)\n"
               "  --min-compaction-lag-ms MS  min.compaction.lag.ms where the topic has none (0)\n"
               "  --max-compaction-lag-ms MS  max.compaction.lag.ms where the topic has none (none)\n"
               "  --max-batch-bytes N       cap on one batch's decompressed size (default 128M)\n"
               "  --verbose                 text: also list the partitions of a data dir with\n"
               "                            nothing to clean or not compacted (else counted)\n"
               "  --json                    JSON lines: \"compaction\", \"problem\", \"summary\"\n"
               "exit: 0 nothing pins a cleaning; 1 an open transaction pins one; 2 usage;\n"
               "3 a path cannot be read.\n");
}

/* min.cleanable.dirty.ratio's range: a ratio from 0 to 1. */
static int parse_ratio(const char *arg, void *to)
{
    char *end;
    double v = strtod(arg, &end);
    if (!*arg || *end || !isfinite(v) || v < 0 || v > 1)
        return -1;
    *(double *)to = v;
    return 0;
}

/* The options into *co, *R and *max_batch: opt_parse's answer. */
static int parse_options(int argc, char **argv, kf_compaction_opts *co, compaction_run *R, uint64_t *max_batch)
{
    const opt_spec specs[] = {
        {.name = "--now", .kind = OPT_TIME, .to = &co->now_ms},
        {.name = "--min-cleanable-ratio", .kind = OPT_PARSE, .to = &co->min_cleanable_ratio, .parse = parse_ratio,
         .given = &co->has_min_cleanable_ratio, .refusal = "--min-cleanable-ratio needs a ratio from 0 to 1, not"},
        {.name = "--min-compaction-lag-ms", .kind = OPT_NUMBER, .to = &co->min_compaction_lag_ms, .max = INT64_MAX,
         .given = &co->has_min_compaction_lag_ms, .refusal = "--min-compaction-lag-ms needs milliseconds, not"},
        {.name = "--max-compaction-lag-ms", .kind = OPT_NUMBER, .to = &co->max_compaction_lag_ms, .max = INT64_MAX,
         .given = &co->has_max_compaction_lag_ms, .refusal = "--max-compaction-lag-ms needs milliseconds, not"},
        {.name = "--max-batch-bytes", .kind = OPT_SIZE, .to = max_batch},
        {.name = "--json", .kind = OPT_FLAG, .to = &R->json},
        {.name = "--verbose", .kind = OPT_FLAG, .to = &R->verbose},
        {0},
    };
    return opt_parse("compaction", argc, argv, specs, compaction_usage, "no PATH given");
}

int cmd_compaction(int argc, char **argv)
{
    kf_compaction_opts co;
    kf_compaction_opts_init(&co);
    co.now_ms = kf_now_ms();
    uint64_t max_batch = KF_DEFAULT_MAX_BATCH_BYTES;
    compaction_run R = {.json = false};
    int st = parse_options(argc, argv, &co, &R, &max_batch);
    if (st >= 0)
        return st;
    char *const *paths = argv + optind;
    int npaths = argc - optind;
    if (cli_mixed_clusters(paths, npaths))
        return EXIT_FAIL;

    out o;
    out_init(&o, stdout, R.json);
    R.o = R.rep.o = &o;
    kf_inputs in;
    int in_status = inputs_collect(paths, npaths, &in);
    if (!in.n && in_status != EXIT_FAIL)
        tprintf(stderr, "kfsck: no partition or segment found under the given paths\n");
    part_reader_opts(&co.read, max_batch > SIZE_MAX ? SIZE_MAX : (size_t)max_batch, &R.rep);
    co.problem_fn = report_problem;
    co.problem_ctx = &R.rep;
    kf_metadata *m;
    if (kf_metadata_of_paths(&m, paths, (size_t)npaths, (size_t)max_batch) != KF_OK)
        cli_oom();
    co.metadata = m;
    co.paths = paths;
    co.npaths = (size_t)npaths;
    kf_compaction_totals tot;
    if (kf_compaction_run(&in, &co, print_result, &R, &tot) == KF_ERR_NOMEM)
        cli_oom();
    print_summary(&R, &tot);
    kf_metadata_free(m);
    kf_inputs_free(&in);
    if (in_status == EXIT_FAIL || tot.unreadable)
        return EXIT_FAIL;
    return tot.pinned ? EXIT_DAMAGE : EXIT_CLEAN;
}
