/* compaction_json.c: compaction's JSON lines (include/kfsck/compaction.h),
 * as `kfsck compaction --json` prints them and the report embeds them: a
 * compacted partition's forecast, and the summary. */
#include "jobs/txns/txns_json.h"
#include "kfsck/compaction.h"
#include "kfsck/sys/json_lines.h"

void kf_compaction_json(kf_jsonl *j, const kf_compaction_result *r)
{
    const kf_partition *p = r->partition;
    const kf_cleanable *c = &r->cleanable;
    static const char *const by[] = {"not", "internal_topic", "cleanup_policy", "named"};
    kf_jsonl_begin(j, "compaction");
    kf_jsonl_fields(j, KF_JS("topic", p->topic[0] ? p->topic : NULL),
                    KF_JOPT("partition", p->partition >= 0, p->partition), KF_JU("bytes", r->bytes),
                    KF_JOPT("cleaner_offset", r->has_cleaner_offset, r->cleaner_offset),
                    KF_JI("first_dirty_offset", c->first_dirty_offset),
                    KF_JS("first_dirty_reason", kf_dirty_reset_name(c->dirty_reset)),
                    KF_JI("first_uncleanable_offset", c->first_uncleanable_offset),
                    KF_JS("uncleanable_reason", kf_uncleanable_reason_name(c->reason)));
    if (r->pinned) {
        const kf_open_txn *t = &r->pinned_by;
        const kf_pinning_txn *w = &r->pinning;
        kf_jsonl_obj_open(j, "pinned_by");
        kf_jsonl_fields(j, KF_JI("producer_id", t->producer_id), KF_JI("producer_epoch", t->producer_epoch),
                        KF_JI("first_offset", t->first_offset),
                        KF_JOPT("first_timestamp", t->has_first_timestamp, t->first_timestamp));
        /* beyond the contract: who it is, and whether it hangs */
        kf_txn_coordinator_fields(j, w->transactional_id, w->coordinator_state);
        kf_jsonl_fields(j, KF_JOPT("age_ms", w->has_age, w->age_ms), KF_JI("timeout_ms", w->timeout_ms),
                        KF_JS("timeout_source", w->timeout_from_coordinator ? "coordinator" : "default"));
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
    kf_jsonl_fields(j, KF_JB("would_clean", c->would_clean), KF_JU("keys", r->keys), KF_JU("records", r->records),
                    KF_JU("live_records", r->live_records), KF_JU("reclaimable_bytes", r->reclaimable_bytes));
    /* beyond the contract */
    kf_jsonl_fields(j, KF_JU("tombstones", r->tombstones), KF_JU("keyless_records", r->keyless_records),
                    KF_JU("aborted_records", r->aborted_records), KF_JU("control_batches", r->control_batches),
                    KF_JU("segments", r->segments), KF_JI("log_start_offset", r->log_start_offset),
                    KF_JI("log_end_offset", r->log_end_offset),
                    KF_JOPT("high_watermark", r->has_high_watermark, r->high_watermark),
                    KF_JI("last_stable_offset", r->last_stable_offset),
                    KF_JU("open_transactions", r->open_transactions),
                    KF_JI("active_segment_offset", c->active_segment_offset),
                    KF_JOPT("min_compaction_lag_offset", c->has_lag_bound, c->lag_bound_offset),
                    KF_JI("first_uncleanable_segment", c->first_uncleanable_segment),
                    KF_JU("clean_bytes", c->clean_bytes), KF_JU("total_bytes", c->total_bytes),
                    KF_JI("compaction_delay_ms", c->compaction_delay_ms), KF_JS("cleanup_policy", r->cleanup_policy),
                    KF_JS("cleanup_policy_source", kf_config_source_name(r->cleanup_policy_source)),
                    KF_JD("min_cleanable_ratio", r->min_cleanable_ratio),
                    KF_JS("min_cleanable_ratio_source", kf_config_source_name(r->min_cleanable_ratio_source)),
                    KF_JI("min_compaction_lag_ms", r->min_compaction_lag_ms),
                    KF_JS("min_compaction_lag_source", kf_config_source_name(r->min_compaction_lag_source)),
                    KF_JI("max_compaction_lag_ms", r->max_compaction_lag_ms),
                    KF_JS("max_compaction_lag_source", kf_config_source_name(r->max_compaction_lag_source)),
                    KF_JI("delete_retention_ms", r->delete_retention_ms),
                    KF_JS("delete_retention_source", kf_config_source_name(r->delete_retention_source)),
                    KF_JS("compacted_because", by[r->compacted_by]), KF_JB("incomplete", r->incomplete));
    kf_jsonl_end(j);
}

void kf_compaction_summary_json(kf_jsonl *j, const kf_compaction_totals *t, uint64_t errors, uint64_t warnings)
{
    kf_jsonl_begin(j, "summary");
    kf_jsonl_fields(j, KF_JU("partitions", t->partitions), KF_JU("skipped", t->skipped), KF_JU("pinned", t->pinned),
                    KF_JU("would_clean", t->would_clean), KF_JU("errors", errors), KF_JU("warnings", warnings));
    kf_jsonl_end_summary(j);
}
