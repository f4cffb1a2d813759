/* cmd_dump.c: `kfsck dump`: one line per batch (and per record with
 * --records) of segment files, one per entry of index, snapshot and
 * checkpoint files; text close to kafka-dump-log's, or JSON lines. Records
 * of the internal topics are decoded (--decode): __consumer_offsets,
 * __transaction_state, Connect offsets, the KRaft metadata log and its
 * snapshots, __share_group_state, __remote_log_metadata; KRaft control
 * records in any log. Secrets stay redacted unless --show-secrets. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/dtree_json.h"
#include "cli/walk.h"

/* --decode: auto, or one of the library's decoders (decoder.h) */
enum {
    DEC_AUTO = -1,
    DEC_NONE = KF_DECODE_NONE,
    DEC_OFFSETS = KF_DECODE_OFFSETS,
    DEC_TXN = KF_DECODE_TXN,
    DEC_CONNECT = KF_DECODE_CONNECT,
    DEC_METADATA = KF_DECODE_METADATA,
    DEC_SHARE = KF_DECODE_SHARE,
    DEC_REMOTE = KF_DECODE_REMOTE
};

typedef struct dump_opts {
    bool json, records, payload, show_secrets;
    bool schema_ids;  /* --schema-ids: the Schema Registry framing of keys and values */
    bool include_damaged; /* --include-damaged: a line per damaged stretch */
    bool range;       /* --offset or --from-offset/--to-offset: only first..last */
    int64_t first, last;
    int decode;
    uint64_t max_bytes;
    uint64_t max_batch_bytes;
} dump_opts;

typedef struct dump_ctx {
    const dump_opts *opts;
    out *o;
    const char *file;
    int status;
    int decode;       /* DEC_NONE or a library decoder for this file */
    kf_dtree tree;
    report *rep;
    bool secret_bytes; /* the file holds records whose raw bytes may hold secrets */
    /* a decoding problem to report after the record line (code NULL: none) */
    const char *pending_code;
    kf_severity pending_sev;
    int64_t pending_offset;
    uint64_t pending_pos;
    char pending_msg[220];
    /* the KRaft decoding of the current data record, made once (kraft_decode) */
    bool kr_ready;
    int kr_rc;
    kf_kraft_record kr;
} dump_ctx;

/* --decode auto: the library's choice by file and partition directory name */
static int decode_for(const dump_opts *opts, const char *path)
{
    if (opts->decode != DEC_AUTO)
        return opts->decode;
    kf_decoder d;
    if (kf_decoder_for_path(path, &d) != KF_OK)
        cli_oom();
    return (int)d;
}

/* The problem a KRaft-era decoder's return code means (metadata, remote log
 * metadata, share-group state): malformed bytes are damage (bad_record), an
 * unknown type or version is not (unknown_record_type, kfsck(1) PROBLEM CODES). Records of
 * __consumer_offsets and __transaction_state follow kf_coord_problem_code,
 * as offsets and groups do. */
static const char *kraft_decode_code(int rc, kf_severity *sev)
{
    bool damage = rc == KF_ERR_CORRUPT || rc == KF_ERR_TRUNCATED || rc == KF_ERR_TOO_BIG;
    *sev = damage ? KF_SEV_ERROR : KF_SEV_WARNING;
    return damage ? KF_P_BAD_RECORD : KF_P_UNKNOWN_RECORD_TYPE;
}

/* A decoding problem to report after the record line. */
static void pend(dump_ctx *d, const kf_batch *b, const kf_record *r, const char *code, kf_severity sev,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void pend(dump_ctx *d, const kf_batch *b, const kf_record *r, const char *code, kf_severity sev,
                 const char *fmt, ...)
{
    d->pending_code = code;
    d->pending_sev = sev;
    d->pending_offset = r->offset;
    d->pending_pos = b->position;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->pending_msg, sizeof d->pending_msg, fmt, ap);
    va_end(ap);
}

/* kf_kraft_decode of the current data record into d->tree, once per record
 * (on_record clears kr_ready): --payload's secret check and the decoded
 * fields share it. */
static int kraft_decode(dump_ctx *d, const kf_record *r, kf_kraft_record *kr)
{
    if (!d->kr_ready) {
        kf_dtree_reset(&d->tree);
        d->kr_rc = kf_kraft_decode(d->decode == DEC_REMOTE ? KF_KRAFT_REMOTE : KF_KRAFT_METADATA, r->key, r->key_len,
                                   r->value, r->value_len, &d->tree, &d->kr);
        d->kr_ready = true;
    }
    *kr = d->kr;
    return d->kr_rc;
}

/* A KRaft-envelope record (metadata, remote log metadata) or a KRaft
 * control record: record_type, record_version and value_decoded (JSON), or
 * " payload: {...}" in text like kafka-dump-log's decoders. */
static void write_kraft(dump_ctx *d, const kf_batch *b, const kf_record *r, bool control, int16_t ctl_type)
{
    out *o = d->o;
    out jo;
    out_init(&jo, o->f, true);
    jo.show_secrets = o->show_secrets;
    out *w = o->json ? o : &jo;
    kf_kraft_record kr;
    int rc;
    if (control) {
        kf_dtree_reset(&d->tree);
        rc = kf_kraft_control_decode(ctl_type, r->value, r->value_len, &d->tree, &kr);
    } else {
        rc = kraft_decode(d, r, &kr);
    }
    /* unknown types and versions are listed undecoded; a malformed record
     * shows what could be read */
    bool shown = rc != KF_ERR_UNSUPPORTED && kr.root != KF_DNODE_NONE;
    if (o->json) {
        out_str(o, "record_type", kr.record_type);
        if (kr.version >= 0)
            out_int(o, "record_version", kr.version);
        else
            out_null(o, "record_version");
        if (kr.layout)
            out_str(o, "value_layout", kr.layout);
        if (shown) {
            out_obj_open(o, "value_decoded");
            dtree_json_fields(o, &d->tree, &d->tree.nodes[kr.root]);
            out_obj_close(o);
        } else {
            out_null(o, "value_decoded");
        }
    } else {
        out_text(o, " payload: ");
        out_obj_open(w, NULL);
        if (kr.record_type)
            out_str(w, "type", kr.record_type);
        else
            out_int(w, "type", kr.api_key);
        out_int(w, "version", kr.version);
        if (shown) {
            out_obj_open(w, "data");
            dtree_json_fields(w, &d->tree, &d->tree.nodes[kr.root]);
            out_obj_close(w);
        } else {
            out_null(w, "data");
        }
        out_obj_close(w);
    }
    kf_severity sev;
    const char *code = kraft_decode_code(rc, &sev);
    if (rc == KF_ERR_UNSUPPORTED)
        pend(d, b, r, code, sev, "offset %lld: %s; listed undecoded", (long long)r->offset, kr.err);
    else if (rc != KF_OK)
        pend(d, b, r, code, sev, "offset %lld: %s", (long long)r->offset, kr.err[0] ? kr.err : "not decoded");
    else if (kr.key_present && !control)
        pend(d, b, r, KF_P_BAD_RECORD, KF_SEV_WARNING, "offset %lld: a %s record with a key (Kafka never writes one)",
             (long long)r->offset, kr.record_type);
}

/* Decoded key/value of a coordinator record: JSON objects, or text. */
static void write_decoded(dump_ctx *d, const kf_batch *b, const kf_record *r)
{
    out *o = d->o;
    if (d->decode == DEC_METADATA || d->decode == DEC_REMOTE) {
        write_kraft(d, b, r, false, -1);
        return;
    }
    out jo;
    out_init(&jo, o->f, true);
    jo.show_secrets = o->show_secrets;
    if (!o->json)
        jo.need_comma = false;
    out *w = o->json ? o : &jo;
    if (d->decode == DEC_CONNECT) {
        /* Connect keys/values are JSON already: embed them when they are */
        bool kjson = r->key_len > 0 && r->key && (r->key[0] == '[' || r->key[0] == '{') &&
                     utf8_valid(r->key, (size_t)r->key_len) && kf_json_valid(r->key, (size_t)r->key_len);
        bool vjson = r->value_len > 0 && r->value && r->value[0] == '{' &&
                     utf8_valid(r->value, (size_t)r->value_len) && kf_json_valid(r->value, (size_t)r->value_len);
        if (!o->json)
            out_text(o, " key: ");
        out_key(w, o->json ? "key_decoded" : NULL);
        if (kjson)
            fwrite(r->key, 1, (size_t)r->key_len, o->f);
        else
            fputs("null", o->f);
        if (!o->json)
            out_text(o, " payload: ");
        else
            out_key(w, "value_decoded");
        if (vjson)
            fwrite(r->value, 1, (size_t)r->value_len, o->f);
        else if (!o->json && r->value_len < 0)
            fputs("<DELETE>", o->f);
        else
            fputs("null", o->f);
        return;
    }
    kf_dtree_reset(&d->tree);
    kf_coord_record cr;
    int topic = d->decode == DEC_TXN ? KF_COORD_TXN : d->decode == DEC_SHARE ? KF_COORD_SHARE : KF_COORD_OFFSETS;
    int rc = kf_coord_decode(topic, r->key, r->key_len, r->value, r->value_len, &d->tree, &cr);
    bool has_value = !cr.tombstone && cr.known_type && cr.value_root != KF_DNODE_NONE;
    if (o->json) {
        out_int(o, "key_type", cr.key_type);
        out_str(o, "record_type", cr.record_type);
        if (has_value && cr.value_version >= 0)
            out_int(o, "value_version", cr.value_version);
        else
            out_null(o, "value_version");
        if (d->decode == DEC_SHARE) {
            /* as the KRaft decoders name it */
            if (has_value && cr.value_version >= 0)
                out_int(o, "record_version", cr.value_version);
            else
                out_null(o, "record_version");
            if (cr.value_layout)
                out_str(o, "value_layout", cr.value_layout);
        }
    } else {
        out_text(o, " key: ");
    }
    if (!cr.known_type) {
        if (o->json)
            out_null(w, "key_decoded");
        else
            out_text(o, "{\"type\":%d,\"record_type\":null}", cr.key_type);
    } else {
    out_obj_open(w, o->json ? "key_decoded" : NULL);
    if (!o->json) {
        out_int(w, "type", cr.key_type);
        out_str(w, "record_type", cr.record_type);
    } else {
        out_str(w, "record_type", cr.record_type);
    }
    if (cr.key_root != KF_DNODE_NONE)
        dtree_json_fields(w, &d->tree, &d->tree.nodes[cr.key_root]);
    out_obj_close(w);
    }
    if (!o->json)
        out_text(o, " payload: ");
    if (cr.tombstone && !o->json) {
        out_text(o, "<DELETE>");
    } else if (!has_value) {
        if (o->json)
            out_null(w, "value_decoded");
        else
            out_text(o, "null");
    } else if (o->json) {
        out_obj_open(w, "value_decoded");
        dtree_json_fields(w, &d->tree, &d->tree.nodes[cr.value_root]);
        out_obj_close(w);
    } else {
        jo.need_comma = false;
        out_obj_open(w, NULL);
        out_int(w, "version", cr.value_version);
        out_obj_open(w, "data");
        dtree_json_fields(w, &d->tree, &d->tree.nodes[cr.value_root]);
        out_obj_close(w);
        out_obj_close(w);
    }
    if (rc != KF_OK || cr.err[0]) {
        /* reported after the record line: remember it */
        kf_severity sev;
        const char *code =
            d->decode == DEC_SHARE ? kraft_decode_code(rc, &sev) : kf_coord_problem_code(rc, &cr, &sev);
        pend(d, b, r, code, sev, "offset %lld: %s%s%s", (long long)r->offset,
             cr.known_type ? "" : "unknown record type; ", cr.err[0] ? cr.err : "not decoded",
             cr.known_type ? "" : ", skipped");
    }
}

static const char *ts_type(const kf_batch *b)
{
    if (b->magic == 0)
        return "NoTimestampType";
    return b->log_append_time ? "LogAppendTime" : "CreateTime";
}

static int on_batch(void *ctx, const kf_batch *b)
{
    dump_ctx *d = ctx;
    out *o = d->o;
    if (o->json) {
        out_begin(o, "batch");
        out_str(o, "file", d->file);
        out_uint(o, "position", b->position);
        out_int(o, "base_offset", b->base_offset);
        out_int(o, "last_offset", b->last_offset);
        if (b->count >= 0)
            out_int(o, "count", b->count);
        else
            out_null(o, "count");
        out_uint(o, "size", b->size);
        out_int(o, "magic", b->magic);
        out_str(o, "codec", kf_codec_name(b->codec));
        out_uint(o, "crc", b->crc);
        out_bool(o, "crc_ok", b->crc_ok);
        if (b->magic == 0) {
            out_null(o, "timestamp_type");
            out_null(o, "max_timestamp");
        } else {
            out_str(o, "timestamp_type", b->log_append_time ? "log_append" : "create");
            out_int(o, "max_timestamp", b->max_timestamp);
        }
        if (b->magic == 2) {
            out_int(o, "producer_id", b->producer_id);
            out_int(o, "producer_epoch", b->producer_epoch);
            out_int(o, "base_sequence", b->base_sequence);
            out_bool(o, "transactional", b->transactional);
            out_bool(o, "control", b->control);
            out_int(o, "leader_epoch", b->partition_leader_epoch);
            out_int(o, "base_timestamp", b->base_timestamp);
            out_int(o, "attributes", b->attributes);
            if (b->delete_horizon)
                out_int(o, "delete_horizon_ms", b->base_timestamp);
            else
                out_null(o, "delete_horizon_ms");
        } else {
            out_null(o, "producer_id");
            out_null(o, "producer_epoch");
            out_null(o, "base_sequence");
            out_null(o, "transactional");
            out_null(o, "control");
            out_null(o, "leader_epoch");
            out_int(o, "attributes", b->attributes);
        }
        out_end(o);
        return 0;
    }
    if (b->magic == 2) {
        int32_t last_seq = b->base_sequence < 0 ? -1
                           : (b->base_sequence > INT32_MAX - b->last_offset_delta
                                  ? b->last_offset_delta - (INT32_MAX - b->base_sequence) - 1
                                  : b->base_sequence + b->last_offset_delta);
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

static void text_bytes(out *o, const uint8_t *p, int32_t n)
{
    if (n < 0 || !p) {
        out_text(o, "null");
        return;
    }
    for (int32_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        if (c >= 0x20 && c < 0x7f && c != '\\')
            fputc(c, o->f);
        else
            fprintf(o->f, "\\x%02x", c);
    }
}

static void flush_decode_problem(dump_ctx *d)
{
    if (!d->pending_code)
        return;
    kf_report(report_problem, d->rep, d->pending_code, d->pending_sev, d->pending_pos, true, d->pending_offset, "%s",
              d->pending_msg);
    d->pending_code = NULL;
    d->pending_msg[0] = 0;
}

/* Would printing this record's raw key and value print a secret? A KRaft
 * metadata record whose decoded fields hold one (--payload without
 * --show-secrets then prints "<redacted>" instead of the bytes). */
static bool payload_secret(dump_ctx *d, const kf_batch *b, const kf_record *r, bool is_ctl)
{
    if (!d->secret_bytes || d->o->show_secrets || is_ctl || b->control)
        return false;
    kf_kraft_record kr;
    int rc = kraft_decode(d, r, &kr);
    if (rc == KF_ERR_UNSUPPORTED || rc == KF_ERR_NOMEM)
        return false;
    for (uint32_t i = 0; i < d->tree.n; i++)
        if (d->tree.nodes[i].flags & KF_DNODE_SECRET)
            return true;
    /* bytes that do not decode: a secret-bearing record cut short still
     * holds its secret; keep them out */
    return rc != KF_OK && (kr.api_key == KF_MD_USER_SCRAM_CREDENTIAL || kr.api_key == KF_MD_DELEGATION_TOKEN ||
                           kr.api_key == KF_MD_REMOVE_DELEGATION_TOKEN || kr.api_key == KF_MD_CONFIG);
}

/* --schema-ids: the Confluent Schema Registry framing of a key or value:
 * <field>_schema_id and <field>_schema_guid in JSON (null when not framed
 * that way), " keySchemaId: N" / " keySchemaGuid: G" (or "none") in text. */
static void write_schema_ids(out *o, const char *field, const uint8_t *p, int32_t len)
{
    kf_schema_frame f;
    kf_schema_framing k = kf_schema_frame_read(p, len, &f);
    char guid[37];
    if (k == KF_SCHEMA_GUID)
        kf_schema_guid_str(f.guid, guid);
    if (o->json) {
        char name[24];
        snprintf(name, sizeof name, "%s_schema_id", field);
        if (k == KF_SCHEMA_ID)
            out_int(o, name, f.id);
        else
            out_null(o, name);
        snprintf(name, sizeof name, "%s_schema_guid", field);
        if (k == KF_SCHEMA_GUID)
            out_str(o, name, guid);
        else
            out_null(o, name);
        return;
    }
    if (k == KF_SCHEMA_ID)
        out_text(o, " %sSchemaId: %d", field, f.id);
    else if (k == KF_SCHEMA_GUID)
        out_text(o, " %sSchemaGuid: %s", field, guid);
    else
        out_text(o, " %sSchemaId: %s", field, k == KF_SCHEMA_NULL ? "null" : "none");
}

static int on_record(void *ctx, const kf_batch *b, const kf_record *r)
{
    dump_ctx *d = ctx;
    out *o = d->o;
    d->kr_ready = false;
    kf_control ctl;
    bool is_ctl = b->control && kf_control_parse(r, &ctl) == KF_OK;
    if (o->json) {
        out_begin(o, "record");
        out_str(o, "file", d->file);
        out_uint(o, "position", b->position);
        out_int(o, "offset", r->offset);
        if (b->magic == 0)
            out_null(o, "timestamp");
        else
            out_int(o, "timestamp", r->timestamp);
        out_int(o, "key_size", r->key_len);
        out_int(o, "value_size", r->value_len);
        if (b->magic == 2) {
            out_int(o, "sequence", r->sequence);
            out_arr_open(o, "headers");
            kf_cursor c;
            kf_headers_begin(&c, r);
            const uint8_t *hk, *hv;
            int32_t hkl, hvl;
            while (kf_header_next(&c, &hk, &hkl, &hv, &hvl) == 1) {
                out_obj_open(o, NULL);
                out_strn(o, "key", (const char *)hk, (size_t)hkl);
                if (hvl < 0)
                    out_null(o, "value_b64");
                else
                    out_b64(o, "value_b64", hv, (size_t)hvl);
                out_obj_close(o);
            }
            out_arr_close(o);
        } else {
            out_null(o, "sequence");
            out_null(o, "headers");
            out_uint(o, "crc", r->crc);
            out_bool(o, "crc_ok", r->crc_ok);
        }
        if (is_ctl) {
            out_obj_open(o, "control");
            out_str(o, "type", kf_control_type_name(ctl.type));
            out_int(o, "type_id", ctl.type);
            if (ctl.type == KF_CONTROL_COMMIT || ctl.type == KF_CONTROL_ABORT)
                out_int(o, "coordinator_epoch", ctl.coordinator_epoch);
            out_obj_close(o);
        }
        if (d->opts->payload && payload_secret(d, b, r, is_ctl)) {
            out_bytes(o, "key", r->key, r->key_len);
            out_str(o, "value_b64", DTREE_REDACTED);
            out_str(o, "value", DTREE_REDACTED);
        } else if (d->opts->payload) {
            out_bytes(o, "key", r->key, r->key_len);
            out_bytes(o, "value", r->value, r->value_len);
        }
        if (d->opts->schema_ids) {
            write_schema_ids(o, "key", r->key, r->key_len);
            write_schema_ids(o, "value", r->value, r->value_len);
        }
        if (d->decode != DEC_NONE && !b->control)
            write_decoded(d, b, r);
        else if (d->decode != DEC_NONE && is_ctl && ctl.type >= KF_CONTROL_LEADER_CHANGE)
            write_kraft(d, b, r, true, ctl.type); /* KRaft control records, in every log */
        out_end(o);
        flush_decode_problem(d);
        return 0;
    }
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
            text_bytes(o, hk, hkl);
        }
        out_text(o, "]");
    } else {
        out_text(o, " isValid: %s crc: %u", r->crc_ok ? "true" : "false", r->crc);
    }
    if (d->opts->schema_ids) {
        write_schema_ids(o, "key", r->key, r->key_len);
        write_schema_ids(o, "value", r->value, r->value_len);
    }
    if (is_ctl) {
        if (ctl.type == KF_CONTROL_COMMIT || ctl.type == KF_CONTROL_ABORT)
            out_text(o, " endTxnMarker: %s coordinatorEpoch: %d", kf_control_type_name(ctl.type), ctl.coordinator_epoch);
        else
            out_text(o, " controlType: %s(%d)", kf_control_type_name(ctl.type), ctl.type);
        if (d->decode != DEC_NONE && ctl.type >= KF_CONTROL_LEADER_CHANGE)
            write_kraft(d, b, r, true, ctl.type);
    } else if (d->decode != DEC_NONE) {
        write_decoded(d, b, r);
    } else if (d->opts->payload) {
        out_text(o, " key: ");
        text_bytes(o, r->key, r->key_len);
        out_text(o, " payload: ");
        if (payload_secret(d, b, r, is_ctl))
            out_text(o, "%s", DTREE_REDACTED);
        else
            text_bytes(o, r->value, r->value_len);
    }
    out_text(o, "\n");
    flush_decode_problem(d);
    return 0;
}

/* --include-damaged: a damaged stretch of a segment, with the header fields
 * of the batch it starts with as far as they can be read (null past that)
 * and, with --payload, its first bytes in hex (at most KF_DAMAGED_BYTES_MAX). */
static void on_damaged(void *ctx, const kf_damaged *dm)
{
    dump_ctx *d = ctx;
    out *o = d->o;
    const char *file = dm->file ? dm->file : d->file;
    bool v2 = dm->has_magic && dm->magic == 2;
    if (o->json) {
        out_begin(o, "damaged_batch");
        out_str(o, "file", file);
        out_uint(o, "position", dm->position);
        out_uint(o, "length", dm->length);
        out_str(o, "code", dm->code);
        out_opt_int(o, "base_offset", dm->has_base_offset, dm->base_offset);
        out_opt_int(o, "last_offset", dm->has_base_offset && dm->has_last_offset_delta,
                    dm->base_offset + dm->last_offset_delta);
        out_opt_int(o, "batch_length", dm->has_batch_length, dm->batch_length);
        out_opt_int(o, "leader_epoch", dm->has_leader_epoch, dm->leader_epoch);
        out_opt_int(o, "magic", dm->has_magic, dm->magic);
        out_opt_int(o, "crc", dm->has_crc, dm->crc);
        out_opt_int(o, "attributes", dm->has_attributes, dm->attributes);
        if (dm->has_attributes && dm->has_magic && dm->magic <= 2)
            out_str(o, "codec", kf_codec_name(dm->attributes & KF_ATTR_CODEC_MASK));
        else
            out_null(o, "codec");
        out_opt_int(o, "count", dm->has_count, dm->count);
        out_opt_int(o, "base_timestamp", dm->has_base_timestamp, dm->base_timestamp);
        out_opt_int(o, "max_timestamp", dm->has_max_timestamp, dm->max_timestamp);
        out_opt_int(o, "producer_id", dm->has_producer_id, dm->producer_id);
        out_opt_int(o, "producer_epoch", dm->has_producer_epoch, dm->producer_epoch);
        out_opt_int(o, "base_sequence", dm->has_base_sequence, dm->base_sequence);
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
    if (d->opts->payload) {
        static const char hex[] = "0123456789abcdef";
        char *h = malloc(2 * dm->nbytes + 1);
        if (!h)
            cli_oom();
        for (size_t i = 0; i < dm->nbytes; i++) {
            h[2 * i] = hex[dm->bytes[i] >> 4];
            h[2 * i + 1] = hex[dm->bytes[i] & 15];
        }
        h[2 * dm->nbytes] = 0;
        bool cut = dm->nbytes < dm->length;
        if (o->json) {
            out_str(o, "bytes_hex", h);
            out_bool(o, "bytes_hex_truncated", cut);
        } else {
            out_text(o, " bytes: %s%s", h, cut ? " (cut)" : "");
        }
        free(h);
    }
    if (o->json)
        out_end(o);
    else
        out_text(o, "\n");
}

/* The dump of the segment path: its decoder, what its raw bytes may hold. */
static void ctx_for_segment(dump_ctx *d, const char *path)
{
    dump_opts autod = *d->opts;
    autod.decode = DEC_AUTO;
    d->file = path;
    d->decode = decode_for(d->opts, path);
    d->secret_bytes = d->decode == DEC_METADATA || d->decode == DEC_REMOTE || decode_for(&autod, path) == DEC_METADATA;
}

/* The reader's options for a dump through d. */
static void scan_opts_for(dump_ctx *d, kf_segment_scan_opts *so)
{
    kf_segment_scan_opts_init(so);
    so->max_batch_bytes = (size_t)d->opts->max_batch_bytes;
    so->records = d->opts->records;
    so->deep = true;
    so->batch_fn = on_batch;
    so->record_fn = on_record;
    so->ctx = d;
    so->problem_fn = report_problem;
    so->problem_ctx = d->rep;
    if (d->opts->include_damaged) {
        so->damaged_fn = on_damaged;
        so->damaged_ctx = d;
    }
    reader_tuning(&so->threads, &so->chunk_bytes);
}

/* Dump the file path, whose name says ni (a log whose name says nothing:
 * base offset -1). */
static int dump_file(const char *path, kf_name_info ni, const dump_opts *opts, out *o)
{
    bool is_log = ni.kind == KF_FILE_LOG || ni.kind == KF_FILE_KRAFT_CHECKPOINT || ni.kind == KF_FILE_BOOTSTRAP_CHECKPOINT;
    if (ni.kind == KF_FILE_UNKNOWN) {
        cli_error(path, "not a Kafka file kfsck knows (by its name); skipped");
        return EXIT_CLEAN;
    }
    report r = {o, path, 0, 0};
    if (is_log) {
        kf_source *src;
        int orc = kf_source_open(&src, path, opts->max_bytes);
        if (orc != KF_OK) {
            cli_error(path, "cannot read: %s", kf_read_error_str(orc, kf_error_last()->err_no));
            return EXIT_FAIL;
        }
        if (!o->json)
            out_text(o, "Dumping %s\n", path);
        if (!o->json && ni.kind == KF_FILE_LOG && ni.base_offset >= 0)
            out_text(o, "Log starting offset: %lld\n", (long long)ni.base_offset);
        dump_ctx d = {.opts = opts, .o = o, .rep = &r, .pending_sev = KF_SEV_WARNING};
        ctx_for_segment(&d, path);
        kf_segment_scan_opts so;
        scan_opts_for(&d, &so);
        so.limited = opts->max_bytes > 0;
        so.has_base_offset = ni.kind == KF_FILE_LOG && ni.base_offset >= 0;
        so.base_offset = ni.base_offset;
        so.progress_fn = progress_show;
        so.progress_ctx = (void *)path;
        kf_segment_summary sum;
        int scan_rc = kf_segment_scan(src, &so, &sum);
        progress_done();
        kf_dtree_free(&d.tree);
        kf_source_close(src);
        if (scan_rc != KF_OK) {
            cli_error(path, "%s", scan_rc == KF_ERR_NOMEM ? "out of memory" : "read error");
            return EXIT_FAIL;
        }
        return r.errors ? EXIT_DAMAGE : EXIT_CLEAN;
    }
    kf_file_contents m;
    int rc = kf_file_read_all(path, KF_SMALL_FILE_MAX, &m.data, &m.size);
    if (rc != KF_OK) {
        cli_error(path, "cannot read: %s", kf_read_error_str(rc, kf_error_last()->err_no));
        return EXIT_FAIL;
    }
    if (!o->json)
        out_text(o, "Dumping %s\n", path);
    aux_dump(path, &m, ni, o, &r);
    free(m.data);
    return r.errors ? EXIT_DAMAGE : EXIT_CLEAN;
}

/* ---- --offset, --from-offset/--to-offset: one log read for a range ------------ */

/* Before each segment of the range: its decoder, and the text header. */
static void range_segment(void *ctx, const char *path)
{
    dump_ctx *d = ctx;
    ctx_for_segment(d, path);
    d->rep->file = path;
    if (!d->o->json)
        out_text(d->o, "Dumping %s\n", path);
}

/* The offsets first..last of the log (a partition dir's segments, or one
 * segment file), with the index's help (kfsck/offset_range.h). */
static int dump_range(const kf_partition_copy *log, const dump_opts *opts, out *o)
{
    report r = {o, log->label, 0, 0};
    dump_ctx d = {.opts = opts, .o = o, .rep = &r, .pending_sev = KF_SEV_WARNING};
    kf_range_opts ro;
    kf_range_opts_init(&ro);
    ro.first = opts->first;
    ro.last = opts->last;
    scan_opts_for(&d, &ro.scan);
    ro.segment_fn = range_segment;
    ro.segment_ctx = &d;
    /* tests and the bench: the answer without the index (KFSCK_NO_SEEK), and
     * how much the index saved (KFSCK_RANGE_STATS, on stderr) */
    ro.no_seek = getenv("KFSCK_NO_SEEK") != NULL;
    kf_range_result res;
    int rc = kf_range_read(log, &ro, &res);
    if (getenv("KFSCK_RANGE_STATS"))
        fprintf(stderr, "kfsck: %s: range stats: segments_read %llu seeks %llu bytes_skipped %llu\n", log->label,
                (unsigned long long)res.segments_read, (unsigned long long)res.seeks,
                (unsigned long long)res.bytes_skipped);
    kf_dtree_free(&d.tree);
    if (rc == KF_ERR_NOMEM)
        cli_oom();
    if (rc != KF_OK) {
        const kf_error *e = kf_error_last();
        cli_error(e->path[0] ? e->path : log->label, "cannot read: %s", kf_read_error_str(rc, e->err_no));
        return EXIT_FAIL;
    }
    return r.errors ? EXIT_DAMAGE : EXIT_CLEAN;
}

static int dump_range_dir(const char *dir, const dump_opts *opts, out *o)
{
    kf_partition p;
    int rc = kf_partition_of_dirs(&p, &dir, 1, print_path_error, NULL);
    if (rc == KF_ERR_NOMEM)
        cli_oom();
    int status = rc == KF_OK && p.ncopies ? dump_range(&p.copies[0], opts, o) : EXIT_FAIL;
    kf_partition_free(&p);
    return status;
}

static int dump_range_file(const char *path, kf_name_info ni, const dump_opts *opts, out *o)
{
    char *seg = (char *)path;
    int64_t base = ni.base_offset;
    kf_partition_copy log = {.label = seg, .segments = &seg, .bases = &base, .nseg = 1};
    return dump_range(&log, opts, o);
}

/* ---- the PATHs: the walk of kfsck/paths.h ---------------------------------------- */

/* A directory dumps every Kafka file in it and in the partition and data
 * dirs below it, down to DUMP_MAX_DEPTH directories below the PATH. */
#define DUMP_MAX_DEPTH 2

typedef struct dump_walk {
    const dump_opts *opts;
    out *o;
    int depth;    /* of the directory being listed: 0 for a PATH */
    int status;   /* the worst exit code so far */
    kf_paths_walk_opts walk;
} dump_walk;

static void worst(dump_walk *w, int status)
{
    if (status > w->status)
        w->status = status;
}

static int dump_dir(dump_walk *w, const char *dir)
{
    int rc = kf_datadir_walk(dir, &w->walk);
    int err_no = rc == KF_ERR_IO ? kf_error_last()->err_no : 0;
    if (rc == KF_ERR_IO && err_no) {
        cli_error(dir, "cannot list directory: %s", kf_path_error_str(err_no));
        worst(w, EXIT_FAIL);
        return KF_OK;
    }
    return rc;
}

/* An entry of a directory being dumped: a Kafka file (by its name) is
 * dumped, a partition or data dir below is dumped in turn, the rest is not
 * looked at. */
static int dump_entry(void *ctx, const kf_path_entry *e)
{
    dump_walk *w = ctx;
    bool kafka_named = e->file.kind != KF_FILE_UNKNOWN;
    switch (e->kind) {
    case KF_PATH_FILE:
        if (kafka_named && w->opts->range && e->file.kind == KF_FILE_LOG)
            worst(w, dump_range_file(e->path, e->file, w->opts, w->o));
        else if (kafka_named && !w->opts->range)
            worst(w, dump_file(e->path, e->file, w->opts, w->o));
        return KF_OK;
    case KF_PATH_SPECIAL:
    case KF_PATH_ERROR:
        if (kafka_named) {
            cli_error(e->path, "%s", e->kind == KF_PATH_SPECIAL ? CLI_SPECIAL_WHAT : kf_path_error_str(e->err_no));
            worst(w, EXIT_FAIL);
        }
        return KF_OK;
    case KF_PATH_PARTITION:
    case KF_PATH_DATADIR: {
        if (w->depth >= DUMP_MAX_DEPTH)
            return KF_OK;
        if (w->opts->range && e->kind == KF_PATH_PARTITION) {
            worst(w, dump_range_dir(e->path, w->opts, w->o));
            return KF_OK;
        }
        w->depth++;
        int rc = dump_dir(w, e->path);
        w->depth--;
        return rc;
    }
    case KF_PATH_OTHER_DIR: return KF_OK;
    }
    return KF_OK;
}

/* A directory PATH, whatever it holds (or a partition dir in a directory
 * being listed). */
static int dump_dir_path(void *ctx, const kf_path_entry *e)
{
    dump_walk *w = ctx;
    if (e->in_datadir)
        return dump_entry(ctx, e);
    if (e->file.kind != KF_FILE_UNKNOWN) {
        /* named like a Kafka file, but a directory: say so rather than dump nothing */
        cli_error(e->path, "is a directory, not a %s file", kf_file_kind_name(e->file.kind));
        worst(w, EXIT_FAIL);
        return KF_OK;
    }
    if (w->opts->range && e->kind == KF_PATH_PARTITION) {
        worst(w, dump_range_dir(e->path, w->opts, w->o));
        return KF_OK;
    }
    return dump_dir(w, e->path);
}

static int dump_file_path(void *ctx, const kf_path_entry *e)
{
    dump_walk *w = ctx;
    kf_name_info ni = e->file;
    if (ni.kind == KF_FILE_UNKNOWN && e->looks_like_log)
        ni.kind = KF_FILE_LOG; /* base offset unknown: -1 */
    if (w->opts->range && ni.kind == KF_FILE_LOG && ni.suffix[0] == 0)
        worst(w, dump_range_file(e->path, ni, w->opts, w->o));
    else
        worst(w, dump_file(e->path, ni, w->opts, w->o));
    return KF_OK;
}

/* Dump every PATH; the exit code. */
static int dump_paths(char *const *paths, size_t n, const dump_opts *opts, out *o)
{
    dump_walk w = {.opts = opts, .o = o, .status = EXIT_CLEAN};
    kf_paths_walk_opts *wo = &w.walk;
    cli_walk_opts_init(wo, &w);
    wo->file_fn = dump_file_path;
    wo->partition_fn = wo->datadir_fn = wo->other_dir_fn = dump_dir_path;
    wo->datadir_file_fn = wo->other_entry_fn = dump_entry;
    wo->unreadable_partitions = true; /* an unreadable entry is only an error when named like a Kafka file */
    wo->sniff_logs = true;
    int rc = kf_paths_walk(paths, n, wo);
    if (rc == KF_ERR_NOMEM)
        cli_oom();
    if (rc != KF_OK)
        worst(&w, EXIT_FAIL);
    return w.status;
}

/* An offset given on the command line: a decimal integer, 0 or more. */
static int parse_offset(const char *s, int64_t *v)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *end;
    long long x = strtoll(s, &end, 10);
    if (errno || *end)
        return -1;
    *v = x;
    return 0;
}

static void dump_usage(FILE *f)
{
    fprintf(f, "usage: kfsck dump [--records] [--payload]\n"
               "                  [--decode auto|none|offsets|txn|connect|metadata|share|remote]\n"
               "                  [--offset N | --from-offset N --to-offset M] [--schema-ids]\n"
               "                  [--include-damaged] [--show-secrets] [--max-bytes N]\n"
               "                  [--max-batch-bytes N] [--json] FILE|PARTDIR...\n\n"
               "One line per batch of .log files (and KRaft .checkpoint snapshots), one per entry\n"
               "of .index/.timeindex/.txnindex/.snapshot and checkpoint files. A directory dumps\n"
               "every Kafka file below it.\n"
               "  --records          also one line per record\n"
               "  --payload          with the records' keys and values\n"
               "  --decode KIND      decode __consumer_offsets (offsets), __transaction_state (txn),\n"
               "                     Kafka Connect offsets (connect), the KRaft metadata log and its\n"
               "                     snapshots (metadata), __share_group_state (share) or\n"
               "                     __remote_log_metadata (remote) records; auto (default) picks by\n"
               "                     the partition directory's topic or the snapshot's file name.\n"
               "                     KRaft control records are decoded in every log\n"
               "  --offset N         only the batch holding offset N (with --records, only that\n"
               "                     record), found with the segment's .index; offset_not_found\n"
               "                     (a warning line) when no intact batch holds it\n"
               "  --from-offset N --to-offset M  only the batches holding offsets N..M\n"
               "  --schema-ids       record lines also show the Confluent Schema Registry framing\n"
               "                     of the key and value (schema id or GUID; implies --records)\n"
               "  --include-damaged  a line per damaged stretch: the header fields of the batch\n"
               "                     it starts with, as far as they can be read; with --payload\n"
               "                     its bytes in hex (the first 16 KiB)\n"
               "  --show-secrets     print SCRAM salts and keys, delegation-token ids and\n"
               "                     password-like config values (redacted by default)\n"
               "  --max-bytes N      read only the first N bytes of each .log (sampling a live host)\n"
               "  --max-batch-bytes N  cap on one batch's decompressed size (default 128M)\n"
               "  --json             newline-delimited JSON\n"
               "exit: 0 nothing wrong found; 1 damage found (problem lines); 2 usage error;\n"
               "3 a path cannot be read or the output cannot be written.\n");
}

int cmd_dump(int argc, char **argv)
{
    dump_opts opts = {0};
    opts.decode = DEC_AUTO;
    opts.max_batch_bytes = KF_DEFAULT_MAX_BATCH_BYTES;
    static const struct option longopts[] = {
        {"records", no_argument, 0, 'r'},        {"payload", no_argument, 0, 'p'},
        {"decode", required_argument, 0, 'd'},   {"max-bytes", required_argument, 0, 'm'},
        {"max-batch-bytes", required_argument, 0, 'B'}, {"json", no_argument, 0, 'j'},
        {"show-secrets", no_argument, 0, 'S'},   {"help", no_argument, 0, 'h'},
        {"offset", required_argument, 0, 'o'},   {"from-offset", required_argument, 0, 'f'},
        {"to-offset", required_argument, 0, 't'}, {"schema-ids", no_argument, 0, 'I'},
        {"include-damaged", no_argument, 0, 'D'},
        {0, 0, 0, 0},
    };
    bool has_offset = false, has_from = false, has_to = false;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'r': opts.records = true; break;
        case 'p': opts.payload = true; opts.records = true; break;
        case 'j': opts.json = true; break;
        case 'S': opts.show_secrets = true; break;
        case 'd':
            if (!strcmp(optarg, "auto"))
                opts.decode = DEC_AUTO;
            else if (!strcmp(optarg, "none"))
                opts.decode = DEC_NONE;
            else if (!strcmp(optarg, "offsets"))
                opts.decode = DEC_OFFSETS;
            else if (!strcmp(optarg, "txn"))
                opts.decode = DEC_TXN;
            else if (!strcmp(optarg, "connect"))
                opts.decode = DEC_CONNECT;
            else if (!strcmp(optarg, "metadata"))
                opts.decode = DEC_METADATA;
            else if (!strcmp(optarg, "share"))
                opts.decode = DEC_SHARE;
            else if (!strcmp(optarg, "remote"))
                opts.decode = DEC_REMOTE;
            else
                return opt_usage_error("dump",
                                       "--decode is auto, none, offsets, txn, connect, metadata, share or remote, not",
                                       optarg, dump_usage);
            if (opts.decode != DEC_NONE && opts.decode != DEC_AUTO)
                opts.records = true;
            break;
        case 'm':
            if (opt_positive_size("dump", "--max-bytes", optarg, &opts.max_bytes))
                return EXIT_USAGE;
            break;
        case 'B':
            if (opt_positive_size("dump", "--max-batch-bytes", optarg, &opts.max_batch_bytes))
                return EXIT_USAGE;
            break;
        case 'o':
        case 'f':
        case 't': {
            int64_t v;
            const char *name = c == 'o' ? "--offset" : c == 'f' ? "--from-offset" : "--to-offset";
            if (parse_offset(optarg, &v)) {
                fprintf(stderr, "kfsck dump: %s needs an offset (an integer, 0 or more), not '%s'\n", name, optarg);
                dump_usage(stderr);
                return EXIT_USAGE;
            }
            if (c == 'o') {
                has_offset = true;
                opts.first = opts.last = v;
            } else if (c == 'f') {
                has_from = true;
                opts.first = v;
            } else {
                has_to = true;
                opts.last = v;
            }
            break;
        }
        case 'I': opts.schema_ids = true; opts.records = true; break;
        case 'D': opts.include_damaged = true; break;
        case 'h': dump_usage(stdout); return EXIT_CLEAN;
        default: return opt_usage_error("dump", "unknown or incomplete option", argv[optind - 1], dump_usage);
        }
    }
    if (has_offset && (has_from || has_to))
        return opt_usage_error("dump", "--offset does not go with --from-offset/--to-offset", NULL, dump_usage);
    if (has_from != has_to)
        return opt_usage_error("dump", "--from-offset and --to-offset go together", NULL, dump_usage);
    opts.range = has_offset || has_from;
    if (has_from && opts.first > opts.last)
        return opt_usage_error("dump", "--from-offset is past --to-offset", NULL, dump_usage);
    if (opts.range && opts.max_bytes)
        return opt_usage_error("dump", "--max-bytes does not go with --offset or --from-offset", NULL, dump_usage);
    if (optind >= argc)
        return opt_usage_error("dump", "no FILE given", NULL, dump_usage);
    out o;
    out_init(&o, stdout, opts.json);
    o.show_secrets = opts.show_secrets;
    int status = dump_paths(argv + optind, (size_t)(argc - optind), &opts, &o);
    fflush(stdout);
    return status;
}
