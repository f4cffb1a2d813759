/* dump_print.c: `kfsck dump`'s lines for batches, records and damaged
 * stretches (dump_print.h): in text shaped like kafka-dump-log's
 * ("baseOffset: ... isvalid: true", "| offset: ..."), or one JSON line each
 * ("batch", "record", "damaged_batch"; kfsck(1), dump). */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/dtree_json.h"
#include "cli/dump_print.h"
#include "cli/walk.h"

static const char *ts_type(const kf_batch *b)
{
    if (b->magic == 0)
        return "NoTimestampType";
    return b->log_append_time ? "LogAppendTime" : "CreateTime";
}

/* The "batch" line. Like the record line (record_json), the line of every
 * batch is written one call a field: a kf_jsonl_fields list here cost
 * `dump --json` 4% more instructions on a segment of small batches. */
static void batch_json(out *o, const char *file, const kf_batch *b)
{
    kf_jsonl_begin(&o->w, "batch");
    kf_jsonl_str(&o->w, "file", file);
    kf_jsonl_uint(&o->w, "position", b->position);
    kf_jsonl_int(&o->w, "base_offset", b->base_offset);
    kf_jsonl_int(&o->w, "last_offset", b->last_offset);
    kf_jsonl_opt_int(&o->w, "count", b->count >= 0, b->count);
    kf_jsonl_uint(&o->w, "size", b->size);
    kf_jsonl_int(&o->w, "magic", b->magic);
    kf_jsonl_str(&o->w, "codec", kf_codec_name(b->codec));
    kf_jsonl_uint(&o->w, "crc", b->crc);
    kf_jsonl_bool(&o->w, "crc_ok", b->crc_ok);
    /* magic 0 has no timestamps */
    kf_jsonl_str(&o->w, "timestamp_type", b->magic == 0 ? NULL : b->log_append_time ? "log_append" : "create");
    kf_jsonl_opt_int(&o->w, "max_timestamp", b->magic != 0, b->max_timestamp);
    if (b->magic == 2) {
        kf_jsonl_int(&o->w, "producer_id", b->producer_id);
        kf_jsonl_int(&o->w, "producer_epoch", b->producer_epoch);
        kf_jsonl_int(&o->w, "base_sequence", b->base_sequence);
        kf_jsonl_bool(&o->w, "transactional", b->transactional);
        kf_jsonl_bool(&o->w, "control", b->control);
        kf_jsonl_int(&o->w, "leader_epoch", b->partition_leader_epoch);
        kf_jsonl_int(&o->w, "base_timestamp", b->base_timestamp);
        kf_jsonl_int(&o->w, "attributes", b->attributes);
        kf_jsonl_opt_int(&o->w, "delete_horizon_ms", b->delete_horizon, b->base_timestamp);
    } else {
        /* the v2 header's fields, which older batches do not have */
        kf_jsonl_null(&o->w, "producer_id");
        kf_jsonl_null(&o->w, "producer_epoch");
        kf_jsonl_null(&o->w, "base_sequence");
        kf_jsonl_null(&o->w, "transactional");
        kf_jsonl_null(&o->w, "control");
        kf_jsonl_null(&o->w, "leader_epoch");
        kf_jsonl_int(&o->w, "attributes", b->attributes);
    }
    kf_jsonl_end(&o->w);
}

int dump_print_batch(void *ctx, const char *file, const kf_batch *b)
{
    out *o = ((dump_printer *)ctx)->o;
    if (o->json) {
        batch_json(o, file, b);
        return 0;
    }
    if (b->magic == 2) {
        int32_t last_seq = b->base_sequence < 0 ? -1 : kf_sequence_add(b->base_sequence, b->last_offset_delta);
        out_text(o,
                 "baseOffset: %lld lastOffset: %lld count: %d baseSequence: %d lastSequence: %d producerId: %lld "
                 "producerEpoch: %d partitionLeaderEpoch: %d isTransactional: %s isControl: %s deleteHorizonMs: ",
                 (long long)b->base_offset, (long long)b->last_offset, b->count, b->base_sequence, last_seq,
                 (long long)b->producer_id, b->producer_epoch, b->partition_leader_epoch,
                 b->transactional ? "true" : "false", b->control ? "true" : "false");
        if (b->delete_horizon)
            out_text(o, "OptionalLong[%lld]", (long long)b->base_timestamp);
        else
            out_text(o, "OptionalLong.empty");
        out_text(o, " position: %llu %s: %lld size: %u magic: 2 compresscodec: %s crc: %u isvalid: %s\n",
                 (unsigned long long)b->position, ts_type(b), (long long)b->max_timestamp, b->size,
                 kf_codec_name(b->codec), b->crc, b->crc_ok ? "true" : "false");
    } else {
        out_text(o, "offset: %lld position: %llu %s: %lld size: %u magic: %d compresscodec: %s crc: %u isvalid: %s\n",
                 (long long)b->last_offset, (unsigned long long)b->position, ts_type(b), (long long)b->max_timestamp,
                 b->size, b->magic, kf_codec_name(b->codec), b->crc, b->crc_ok ? "true" : "false");
    }
    return 0;
}

void dump_text_bytes(out *o, const uint8_t *p, int32_t n)
{
    if (n < 0 || !p) {
        out_text(o, "null");
        return;
    }
    esc_write(o->f, (const char *)p, (size_t)n);
}

/* --schema-ids: the Confluent Schema Registry framing of a key or value:
 * <field>_schema_id and <field>_schema_guid in JSON (null when not framed
 * that way), " keySchemaId: N" / " keySchemaGuid: G" (or "none") in text. */
static void schema_ids(out *o, const char *field, const uint8_t *p, int32_t len)
{
    kf_schema_frame f;
    kf_schema_framing k = kf_schema_frame_read(p, len, &f);
    char guid[37];
    if (k == KF_SCHEMA_GUID)
        kf_schema_guid_str(f.guid, guid);
    if (o->json) {
        char id_key[24], guid_key[24];
        snprintf(id_key, sizeof id_key, "%s_schema_id", field);
        snprintf(guid_key, sizeof guid_key, "%s_schema_guid", field);
        kf_jsonl_fields(&o->w, KF_JOPT(id_key, k == KF_SCHEMA_ID, f.id),
                        KF_JS(guid_key, k == KF_SCHEMA_GUID ? guid : NULL));
        return;
    }
    if (k == KF_SCHEMA_ID)
        out_text(o, " %sSchemaId: %d", field, f.id);
    else if (k == KF_SCHEMA_GUID)
        out_text(o, " %sSchemaGuid: %s", field, guid);
    else
        out_text(o, " %sSchemaId: %s", field, k == KF_SCHEMA_NULL ? "null" : "none");
}

static void record_json(const dump_printer *pr, const kf_dump_record *dr)
{
    out *o = pr->o;
    const kf_batch *b = dr->batch;
    const kf_record *r = dr->record;
    /* the line of every record, the hottest: one call a field (a
     * kf_jsonl_fields list here cost `dump --json --records` 2.4% more
     * instructions) */
    kf_jsonl_begin(&o->w, "record");
    kf_jsonl_str(&o->w, "file", dr->file);
    kf_jsonl_uint(&o->w, "position", b->position);
    kf_jsonl_int(&o->w, "offset", r->offset);
    if (dr->damaged)
        kf_jsonl_bool(&o->w, "damaged", true); /* a record of a batch that fails its CRC */
    kf_jsonl_opt_int(&o->w, "timestamp", b->magic != 0, r->timestamp);
    kf_jsonl_int(&o->w, "key_size", r->key_len);
    kf_jsonl_int(&o->w, "value_size", r->value_len);
    if (b->magic == 2) {
        kf_jsonl_int(&o->w, "sequence", r->sequence);
        kf_jsonl_arr_open(&o->w, "headers");
        kf_cursor c;
        kf_headers_begin(&c, r);
        const uint8_t *hk, *hv;
        int32_t hkl, hvl;
        while (kf_header_next(&c, &hk, &hkl, &hv, &hvl) == 1) {
            kf_jsonl_obj_open(&o->w, NULL);
            kf_jsonl_strn(&o->w, "key", (const char *)hk, (size_t)hkl);
            if (hvl < 0)
                kf_jsonl_null(&o->w, "value_b64");
            else
                kf_jsonl_b64(&o->w, "value_b64", hv, (size_t)hvl);
            kf_jsonl_obj_close(&o->w);
        }
        kf_jsonl_arr_close(&o->w);
    } else {
        kf_jsonl_null(&o->w, "sequence");
        kf_jsonl_null(&o->w, "headers");
        kf_jsonl_uint(&o->w, "crc", r->crc);
        kf_jsonl_bool(&o->w, "crc_ok", r->crc_ok);
    }
    if (dr->is_control) {
        kf_jsonl_obj_open(&o->w, "control");
        kf_jsonl_fields(&o->w, KF_JS("type", kf_control_type_name(dr->control.type)),
                        KF_JI("type_id", dr->control.type));
        if (dr->control.type == KF_CONTROL_COMMIT || dr->control.type == KF_CONTROL_ABORT)
            kf_jsonl_int(&o->w, "coordinator_epoch", dr->control.coordinator_epoch);
        kf_jsonl_obj_close(&o->w);
    }
    if (pr->payload) {
        out_bytes(o, "key", r->key, r->key_len);
        if (dr->redact) {
            kf_jsonl_str(&o->w, "value_b64", KF_REDACTED);
            kf_jsonl_str(&o->w, "value", KF_REDACTED);
        } else {
            out_bytes(o, "value", r->value, r->value_len);
        }
    }
    if (pr->schema_ids) {
        schema_ids(o, "key", r->key, r->key_len);
        schema_ids(o, "value", r->value, r->value_len);
    }
    if (dr->decoder != KF_DECODE_NONE && !b->control)
        dump_print_decoded(pr, dr);
    else if (dr->decoded == KF_DUMP_KRAFT_CONTROL)
        dump_print_kraft(pr, dr); /* KRaft control records, in every log */
    kf_jsonl_end(&o->w);
}

int dump_print_record(void *ctx, const kf_dump_record *dr)
{
    const dump_printer *pr = ctx;
    out *o = pr->o;
    if (o->json) {
        record_json(pr, dr);
        return 0;
    }
    const kf_batch *b = dr->batch;
    const kf_record *r = dr->record;
    out_text(o, "| offset: %lld %s: %lld keySize: %d valueSize: %d", (long long)r->offset, ts_type(b),
             (long long)r->timestamp, r->key_len, r->value_len);
    if (b->magic == 2) {
        out_text(o, " sequence: %d headerKeys: [", r->sequence);
        kf_cursor c;
        kf_headers_begin(&c, r);
        const uint8_t *hk, *hv;
        int32_t hkl, hvl;
        for (int i = 0; kf_header_next(&c, &hk, &hkl, &hv, &hvl) == 1; i++) {
            if (i)
                out_text(o, ",");
            dump_text_bytes(o, hk, hkl);
        }
        out_text(o, "]");
    } else {
        out_text(o, " isValid: %s crc: %u", r->crc_ok ? "true" : "false", r->crc);
    }
    if (dr->damaged)
        out_text(o, " damaged: true");
    if (pr->schema_ids) {
        schema_ids(o, "key", r->key, r->key_len);
        schema_ids(o, "value", r->value, r->value_len);
    }
    if (dr->is_control) {
        const kf_control *ctl = &dr->control;
        if (ctl->type == KF_CONTROL_COMMIT || ctl->type == KF_CONTROL_ABORT)
            out_text(o, " endTxnMarker: %s coordinatorEpoch: %d", kf_control_type_name(ctl->type),
                     ctl->coordinator_epoch);
        else
            out_text(o, " controlType: %s(%d)", kf_control_type_name(ctl->type), ctl->type);
        if (dr->decoded == KF_DUMP_KRAFT_CONTROL)
            dump_print_kraft(pr, dr);
    } else if (dr->decoder != KF_DECODE_NONE) {
        if (!b->control)
            dump_print_decoded(pr, dr);
    } else if (pr->payload) {
        out_text(o, " key: ");
        dump_text_bytes(o, r->key, r->key_len);
        out_text(o, " payload: ");
        if (dr->redact)
            out_text(o, "%s", KF_REDACTED);
        else
            dump_text_bytes(o, r->value, r->value_len);
    }
    out_text(o, "\n");
    return 0;
}

/* p[0..n) in lowercase hex, in memory the caller frees (out of memory exits). */
static char *hex_of(const uint8_t *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    char *h = must(malloc(2 * n + 1));
    for (size_t i = 0; i < n; i++) {
        h[2 * i] = hex[p[i] >> 4];
        h[2 * i + 1] = hex[p[i] & 15];
    }
    h[2 * n] = 0;
    return h;
}

/* --include-damaged: a damaged stretch of a segment, with the header fields
 * of the batch it starts with as far as they can be read (null past that)
 * and, with --payload, its first bytes in hex (at most KF_DAMAGED_BYTES_MAX;
 * "<redacted>" when they may hold secrets). */
void dump_print_damaged(void *ctx, const kf_damaged *dm, bool redact)
{
    const dump_printer *pr = ctx;
    out *o = pr->o;
    bool v2 = dm->has_magic && dm->magic == 2;
    if (o->json) {
        bool has_codec = dm->has_attributes && dm->has_magic && dm->magic <= 2;
        kf_jsonl_begin(&o->w, "damaged_batch");
        kf_jsonl_fields(&o->w, KF_JS("file", dm->file), KF_JU("position", dm->position), KF_JU("length", dm->length),
                        KF_JS("code", dm->code), KF_JS("error", dm->message),
                        KF_JOPT("base_offset", dm->has_base_offset, dm->base_offset),
                        KF_JOPT("last_offset", dm->has_base_offset && dm->has_last_offset_delta,
                                dm->base_offset + dm->last_offset_delta),
                        KF_JOPT("batch_length", dm->has_batch_length, dm->batch_length),
                        KF_JOPT("leader_epoch", dm->has_leader_epoch, dm->leader_epoch),
                        KF_JOPT("magic", dm->has_magic, dm->magic), KF_JOPT("crc", dm->has_crc, dm->crc),
                        KF_JOPT("attributes", dm->has_attributes, dm->attributes),
                        KF_JS("codec", has_codec ? kf_codec_name(dm->attributes & KF_ATTR_CODEC_MASK) : NULL),
                        KF_JOPT("count", dm->has_count, dm->count),
                        KF_JOPT("base_timestamp", dm->has_base_timestamp, dm->base_timestamp),
                        KF_JOPT("max_timestamp", dm->has_max_timestamp, dm->max_timestamp),
                        KF_JOPT("producer_id", dm->has_producer_id, dm->producer_id),
                        KF_JOPT("producer_epoch", dm->has_producer_epoch, dm->producer_epoch),
                        KF_JOPT("base_sequence", dm->has_base_sequence, dm->base_sequence));
    } else {
        out_text(o, "damaged: position: %llu length: %llu code: %s", (unsigned long long)dm->position,
                 (unsigned long long)dm->length, dm->code);
        if (dm->has_base_offset)
            out_text(o, " baseOffset: %lld", (long long)dm->base_offset);
        if (dm->has_base_offset && dm->has_last_offset_delta)
            out_text(o, " lastOffset: %lld", (long long)(dm->base_offset + dm->last_offset_delta));
        if (dm->has_batch_length)
            out_text(o, " batchLength: %d", dm->batch_length);
        if (dm->has_magic)
            out_text(o, " magic: %d", dm->magic);
        if (v2 && dm->has_leader_epoch)
            out_text(o, " partitionLeaderEpoch: %d", dm->leader_epoch);
        if (dm->has_crc)
            out_text(o, " crc: %u", dm->crc);
        if (dm->has_count)
            out_text(o, " count: %d", dm->count);
        if (dm->has_producer_id)
            out_text(o, " producerId: %lld", (long long)dm->producer_id);
        if (dm->has_max_timestamp)
            out_text(o, " maxTimestamp: %lld", (long long)dm->max_timestamp);
    }
    if (pr->payload) {
        char *h = redact ? NULL : hex_of(dm->bytes, dm->nbytes);
        bool cut = dm->nbytes < dm->length;
        if (o->json)
            kf_jsonl_fields(&o->w, KF_JS("bytes_hex", h ? h : KF_REDACTED), KF_JB("bytes_hex_truncated", cut));
        else /* a redacted stretch is not said to be cut */
            out_text(o, " bytes: %s%s", h ? h : KF_REDACTED, h && cut ? " (cut)" : "");
        free(h);
    }
    if (o->json)
        kf_jsonl_end(&o->w);
    else
        out_text(o, "\n");
}
