/* stats_json.c: stats' JSON lines (include/kfsck/stats.h), as `kfsck stats
 * --json` prints them and the report embeds them: a group's buckets and
 * its summary. */
#include "kfsck/stats.h"
#include "kfsck/sys/json_lines.h"

/* The group's topic and partition (null when the groups are topics, or the
 * partition is not known). */
static void group_fields(kf_jsonl *j, const kf_stats_group *g, bool by_partition)
{
    kf_jsonl_fields(j, KF_JS("topic", g->topic[0] ? g->topic : NULL),
                    KF_JOPT("partition", by_partition && g->partition >= 0, g->partition));
}

void kf_stats_buckets_json(kf_jsonl *j, const kf_stats_group *g, const kf_tbucket *b, size_t n, bool by_partition)
{
    for (size_t i = 0; i < n; i++) {
        kf_jsonl_begin(j, "bucket");
        group_fields(j, g, by_partition);
        kf_jsonl_fields(j, KF_JI("start", b[i].start), KF_JU("records", b[i].records), KF_JU("bytes", b[i].bytes));
        kf_jsonl_end(j);
    }
}

void kf_stats_summary_json(kf_jsonl *j, const kf_stats_group *g, bool by_partition, int64_t bucket_ms)
{
    kf_jsonl_begin(j, "summary");
    group_fields(j, g, by_partition);
    kf_jsonl_fields(j, KF_JU("records", g->records), KF_JU("bytes", g->bytes),
                    KF_JOPT("min_timestamp", g->has_ts, g->min_ts), KF_JOPT("max_timestamp", g->has_ts, g->max_ts),
                    KF_JOPT("max_lateness_ms", g->has_ts, g->max_late), KF_JU("late_records", g->late_records),
                    KF_JU("records_without_timestamp", g->no_ts), KF_JU("control_records", g->control),
                    KF_JU("buckets", g->buckets), KF_JI("bucket_ms", bucket_ms), KF_JU("partitions", g->partitions));
    if (by_partition) {
        kf_jsonl_fields(j, KF_JOPT("first_offset", g->has_offsets, g->first_offset),
                        KF_JOPT("last_offset", g->has_offsets, g->last_offset));
    }
    kf_jsonl_uint(j, "skipped_batches", g->skipped);
    kf_jsonl_end(j);
}
