/* cmd_stats.c: `kfsck stats`: what the data looks like over time. For every
 * topic (or partition with --by-partition) under the PATHs: records and
 * bytes per time bucket of the record timestamps, and timestamp disorder
 * (how far timestamps run behind the highest one already seen in the
 * partition), computed by the library's stats job (kf_stats_run,
 * src/jobs/stats/stats_run.c); this file parses, calls and prints. With
 * --sink-partition-duration, the storage-sink catch-up simulation instead
 * (its options are parsed here, the library's kf_sink_run runs it and
 * stats_sink.c prints it). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/partitions.h"
#include "cli/stats_sink.h"
#include "cli/walk.h"
#include "kfsck/stats.h"

typedef struct stats_run {
    bool json, by_partition;
    int64_t width;
    size_t max_batch;
    out *o, *perr;
    kf_stats_group *sums;       /* JSON: the groups' summaries, printed after every bucket */
    size_t nsums;
} stats_run;

static void group_label(const stats_run *R, const kf_stats_group *g, char *buf, size_t n)
{
    const char *t = g->topic[0] ? g->topic : "(unknown topic)";
    if (R->by_partition && g->partition >= 0)
        snprintf(buf, n, "%s-%d", t, g->partition);
    else if (R->by_partition)
        snprintf(buf, n, "%s, unknown partition", t);
    else
        snprintf(buf, n, "%s", t);
}

static void print_buckets(stats_run *R, const kf_stats_group *g, const kf_tbucket *v, size_t n)
{
    out *o = R->o;
    if (R->json) {
        kf_stats_buckets_json(&o->w, g, v, n, R->by_partition);
        return;
    }
    char label[300], w[32];
    group_label(R, g, label, sizeof label);
    fmt_duration_unit(R->width, w, sizeof w);
    if (R->by_partition)
        tprintf(o->f, "%s (%s buckets)\n", label, w);
    else
        tprintf(o->f, "%s (%" PRIu64 " partition%s, %s buckets)\n", label, g->partitions,
                g->partitions == 1 ? "" : "s", w);
    if (!n) {
        tprintf(o->f, g->records ? "  no record with a timestamp\n" : "  no records\n");
        return;
    }
    uint64_t maxr = 0;
    for (size_t i = 0; i < n; i++)
        maxr = v[i].records > maxr ? v[i].records : maxr;
    tprintf(o->f, "  %-24s %12s %14s\n", "BUCKET START (UTC)", "RECORDS", "BYTES");
    for (size_t i = 0; i < n; i++) {
        char t[40], bar[41];
        kf_format_time(v[i].start, true, t, sizeof t);
        size_t len = (size_t)((v[i].records * 40 + maxr - 1) / maxr);
        memset(bar, '#', len);
        bar[len] = 0;
        tprintf(o->f, "  %-24s %12" PRIu64 " %14" PRIu64 "  %s\n", t, v[i].records, v[i].bytes, bar);
    }
}

static void print_summary_text(stats_run *R, const kf_stats_group *g)
{
    FILE *f = R->o->f;
    tprintf(f, "  total: %" PRIu64 " records, %" PRIu64 " bytes", g->records, g->bytes);
    if (g->has_ts) {
        char a[40], b[40];
        kf_format_time(g->min_ts, true, a, sizeof a);
        kf_format_time(g->max_ts, true, b, sizeof b);
        tprintf(f, "; timestamps %s .. %s; max lateness %" PRId64 " ms (%" PRIu64 " late record%s)", a, b,
                g->max_late, g->late_records, g->late_records == 1 ? "" : "s");
    }
    fputc('\n', f);
    if (g->no_ts)
        tprintf(f, "  %" PRIu64 " records (%" PRIu64 " bytes) have no timestamp and are in no bucket\n", g->no_ts,
                g->no_ts_bytes);
    if (g->control)
        tprintf(f, "  %" PRIu64 " control records left out\n", g->control);
    if (g->skipped)
        tprintf(f, "  %" PRIu64 " damaged batch%s skipped: counts may be incomplete\n", g->skipped,
                g->skipped == 1 ? "" : "es");
    fputc('\n', f);
}

/* A group once read (kf_stats_opts.group_fn): its buckets, then in text its
 * summary; in JSON the summaries come after every group's buckets. */
static void print_group(void *ctx, const kf_stats_group *g, const kf_tbucket *v, size_t n)
{
    stats_run *R = ctx;
    print_buckets(R, g, v, n);
    if (R->json)
        R->sums[R->nsums++] = *g;
    else
        print_summary_text(R, g);
}

static void stats_usage(FILE *f)
{
    tprintf(f, "usage: kfsck stats [--bucket DURATION] [--by-partition] [--max-batch-bytes N] [--json] PATH...\n"
               "       kfsck stats --sink-partition-duration DURATION --flush-size N\n"
               "                   [--rotate-interval DURATION] [--part-size BYTES]\n"
               "                   [--rotate-schedule-interval DURATION [--catch-up-rate N]]\n"
               "                   [--from-offset N | --from-time MS | --from-group G]\n"
               "                   [--tasks N] [--heap BYTES] [--max-batch-bytes N] [--json] PATH...\n\n"
               "Records and bytes per time bucket of the record timestamps, per topic (or per\n"
               "partition), and timestamp disorder, for every partition under the PATHs (data\n"
               "dirs, partition dirs, segments; copies of a partition count each record once).\n"
               "  --bucket DURATION    bucket width: 500ms, 10s, 10m, 1h, 1d, 1w or milliseconds\n"
               "                       (default 1h); a bucket starts at floor(ts / width) * width\n"
               "  --by-partition       one set of buckets and one summary per partition\n"
               "  --max-batch-bytes N  cap on one batch's decompressed size (default 128M)\n"
               "  --json               JSON lines: \"bucket\" lines, then \"summary\" lines\n"
               "bytes = key + value + header keys and values (null counts 0); control records\n"
               "are left out; records without a timestamp (magic 0, or -1) are counted in the\n"
               "summary but in no bucket.\n\n"
               "Sink catch-up simulation: what a storage sink connector (S3/GCS/HDFS, time-based\n"
               "partitioner, timestamp.extractor=Record) holds open while it catches up: per\n"
               "partition the peak of open files (one per time bucket) and their upload buffers.\n"
               "  --sink-partition-duration DURATION  the connector's partition.duration.ms\n"
               "  --flush-size N          the connector's flush.size (required)\n"
               "  --rotate-interval DURATION  its rotate.interval.ms (default: not set)\n"
               "  --part-size BYTES       the buffer of one open file (s3.part.size; default 25M)\n"
               "  --rotate-schedule-interval DURATION  its rotate.schedule.interval.ms (wall clock):\n"
               "                          a commit every DURATION x the catch-up rate records\n"
               "  --catch-up-rate N       records/s per partition while catching up (default 1000)\n"
               "  --from-offset N         the connector resumes at offset N (default: the start)\n"
               "  --from-time MS          ... at the offset Kafka's offsetsForTimes finds for MS\n"
               "                          (epoch ms or ISO 8601: 2024-02-12T01:11:26Z)\n"
               "  --from-group G          ... at group G's committed offsets, rebuilt from the\n"
               "                          __consumer_offsets partitions among the PATHs (as\n"
               "                          offsets does); no commit: the log start\n"
               "  --tasks N               tasks.max: partitions round-robin over N tasks (default 1)\n"
               "  --heap BYTES            one worker's heap (24G): the verdict, fits or exceeds\n"
               "  --json                  \"sink_partition\" lines, one \"sink_summary\" per topic, then\n"
               "                          one \"sink_verdict\"\n");
}

int cmd_stats(int argc, char **argv)
{
    stats_run R = {0};
    R.width = KF_STATS_BUCKET_MS_DEFAULT;
    uint64_t max_batch = KF_DEFAULT_MAX_BATCH_BYTES;
    stats_sink_args sa;
    stats_sink_args_init(&sa);
    kf_sink_run_opts *sr = &sa.run;
    kf_sink_opts *so = &sr->sink;
    int64_t flush = 0, rate = 0, tasks = 0;
    bool bucket_given = false, sink_given = false, from_offset = false, from_time = false;
    int resume_points = 0; /* --from-offset, --from-time and --from-group given */
    const char *sink_only = NULL; /* a sink option, when one was given */
    const opt_spec specs[] = {
        {.name = "--bucket", .kind = OPT_DURATION, .to = &R.width, .given = &bucket_given,
         .refusal = "--bucket needs a positive duration (500ms, 10s, 10m, 1h, 1d), not"},
        {.name = "--by-partition", .kind = OPT_FLAG, .to = &R.by_partition},
        {.name = "--json", .kind = OPT_FLAG, .to = &R.json},
        {.name = "--max-batch-bytes", .kind = OPT_SIZE, .to = &max_batch},
        {.name = "--sink-partition-duration", .kind = OPT_DURATION, .to = &so->config.partition_duration_ms,
         .given = &sink_given, .refusal = "--sink-partition-duration needs a positive duration (10m, 1h), not"},
        {.name = "--flush-size", .kind = OPT_NUMBER, .to = &flush, .min = 1, .max = INT64_MAX,
         .given_name = &sink_only, .refusal = "--flush-size needs a positive number of records, not"},
        {.name = "--rotate-interval", .kind = OPT_DURATION, .to = &so->config.rotate_interval_ms,
         .given_name = &sink_only, .refusal = "--rotate-interval needs a positive duration (10m, 1h), not"},
        {.name = "--part-size", .kind = OPT_SIZE, .to = &sr->part_size, .given_name = &sink_only},
        {.name = "--from-offset", .kind = OPT_NUMBER, .to = &so->from_value, .max = INT64_MAX,
         .given = &from_offset, .given_name = &sink_only, .times = &resume_points, .refusal = "--from-offset needs an offset (0 or more), not"},
        {.name = "--from-time", .kind = OPT_TIME, .to = &so->from_value, .given = &from_time,
         .given_name = &sink_only, .times = &resume_points},
        {.name = "--rotate-schedule-interval", .kind = OPT_DURATION, .to = &sr->schedule_interval_ms,
         .given_name = &sink_only, .refusal = "--rotate-schedule-interval needs a positive duration (10m, 1h), not"},
        {.name = "--catch-up-rate", .kind = OPT_NUMBER, .to = &rate, .min = 1, .max = INT64_MAX,
         .given_name = &sink_only, .refusal = "--catch-up-rate needs a positive number of records per second, not"},
        {.name = "--from-group", .kind = OPT_STRING, .to = &sr->from_group, .given_name = &sink_only,
         .times = &resume_points,
         .refusal = "--from-group needs a group name"},
        {.name = "--tasks", .kind = OPT_NUMBER, .to = &tasks, .min = 1, .max = STATS_SINK_MAX_TASKS,
         .given_name = &sink_only, .refusal = "--tasks needs a number of tasks from 1 to 65536, not"},
        {.name = "--heap", .kind = OPT_SIZE, .to = &sr->heap, .given_name = &sink_only},
        {0},
    };
    int st = opt_parse("stats", argc, argv, specs, stats_usage, "no PATH given");
    if (st >= 0)
        return st;
    if (resume_points > 1)
        return opt_usage_error("stats", "give one of --from-offset, --from-time and --from-group, not two", NULL,
                               stats_usage);
    so->from = from_offset ? KF_SINK_FROM_OFFSET : from_time ? KF_SINK_FROM_TIME : so->from;
    so->config.flush_size = (uint64_t)flush;
    if (rate)
        sr->catch_up_rate = (uint64_t)rate;
    if (tasks)
        sr->tasks = (uint32_t)tasks;
    if (cli_mixed_clusters(argv + optind, argc - optind))
        return EXIT_FAIL;
    R.max_batch = max_batch > SIZE_MAX ? SIZE_MAX : (size_t)max_batch;
    if (sink_only && !sink_given)
        return opt_usage_error("stats", "this option needs --sink-partition-duration:", sink_only, stats_usage);
    if (sink_given) {
        if (!so->config.flush_size)
            return opt_usage_error("stats", "--sink-partition-duration needs --flush-size N (flush.size)", NULL,
                                   stats_usage);
        if (bucket_given || R.by_partition)
            return opt_usage_error("stats", "--bucket and --by-partition do not go with --sink-partition-duration",
                                   NULL, stats_usage);
        if (rate && !sr->schedule_interval_ms)
            return opt_usage_error("stats", "--catch-up-rate needs --rotate-schedule-interval", NULL, stats_usage);
        so->schedule_records = kf_sink_schedule_records(sr->schedule_interval_ms, sr->catch_up_rate);
        sa.max_batch = R.max_batch;
        sa.json = R.json;
        return stats_sink(argv + optind, argc - optind, &sa);
    }

    out o, e;
    out_init(&o, stdout, R.json);
    out_init(&e, stderr, false);
    R.o = &o;
    R.perr = R.json ? &o : &e;
    kf_inputs in;
    int in_status = inputs_collect_warn_none(argv + optind, argc - optind, &in);

    R.sums = calloc(in.n ? in.n : 1, sizeof *R.sums);
    if (!R.sums)
        cli_oom();
    report rep = {R.perr, NULL, 0, 0};
    kf_stats_opts job;
    kf_stats_opts_init(&job);
    job.bucket_ms = R.width;
    job.by_partition = R.by_partition;
    part_reader_opts(&job.read, R.max_batch, &rep);
    job.problem_fn = report_problem;
    job.problem_ctx = &rep;
    job.group_fn = print_group;
    job.group_ctx = &R;
    kf_stats_result res;
    if (kf_stats_run(&in, &job, &res) != KF_OK)
        cli_oom();
    if (R.json)
        for (size_t i = 0; i < R.nsums; i++)
            kf_stats_summary_json(&R.o->w, &R.sums[i], R.by_partition, R.width);
    fflush(stdout);
    bool write_failed = ferror(stdout);
    free(R.sums);
    kf_inputs_free(&in);
    if (write_failed || in_status == EXIT_FAIL || res.unreadable)
        return EXIT_FAIL;
    return res.damaged ? EXIT_DAMAGE : EXIT_CLEAN;
}
