/* compaction_json.c: compaction's JSON lines (include/kfsck/compaction.h),
 * as `kfsck compaction --json` prints them and the report embeds them: a
 * compacted partition's forecast, and the summary. */
#include "kfsck/compaction.h"
#include "kfsck/sys/json_lines.h"

/* A run of count fields of one JSON object. */
typedef struct count_field {
    const char *key;
    uint64_t value;
} count_field;

static void put_counts(kf_jsonl *j, const count_field *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        kf_jsonl_uint(j, f[i].key, f[i].value);
}

void kf_compaction_json(kf_jsonl *j, const kf_compaction_result *r)
{
    const kf_partition *p = r->partition;
    const kf_cleanable *c = &r->cleanable;
    kf_jsonl_begin(j, "compaction");
    kf_jsonl_str(j, "topic", p->topic[0] ? p->topic : NULL);
    kf_jsonl_opt_int(j, "partition", p->partition >= 0, p->partition);
    kf_jsonl_uint(j, "bytes", r->bytes);
    kf_jsonl_opt_int(j, "cleaner_offset", r->has_cleaner_offset, r->cleaner_offset);
    kf_jsonl_int(j, "first_dirty_offset", c->first_dirty_offset);
    kf_jsonl_str(j, "first_dirty_reason", kf_dirty_reset_name(c->dirty_reset));
    kf_jsonl_int(j, "first_uncleanable_offset", c->first_uncleanable_offset);
    kf_jsonl_str(j, "uncleanable_reason", kf_uncleanable_reason_name(c->reason));
    if (r->pinned) {
        const kf_open_txn *t = &r->pinned_by;
        const kf_pinning_txn *w = &r->pinning;
        const char *st = kf_txn_state_name(w->coordinator_state);
        kf_jsonl_obj_open(j, "pinned_by");
        kf_jsonl_int(j, "producer_id", t->producer_id);
        kf_jsonl_int(j, "producer_epoch", t->producer_epoch);
        kf_jsonl_int(j, "first_offset", t->first_offset);
        kf_jsonl_opt_int(j, "first_timestamp", t->has_first_timestamp, t->first_timestamp);
        /* beyond the contract: who it is, and whether it hangs */
        kf_jsonl_str(j, "transactional_id", w->transactional_id);
        if (w->transactional_id && !st)
            kf_jsonl_int(j, "coordinator_state", w->coordinator_state);
        else
            kf_jsonl_str(j, "coordinator_state", w->transactional_id ? st : NULL);
        kf_jsonl_opt_int(j, "age_ms", w->has_age, w->age_ms);
        kf_jsonl_int(j, "timeout_ms", w->timeout_ms);
        kf_jsonl_str(j, "timeout_source", w->timeout_from_coordinator ? "coordinator" : "default");
        if (w->has_age)
            kf_jsonl_bool(j, "hanging", w->hanging);
        else
            kf_jsonl_null(j, "hanging");
        kf_jsonl_obj_close(j);
    } else {
        kf_jsonl_null(j, "pinned_by");
    }
    kf_jsonl_uint(j, "cleanable_bytes", c->cleanable_bytes);
    if (c->has_ratio)
        kf_jsonl_double(j, "dirty_ratio", c->dirty_ratio);
    else
        kf_jsonl_null(j, "dirty_ratio");
    kf_jsonl_bool(j, "would_clean", c->would_clean);
    const count_field counts[] = {
        {"keys", r->keys}, {"records", r->records}, {"live_records", r->live_records},
        {"reclaimable_bytes", r->reclaimable_bytes},
        /* beyond the contract */
        {"tombstones", r->tombstones}, {"keyless_records", r->keyless_records},
        {"aborted_records", r->aborted_records},
        {"control_batches", r->control_batches}, {"segments", r->segments},
    };
    put_counts(j, counts, sizeof counts / sizeof counts[0]);
    kf_jsonl_int(j, "log_start_offset", r->log_start_offset);
    kf_jsonl_int(j, "log_end_offset", r->log_end_offset);
    kf_jsonl_opt_int(j, "high_watermark", r->has_high_watermark, r->high_watermark);
    kf_jsonl_int(j, "last_stable_offset", r->last_stable_offset);
    kf_jsonl_uint(j, "open_transactions", r->open_transactions);
    kf_jsonl_int(j, "active_segment_offset", c->active_segment_offset);
    kf_jsonl_opt_int(j, "min_compaction_lag_offset", c->has_lag_bound, c->lag_bound_offset);
    kf_jsonl_int(j, "first_uncleanable_segment", c->first_uncleanable_segment);
    kf_jsonl_uint(j, "clean_bytes", c->clean_bytes);
    kf_jsonl_uint(j, "total_bytes", c->total_bytes);
    kf_jsonl_int(j, "compaction_delay_ms", c->compaction_delay_ms);
    kf_jsonl_str(j, "cleanup_policy", r->cleanup_policy);
    kf_jsonl_str(j, "cleanup_policy_source", kf_config_source_name(r->cleanup_policy_source));
    kf_jsonl_double(j, "min_cleanable_ratio", r->min_cleanable_ratio);
    kf_jsonl_str(j, "min_cleanable_ratio_source", kf_config_source_name(r->min_cleanable_ratio_source));
    kf_jsonl_int(j, "min_compaction_lag_ms", r->min_compaction_lag_ms);
    kf_jsonl_str(j, "min_compaction_lag_source", kf_config_source_name(r->min_compaction_lag_source));
    kf_jsonl_int(j, "max_compaction_lag_ms", r->max_compaction_lag_ms);
    kf_jsonl_str(j, "max_compaction_lag_source", kf_config_source_name(r->max_compaction_lag_source));
    kf_jsonl_int(j, "delete_retention_ms", r->delete_retention_ms);
    kf_jsonl_str(j, "delete_retention_source", kf_config_source_name(r->delete_retention_source));
    static const char *const by[] = {"not", "internal_topic", "cleanup_policy", "named"};
    kf_jsonl_str(j, "compacted_because", by[r->compacted_by]);
    kf_jsonl_bool(j, "incomplete", r->incomplete);
    kf_jsonl_end(j);
}

void kf_compaction_summary_json(kf_jsonl *j, const kf_compaction_totals *t, uint64_t errors, uint64_t warnings)
{
    const count_field counts[] = {
        {"partitions", t->partitions}, {"skipped", t->skipped}, {"pinned", t->pinned},
        {"would_clean", t->would_clean}, {"errors", errors}, {"warnings", warnings},
    };
    kf_jsonl_begin(j, "summary");
    put_counts(j, counts, sizeof counts / sizeof counts[0]);
    kf_jsonl_end_summary(j);
}
