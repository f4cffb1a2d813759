/* offsets_json.c: a row of `kfsck offsets --json` (include/kfsck/offsets_job.h),
 * as the command prints it and the report embeds it: a group's committed
 * offset with the consumer's view of it, or with --history one change of
 * the time line (a deletion names the value it removed). */
#include "kfsck/offsets_job.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/json_lines.h"

/* The consumer's view of a row (vw), as JSON fields after transactional. */
static void json_bounds(kf_jsonl *j, const kf_offset_view *vw)
{
    if (!vw->has_bounds)
        return;
    kf_jsonl_int(j, "log_start_offset", vw->log_start_offset);
    kf_jsonl_int(j, "log_end_offset", vw->log_end_offset);
    kf_jsonl_opt_int(j, "lag", vw->has_lag, vw->lag);
    kf_jsonl_str(j, "out_of_range", kf_out_of_range_name(vw->out_of_range));
}

/* What only a row of the table has: staleness and expiry. */
static void json_table_fields(kf_jsonl *j, const kf_offset_view *vw)
{
    kf_jsonl_bool(j, "may_be_stale", vw->may_be_stale);
    kf_jsonl_opt_int(j, "expires_at", vw->has_expires_at, vw->expires_at);
    kf_jsonl_bool(j, "expired", vw->has_expires_at && vw->expired);
}

void kf_offsets_row_json(kf_jsonl *j, const kf_offsets_row *r, bool history)
{
    const kf_offset_value *v = r->value;
    bool deleted = r->deleted;
    kf_jsonl_begin(j, "offset");
    kf_jsonl_str(j, "group", v->group);
    kf_jsonl_str(j, "topic", v->topic);
    kf_jsonl_int(j, "partition", v->partition);
    if (history && deleted) {
        /* a deletion: no value; source_offset is the tombstone's */
        kf_jsonl_null(j, "offset");
        kf_jsonl_null(j, "leader_epoch");
        kf_jsonl_null(j, "metadata");
        kf_jsonl_null(j, "commit_timestamp");
        kf_jsonl_null(j, "expire_timestamp");
        kf_jsonl_int(j, "source_partition", v->source_partition);
        kf_jsonl_int(j, "source_offset", r->at_offset);
        kf_jsonl_bool(j, "transactional", false);
        kf_jsonl_bool(j, "deleted", true);
        kf_jsonl_int(j, "change_time", r->change_time);
        kf_jsonl_int(j, "effective_offset", r->at_offset);
        kf_jsonl_obj_open(j, "previous");
        kf_jsonl_int(j, "offset", v->offset);
        kf_jsonl_int(j, "commit_timestamp", v->commit_timestamp);
        kf_jsonl_int(j, "source_offset", v->source_offset);
        kf_jsonl_obj_close(j);
        kf_jsonl_end(j);
        return;
    }
    kf_jsonl_int(j, "offset", v->offset);
    kf_jsonl_opt_int(j, "leader_epoch", v->leader_epoch >= 0, v->leader_epoch); /* -1: none (kfsck(1), offsets) */
    kf_jsonl_str(j, "metadata", v->metadata);
    kf_jsonl_int(j, "commit_timestamp", v->commit_timestamp);
    kf_jsonl_opt_int(j, "expire_timestamp", v->expire_timestamp >= 0, v->expire_timestamp);
    kf_jsonl_int(j, "source_partition", v->source_partition);
    kf_jsonl_int(j, "source_offset", v->source_offset);
    kf_jsonl_bool(j, "transactional", v->transactional);
    json_bounds(j, &r->view);
    kf_jsonl_int(j, "value_version", v->value_version);
    if (r->has_topic_id) { /* the commit's own, else its topic's (kf_topic_names) */
        char id[23];
        kf_uuid_to_b64(r->topic_id, id);
        kf_jsonl_str(j, "topic_id", id);
    }
    if (history) {
        kf_jsonl_bool(j, "deleted", false);
        kf_jsonl_int(j, "change_time", r->change_time);
        kf_jsonl_int(j, "effective_offset", r->at_offset);
    } else {
        json_table_fields(j, &r->view);
    }
    kf_jsonl_end(j);
}

