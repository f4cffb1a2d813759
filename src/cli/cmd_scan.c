/* cmd_scan.c: `kfsck scan`: options, and the printing of what the
 * library's data dir scan (include/kfsck/scan.h) finds: one line per
 * partition followed by its problems, in (topic, partition) order whatever
 * --jobs is, then a summary. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/scan_prom.h"
#include "cli/walk.h"

static void human_size(uint64_t b, char *buf, size_t n)
{
    if (b < 1024)
        snprintf(buf, n, "%" PRIu64 " B", b);
    else if (b < (1ull << 20))
        snprintf(buf, n, "%.1f KB", (double)b / 1024);
    else if (b < (1ull << 30))
        snprintf(buf, n, "%.1f MB", (double)b / (1 << 20));
    else
        snprintf(buf, n, "%.1f GB", (double)b / (1 << 30));
}

typedef struct scan_print {
    out *o;
    report rep;     /* the data dir's own problems */
} scan_print;

static void print_dir_problem(void *ctx, const kf_problem *p)
{
    report_problem(&((scan_print *)ctx)->rep, p);
}

static void print_partition(void *ctx, const kf_datadir_partition *p)
{
    out *o = ((scan_print *)ctx)->o;
    const kf_partition_summary *lg = &p->log;
    if (o->json) {
        kf_scan_partition_json(&o->w, p);
    } else {
        char size[32];
        human_size(lg->bytes, size, sizeof size);
        out_text(o, "%-24s %3" PRIu64 " segment%s %10s", p->name, lg->segments, lg->segments == 1 ? " " : "s",
                 size);
        /* ranges are first..last everywhere (as verify prints them); the
         * log end offset is named as such */
        if (!lg->listed)
            out_text(o, "  cannot be read");
        else if (lg->has_offsets && lg->has_log_end)
            out_text(o, "  offsets %" PRId64 "..%" PRId64 "  log end %" PRId64, lg->first_offset, lg->last_offset,
                     lg->log_end_offset);
        else if (lg->has_log_end)
            out_text(o, "  empty, log end %" PRId64, lg->log_end_offset);
        else
            out_text(o, "  no segment");
        if (p->checkpoints.high_watermark.has)
            out_text(o, "  hw %" PRId64, p->checkpoints.high_watermark.offset);
        /* the forecast of an unclean shutdown, when it is not the log end */
        if (p->has_recovery_end && lg->has_log_end && p->recovery_end_offset != lg->log_end_offset)
            out_text(o, "  recovery would cut to offset %" PRId64, p->recovery_end_offset);
        if (p->errors)
            out_text(o, "  %" PRIu64 " error%s", p->errors, p->errors == 1 ? "" : "s");
        if (p->warnings)
            out_text(o, "%s %" PRIu64 " warning%s", p->errors ? "," : " ", p->warnings, p->warnings == 1 ? "" : "s");
        if (!p->errors && !p->warnings && !p->unreadable)
            out_text(o, "  ok");
        out_text(o, "\n");
    }
    report r = {o, NULL, 0, 0};
    for (size_t i = 0; i < p->n_problems; i++)
        report_problem(&r, &p->problems[i]);
}

/* ---- the PATHs ------------------------------------------------------------------ */

/* A file or a partition dir: a usage error, said at once (the walk stops). */
static int not_a_datadir(void *ctx, const kf_path_entry *e)
{
    (void)ctx;
    const char *p = e->path;
    if (e->kind == KF_PATH_FILE)
        tprintf(stderr, "kfsck scan: %s is a file, not a broker data directory; use `kfsck verify %s`\n", p, p);
    else
        tprintf(stderr,
                "kfsck scan: %s is a partition directory, not a broker data directory; "
                "use `kfsck verify %s` (or scan its parent)\n",
                p, p);
    return KF_ERR_UNSUPPORTED;
}

/* ---- command ------------------------------------------------------------------ */

static void scan_usage(FILE *f)
{
    tprintf(f, "usage: kfsck scan [--jobs N] [--max-batch-bytes N]\n"
               "                  [--json | --format text|json|prometheus] DATADIR...\n\n"
               "DATADIR: a broker data dir (one entry of log.dirs). For every partition dir in it:\n"
               "segments, bytes, first offset, log end offset, the checkpoints' recovery point,\n"
               "high watermark, log start and cleaner offsets, leader epochs, and every problem\n"
               "`kfsck verify` finds, plus checkpoint entries that disagree with the segments.\n"
               "--jobs N: partitions checked by N threads (default: the CPUs it may run on); output order\n"
               "does not depend on N. For a single partition dir use `kfsck verify`.\n"
               "  --max-batch-bytes N  cap on one batch's decompressed size (default 128M)\n"
               "  --json               newline-delimited JSON (as --format json)\n"
               "  --format prometheus  the health as Prometheus gauges, for node_exporter's\n"
               "                       textfile collector; problems go to stderr\n"
               "exit: 0 no error found (warnings alone: 0); 1 an error found; 2 usage error;\n"
               "3 a path cannot be read or the output cannot be written.\n");
}

int cmd_scan(int argc, char **argv)
{
    static const char *const formats[] = {"text", "json", "prometheus", NULL};
    bool json = false, format_given = false;
    int format = 0;
    uint64_t max_batch = KF_DEFAULT_MAX_BATCH_BYTES;
    int64_t jobs = 0; /* the library's default: kf_cpu_count() */
    const opt_spec specs[] = {
        {.name = "--json", .kind = OPT_FLAG, .to = &json},
        {.name = "--jobs", .letter = 'j', .kind = OPT_NUMBER, .to = &jobs, .min = 1, .max = 1024,
         .refusal = "--jobs needs a number of threads from 1 to 1024, not"},
        {.name = "--max-batch-bytes", .kind = OPT_SIZE, .to = &max_batch},
        {.name = "--format", .kind = OPT_CHOICE, .to = &format, .choices = formats, .given = &format_given,
         .refusal = "--format is text, json or prometheus, not"},
        {0},
    };
    int st = opt_parse("scan", argc, argv, specs, scan_usage, "no DATADIR given");
    if (st >= 0)
        return st;
    if (json && format_given && format != 1)
        return opt_usage_error("scan", "--json cannot go with --format", formats[format], scan_usage);
    json = json || format == 1;
    bool want_prom = format == 2;

    /* Check every argument before any output: a partition dir or a file is a
     * usage error, a path that cannot be used makes the exit 3. */
    cli_dirs found = {NULL, 0};
    uint64_t path_errors = 0;
    kf_paths_walk_opts wo;
    kf_paths_walk_opts_init(&wo);
    wo.file_fn = not_a_datadir;
    wo.partition_fn = not_a_datadir;
    wo.datadir_fn = cli_add_dir;
    wo.empty_dir_is_datadir = true;
    wo.special_what = CLI_SPECIAL_WHAT;
    wo.other_dir_what = "not a broker data directory (no partition directories, meta.properties or checkpoints)";
    wo.error_fn = cli_count_path_error;
    wo.error_ctx = &path_errors;
    wo.ctx = &found;
    if (cli_mixed_clusters(argv + optind, argc - optind))
        return EXIT_FAIL;
    int rc = kf_paths_walk(argv + optind, (size_t)(argc - optind), &wo);
    if (rc == KF_ERR_NOMEM)
        cli_oom();
    if (rc == KF_ERR_UNSUPPORTED) {
        free(found.paths);
        return EXIT_USAGE;
    }
    int status = rc == KF_OK ? EXIT_CLEAN : EXIT_FAIL;
    scan_prom *prom = want_prom ? scan_prom_new() : NULL;

    out o;
    out_init(&o, stdout, json);
    kf_datadir_scan_opts so;
    kf_datadir_scan_opts_init(&so);
    so.max_batch_bytes = (size_t)max_batch;
    so.jobs = (unsigned)jobs;
    scan_print sp = {&o, {&o, NULL, 0, 0}};
    so.partition_fn = prom ? scan_prom_partition : print_partition;
    so.problem_fn = prom ? scan_prom_dir_problem : print_dir_problem;
    so.ctx = prom ? (void *)prom : &sp;
    kf_datadir_totals tot = {0};
    tot.unreadable_paths = path_errors;
    uint64_t datadirs = 0;
    for (size_t i = 0; i < found.n; i++) {
        if (!json && !prom)
            out_text(&o, "%s:\n", found.paths[i]);
        if (kf_datadir_scan(found.paths[i], &so, &tot) != KF_OK) {
            cli_error(found.paths[i], "out of memory");
            free(found.paths);
            return EXIT_FAIL;
        }
        datadirs++;
    }
    free(found.paths);
    if (prom) {
        scan_prom_finish(prom, stdout, &tot);
    } else if (json) {
        kf_scan_summary_json(&o.w, datadirs, &tot);
    } else {
        char size[32];
        human_size(tot.bytes, size, sizeof size);
        /* the counts, then the paths that could not be read, as verify says them */
        out_text(&o, "%" PRIu64 " partitions, %" PRIu64 " segments, %s, %" PRIu64 " error%s, %" PRIu64 " warning%s",
                 tot.partitions, tot.segments, size, tot.errors, tot.errors == 1 ? "" : "s", tot.warnings,
                 tot.warnings == 1 ? "" : "s");
        if (tot.unreadable_paths)
            out_text(&o, "; could not check %" PRIu64 " path%s", tot.unreadable_paths,
                     tot.unreadable_paths == 1 ? "" : "s");
        out_text(&o, "\n");
    }
    if (status == EXIT_FAIL || tot.unreadable)
        return EXIT_FAIL;
    return tot.errors ? EXIT_DAMAGE : EXIT_CLEAN;
}
