/* cmd_metadata.c: `kfsck metadata`: the cluster as its KRaft metadata log
 * describes it: the options, the library's metadata job (kf_metadata_run,
 * metadata.h) and the image printed by metadata_print.c, one line per
 * object in the order kfsck(1) gives (metadata); secrets redacted unless
 * --show-secrets. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/metadata_print.h"
#include "cli/walk.h"

typedef struct md_opts {
    bool json, show_secrets;
    bool has_as_of;
    int64_t as_of;
    uint64_t max_batch_bytes;
} md_opts;

static void path_error(void *ctx, const char *path, int err_no, const char *what)
{
    (void)err_no;
    int *status = ctx;
    cli_error(path, "%s", what);
    *status = EXIT_FAIL;
}

static void metadata_usage(FILE *f)
{
    tprintf(f, "usage: kfsck metadata [--as-of-offset N] [--show-secrets] [--max-batch-bytes N] [--json] PATH...\n\n"
               "PATH: a __cluster_metadata-0 directory, a broker data dir holding one, or single\n"
               ".checkpoint / .log files of it (copies from several nodes are read as one log).\n"
               "Rebuilds the cluster as a broker loads it at start-up: the newest intact snapshot\n"
               "at or below the target offset, then every later intact batch of the log.\n"
               "  --as-of-offset N   the state after offset N (default: the end of the log)\n"
               "  --show-secrets     print password-like config values, SCRAM salts and keys and\n"
               "                     delegation-token ids (redacted by default)\n"
               "  --max-batch-bytes N  cap on one batch's decompressed size (default 128M)\n"
               "  --json             newline-delimited JSON\n"
               "Also checks the partition: incomplete snapshots, a log start no snapshot covers,\n"
               "quorum-state. Exit 0 clean, 1 damage found or skipped, 2 usage error, 3 a path\n"
               "cannot be read or the output cannot be written.\n");
}

int cmd_metadata(int argc, char **argv)
{
    md_opts op = {0};
    op.max_batch_bytes = KF_DEFAULT_MAX_BATCH_BYTES;
    const opt_spec specs[] = {
        {.name = "--json", .kind = OPT_FLAG, .to = &op.json},
        {.name = "--as-of-offset", .kind = OPT_NUMBER, .to = &op.as_of, .max = INT64_MAX, .given = &op.has_as_of,
         .refusal = "--as-of-offset needs an offset (0 or more), not"},
        {.name = "--show-secrets", .kind = OPT_FLAG, .to = &op.show_secrets},
        {.name = "--max-batch-bytes", .kind = OPT_SIZE, .to = &op.max_batch_bytes},
        {0},
    };
    int st = opt_parse("metadata", argc, argv, specs, metadata_usage, "no PATH given");
    if (st >= 0)
        return st;

    if (cli_mixed_clusters(argv + optind, argc - optind))
        return EXIT_FAIL;
    out o, e;
    out_init(&o, stdout, op.json);
    out_init(&e, stderr, false);
    o.show_secrets = op.show_secrets;
    report rep = {op.json ? &o : &e, NULL, 0, 0};
    int status = EXIT_CLEAN;
    kf_metadata_opts mo;
    kf_metadata_opts_init(&mo);
    mo.max_batch_bytes = (size_t)op.max_batch_bytes;
    mo.has_as_of = op.has_as_of;
    mo.as_of_offset = op.as_of;
    mo.problem_fn = report_problem;
    mo.problem_ctx = &rep;
    kf_metadata *m = NULL;
    if (kf_metadata_run(&m, argv + optind, (size_t)(argc - optind), &mo, path_error, &status) == KF_ERR_NOMEM) {
        fputs("kfsck: out of memory\n", stderr);
        return EXIT_FAIL;
    }
    if (!m) {
        /* readable, but no KRaft node's data (a ZooKeeper-mode broker, ...):
         * nothing to rebuild, as `offsets` with no __consumer_offsets */
        tprintf(stderr, "kfsck: no KRaft metadata log or snapshot found under the given paths\n");
        return status;
    }
    if (op.json)
        kf_metadata_json(&o.w, m, op.show_secrets);
    else
        metadata_print_text(stdout, m, op.show_secrets);
    const kf_metadata_info *in = kf_metadata_get_info(m);
    bool damaged = rep.errors > 0 || in->damaged > 0;
    kf_metadata_free(m);
    if (status == EXIT_FAIL)
        return EXIT_FAIL;
    return damaged ? EXIT_DAMAGE : EXIT_CLEAN;
}
