/* predict_json.c: predict's JSON lines (include/kfsck/predict.h), as `kfsck
 * predict --json` prints them and the report embeds them: a log dir's
 * forecast, each action the broker takes, each partition's outcome, and
 * the summary. */
#include "kfsck/predict.h"
#include "kfsck/sys/json_lines.h"

void kf_predict_datadir_json(kf_jsonl *j, const kf_predict_datadir *d)
{
    kf_jsonl_begin(j, "datadir");
    kf_jsonl_str(j, "datadir", d->datadir);
    kf_jsonl_bool(j, "clean_shutdown", d->clean_shutdown);
    kf_jsonl_opt_int(j, "broker_epoch", d->has_broker_epoch, d->broker_epoch);
    kf_jsonl_uint(j, "partitions", d->partitions);
    kf_jsonl_uint(j, "partitions_to_recover", d->partitions_to_recover);
    kf_jsonl_uint(j, "bytes_to_recover", d->bytes_to_recover);
    kf_jsonl_uint(j, "recovery_threads", d->recovery_threads);
    kf_jsonl_uint(j, "recovery_rate", d->recovery_rate);
    kf_jsonl_double(j, "estimated_recovery_seconds", d->estimated_recovery_seconds);
    kf_jsonl_uint(j, "fatal", d->fatal);
    kf_jsonl_uint(j, "partitions_harmed", d->n_harmed);
    kf_jsonl_str(j, "kraft_snapshot_cut", d->kraft_snapshot_cut);
    kf_jsonl_end_summary(j);
}

void kf_predict_action_json(kf_jsonl *j, const kf_predict_action *a)
{
    kf_jsonl_begin(j, "action");
    kf_jsonl_str(j, "datadir", a->datadir);
    kf_jsonl_str(j, "topic", a->topic);
    kf_jsonl_opt_int(j, "partition", a->topic, a->partition);
    kf_jsonl_str(j, "action", kf_predict_action_name(a->action));
    kf_jsonl_str(j, "file", a->file);
    kf_jsonl_str(j, "reason", a->reason);
    kf_jsonl_uint(j, "bytes", a->bytes);
    if (a->action == KF_ACT_TRUNCATE_SEGMENT) {
        kf_jsonl_uint(j, "position", a->position);
        kf_jsonl_int(j, "offset", a->offset);
        kf_jsonl_int(j, "offsets_lost", a->offsets_lost);
    }
    kf_jsonl_end(j);
}

static void harm(kf_jsonl *j, const kf_predict_partition *p)
{
    kf_jsonl_int(j, "acknowledged_missing", p->acknowledged_missing);
    kf_jsonl_int(j, "offsets_lost_inside", p->offsets_lost_inside);
    kf_jsonl_arr_open(j, "damage_kept");
    for (size_t i = 0; i < p->n_damage_kept; i++) {
        const kf_damage_kept *k = &p->damage_kept[i];
        kf_jsonl_obj_open(j, NULL);
        kf_jsonl_str(j, "file", k->file);
        kf_jsonl_uint(j, "position", k->position);
        kf_jsonl_int(j, "offset", k->offset);
        kf_jsonl_str(j, "code", k->code);
        kf_jsonl_str(j, "error", k->error);
        kf_jsonl_obj_close(j);
    }
    kf_jsonl_arr_close(j);
    if (p->damage_kept_omitted)
        kf_jsonl_uint(j, "damage_kept_omitted", p->damage_kept_omitted);
    kf_jsonl_arr_open(j, "groups_affected");
    for (size_t i = 0; i < p->n_groups_affected; i++) {
        const kf_group_affected *g = &p->groups_affected[i];
        kf_jsonl_obj_open(j, NULL);
        kf_jsonl_str(j, "group", g->group);
        kf_jsonl_str(j, "topic", g->topic);
        kf_jsonl_int(j, "partition", g->partition);
        kf_jsonl_opt_int(j, "offset_now", g->has_offset_now, g->offset_now);
        kf_jsonl_opt_int(j, "offset_after", g->has_offset_after, g->offset_after);
        kf_jsonl_obj_close(j);
    }
    kf_jsonl_arr_close(j);
}

void kf_predict_partition_json(kf_jsonl *j, const kf_predict_partition *p)
{
    kf_jsonl_begin(j, "partition");
    kf_jsonl_str(j, "datadir", p->datadir);
    kf_jsonl_str(j, "topic", p->topic);
    kf_jsonl_int(j, "partition", p->partition);
    kf_jsonl_str(j, "dir", p->dir);
    kf_jsonl_str(j, "state", kf_predict_state_name(p->state));
    if (p->state == KF_PST_MISSING)
        kf_jsonl_str(j, "missing_why", p->missing_why);
    kf_jsonl_int(j, "recovery_point", p->recovery_point);
    kf_jsonl_int(j, "log_start_offset", p->log_start_offset);
    kf_jsonl_int(j, "log_end_offset_before", p->log_end_offset_before);
    kf_jsonl_int(j, "log_end_offset_after", p->log_end_offset_after);
    kf_jsonl_opt_int(j, "high_watermark", p->has_high_watermark, p->high_watermark);
    kf_jsonl_int(j, "offsets_lost", p->offsets_lost);
    kf_jsonl_int(j, "acknowledged_lost", p->acknowledged_lost);
    harm(j, p);
    kf_jsonl_uint(j, "segments_to_recover", p->segments_to_recover);
    kf_jsonl_uint(j, "bytes_to_recover", p->bytes_to_recover);
    kf_jsonl_str(j, "producer_state", kf_producer_load_name(p->producer_state));
    kf_jsonl_opt_int(j, "producer_snapshot_offset", p->has_producer_snapshot_offset, p->producer_snapshot_offset);
    kf_jsonl_arr_open(j, "retention_deletes");
    for (size_t i = 0; i < p->n_retention_deletes; i++) {
        const kf_retention_delete *r = &p->retention_deletes[i];
        kf_jsonl_obj_open(j, NULL);
        kf_jsonl_str(j, "file", r->file);
        kf_jsonl_int(j, "base_offset", r->base_offset);
        kf_jsonl_str(j, "reason", kf_retention_reason_name(r->reason));
        kf_jsonl_uint(j, "bytes", r->bytes);
        kf_jsonl_obj_close(j);
    }
    kf_jsonl_arr_close(j);
    kf_jsonl_uint(j, "future_timestamps", p->future_timestamps);
    kf_jsonl_str(j, "retention_source", p->retention_source);
    kf_jsonl_end(j);
}

void kf_predict_summary_json(kf_jsonl *j, const kf_predict_summary *s)
{
    kf_jsonl_begin(j, "summary");
    kf_jsonl_uint(j, "datadirs", s->datadirs);
    kf_jsonl_uint(j, "partitions", s->partitions);
    kf_jsonl_int(j, "offsets_lost", s->offsets_lost);
    kf_jsonl_int(j, "acknowledged_lost", s->acknowledged_lost);
    kf_jsonl_double(j, "estimated_recovery_seconds", s->estimated_recovery_seconds);
    kf_jsonl_uint(j, "fatal", s->fatal);
    kf_jsonl_int(j, "acknowledged_missing", s->acknowledged_missing);
    kf_jsonl_uint(j, "damage_kept", s->damage_kept);
    kf_jsonl_uint(j, "groups_affected", s->groups_affected);
    kf_jsonl_uint(j, "partitions_harmed", s->partitions_harmed);
    kf_jsonl_end_summary(j);
}
