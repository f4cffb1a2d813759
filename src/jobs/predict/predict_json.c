/* predict_json.c: predict's JSON lines (include/kfsck/predict.h), as `kfsck
 * predict --json` prints them and the report embeds them: a log dir's
 * forecast, each action the broker takes, each partition's outcome, and
 * the summary. */
#include "kfsck/predict.h"
#include "kfsck/sys/json_lines.h"

void kf_predict_datadir_json(kf_jsonl *j, const kf_predict_datadir *d)
{
    kf_jsonl_begin(j, "datadir");
    kf_jsonl_fields(j, KF_JS("datadir", d->datadir), KF_JB("clean_shutdown", d->clean_shutdown),
                    KF_JOPT("broker_epoch", d->has_broker_epoch, d->broker_epoch), KF_JU("partitions", d->partitions),
                    KF_JU("partitions_to_recover", d->partitions_to_recover),
                    KF_JU("bytes_to_recover", d->bytes_to_recover), KF_JU("recovery_threads", d->recovery_threads),
                    KF_JU("recovery_rate", d->recovery_rate),
                    KF_JD("estimated_recovery_seconds", d->estimated_recovery_seconds), KF_JU("fatal", d->fatal),
                    KF_JU("partitions_harmed", d->n_harmed), KF_JS("kraft_snapshot_cut", d->kraft_snapshot_cut));
    kf_jsonl_end_summary(j);
}

void kf_predict_action_json(kf_jsonl *j, const kf_predict_action *a)
{
    kf_jsonl_begin(j, "action");
    kf_jsonl_fields(j, KF_JS("datadir", a->id.datadir), KF_JS("topic", a->id.topic),
                    KF_JOPT("partition", a->id.topic, a->id.partition),
                    KF_JS("action", kf_predict_action_name(a->action)),
                    KF_JS("file", a->file), KF_JS("reason", a->reason), KF_JU("bytes", a->bytes));
    if (a->action == KF_ACT_TRUNCATE_SEGMENT) {
        kf_jsonl_fields(j, KF_JU("position", a->position), KF_JI("offset", a->offset),
                        KF_JI("offsets_lost", a->offsets_lost));
    }
    kf_jsonl_end(j);
}

static void harm(kf_jsonl *j, const kf_predict_partition *p)
{
    kf_jsonl_fields(j, KF_JI("acknowledged_missing", p->acknowledged_missing),
                    KF_JI("offsets_lost_inside", p->offsets_lost_inside));
    kf_jsonl_arr_open(j, "damage_kept");
    for (size_t i = 0; i < p->n_damage_kept; i++) {
        const kf_damage_kept *k = &p->damage_kept[i];
        kf_jsonl_obj_open(j, NULL);
        kf_jsonl_fields(j, KF_JS("file", k->file), KF_JU("position", k->position), KF_JI("offset", k->offset),
                        KF_JS("code", k->code), KF_JS("error", k->error));
        kf_jsonl_obj_close(j);
    }
    kf_jsonl_arr_close(j);
    if (p->damage_kept_omitted)
        kf_jsonl_uint(j, "damage_kept_omitted", p->damage_kept_omitted);
    kf_jsonl_arr_open(j, "groups_affected");
    for (size_t i = 0; i < p->n_groups_affected; i++) {
        const kf_group_affected *g = &p->groups_affected[i];
        kf_jsonl_obj_open(j, NULL);
        kf_jsonl_fields(j, KF_JS("group", g->group), KF_JS("topic", g->topic), KF_JI("partition", g->partition),
                        KF_JOPT("offset_now", g->has_offset_now, g->offset_now),
                        KF_JOPT("offset_after", g->has_offset_after, g->offset_after));
        kf_jsonl_obj_close(j);
    }
    kf_jsonl_arr_close(j);
}

void kf_predict_partition_json(kf_jsonl *j, const kf_predict_partition *p)
{
    kf_jsonl_begin(j, "partition");
    kf_jsonl_fields(j, KF_JS("datadir", p->id.datadir), KF_JS("topic", p->id.topic),
                    KF_JI("partition", p->id.partition), KF_JS("dir", p->id.dir),
                    KF_JS("state", kf_predict_state_name(p->state)));
    if (p->state == KF_PST_MISSING)
        kf_jsonl_str(j, "missing_why", p->missing_why);
    kf_jsonl_fields(j, KF_JI("recovery_point", p->recovery_point), KF_JI("log_start_offset", p->log_start_offset),
                    KF_JI("log_end_offset_before", p->log_end_offset_before),
                    KF_JI("log_end_offset_after", p->log_end_offset_after),
                    KF_JOPT("high_watermark", p->has_high_watermark, p->high_watermark),
                    KF_JI("offsets_lost", p->offsets_lost), KF_JI("acknowledged_lost", p->acknowledged_lost));
    harm(j, p);
    kf_jsonl_fields(j, KF_JU("segments_to_recover", p->segments_to_recover),
                    KF_JU("bytes_to_recover", p->bytes_to_recover),
                    KF_JS("producer_state", kf_producer_load_name(p->producer_state)),
                    KF_JOPT("producer_snapshot_offset", p->has_producer_snapshot_offset, p->producer_snapshot_offset));
    kf_jsonl_arr_open(j, "retention_deletes");
    for (size_t i = 0; i < p->n_retention_deletes; i++) {
        const kf_retention_delete *r = &p->retention_deletes[i];
        kf_jsonl_obj_open(j, NULL);
        kf_jsonl_fields(j, KF_JS("file", r->file), KF_JI("base_offset", r->base_offset),
                        KF_JS("reason", kf_retention_reason_name(r->reason)), KF_JU("bytes", r->bytes));
        kf_jsonl_obj_close(j);
    }
    kf_jsonl_arr_close(j);
    kf_jsonl_fields(j, KF_JU("future_timestamps", p->future_timestamps),
                    KF_JS("retention_source", p->retention_source));
    kf_jsonl_end(j);
}

void kf_predict_summary_json(kf_jsonl *j, const kf_predict_summary *s)
{
    kf_jsonl_begin(j, "summary");
    kf_jsonl_fields(j, KF_JU("datadirs", s->datadirs), KF_JU("partitions", s->partitions),
                    KF_JI("offsets_lost", s->offsets_lost), KF_JI("acknowledged_lost", s->acknowledged_lost),
                    KF_JD("estimated_recovery_seconds", s->estimated_recovery_seconds), KF_JU("fatal", s->fatal),
                    KF_JI("acknowledged_missing", s->acknowledged_missing), KF_JU("damage_kept", s->damage_kept),
                    KF_JU("groups_affected", s->groups_affected), KF_JU("partitions_harmed", s->partitions_harmed));
    kf_jsonl_end_summary(j);
}
