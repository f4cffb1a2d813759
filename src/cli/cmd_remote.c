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

static void json_locals(out *o, const char *key, const kf_remote_partition *p)
{
    out_arr_open(o, key);
    for (size_t i = 0; i < p->n_locals; i++) {
        const kf_remote_local *l = &p->locals[i];
        out_obj_open(o, NULL);
        out_opt_int(o, "broker", l->broker >= 0, l->broker);
        out_int(o, "log_start_offset", l->local_log_start_offset);
        out_int(o, "log_end_offset", l->log_end_offset);
        out_opt_int(o, "log_start_checkpoint", l->has_log_start_checkpoint, l->log_start_offset);
        out_str(o, "dir", l->dir);
        out_obj_close(o);
    }
    out_arr_close(o);
}

static void json_objects(out *o, const char *key, unsigned bits)
{
    out_arr_open(o, key);
    for (unsigned b = 1; b <= KF_REMOTE_OBJ_OTHER; b <<= 1)
        if (bits & b)
            out_str(o, NULL, kf_remote_object_name(b));
    out_arr_close(o);
}

static void json_segment(out *o, const kf_remote_partition *p, const kf_remote_segment *s)
{
    char id[23];
    out_begin(o, "remote_segment");
    out_str(o, "topic", p->topic);
    out_int(o, "partition", p->partition);
    kf_uuid_to_b64(s->segment_id, id);
    out_str(o, "segment_id", id);
    out_int(o, "start_offset", s->start_offset);
    out_opt_int(o, "end_offset", s->state >= 0, s->end_offset);
    out_str(o, "state", kf_remote_state_name(s->state));
    out_opt_int(o, "event_timestamp", s->state >= 0, s->event_timestamp);
    out_opt_int(o, "broker_id", s->state >= 0, s->broker_id);
    if (s->state >= 0)
        out_leader_epochs(o, "leader_epochs", s->leader_epochs, s->n_leader_epochs);
    else
        out_null(o, "leader_epochs");
    out_str(o, "finding", kf_remote_finding_name(s->finding));
    if (p->has_topic_id) {
        kf_uuid_to_b64(p->topic_id, id);
        out_str(o, "topic_id", id);
    }
    if (s->state >= 0) {
        out_int(o, "size_bytes", s->size_bytes);
        out_int(o, "max_timestamp", s->max_timestamp);
    }
    switch (s->finding) {
    case KF_REMOTE_COPY_STUCK:
        out_int(o, "age_ms", s->age_ms);
        out_str(o, "object_prefix", s->object_prefix);
        break;
    case KF_REMOTE_DELETE_PENDING: out_int(o, "age_ms", s->age_ms); break;
    case KF_REMOTE_MISSING_IN_STORAGE:
        json_objects(o, "missing", s->missing_objects);
        json_objects(o, "found", s->found_objects);
        break;
    case KF_REMOTE_EPOCH_CHAIN_BREAK:
        out_opt_int(o, "lineage_broker", s->lineage_broker >= 0, s->lineage_broker);
        out_str(o, "reason", s->reason);
        break;
    case KF_REMOTE_ORPHAN:
        out_arr_open(o, "keys");
        for (size_t k = 0; k < s->n_keys; k++)
            out_str(o, NULL, s->keys[k]);
        out_arr_close(o);
        out_uint(o, "bytes", s->bytes);
        break;
    }
    out_end(o);
}

static void json_partition(remote_run *R, const kf_remote_partition *p)
{
    out *o = R->o;
    char id[23];
    out_begin(o, "remote_partition");
    out_str(o, "topic", p->topic);
    if (p->has_topic_id) {
        kf_uuid_to_b64(p->topic_id, id);
        out_str(o, "topic_id", id);
    } else {
        out_null(o, "topic_id");
    }
    out_int(o, "partition", p->partition);
    out_obj_open(o, "segments");
    for (int s = 0; s < 4; s++)
        out_uint(o, kf_remote_state_name(s), p->segments[s]);
    out_obj_close(o);
    out_opt_int(o, "remote_start_offset", p->has_remote_range, p->remote_start_offset);
    out_opt_int(o, "remote_end_offset", p->has_remote_range, p->remote_end_offset);
    json_locals(o, "local_log_start_offset", p);
    json_locals(o, "local_log_end_offset", p);
    out_arr_open(o, "offsets_in_no_tier");
    for (size_t i = 0; i < p->n_no_tier; i++) {
        out_obj_open(o, NULL);
        out_int(o, "from_offset", p->no_tier[i].from_offset);
        out_int(o, "to_offset", p->no_tier[i].to_offset);
        out_obj_close(o);
    }
    out_arr_close(o);
    out_uint(o, "remote_bytes", p->remote_bytes);
    if (p->has_orphan_bytes)
        out_uint(o, "orphan_bytes", p->orphan_bytes);
    else
        out_null(o, "orphan_bytes");
    /* beyond the contract */
    out_opt_int(o, "metadata_partition", p->metadata_partition >= 0, p->metadata_partition);
    out_bool(o, "judged", p->judged);
    out_opt_int(o, "log_start_offset", p->n_locals > 0, p->log_start_offset);
    out_uint(o, "offsets_in_no_tier_count", p->offsets_in_no_tier);
    out_str(o, "partition_delete_state", kf_remote_partition_state_name(p->partition_delete_state));
    out_opt_int(o, "metadata_consumer_stops_at", p->has_metadata_stop, p->metadata_stop_offset);
    out_obj_open(o, "findings");
    for (int f = 0; f < 5; f++)
        out_uint(o, kf_remote_finding_name((kf_remote_finding)f), p->counts[f]);
    out_obj_close(o);
    out_end(o);
    for (size_t i = 0; i < p->n_findings; i++)
        json_segment(o, p, &p->findings[i]);
}

static int on_partition(void *ctx, const kf_remote_partition *p)
{
    remote_run *R = ctx;
    if (R->json)
        json_partition(R, p);
    else
        remote_text_partition(R->o->f, p, R->have_storage);
    return KF_OK;
}

static int on_index(void *ctx, const kf_remote_index *e)
{
    remote_run *R = ctx;
    char id[23] = "";
    if (e->has_segment_id)
        kf_uuid_to_b64(e->segment_id, id);
    if (R->json) {
        out *o = R->o;
        out_begin(o, "remote_index");
        out_str(o, "file", e->file);
        out_str(o, "segment_id", e->has_segment_id ? id : NULL);
        out_str(o, "error", e->error);
        out_str(o, "code", e->code);
        out_opt_int(o, "start_offset", e->start_offset >= 0, e->start_offset);
        out_bool(o, "stops_broker", e->stops_broker);
        out_end(o);
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
        out_begin(o, "summary");
        out_uint(o, "metadata_partitions", t->metadata_partitions);
        out_uint(o, "records", t->records);
        out_uint(o, "partitions", t->partitions);
        out_uint(o, "partitions_with_offsets_in_no_tier", t->partitions_with_gap);
        out_uint(o, "offsets_in_no_tier", t->offsets_in_no_tier);
        for (int f = 0; f < 5; f++)
            out_uint(o, kf_remote_finding_name((kf_remote_finding)f), t->counts[f]);
        out_uint(o, "invalid_transitions", t->rejected);
        out_uint(o, "fatal_records", t->fatal_records);
        out_bool(o, "incomplete", t->incomplete);
        out_uint(o, "objects", t->objects);
        out_uint(o, "unrecognised_objects", t->unrecognised_objects);
        out_uint(o, "unjudged_objects", t->unjudged_objects);
        out_uint(o, "index_entries", t->index_entries);
        out_uint(o, "bad_index_entries", t->index_bad);
        out_uint(o, "errors", R->rep.errors);
        out_uint(o, "warnings", R->rep.warnings);
        out_end(o);
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
    char *const *paths = argv + optind;
    int npaths = argc - optind;
    if (cli_mixed_clusters(paths, npaths))
        return EXIT_FAIL;

    out o;
    out_init(&o, stdout, json);
    remote_run R = {.json = json, .have_storage = ro.storage_dir || ro.listing_path, .o = &o,
                    .rep = {.o = &o}};
    kf_inputs in;
    int in_status = inputs_collect(paths, npaths, &in);
    part_reader_opts(&ro.read, max_batch > SIZE_MAX ? SIZE_MAX : (size_t)max_batch, &R.rep);
    ro.problem_fn = report_problem;
    ro.problem_ctx = &R.rep;
    kf_metadata *m;
    if (kf_metadata_of_paths(&m, paths, (size_t)npaths, max_batch > SIZE_MAX ? SIZE_MAX : (size_t)max_batch) != KF_OK)
        cli_oom();
    ro.metadata = m;
    ro.paths = paths;
    ro.npaths = (size_t)npaths;
    kf_remote_totals tot;
    int rc = kf_remote_run(&in, &ro, on_partition, on_index, &R, &tot);
    if (rc == KF_ERR_NOMEM)
        cli_oom();
    if (rc == KF_ERR_IO) {
        const kf_error *e = kf_error_last();
        cli_error(e->path[0] ? e->path : "?", "%s", kf_path_error_str(e->err_no));
    } else {
        print_summary(&R, &tot);
    }
    kf_metadata_free(m);
    kf_inputs_free(&in);
    if (rc != KF_OK || in_status == EXIT_FAIL || tot.unreadable)
        return EXIT_FAIL;
    bool loss = tot.offsets_in_no_tier || tot.counts[KF_REMOTE_MISSING_IN_STORAGE] || tot.incomplete;
    return loss ? EXIT_DAMAGE : EXIT_CLEAN;
}
