/* remote_json.c: remote's JSON lines (include/kfsck/remote.h), as `kfsck
 * remote --json` prints them and the report embeds them: a partition
 * reconciled, each of its findings' segments, a bad index-cache entry, the
 * summary. */
#include "kfsck/remote.h"
#include "kfsck/scan.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/json_lines.h"

/* id as Kafka shows a Uuid (kf_uuid_to_b64), written in b; NULL (null in
 * JSON) when the id is not known (!has). */
static const char *uuid_text(char b[23], bool has, const uint8_t id[16])
{
    if (!has)
        return NULL;
    kf_uuid_to_b64(id, b);
    return b;
}

static void json_locals(kf_jsonl *j, const char *key, const kf_remote_partition *p)
{
    kf_jsonl_arr_open(j, key);
    for (size_t i = 0; i < p->n_locals; i++) {
        const kf_remote_local *l = &p->locals[i];
        kf_jsonl_obj_open(j, NULL);
        kf_jsonl_fields(j, KF_JOPT("broker", l->broker >= 0, l->broker),
                        KF_JI("log_start_offset", l->local_log_start_offset),
                        KF_JI("log_end_offset", l->log_end_offset),
                        KF_JOPT("log_start_checkpoint", l->has_log_start_checkpoint, l->log_start_offset),
                        KF_JS("dir", l->dir));
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

/* Each finding's count (counts by kf_remote_finding), under its name. */
static void finding_counts(kf_jsonl *j, const uint64_t counts[5])
{
    for (int f = 0; f < 5; f++)
        kf_jsonl_uint(j, kf_remote_finding_name((kf_remote_finding)f), counts[f]);
}

void kf_remote_segment_json(kf_jsonl *j, const kf_remote_partition *p, const kf_remote_segment *s)
{
    char id[23];
    kf_jsonl_begin(j, "remote_segment");
    kf_jsonl_fields(j, KF_JS("topic", p->topic), KF_JI("partition", p->partition),
                    KF_JS("segment_id", uuid_text(id, true, s->segment_id)), KF_JI("start_offset", s->start_offset),
                    KF_JOPT("end_offset", s->state >= 0, s->end_offset), KF_JS("state", kf_remote_state_name(s->state)),
                    KF_JOPT("event_timestamp", s->state >= 0, s->event_timestamp),
                    KF_JOPT("broker_id", s->state >= 0, s->broker_id));
    if (s->state >= 0)
        kf_leader_epochs_json(j, "leader_epochs", s->leader_epochs, s->n_leader_epochs);
    else
        kf_jsonl_null(j, "leader_epochs");
    kf_jsonl_str(j, "finding", kf_remote_finding_name(s->finding));
    if (p->has_topic_id)
        kf_jsonl_str(j, "topic_id", uuid_text(id, true, p->topic_id));
    if (s->state >= 0) {
        kf_jsonl_fields(j, KF_JI("size_bytes", s->size_bytes), KF_JI("max_timestamp", s->max_timestamp));
    }
    switch (s->finding) {
    case KF_REMOTE_COPY_STUCK:
        kf_jsonl_fields(j, KF_JI("age_ms", s->age_ms), KF_JS("object_prefix", s->object_prefix));
        break;
    case KF_REMOTE_DELETE_PENDING: kf_jsonl_int(j, "age_ms", s->age_ms); break;
    case KF_REMOTE_MISSING_IN_STORAGE:
        json_objects(j, "missing", s->missing_objects);
        json_objects(j, "found", s->found_objects);
        break;
    case KF_REMOTE_EPOCH_CHAIN_BREAK:
        kf_jsonl_fields(j, KF_JOPT("lineage_broker", s->lineage_broker >= 0, s->lineage_broker),
                        KF_JS("reason", s->reason));
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
    kf_jsonl_fields(j, KF_JS("topic", p->topic), KF_JS("topic_id", uuid_text(id, p->has_topic_id, p->topic_id)),
                    KF_JI("partition", p->partition));
    kf_jsonl_obj_open(j, "segments");
    for (int s = 0; s < 4; s++)
        kf_jsonl_uint(j, kf_remote_state_name(s), p->segments[s]);
    kf_jsonl_obj_close(j);
    kf_jsonl_fields(j, KF_JOPT("remote_start_offset", p->has_remote_range, p->remote_start_offset),
                    KF_JOPT("remote_end_offset", p->has_remote_range, p->remote_end_offset));
    json_locals(j, "local_log_start_offset", p);
    json_locals(j, "local_log_end_offset", p);
    kf_jsonl_arr_open(j, "offsets_in_no_tier");
    for (size_t i = 0; i < p->n_no_tier; i++) {
        kf_jsonl_obj_open(j, NULL);
        kf_jsonl_fields(j, KF_JI("from_offset", p->no_tier[i].from_offset),
                        KF_JI("to_offset", p->no_tier[i].to_offset));
        kf_jsonl_obj_close(j);
    }
    kf_jsonl_arr_close(j);
    kf_jsonl_uint(j, "remote_bytes", p->remote_bytes);
    if (p->has_orphan_bytes)
        kf_jsonl_uint(j, "orphan_bytes", p->orphan_bytes);
    else
        kf_jsonl_null(j, "orphan_bytes");
    /* beyond the contract */
    kf_jsonl_fields(j, KF_JOPT("metadata_partition", p->metadata_partition >= 0, p->metadata_partition),
                    KF_JB("judged", p->judged), KF_JOPT("log_start_offset", p->n_locals > 0, p->log_start_offset),
                    KF_JU("offsets_in_no_tier_count", p->offsets_in_no_tier),
                    KF_JS("partition_delete_state", kf_remote_partition_state_name(p->partition_delete_state)),
                    KF_JOPT("metadata_consumer_stops_at", p->has_metadata_stop, p->metadata_stop_offset));
    kf_jsonl_obj_open(j, "findings");
    finding_counts(j, p->counts);
    kf_jsonl_obj_close(j);
    kf_jsonl_end(j);
    for (size_t k = 0; k < p->n_findings; k++)
        kf_remote_segment_json(j, p, &p->findings[k]);
}

void kf_remote_index_json(kf_jsonl *j, const kf_remote_index *e)
{
    char id[23];
    kf_jsonl_begin(j, "remote_index");
    kf_jsonl_fields(j, KF_JS("file", e->file), KF_JS("segment_id", uuid_text(id, e->has_segment_id, e->segment_id)),
                    KF_JS("error", e->error), KF_JS("code", e->code),
                    KF_JOPT("start_offset", e->start_offset >= 0, e->start_offset),
                    KF_JB("stops_broker", e->stops_broker));
    kf_jsonl_end(j);
}

void kf_remote_summary_json(kf_jsonl *j, const kf_remote_totals *t, uint64_t errors, uint64_t warnings)
{
    kf_jsonl_begin(j, "summary");
    kf_jsonl_fields(j, KF_JU("metadata_partitions", t->metadata_partitions), KF_JU("records", t->records),
                    KF_JU("partitions", t->partitions),
                    KF_JU("partitions_with_offsets_in_no_tier", t->partitions_with_gap),
                    KF_JU("offsets_in_no_tier", t->offsets_in_no_tier));
    finding_counts(j, t->counts);
    kf_jsonl_fields(j, KF_JU("invalid_transitions", t->rejected), KF_JU("fatal_records", t->fatal_records),
                    KF_JB("incomplete", t->incomplete), KF_JU("objects", t->objects),
                    KF_JU("unrecognised_objects", t->unrecognised_objects),
                    KF_JU("unjudged_objects", t->unjudged_objects), KF_JU("index_entries", t->index_entries),
                    KF_JU("bad_index_entries", t->index_bad), KF_JU("errors", errors), KF_JU("warnings", warnings));
    kf_jsonl_end_summary(j);
}
