/* stats_json.c: stats' JSON lines (include/kfsck/stats.h), as `kfsck stats
 * --json` prints them and the report embeds them: a group's buckets and
 * its summary. */
#include "kfsck/stats.h"
#include "kfsck/sys/json_lines.h"

/* The group's topic and partition (null when the groups are topics, or the
 * partition is not known). */
static void group_fields(kf_jsonl *j, const kf_stats_group *g, bool by_partition)
{
    kf_jsonl_str(j, "topic", g->topic[0] ? g->topic : NULL);
    kf_jsonl_opt_int(j, "partition", by_partition && g->partition >= 0, g->partition);
}

void kf_stats_buckets_json(kf_jsonl *j, const kf_stats_group *g, const kf_tbucket *b, size_t n, bool by_partition)
{
    for (size_t i = 0; i < n; i++) {
        kf_jsonl_begin(j, "bucket");
        group_fields(j, g, by_partition);
        kf_jsonl_int(j, "start", b[i].start);
        kf_jsonl_uint(j, "records", b[i].records);
        kf_jsonl_uint(j, "bytes", b[i].bytes);
        kf_jsonl_end(j);
    }
}

void kf_stats_summary_json(kf_jsonl *j, const kf_stats_group *g, bool by_partition, int64_t bucket_ms)
{
    kf_jsonl_begin(j, "summary");
    group_fields(j, g, by_partition);
    kf_jsonl_uint(j, "records", g->records);
    kf_jsonl_uint(j, "bytes", g->bytes);
    kf_jsonl_opt_int(j, "min_timestamp", g->has_ts, g->min_ts);
    kf_jsonl_opt_int(j, "max_timestamp", g->has_ts, g->max_ts);
    kf_jsonl_opt_int(j, "max_lateness_ms", g->has_ts, g->max_late);
    kf_jsonl_uint(j, "late_records", g->late_records);
    kf_jsonl_uint(j, "records_without_timestamp", g->no_ts);
    kf_jsonl_uint(j, "control_records", g->control);
    kf_jsonl_uint(j, "buckets", g->buckets);
    kf_jsonl_int(j, "bucket_ms", bucket_ms);
    kf_jsonl_uint(j, "partitions", g->partitions);
    if (by_partition) {
        kf_jsonl_opt_int(j, "first_offset", g->has_offsets, g->first_offset);
        kf_jsonl_opt_int(j, "last_offset", g->has_offsets, g->last_offset);
    }
    kf_jsonl_uint(j, "skipped_batches", g->skipped);
    kf_jsonl_end(j);
}
