/* cmd_remote.c: `kfsck remote`: tiered storage reconciled. The KRaft
 * metadata among the inputs (when there is one) names topics and says which
 * are tiered; the job (src/jobs/remote/) replays __remote_log_metadata, sets
 * it beside the local copies, the storage and the index cache, and hands
 * back each partition and each bad cache entry. This file only parses
 * options and prints: per partition a verdict line (the worst fact first),
 * then the figures. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/partitions.h"
#include "cli/remote_text.h"
#include "cli/walk.h"
#include "kfsck/remote.h"

typedef struct remote_run {
    bool json, have_storage;
    out *o;
    report rep;
} remote_run;

/* ---- JSON --------------------------------------------------------------------- */

static int on_partition(void *ctx, const kf_remote_partition *p)
{
    remote_run *R = ctx;
    if (R->json) {
        kf_remote_partition_json(&R->o->w, p);
    } else {
        remote_text_partition(R->o->f, p, R->have_storage);
    }
    return KF_OK;
}

static int on_index(void *ctx, const kf_remote_index *e)
{
    remote_run *R = ctx;
    if (R->json) {
        kf_remote_index_json(&R->o->w, e);
    } else {
        tprintf(R->o->f, "%s: ", e->stops_broker ? "ERROR" : "WARNING");
        remote_put_name(R->o->f, e->file);
        tprintf(R->o->f, ": %s: %s\n", e->code, e->error);
    }
    return KF_OK;
}

static void print_summary(remote_run *R, const kf_remote_totals *t)
{
    out *o = R->o;
    if (R->json) {
        kf_remote_summary_json(&o->w, t, R->rep.errors, R->rep.warnings);
        return;
    }
    remote_text_summary(o->f, t);
}

/* ---- options ------------------------------------------------------------------------ */

static void remote_usage(FILE *f)
{
    tprintf(f, "usage: kfsck remote [--storage DIR | --listing FILE] [--stuck-after DURATION]\n"
               "                    [--now TIME] [--max-batch-bytes N] [--json] PATH...\n\n"
               "Tiered storage (KIP-405) reconciled: replays __remote_log_metadata as the\n"
               "broker does and sets it beside each broker's local copy of the tiered\n"
               "partitions, the remote storage and the remote-log-index-cache: offsets in\n"
               "neither tier, uploads stuck, deletes pending, segments off the local epoch\n"
               "lineage, segments missing from the storage, orphan objects, bad cache entries.\n"
               "PATHs: log dirs, partition dirs, __cluster_metadata (topic names).\n"
               "  --storage DIR          a copy or mount of the remote storage\n"
               "                         (LocalTieredStorage or Aiven's S3/GCS/Azure key layout)\n"
               "  --listing FILE         an object listing: KEY SIZE lines, or the output of\n"
               "                         `aws s3 ls --recursive` or `gsutil ls -l`\n"
               "  --stuck-after DURATION a copy started longer ago is stuck (default 10m)\n"
               "  --now TIME             the clock copies are aged by: epoch ms or ISO 8601\n"
               "                         (default: now)\n"
               "  --max-batch-bytes N    cap on one batch's decompressed size (default 128M)\n"
               "  --json                 JSON lines: \"remote_partition\", \"remote_segment\",\n"
               "                         \"remote_index\", \"problem\", \"summary\"\n"
               "exit: 0 every offset reachable; 1 offsets in neither tier, finished segments\n"
               "missing from the storage, or an incomplete replay; 2 usage; 3 a path, the\n"
               "storage or the listing cannot be read.\n");
}

/* The options into *ro, *json and *max_batch: opt_parse's answer. */
static int parse_options(int argc, char **argv, kf_remote_opts *ro, bool *json, uint64_t *max_batch)
{
    const opt_spec specs[] = {
        {.name = "--storage", .kind = OPT_STRING, .to = &ro->storage_dir},
        {.name = "--listing", .kind = OPT_STRING, .to = &ro->listing_path},
        {.name = "--stuck-after", .kind = OPT_DURATION, .to = &ro->stuck_after_ms,
         .refusal = "--stuck-after needs a positive duration (90s, 10m, 1h, 1d), not"},
        {.name = "--now", .kind = OPT_TIME, .to = &ro->now_ms},
        {.name = "--max-batch-bytes", .kind = OPT_SIZE, .to = max_batch},
        {.name = "--json", .kind = OPT_FLAG, .to = json},
        {0},
    };
    int st = opt_parse("remote", argc, argv, specs, remote_usage, NULL);
    if (st >= 0)
        return st;
    if (ro->storage_dir && ro->listing_path)
        return opt_usage_error("remote", "--storage and --listing are two sources of one thing: give one", NULL,
                               remote_usage);
    if (optind >= argc)
        return opt_usage_error("remote", "no PATH given", NULL, remote_usage);
    return -1;
}

int cmd_remote(int argc, char **argv)
{
    kf_remote_opts ro;
    kf_remote_opts_init(&ro);
    ro.now_ms = kf_now_ms();
    uint64_t max_batch = KF_DEFAULT_MAX_BATCH_BYTES;
    bool json = false;
    int st = parse_options(argc, argv, &ro, &json, &max_batch);
    if (st >= 0)
        return st;
    cluster_inputs ci;
    st = cluster_inputs_read(&ci, argv + optind, argc - optind, max_batch, false);
    if (st >= 0)
        return st;

    out o;
    out_init(&o, stdout, json);
    remote_run R = {.json = json, .have_storage = ro.storage_dir || ro.listing_path, .o = &o,
                    .rep = {.o = &o}};
    part_reader_opts(&ro.read, max_batch, &R.rep);
    ro.problem_fn = report_problem;
    ro.problem_ctx = &R.rep;
    ro.metadata = ci.metadata;
    ro.paths = ci.paths;
    ro.npaths = (size_t)ci.npaths;
    kf_remote_totals tot;
    int rc = kf_remote_run(&ci.in, &ro, on_partition, on_index, &R, &tot);
    if (rc == KF_ERR_NOMEM)
        cli_oom();
    if (rc == KF_ERR_IO) {
        const kf_error *e = kf_error_last();
        cli_error(e->path[0] ? e->path : "?", "%s", kf_path_error_str(e->err_no));
    } else {
        print_summary(&R, &tot);
    }
    cluster_inputs_free(&ci);
    if (rc != KF_OK || ci.in_status == EXIT_FAIL || tot.unreadable)
        return EXIT_FAIL;
    bool loss = tot.offsets_in_no_tier || tot.counts[KF_REMOTE_MISSING_IN_STORAGE] || tot.incomplete;
    return loss ? EXIT_DAMAGE : EXIT_CLEAN;
}
