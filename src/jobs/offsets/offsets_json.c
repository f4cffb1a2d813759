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
    kf_jsonl_fields(j, KF_JI("log_start_offset", vw->log_start_offset), KF_JI("log_end_offset", vw->log_end_offset),
                    KF_JOPT("lag", vw->has_lag, vw->lag),
                    KF_JS("out_of_range", kf_out_of_range_name(vw->out_of_range)));
}

/* What only a row of the table has: staleness and expiry. */
static void json_table_fields(kf_jsonl *j, const kf_offset_view *vw)
{
    kf_jsonl_fields(j, KF_JB("may_be_stale", vw->may_be_stale),
                    KF_JOPT("expires_at", vw->has_expires_at, vw->expires_at),
                    KF_JB("expired", vw->has_expires_at && vw->expired));
}

/* What only a row of --history has: whether the change deletes the commit,
 * its time and the offset it took effect at. */
static void json_change_fields(kf_jsonl *j, const kf_offsets_row *r)
{
    kf_jsonl_fields(j, KF_JB("deleted", r->deleted), KF_JI("change_time", r->change_time),
                    KF_JI("effective_offset", r->at_offset));
}

void kf_offsets_row_json(kf_jsonl *j, const kf_offsets_row *r, bool history)
{
    const kf_offset_value *v = r->value;
    bool deleted = r->deleted;
    kf_jsonl_begin(j, "offset");
    kf_jsonl_fields(j, KF_JS("group", v->group), KF_JS("topic", v->topic), KF_JI("partition", v->partition));
    if (history && deleted) {
        /* a deletion: no value; source_offset is the tombstone's */
        kf_jsonl_fields(j, KF_JNULL("offset"), KF_JNULL("leader_epoch"), KF_JNULL("metadata"),
                        KF_JNULL("commit_timestamp"), KF_JNULL("expire_timestamp"),
                        KF_JI("source_partition", v->source_partition), KF_JI("source_offset", r->at_offset),
                        KF_JB("transactional", false));
        json_change_fields(j, r);
        kf_jsonl_obj_open(j, "previous");
        kf_jsonl_fields(j, KF_JI("offset", v->offset), KF_JI("commit_timestamp", v->commit_timestamp),
                        KF_JI("source_offset", v->source_offset));
        kf_jsonl_obj_close(j);
        kf_jsonl_end(j);
        return;
    }
    /* leader_epoch -1: none (kfsck(1), offsets) */
    kf_jsonl_fields(j, KF_JI("offset", v->offset), KF_JOPT("leader_epoch", v->leader_epoch >= 0, v->leader_epoch),
                    KF_JS("metadata", v->metadata), KF_JI("commit_timestamp", v->commit_timestamp),
                    KF_JOPT("expire_timestamp", v->expire_timestamp >= 0, v->expire_timestamp),
                    KF_JI("source_partition", v->source_partition), KF_JI("source_offset", v->source_offset),
                    KF_JB("transactional", v->transactional));
    json_bounds(j, &r->view);
    kf_jsonl_int(j, "value_version", v->value_version);
    if (r->has_topic_id) { /* the commit's own, else its topic's (kf_topic_names) */
        char id[23];
        kf_uuid_to_b64(r->topic_id, id);
        kf_jsonl_str(j, "topic_id", id);
    }
    if (history)
        json_change_fields(j, r);
    else
        json_table_fields(j, &r->view);
    kf_jsonl_end(j);
}

