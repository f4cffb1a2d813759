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

static int opt_ms(const char *opt, const char *arg, int64_t *v)
{
    char *end;
    long long x = arg && *arg ? strtoll(arg, &end, 10) : -1;
    if (!arg || !*arg || *end || x < 0)
        return opt_usage_error("compaction", opt, arg, compaction_usage);
    *v = x;
    return 0;
}

static int parse_options(int argc, char **argv, kf_compaction_opts *co, compaction_run *R, uint64_t *max_batch)
{
    static const struct option longopts[] = {
        {"now", required_argument, 0, 'N'},
        {"min-cleanable-ratio", required_argument, 0, 'R'},
        {"min-compaction-lag-ms", required_argument, 0, 'L'},
        {"max-compaction-lag-ms", required_argument, 0, 'M'},
        {"max-batch-bytes", required_argument, 0, 'B'},
        {"json", no_argument, 0, 'j'},
        {"verbose", no_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    optind = 1;
    opterr = 0;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'N':
            if (opt_time("compaction", "--now", optarg, &co->now_ms, compaction_usage))
                return EXIT_USAGE;
            break;
        case 'R':
            co->min_cleanable_ratio = strtod(optarg, &end);
            if (!*optarg || *end || !isfinite(co->min_cleanable_ratio) || co->min_cleanable_ratio < 0 ||
                co->min_cleanable_ratio > 1)
                return opt_usage_error("compaction", "--min-cleanable-ratio needs a ratio from 0 to 1, not",
                                       optarg, compaction_usage);
            co->has_min_cleanable_ratio = true;
            break;
        case 'L':
            if (opt_ms("--min-compaction-lag-ms needs milliseconds, not", optarg, &co->min_compaction_lag_ms))
                return EXIT_USAGE;
            co->has_min_compaction_lag_ms = true;
            break;
        case 'M':
            if (opt_ms("--max-compaction-lag-ms needs milliseconds, not", optarg, &co->max_compaction_lag_ms))
                return EXIT_USAGE;
            co->has_max_compaction_lag_ms = true;
            break;
        case 'B':
            if (opt_positive_size("compaction", "--max-batch-bytes", optarg, max_batch))
                return EXIT_USAGE;
            break;
        case 'j': R->json = true; break;
        case 'v': R->verbose = true; break;
        case 'h': compaction_usage(stdout); return -1;
        default:
            return opt_usage_error("compaction", "unknown or incomplete option", argv[optind - 1], compaction_usage);
        }
    }
    if (optind >= argc)
        return opt_usage_error("compaction", "no PATH given", NULL, compaction_usage);
    return EXIT_CLEAN;
}

int cmd_compaction(int argc, char **argv)
{
    kf_compaction_opts co;
    kf_compaction_opts_init(&co);
    co.now_ms = kf_now_ms();
    uint64_t max_batch = KF_DEFAULT_MAX_BATCH_BYTES;
    compaction_run R = {.json = false};
    int st = parse_options(argc, argv, &co, &R, &max_batch);
    if (st != EXIT_CLEAN)
        return st < 0 ? EXIT_CLEAN : st;
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
