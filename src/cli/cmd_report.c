/* cmd_report.c: `kfsck report`: options, then the library's report job
 * (include/kfsck/report.h), which runs every driver that applies to the
 * PATHs and writes one self-contained HTML file through the output file of
 * report.h (whole or not at all, never over or into an input). This file
 * only parses, calls, and says where the page went. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/walk.h"
#include "kfsck/report.h"

static void report_usage(FILE *f)
{
    tprintf(f, "usage: kfsck report [-o FILE.html] [--title TEXT] [--now TIME] [--max-batch-bytes N]\n"
               "                    [--json] PATH...\n\n"
               "One self-contained HTML file of everything kfsck finds in the PATHs, to read, share\n"
               "and keep in an incident: it runs what applies (scan and predict for each broker's\n"
               "data dirs, replicas when several brokers are given, offsets and groups, txns,\n"
               "compaction, metadata, remote, stats) and writes, most urgent first, each broker's\n"
               "verdict, the damage map (each partition with something to say on an offset scale),\n"
               "the election table, consumer groups with the reset CSV as a download link, open\n"
               "transactions, pinned compaction, the cluster, records per hour per topic, and each\n"
               "command's JSON lines. No external resource: it opens offline, prints on A4 and\n"
               "reads without JavaScript. Text from the data is escaped; secrets are redacted.\n"
               "  -o, --output FILE     where the page goes (default kfsck-report.html); written whole\n"
               "                        or not at all, never over an input nor inside an input dir\n"
               "  --title TEXT          the page's title (default \"kfsck report\")\n"
               "  --now TIME            epoch ms or ISO 8601: the clock of retention, compaction and\n"
               "                        tiered storage (default: now)\n"
               "  --max-batch-bytes N   cap on one batch's decompressed size (default 128M)\n"
               "  --json                one JSON line on stdout: the file, its size and the counts\n"
               "exit: the highest of the commands it ran (0 nothing wrong, 1 damage or loss found);\n"
               "2 usage error; 3 a path cannot be read or the page cannot be written.\n");
}

static void step(void *ctx, const char *command)
{
    (void)ctx;
    tprintf(stderr, "\r\033[Kkfsck report: %s", command);
}

static void print_summary(bool json, const char *path, const kf_report_summary *s, int status)
{
    if (json) {
        out o;
        out_init(&o, stdout, true);
        kf_jsonl_begin(&o.w, "report");
        kf_jsonl_fields(&o.w, KF_JS("file", path), KF_JU("bytes", s->bytes), KF_JU("commands", s->commands),
                        KF_JU("brokers", s->brokers), KF_JU("partitions", s->partitions),
                        KF_JU("damaged_partitions", s->damaged_partitions),
                        KF_JU("damaged_segments", s->damaged_segments), KF_JI("offsets_lost", s->offsets_lost),
                        KF_JI("acknowledged_missing", s->acknowledged_missing), KF_JU("groups", s->groups),
                        KF_JU("groups_out_of_range", s->groups_out_of_range),
                        KF_JU("open_transactions", s->open_transactions),
                        KF_JU("hanging_transactions", s->hanging_transactions),
                        KF_JU("pinned_compactions", s->pinned_compactions), KF_JI("exit", status));
        kf_jsonl_end(&o.w);
        return;
    }
    char size[32];
    kf_format_bytes(s->bytes, "bytes", size, sizeof size);
    tprintf(stdout, "%s: %s, %" PRIu64 " commands run: %" PRIu64 " partitions, %" PRIu64 " with errors (%" PRIu64
           " damaged segments), %" PRId64 " offsets lost at start-up, %" PRId64 " acknowledged missing, %" PRIu64
           " groups out of range, %" PRIu64 " hanging transactions\n",
           path, size, s->commands, s->partitions, s->damaged_partitions, s->damaged_segments, s->offsets_lost,
           s->acknowledged_missing, s->groups_out_of_range, s->hanging_transactions);
}

int cmd_report(int argc, char **argv)
{
    kf_report_opts ro;
    kf_report_opts_init(&ro);
    ro.now_ms = kf_now_ms(); /* --now replaces it */
    const char *output = "kfsck-report.html";
    bool json = false;
    uint64_t max_batch = KF_DEFAULT_MAX_BATCH_BYTES;
    const opt_spec specs[] = {
        {.name = "--output", .letter = 'o', .kind = OPT_STRING, .to = &output, .refusal = "-o needs a file name"},
        {.name = "--title", .kind = OPT_STRING, .to = &ro.title},
        {.name = "--now", .kind = OPT_TIME, .to = &ro.now_ms},
        {.name = "--max-batch-bytes", .kind = OPT_SIZE, .to = &max_batch},
        {.name = "--json", .kind = OPT_FLAG, .to = &json},
        {0},
    };
    int st = opt_parse("report", argc, argv, specs, report_usage, "no PATH given");
    if (st >= 0)
        return st;
    char *const *paths = argv + optind;
    size_t n = (size_t)(argc - optind);
    if (cli_mixed_clusters(paths, (int)n))
        return EXIT_FAIL;
    ro.max_batch_bytes = max_batch > SIZE_MAX ? SIZE_MAX : (size_t)max_batch;
    reader_tuning(&ro.threads, &ro.chunk_bytes);

    kf_report_file *f;
    kf_report_file_verdict v;
    const char *clash;
    int rc = kf_report_file_open(&f, output, paths, n, &v, &clash);
    if (rc == KF_ERR_NOMEM)
        cli_oom();
    if (v == KF_REPORT_FILE_INSIDE_INPUT) {
        tprintf(stderr, "kfsck report: the report %s would be written %s input %s; give -o a path outside the "
                        "inputs\n",
                output, strcmp(output, clash) ? "inside" : "over", clash);
        return EXIT_USAGE;
    }
    if (v == KF_REPORT_FILE_IS_DIR)
        return opt_usage_error("report", "-o names a directory, not a file:", output, report_usage);
    if (rc != KF_OK) {
        const kf_error *e = kf_error_last();
        cli_error(output, "cannot write the report: %s", kf_path_error_str(e->err_no));
        return EXIT_FAIL;
    }
    ro.write_fn = kf_report_file_write;
    ro.write_ctx = f;
    ro.error_fn = print_path_error;
    bool tty = isatty(2);
    if (tty)
        ro.step_fn = step;
    kf_report_summary sum;
    rc = kf_report_run(paths, n, &ro, &sum);
    if (tty)
        fputs("\r\033[K", stderr);
    if (rc == KF_ERR_NOMEM) {
        kf_report_file_abort(f);
        cli_oom();
    }
    if (rc != KF_OK || sum.mixed_clusters || sum.nothing) {
        kf_report_file_abort(f);
        if (rc != KF_OK)
            cli_error(output, "cannot write the report: %s", kf_path_error_str(kf_error_last()->err_no));
        else if (sum.nothing)
            tprintf(stderr, "kfsck report: nothing to report: no data dir, partition or KRaft metadata under the "
                            "given paths; %s not written\n",
                    output);
        return EXIT_FAIL;
    }
    if (kf_report_file_commit(f) != KF_OK) {
        cli_error(output, "cannot write the report: %s", kf_path_error_str(kf_error_last()->err_no));
        return EXIT_FAIL;
    }
    int status = sum.unreadable ? EXIT_FAIL : sum.status ? EXIT_DAMAGE : EXIT_CLEAN;
    print_summary(json, output, &sum, status);
    return status;
}
