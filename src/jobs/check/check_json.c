/* check_json.c: verify's and scan's JSON lines (include/kfsck/verify.h,
 * scan.h), as `kfsck verify --json` and `kfsck scan --json` print them and
 * the report embeds scan's: a segment line per segment verified; a
 * partition line per partition dir (its problems follow it as problem
 * lines, kf_problem_json, written by the caller, which may cap them) and
 * the summary line. */
#include <stdio.h>

#include "kfsck/scan.h"
#include "kfsck/sys/json_lines.h"
#include "kfsck/verify.h"

void kf_schema_id_name(const kf_schema_frame *f, char name[37])
{
    if (f->kind == KF_SCHEMA_GUID)
        kf_schema_guid_str(f->guid, name);
    else
        snprintf(name, 37, "%d", f->id);
}

void kf_verify_segment_json(kf_jsonl *j, const char *path, const kf_segment_summary *s, const kf_schema_tally *t)
{
    kf_jsonl_begin(j, "segment");
    kf_jsonl_fields(j, KF_JS("file", path), KF_JU("size", s->size), KF_JU("batches", s->batches),
                    KF_JU("records", s->records), KF_JU("bad_batches", s->bad_batches),
                    KF_JU("valid_bytes", s->valid_bytes), KF_JOPT("first_offset", s->has_offsets, s->first_offset),
                    KF_JOPT("last_offset", s->has_offsets, s->last_offset), KF_JU("errors", s->errors),
                    KF_JU("warnings", s->warnings));
    if (t) {
        kf_jsonl_obj_open(j, "schema_ids");
        for (size_t i = 0; i < kf_schema_tally_count(t); i++) {
            kf_schema_frame f;
            uint64_t n;
            char name[37];
            kf_schema_tally_get(t, i, &f, &n);
            kf_schema_id_name(&f, name);
            kf_jsonl_uint(j, name, n);
        }
        kf_jsonl_obj_close(j);
        if (kf_schema_tally_omitted(t))
            kf_jsonl_uint(j, "schema_ids_omitted", kf_schema_tally_omitted(t));
    }
    kf_jsonl_end(j);
}

void kf_leader_epochs_json(kf_jsonl *j, const char *key, const kf_leader_epoch *e, size_t n)
{
    kf_jsonl_arr_open(j, key);
    for (size_t i = 0; i < n; i++) {
        kf_jsonl_obj_open(j, NULL);
        kf_jsonl_fields(j, KF_JI("epoch", e[i].epoch), KF_JI("start_offset", e[i].start_offset));
        kf_jsonl_obj_close(j);
    }
    kf_jsonl_arr_close(j);
}

void kf_scan_partition_json(kf_jsonl *j, const kf_datadir_partition *p)
{
    const kf_partition_summary *lg = &p->log;
    const kf_partition_checkpoints *ck = &p->checkpoints;
    kf_jsonl_begin(j, "partition");
    kf_jsonl_fields(j, KF_JS("datadir", p->id.datadir), KF_JS("topic", p->id.topic),
                    KF_JI("partition", p->id.partition), KF_JS("dir", p->id.dir),
                    KF_JS("topic_id", p->has_topic_id ? p->topic_id : NULL),
                    KF_JU("segments", lg->segments), KF_JU("bytes", lg->bytes),
                    KF_JOPT("first_offset", lg->has_offsets, lg->first_offset),
                    KF_JOPT("log_end_offset", lg->has_log_end, lg->log_end_offset),
                    KF_JOPT("recovery_point", ck->recovery_point.has, ck->recovery_point.offset),
                    KF_JOPT("high_watermark", ck->high_watermark.has, ck->high_watermark.offset),
                    KF_JOPT("log_start_offset", ck->log_start_offset.has, ck->log_start_offset.offset),
                    KF_JOPT("cleaner_offset", ck->cleaner_offset.has, ck->cleaner_offset.offset));
    kf_leader_epochs_json(j, "leader_epochs", p->leader_epochs, p->n_leader_epochs);
    kf_jsonl_fields(j, KF_JOPT("broker", p->has_broker, p->broker), KF_JS("cluster_id", p->cluster_id),
                    KF_JOPT("recovery_end_offset", p->has_recovery_end, p->recovery_end_offset),
                    KF_JU("errors", p->errors), KF_JU("warnings", p->warnings));
    kf_jsonl_end(j);
}

void kf_scan_summary_json(kf_jsonl *j, uint64_t datadirs, const kf_datadir_totals *t)
{
    kf_jsonl_begin(j, "summary");
    kf_jsonl_fields(j, KF_JU("datadirs", datadirs), KF_JU("partitions", t->partitions), KF_JU("segments", t->segments),
                    KF_JU("bytes", t->bytes), KF_JU("errors", t->errors), KF_JU("warnings", t->warnings));
    kf_jsonl_end_summary(j);
}
