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
        kf_compaction_json(&R->o->w, r);
    else
        compaction_print_text(R->o->f, r);
    return KF_OK;
}

static void print_summary(compaction_run *R, const kf_compaction_totals *t)
{
    if (R->json) {
        kf_compaction_summary_json(&R->o->w, t, R->rep.errors, R->rep.warnings);
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
    cluster_inputs ci;
    st = cluster_inputs_read(&ci, argv + optind, argc - optind, max_batch, true);
    if (st >= 0)
        return st;

    out o;
    out_init(&o, stdout, R.json);
    R.o = R.rep.o = &o;
    part_reader_opts(&co.read, max_batch, &R.rep);
    co.problem_fn = report_problem;
    co.problem_ctx = &R.rep;
    co.metadata = ci.metadata;
    co.paths = ci.paths;
    co.npaths = (size_t)ci.npaths;
    kf_compaction_totals tot;
    if (kf_compaction_run(&ci.in, &co, print_result, &R, &tot) == KF_ERR_NOMEM)
        cli_oom();
    print_summary(&R, &tot);
    cluster_inputs_free(&ci);
    if (ci.in_status == EXIT_FAIL || tot.unreadable)
        return EXIT_FAIL;
    return tot.pinned ? EXIT_DAMAGE : EXIT_CLEAN;
}
