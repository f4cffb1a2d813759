/* remote_json.c: remote's JSON lines (include/kfsck/remote.h), as `kfsck
 * remote --json` prints them and the report embeds them: a partition
 * reconciled, each of its findings' segments, a bad index-cache entry, the
 * summary. */
#include "kfsck/remote.h"
#include "kfsck/scan.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/json_lines.h"

static void json_locals(kf_jsonl *j, const char *key, const kf_remote_partition *p)
{
    kf_jsonl_arr_open(j, key);
    for (size_t i = 0; i < p->n_locals; i++) {
        const kf_remote_local *l = &p->locals[i];
        kf_jsonl_obj_open(j, NULL);
        kf_jsonl_opt_int(j, "broker", l->broker >= 0, l->broker);
        kf_jsonl_int(j, "log_start_offset", l->local_log_start_offset);
        kf_jsonl_int(j, "log_end_offset", l->log_end_offset);
        kf_jsonl_opt_int(j, "log_start_checkpoint", l->has_log_start_checkpoint, l->log_start_offset);
        kf_jsonl_str(j, "dir", l->dir);
        kf_jsonl_obj_close(j);
    }
    kf_jsonl_arr_close(j);
}

static void json_objects(kf_jsonl *j, const char *key, unsigned bits)
{
    kf_jsonl_arr_open(j, key);
    for (unsigned b = 1; b <= KF_REMOTE_OBJ_OTHER; b <<= 1)
        if (bits & b)
            kf_jsonl_str(j, NULL, kf_remote_object_name(b));
    kf_jsonl_arr_close(j);
}

void kf_remote_segment_json(kf_jsonl *j, const kf_remote_partition *p, const kf_remote_segment *s)
{
    char id[23];
    kf_jsonl_begin(j, "remote_segment");
    kf_jsonl_str(j, "topic", p->topic);
    kf_jsonl_int(j, "partition", p->partition);
    kf_uuid_to_b64(s->segment_id, id);
    kf_jsonl_str(j, "segment_id", id);
    kf_jsonl_int(j, "start_offset", s->start_offset);
    kf_jsonl_opt_int(j, "end_offset", s->state >= 0, s->end_offset);
    kf_jsonl_str(j, "state", kf_remote_state_name(s->state));
    kf_jsonl_opt_int(j, "event_timestamp", s->state >= 0, s->event_timestamp);
    kf_jsonl_opt_int(j, "broker_id", s->state >= 0, s->broker_id);
    if (s->state >= 0)
        kf_leader_epochs_json(j, "leader_epochs", s->leader_epochs, s->n_leader_epochs);
    else
        kf_jsonl_null(j, "leader_epochs");
    kf_jsonl_str(j, "finding", kf_remote_finding_name(s->finding));
    if (p->has_topic_id) {
        kf_uuid_to_b64(p->topic_id, id);
        kf_jsonl_str(j, "topic_id", id);
    }
    if (s->state >= 0) {
        kf_jsonl_int(j, "size_bytes", s->size_bytes);
        kf_jsonl_int(j, "max_timestamp", s->max_timestamp);
    }
    switch (s->finding) {
    case KF_REMOTE_COPY_STUCK:
        kf_jsonl_int(j, "age_ms", s->age_ms);
        kf_jsonl_str(j, "object_prefix", s->object_prefix);
        break;
    case KF_REMOTE_DELETE_PENDING: kf_jsonl_int(j, "age_ms", s->age_ms); break;
    case KF_REMOTE_MISSING_IN_STORAGE:
        json_objects(j, "missing", s->missing_objects);
        json_objects(j, "found", s->found_objects);
        break;
    case KF_REMOTE_EPOCH_CHAIN_BREAK:
        kf_jsonl_opt_int(j, "lineage_broker", s->lineage_broker >= 0, s->lineage_broker);
        kf_jsonl_str(j, "reason", s->reason);
        break;
    case KF_REMOTE_ORPHAN:
        kf_jsonl_arr_open(j, "keys");
        for (size_t k = 0; k < s->n_keys; k++)
            kf_jsonl_str(j, NULL, s->keys[k]);
        kf_jsonl_arr_close(j);
        kf_jsonl_uint(j, "bytes", s->bytes);
        break;
    }
    kf_jsonl_end(j);
}

void kf_remote_partition_json(kf_jsonl *j, const kf_remote_partition *p)
{
    char id[23];
    kf_jsonl_begin(j, "remote_partition");
    kf_jsonl_str(j, "topic", p->topic);
    if (p->has_topic_id) {
        kf_uuid_to_b64(p->topic_id, id);
        kf_jsonl_str(j, "topic_id", id);
    } else {
        kf_jsonl_null(j, "topic_id");
    }
    kf_jsonl_int(j, "partition", p->partition);
    kf_jsonl_obj_open(j, "segments");
    for (int s = 0; s < 4; s++)
        kf_jsonl_uint(j, kf_remote_state_name(s), p->segments[s]);
    kf_jsonl_obj_close(j);
    kf_jsonl_opt_int(j, "remote_start_offset", p->has_remote_range, p->remote_start_offset);
    kf_jsonl_opt_int(j, "remote_end_offset", p->has_remote_range, p->remote_end_offset);
    json_locals(j, "local_log_start_offset", p);
    json_locals(j, "local_log_end_offset", p);
    kf_jsonl_arr_open(j, "offsets_in_no_tier");
    for (size_t i = 0; i < p->n_no_tier; i++) {
        kf_jsonl_obj_open(j, NULL);
        kf_jsonl_int(j, "from_offset", p->no_tier[i].from_offset);
        kf_jsonl_int(j, "to_offset", p->no_tier[i].to_offset);
        kf_jsonl_obj_close(j);
    }
    kf_jsonl_arr_close(j);
    kf_jsonl_uint(j, "remote_bytes", p->remote_bytes);
    if (p->has_orphan_bytes)
        kf_jsonl_uint(j, "orphan_bytes", p->orphan_bytes);
    else
        kf_jsonl_null(j, "orphan_bytes");
    /* beyond the contract */
    kf_jsonl_opt_int(j, "metadata_partition", p->metadata_partition >= 0, p->metadata_partition);
    kf_jsonl_bool(j, "judged", p->judged);
    kf_jsonl_opt_int(j, "log_start_offset", p->n_locals > 0, p->log_start_offset);
    kf_jsonl_uint(j, "offsets_in_no_tier_count", p->offsets_in_no_tier);
    kf_jsonl_str(j, "partition_delete_state", kf_remote_partition_state_name(p->partition_delete_state));
    kf_jsonl_opt_int(j, "metadata_consumer_stops_at", p->has_metadata_stop, p->metadata_stop_offset);
    kf_jsonl_obj_open(j, "findings");
    for (int f = 0; f < 5; f++)
        kf_jsonl_uint(j, kf_remote_finding_name((kf_remote_finding)f), p->counts[f]);
    kf_jsonl_obj_close(j);
    kf_jsonl_end(j);
    for (size_t k = 0; k < p->n_findings; k++)
        kf_remote_segment_json(j, p, &p->findings[k]);
}

void kf_remote_index_json(kf_jsonl *j, const kf_remote_index *e)
{
    char id[23] = "";
    if (e->has_segment_id)
        kf_uuid_to_b64(e->segment_id, id);
    kf_jsonl_begin(j, "remote_index");
    kf_jsonl_str(j, "file", e->file);
    kf_jsonl_str(j, "segment_id", e->has_segment_id ? id : NULL);
    kf_jsonl_str(j, "error", e->error);
    kf_jsonl_str(j, "code", e->code);
    kf_jsonl_opt_int(j, "start_offset", e->start_offset >= 0, e->start_offset);
    kf_jsonl_bool(j, "stops_broker", e->stops_broker);
    kf_jsonl_end(j);
}

void kf_remote_summary_json(kf_jsonl *j, const kf_remote_totals *t, uint64_t errors, uint64_t warnings)
{
    kf_jsonl_begin(j, "summary");
    kf_jsonl_uint(j, "metadata_partitions", t->metadata_partitions);
    kf_jsonl_uint(j, "records", t->records);
    kf_jsonl_uint(j, "partitions", t->partitions);
    kf_jsonl_uint(j, "partitions_with_offsets_in_no_tier", t->partitions_with_gap);
    kf_jsonl_uint(j, "offsets_in_no_tier", t->offsets_in_no_tier);
    for (int f = 0; f < 5; f++)
        kf_jsonl_uint(j, kf_remote_finding_name((kf_remote_finding)f), t->counts[f]);
    kf_jsonl_uint(j, "invalid_transitions", t->rejected);
    kf_jsonl_uint(j, "fatal_records", t->fatal_records);
    kf_jsonl_bool(j, "incomplete", t->incomplete);
    kf_jsonl_uint(j, "objects", t->objects);
    kf_jsonl_uint(j, "unrecognised_objects", t->unrecognised_objects);
    kf_jsonl_uint(j, "unjudged_objects", t->unjudged_objects);
    kf_jsonl_uint(j, "index_entries", t->index_entries);
    kf_jsonl_uint(j, "bad_index_entries", t->index_bad);
    kf_jsonl_uint(j, "errors", errors);
    kf_jsonl_uint(j, "warnings", warnings);
    kf_jsonl_end_summary(j);
}
