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
    kf_jsonl_str(j, "file", path);
    kf_jsonl_uint(j, "size", s->size);
    kf_jsonl_uint(j, "batches", s->batches);
    kf_jsonl_uint(j, "records", s->records);
    kf_jsonl_uint(j, "bad_batches", s->bad_batches);
    kf_jsonl_uint(j, "valid_bytes", s->valid_bytes);
    kf_jsonl_opt_int(j, "first_offset", s->has_offsets, s->first_offset);
    kf_jsonl_opt_int(j, "last_offset", s->has_offsets, s->last_offset);
    kf_jsonl_uint(j, "errors", s->errors);
    kf_jsonl_uint(j, "warnings", s->warnings);
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
        kf_jsonl_int(j, "epoch", e[i].epoch);
        kf_jsonl_int(j, "start_offset", e[i].start_offset);
        kf_jsonl_obj_close(j);
    }
    kf_jsonl_arr_close(j);
}

void kf_scan_partition_json(kf_jsonl *j, const kf_datadir_partition *p)
{
    const kf_partition_summary *lg = &p->log;
    kf_jsonl_begin(j, "partition");
    kf_jsonl_str(j, "datadir", p->datadir);
    kf_jsonl_str(j, "topic", p->topic);
    kf_jsonl_int(j, "partition", p->partition);
    kf_jsonl_str(j, "dir", p->dir);
    kf_jsonl_str(j, "topic_id", p->has_topic_id ? p->topic_id : NULL);
    kf_jsonl_uint(j, "segments", lg->segments);
    kf_jsonl_uint(j, "bytes", lg->bytes);
    kf_jsonl_opt_int(j, "first_offset", lg->has_offsets, lg->first_offset);
    kf_jsonl_opt_int(j, "log_end_offset", lg->has_log_end, lg->log_end_offset);
    kf_jsonl_opt_int(j, "recovery_point", p->recovery_point.has, p->recovery_point.offset);
    kf_jsonl_opt_int(j, "high_watermark", p->high_watermark.has, p->high_watermark.offset);
    kf_jsonl_opt_int(j, "log_start_offset", p->log_start_offset.has, p->log_start_offset.offset);
    kf_jsonl_opt_int(j, "cleaner_offset", p->cleaner_offset.has, p->cleaner_offset.offset);
    kf_leader_epochs_json(j, "leader_epochs", p->leader_epochs, p->n_leader_epochs);
    kf_jsonl_opt_int(j, "broker", p->has_broker, p->broker);
    kf_jsonl_str(j, "cluster_id", p->cluster_id);
    kf_jsonl_opt_int(j, "recovery_end_offset", p->has_recovery_end, p->recovery_end_offset);
    kf_jsonl_uint(j, "errors", p->errors);
    kf_jsonl_uint(j, "warnings", p->warnings);
    kf_jsonl_end(j);
}

void kf_scan_summary_json(kf_jsonl *j, uint64_t datadirs, const kf_datadir_totals *t)
{
    kf_jsonl_begin(j, "summary");
    kf_jsonl_uint(j, "datadirs", datadirs);
    kf_jsonl_uint(j, "partitions", t->partitions);
    kf_jsonl_uint(j, "segments", t->segments);
    kf_jsonl_uint(j, "bytes", t->bytes);
    kf_jsonl_uint(j, "errors", t->errors);
    kf_jsonl_uint(j, "warnings", t->warnings);
    kf_jsonl_end_summary(j);
}
