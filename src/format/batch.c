/* batch.c: framing and header parsing of .log entries (magic-2 record
 * batches, magic-0/1 messages and compressed wrappers), CRC checks, and the
 * record iterator (varints, zigzag, headers, v1 relative inner offsets,
 * control records). Everything reads through bounds-checked cursors. */
#include "kfsck/sys/batch.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bytes/cursor.h"
#include "bytes/error.h"
#include "format/batch_check.h"
#include "kfsck/sys/crc.h"

kf_frame kf_batch_frame(const uint8_t *p, uint64_t avail, uint32_t *size, int8_t *magic)
{
    if (avail < KF_HEADER_UP_TO_MAGIC + 1)
        return KF_FRAME_SHORT_TAIL;
    int32_t len = (int32_t)kf_be32(p + 8);
    if (len < KF_V0_MIN_SIZE)
        return KF_FRAME_BAD_SIZE;
    if ((uint64_t)len + KF_LOG_OVERHEAD > avail)
        return KF_FRAME_TORN;
    *size = (uint32_t)len + KF_LOG_OVERHEAD;
    *magic = (int8_t)p[16];
    return KF_FRAME_OK;
}

static int parse_v2(const uint8_t *p, uint32_t size, kf_batch *b)
{
    if (size < KF_V2_HEADER_SIZE)
        return KF_ERR_CORRUPT;
    kf_cursor c;
    kf_cur_init(&c, p, size);
    b->base_offset = kf_cur_i64(&c);
    kf_cur_skip(&c, 4); /* length */
    b->partition_leader_epoch = kf_cur_i32(&c);
    kf_cur_skip(&c, 1); /* magic */
    b->crc = kf_cur_u32(&c);
    b->attributes = kf_cur_u16(&c);
    b->last_offset_delta = kf_cur_i32(&c);
    b->base_timestamp = kf_cur_i64(&c);
    b->max_timestamp = kf_cur_i64(&c);
    b->producer_id = kf_cur_i64(&c);
    b->producer_epoch = kf_cur_i16(&c);
    b->base_sequence = kf_cur_i32(&c);
    b->count = kf_cur_i32(&c);
    b->base_offset_known = true;
    /* Wrap-safe: a damaged header may hold any values. */
    b->last_offset = (int64_t)((uint64_t)b->base_offset + (uint64_t)(int64_t)b->last_offset_delta);
    uint8_t a = (uint8_t)b->attributes; /* Kafka reads only the low byte */
    b->codec = a & KF_ATTR_CODEC_MASK;
    b->log_append_time = a & KF_ATTR_LOG_APPEND_TIME;
    b->transactional = a & KF_ATTR_TRANSACTIONAL;
    b->control = a & KF_ATTR_CONTROL;
    b->delete_horizon = a & KF_ATTR_DELETE_HORIZON;
    b->payload = p + KF_V2_HEADER_SIZE;
    b->payload_len = size - KF_V2_HEADER_SIZE;
    return c.err ? KF_ERR_CORRUPT : KF_OK;
}

/* Reads a v0/v1 message body (from the crc field on) of `len` bytes. */
typedef struct legacy_msg {
    uint32_t crc;
    int8_t magic;
    uint8_t attributes;
    int64_t timestamp;
    const uint8_t *key, *value;
    int32_t key_len, value_len;
} legacy_msg;

static int legacy_parse(const uint8_t *body, uint32_t len, legacy_msg *m)
{
    kf_cursor c;
    kf_cur_init(&c, body, len);
    m->timestamp = -1;
    m->crc = kf_cur_u32(&c);
    m->magic = (int8_t)kf_cur_u8(&c);
    m->attributes = kf_cur_u8(&c);
    if (m->magic != 0 && m->magic != 1)
        return KF_ERR_UNSUPPORTED;
    if (len < (uint32_t)(m->magic == 0 ? KF_V0_MIN_SIZE : KF_V1_MIN_SIZE))
        return KF_ERR_CORRUPT;
    m->timestamp = m->magic == 1 ? kf_cur_i64(&c) : -1;
    m->key_len = kf_cur_i32(&c);
    m->key = m->key_len >= 0 ? kf_cur_take(&c, (size_t)m->key_len) : NULL;
    if (m->key_len < -1)
        kf_cur_fail(&c, KF_ERR_CORRUPT);
    m->value_len = kf_cur_i32(&c);
    m->value = m->value_len >= 0 ? kf_cur_take(&c, (size_t)m->value_len) : NULL;
    if (m->value_len < -1)
        kf_cur_fail(&c, KF_ERR_CORRUPT);
    return c.err ? KF_ERR_CORRUPT : KF_OK;
}

/* The fields every entry has before its magic is known: what a caller sees
 * of an entry that does not parse. */
static void batch_defaults(const uint8_t *p, uint32_t size, uint64_t position, kf_batch *b)
{
    memset(b, 0, sizeof *b);
    b->position = position;
    b->bytes = p;
    b->size = size;
    b->magic = (int8_t)p[16];
    b->base_offset = b->last_offset = (int64_t)kf_be64(p);
    b->producer_id = -1;
    b->producer_epoch = -1;
    b->base_sequence = -1;
    b->partition_leader_epoch = -1;
    b->base_timestamp = b->max_timestamp = -1;
    b->count = -1;
    b->legacy_key_len = b->legacy_value_len = -1;
}

static int v2_header_fail(uint32_t size)
{
    return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "a %" PRIu32 "-byte entry is shorter than the %d-byte batch header",
                        size, KF_V2_HEADER_SIZE);
}

int kf_batch_parse(const uint8_t *p, uint32_t size, uint64_t position, kf_batch *b)
{
    batch_defaults(p, size, position, b);
    if (b->magic == 2)
        return parse_v2(p, size, b) == KF_OK ? KF_OK : v2_header_fail(size);
    if (b->magic != 0 && b->magic != 1)
        return kf_error_set(KF_ERR_UNSUPPORTED, 0, NULL, "magic byte %d is not 0, 1 or 2", b->magic);

    legacy_msg m;
    int rc = legacy_parse(p + KF_LOG_OVERHEAD, size - KF_LOG_OVERHEAD, &m);
    b->crc = m.crc;
    b->attributes = m.attributes;
    b->codec = m.attributes & KF_ATTR_CODEC_MASK;
    b->log_append_time = b->magic == 1 && (m.attributes & KF_ATTR_LOG_APPEND_TIME);
    b->base_timestamp = b->max_timestamp = m.timestamp; /* read before the lengths */
    if (rc != KF_OK)
        return kf_error_set(rc, 0, NULL, "magic-%d message of %" PRIu32 " bytes: %s", b->magic, size,
                            rc == KF_ERR_UNSUPPORTED ? "its own magic byte is not 0 or 1"
                                                     : "too short, or its key or value runs past it");
    b->legacy_key = m.key;
    b->legacy_key_len = m.key_len;
    b->legacy_value_len = m.value_len;
    b->payload = m.value;
    b->payload_len = m.value_len > 0 ? (uint32_t)m.value_len : 0;
    if (b->codec == KF_CODEC_NONE) {
        b->count = 1;
        b->base_offset_known = true;
    }
    return KF_OK;
}

int kf_batch_parse_broker(const uint8_t *p, uint32_t size, uint64_t position, kf_batch *b)
{
    int8_t magic = (int8_t)p[16];
    if (magic <= 2)
        return kf_batch_parse(p, size, position, b);
    batch_defaults(p, size, position, b);
    /* b->magic keeps the byte found */
    return parse_v2(p, size, b) == KF_OK ? KF_OK : v2_header_fail(size);
}

bool kf_batch_verify_crc(kf_batch *b)
{
    uint32_t crc;
    if (b->magic >= 2) { /* above 2: read the broker's way (kf_batch_parse_broker) */
        if (b->size < KF_V2_HEADER_SIZE)
            return b->crc_ok = false;
        crc = kf_crc32c(0, b->bytes + 21, b->size - 21);
    } else {
        if (b->size < KF_LOG_OVERHEAD + KF_V0_MIN_SIZE)
            return b->crc_ok = false;
        crc = kf_crc32(0, b->bytes + 16, b->size - 16);
    }
    b->crc_ok = crc == b->crc;
    return b->crc_ok;
}

/* ---- records ---------------------------------------------------------- */

/* The iterator's report of what is wrong (its problem code and words). */
static void iter_report(kf_record_iter *it, const char *code, const char *msg)
{
    it->err_code = code;
    snprintf(it->err_msg, sizeof it->err_msg, "%.*s", (int)sizeof it->err_msg - 1, msg);
    it->done = true;
}

/* The records cannot be read: the report, and the same words as the last
 * error, with rc; returns rc. */
static int iter_refuse(kf_record_iter *it, const char *code, int rc, const char *msg)
{
    iter_report(it, code, msg);
    return kf_error_set(rc, 0, NULL, "%s", msg);
}

/* Malformed records: iter_refuse's KF_ERR_CORRUPT, and -1 (for the record
 * readers). */
static int iter_fail(kf_record_iter *it, const char *code, const char *msg)
{
    iter_refuse(it, code, KF_ERR_CORRUPT, msg);
    return -1;
}

int32_t kf_sequence_add(int32_t seq, int64_t delta)
{
    /* Java's incrementSequence and decrementSequence wrap once; taken mod
     * 2^31 the sum is the same for every sequence and delta they take */
    const int64_t space = (int64_t)INT32_MAX + 1;
    int64_t r = ((int64_t)seq + delta % space) % space;
    return (int32_t)(r < 0 ? r + space : r);
}

static int legacy_prepass(kf_record_iter *it, kf_batch *b)
{
    /* Walk the inner entries once: count them, find the first and last
     * offsets (v1 inner offsets are relative to the wrapper). */
    kf_cursor c = it->c;
    int32_t n = 0;
    int64_t first = 0, last = 0, prev = INT64_MIN;
    while (kf_cur_left(&c) > 0) {
        if (kf_cur_left(&c) < KF_LOG_OVERHEAD)
            return iter_fail(it, KF_P_BAD_RECORD, "compressed message set ends inside an entry header");
        int64_t off = kf_cur_i64(&c);
        int32_t sz = kf_cur_i32(&c);
        if (sz < KF_V0_MIN_SIZE)
            return iter_fail(it, KF_P_BAD_RECORD, "inner message size below the minimum of 14");
        if ((size_t)sz > kf_cur_left(&c))
            return iter_fail(it, KF_P_BAD_RECORD, "inner message runs past the end of the compressed set");
        kf_cur_skip(&c, (size_t)sz);
        if (n == 0)
            first = off;
        else if (off <= prev)
            return iter_fail(it, KF_P_BAD_RECORD, "inner message offsets do not increase");
        prev = last = off;
        if (n == INT32_MAX)
            return iter_fail(it, KF_P_BAD_RECORD, "too many inner messages");
        n++;
    }
    if (n == 0)
        return iter_fail(it, KF_P_BAD_RECORD, "compressed wrapper holds no messages");
    it->total = n;
    if (b->magic == 1) {
        int64_t outer = b->last_offset;
        it->legacy_relative = true;
        if (outer == 0) {
            it->legacy_base = 0;
        } else if (outer < last) {
            return iter_fail(it, KF_P_BAD_RECORD, "wrapper offset is below its last inner relative offset");
        } else {
            it->legacy_base = outer - last;
        }
        b->base_offset = it->legacy_base + first;
    } else {
        b->base_offset = first;
    }
    b->base_offset_known = true;
    b->count = n;
    return 0;
}

int kf_records_begin(kf_record_iter *it, kf_batch *b, kf_buf *buf, size_t max_bytes)
{
    /* Field by field, not a memset of the whole iterator: this runs once a
     * batch, and err_msg (200 bytes) is only read after a failure wrote it. */
    it->b = b;
    kf_cur_init(&it->c, NULL, 0);
    it->index = it->total = 0;
    it->legacy_base = 0;
    it->prev_offset = INT64_MIN;
    it->legacy_relative = it->done = false;
    it->err_code = NULL;
    it->err_msg[0] = '\0';
    if (b->magic == 2) {
        if (b->codec > KF_CODEC_ZSTD)
            return iter_refuse(it, KF_P_BAD_ATTRIBUTES, KF_ERR_UNSUPPORTED, "unknown compression codec id (5-7)");
        if (b->count < 0)
            return iter_refuse(it, KF_P_BAD_RECORD, KF_ERR_CORRUPT, "negative record count");
        it->total = b->count;
        if (b->codec == KF_CODEC_NONE) {
            kf_cur_init(&it->c, b->payload, b->payload_len);
            return KF_OK;
        }
    } else {
        if (b->codec == KF_CODEC_NONE) {
            it->total = 1;
            return KF_OK;
        }
        if (b->codec > KF_CODEC_LZ4)
            return iter_refuse(it, KF_P_BAD_ATTRIBUTES, KF_ERR_UNSUPPORTED,
                               "zstd and codec ids above 4 are not valid for magic 0/1");
        if (b->legacy_value_len < 0)
            return iter_refuse(it, KF_P_BAD_RECORD, KF_ERR_CORRUPT, "compressed wrapper message has a null value");
    }
    int rc = kf_decompress(b->codec, b->magic, b->payload, b->payload_len, buf, max_bytes);
    if (rc != KF_OK) { /* the last error is the codec's */
        iter_report(it, KF_P_DECOMPRESS_ERROR, kf_error_last()->message);
        return rc;
    }
    kf_cur_init(&it->c, buf->data, buf->len);
    if (b->magic != 2 && legacy_prepass(it, b) < 0)
        return KF_ERR_CORRUPT;
    return KF_OK;
}

/* A zigzag varint of at most maxbytes bytes from [*pp, end), as the cursor's
 * kf_cur_varint/varlong read it (32-bit ones wrap to 32 bits). False when
 * it runs past end or is too long. next_v2 reads a record's fields with
 * this, inside the record's own bounds, because it runs once per record and
 * the cursor's check per byte doubled its cost. */
/* The rest of a varint longer than two bytes: out of line, so that the
 * one- and two-byte paths above inline into every field read. */
static __attribute__((noinline)) bool rd_zigzag_long(const uint8_t **pp, const uint8_t *end, int maxbytes,
                                                     uint64_t *out)
{
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (int i = 0; i < maxbytes; i++) {
        if (p == end)
            return false;
        uint8_t byte = *p++;
        v |= (uint64_t)(byte & 0x7f) << (7 * i);
        if (!(byte & 0x80)) {
            *pp = p;
            *out = v;
            return true;
        }
    }
    return false;
}

__attribute__((always_inline)) static inline bool rd_zigzag(const uint8_t **pp, const uint8_t *end, int maxbytes,
                                                            uint64_t *out)
{
    const uint8_t *p = *pp;
    /* one and two bytes: lengths, deltas and counts of most records */
    if (p < end && !(p[0] & 0x80)) {
        *out = p[0];
        *pp = p + 1;
        return true;
    }
    if (end - p >= 2 && !(p[1] & 0x80)) {
        *out = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
        *pp = p + 2;
        return true;
    }
    return rd_zigzag_long(pp, end, maxbytes, out);
}

__attribute__((always_inline)) static inline bool rd_i32(const uint8_t **pp, const uint8_t *end, int32_t *out)
{
    uint64_t u;
    if (!rd_zigzag(pp, end, 5, &u))
        return false;
    uint32_t w = (uint32_t)u;
    *out = (int32_t)((w >> 1) ^ (~(w & 1) + 1));
    return true;
}

__attribute__((always_inline)) static inline bool rd_i64(const uint8_t **pp, const uint8_t *end, int64_t *out)
{
    uint64_t u;
    if (!rd_zigzag(pp, end, 10, &u))
        return false;
    *out = (int64_t)((u >> 1) ^ (~(u & 1) + 1));
    return true;
}

/* Length-prefixed bytes (a negative length: null, any negative as Java reads it). */
__attribute__((always_inline)) static inline bool rd_bytes(const uint8_t **pp, const uint8_t *end, const uint8_t **data, int32_t *len)
{
    if (!rd_i32(pp, end, len))
        return false;
    if (*len < 0) {
        *len = -1;
        *data = NULL;
        return true;
    }
    if ((size_t)(end - *pp) < (size_t)*len)
        return false;
    *data = *pp;
    *pp += *len;
    return true;
}

/* A v2 record's fields after its length, from p to end (the record's own
 * bounds): NULL when they are well-formed, else what is wrong (a
 * bad_record). Inline, so kf_records_count_plain, which keeps none of
 * the fields, costs no stores. */
__attribute__((always_inline)) static inline const char *v2_record_fields(const uint8_t *p, const uint8_t *end, kf_record *r, int64_t *ts_delta)
{
    bool ok = p < end;
    r->attributes = ok ? (int8_t)*p++ : 0;
    ok = ok && rd_i64(&p, end, ts_delta) && rd_i32(&p, end, &r->offset_delta) &&
         rd_bytes(&p, end, &r->key, &r->key_len) && rd_bytes(&p, end, &r->value, &r->value_len) &&
         rd_i32(&p, end, &r->header_count);
    if (!ok)
        return "record fields run past the record length";
    if (r->header_count < 0 || (size_t)r->header_count > (size_t)(end - p))
        return "invalid header count";
    r->headers = p;
    for (int32_t h = 0; h < r->header_count; h++) {
        const uint8_t *hk;
        int32_t hkl, hvl;
        /* a header key may not be null; its value may */
        if (p == end || !rd_bytes(&p, end, &hk, &hkl) || hkl < 0 || !rd_i32(&p, end, &hvl) || hvl < -1 ||
            (hvl > 0 && (size_t)(end - p) < (size_t)hvl))
            return "malformed record header";
        if (hvl > 0)
            p += hvl;
    }
    r->headers_len = (size_t)(p - r->headers);
    if (p != end)
        return "record has bytes left after its headers";
    return NULL;
}

/* Whether a record's offset delta may follow prev (the previous record's,
 * when index > 0): 0 when it may, DELTA_NOT_INCREASING or DELTA_PAST_LAST. */
enum { DELTA_NOT_INCREASING = 1, DELTA_PAST_LAST };
static inline int v2_delta_fail(int32_t delta, int32_t index, int64_t prev, int32_t last_delta)
{
    if (delta < 0 || (index > 0 && (int64_t)delta <= prev))
        return DELTA_NOT_INCREASING;
    return delta > last_delta ? DELTA_PAST_LAST : 0;
}

static int next_v2(kf_record_iter *it, kf_record *r)
{
    const kf_batch *b = it->b;
    kf_cursor *c = &it->c;
    if (it->index >= it->total) {
        it->done = true;
        if (kf_cur_left(c) > 0)
            return iter_fail(it, KF_P_BAD_RECORD, "incorrect declared batch size, records still remaining");
        return 0;
    }
    if (kf_cur_left(c) == 0)
        return iter_fail(it, KF_P_BAD_RECORD, "incorrect declared batch size, premature EOF reached");
    int32_t len = kf_cur_varint(c);
    if (c->err || len < 0 || (size_t)len > kf_cur_left(c))
        return iter_fail(it, KF_P_BAD_RECORD, "record length is invalid or runs past the batch");
    const uint8_t *p = c->buf + c->pos;
    kf_cur_skip(c, (size_t)len);

    int64_t ts_delta;
    const char *bad = v2_record_fields(p, p + len, r, &ts_delta);
    if (bad)
        return iter_fail(it, KF_P_BAD_RECORD, bad);
    int delta_bad = v2_delta_fail(r->offset_delta, it->index, it->prev_offset, b->last_offset_delta);
    if (delta_bad == DELTA_NOT_INCREASING)
        return iter_fail(it, KF_P_BAD_RECORD, "record offset deltas do not increase");
    if (delta_bad == DELTA_PAST_LAST)
        return iter_fail(it, KF_P_COUNT_MISMATCH, "record offset delta is past the batch's last offset delta");
    it->prev_offset = r->offset_delta;
    r->magic = 2;
    r->crc = 0;
    /* wrap-safe: only a damaged header (kf_batch_last_offset_overflows) wraps */
    r->offset = (int64_t)((uint64_t)b->base_offset + (uint64_t)(int64_t)r->offset_delta);
    r->timestamp = b->log_append_time ? b->max_timestamp
                                      : (int64_t)((uint64_t)b->base_timestamp + (uint64_t)ts_delta);
    r->sequence = b->base_sequence < 0 ? -1 : kf_sequence_add(b->base_sequence, r->offset_delta);
    r->crc_ok = true;
    it->index++;
    return 1;
}

bool kf_records_count_plain(const kf_batch *b, int32_t *count)
{
    if (b->magic != 2 || b->codec != KF_CODEC_NONE || b->count < 0)
        return false;
    const uint8_t *p = b->payload, *end = p + b->payload_len;
    int64_t prev = INT64_MIN;
    for (int32_t i = 0; i < b->count; i++) {
        int32_t len;
        if (p == end || !rd_i32(&p, end, &len) || len < 0 || (size_t)len > (size_t)(end - p))
            return false;
        kf_record r;
        int64_t ts_delta;
        if (v2_record_fields(p, p + len, &r, &ts_delta) ||
            v2_delta_fail(r.offset_delta, i, prev, b->last_offset_delta))
            return false;
        p += len;
        prev = r.offset_delta;
    }
    *count = b->count;
    return p == end;
}

/* A v0/v1 record's fields from its message: an inner message of a
 * compressed wrapper, or an uncompressed batch, which is its own one. */
static void legacy_fill(kf_record *r, const legacy_msg *m)
{
    r->magic = m->magic;
    r->attributes = (int8_t)m->attributes;
    r->crc = m->crc;
    r->key = m->key;
    r->key_len = m->key_len;
    r->value = m->value;
    r->value_len = m->value_len;
    r->sequence = -1;
}

static int next_legacy(kf_record_iter *it, kf_record *r)
{
    const kf_batch *b = it->b;
    memset(r, 0, sizeof *r);
    if (it->index >= it->total) {
        it->done = true;
        return 0;
    }
    if (b->codec == KF_CODEC_NONE) { /* the batch is its one message, as kf_batch_parse read it */
        const legacy_msg m = {.crc = b->crc, .magic = b->magic, .attributes = (uint8_t)b->attributes,
                              .key = b->legacy_key, .key_len = b->legacy_key_len,
                              .value = b->payload, .value_len = b->legacy_value_len};
        legacy_fill(r, &m);
        r->crc_ok = b->crc_ok;
        r->offset = b->last_offset;
        r->timestamp = b->max_timestamp;
        it->index++;
        return 1;
    }
    kf_cursor *c = &it->c;
    int64_t off = kf_cur_i64(c);
    int32_t sz = kf_cur_i32(c);
    const uint8_t *body = kf_cur_take(c, sz > 0 ? (size_t)sz : 0);
    if (c->err || !body) /* the prepass already checked the framing */
        return iter_fail(it, KF_P_BAD_RECORD, "inner message framing is broken");
    legacy_msg m;
    int rc = legacy_parse(body, (uint32_t)sz, &m);
    if (rc != KF_OK)
        return iter_fail(it, KF_P_BAD_RECORD, "malformed inner message");
    if (m.attributes & KF_ATTR_CODEC_MASK)
        return iter_fail(it, KF_P_BAD_RECORD, "inner messages must not be compressed");
    legacy_fill(r, &m);
    r->crc_ok = kf_crc32(0, body + 4, (size_t)sz - 4) == m.crc;
    r->offset = it->legacy_relative ? it->legacy_base + off : off;
    if (b->magic == 0)
        r->timestamp = -1;
    else
        r->timestamp = b->log_append_time ? b->max_timestamp : m.timestamp;
    it->index++;
    return 1;
}

int kf_records_next(kf_record_iter *it, kf_record *r)
{
    if (it->done)
        return it->err_code ? -1 : 0;
    return it->b->magic == 2 ? next_v2(it, r) : next_legacy(it, r);
}

void kf_headers_begin(kf_cursor *c, const kf_record *r)
{
    kf_cur_init(c, r->headers, r->headers_len);
}

static int header_fail(void)
{
    kf_error_set(KF_ERR_CORRUPT, 0, NULL, "malformed record header");
    return -1;
}

int kf_header_next(kf_cursor *c, const uint8_t **key, int32_t *key_len, const uint8_t **value, int32_t *value_len)
{
    if (c->err)
        return header_fail();
    if (kf_cur_left(c) == 0)
        return 0;
    *key_len = kf_cur_varint(c);
    if (c->err || *key_len < 0)
        return header_fail();
    *key = kf_cur_take(c, (size_t)*key_len);
    *value_len = kf_cur_varint(c);
    if (c->err || *value_len < -1)
        return header_fail();
    *value = *value_len >= 0 ? kf_cur_take(c, (size_t)*value_len) : NULL;
    return c->err ? header_fail() : 1;
}

int kf_control_parse(const kf_record *r, kf_control *ctl)
{
    ctl->version = -1;
    ctl->type = -1;
    ctl->coordinator_epoch = -1;
    if (r->key_len < 4 || !r->key)
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "control record key shorter than 4 bytes");
    ctl->version = (int16_t)kf_be16(r->key);
    ctl->type = (int16_t)kf_be16(r->key + 2);
    if (ctl->version < 0)
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "control record version %d is negative", ctl->version);
    if (ctl->type == KF_CONTROL_ABORT || ctl->type == KF_CONTROL_COMMIT) {
        if (r->value_len < 6 || !r->value)
            return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "%s marker value shorter than 6 bytes",
                                kf_control_type_name(ctl->type));
        ctl->coordinator_epoch = (int32_t)kf_be32(r->value + 2);
    }
    return KF_OK;
}

const char *kf_control_type_name(int16_t type)
{
    switch (type) {
    case KF_CONTROL_ABORT: return "ABORT";
    case KF_CONTROL_COMMIT: return "COMMIT";
    case KF_CONTROL_LEADER_CHANGE: return "LEADER_CHANGE";
    case KF_CONTROL_SNAPSHOT_HEADER: return "SNAPSHOT_HEADER";
    case KF_CONTROL_SNAPSHOT_FOOTER: return "SNAPSHOT_FOOTER";
    case KF_CONTROL_KRAFT_VERSION: return "KRAFT_VERSION";
    case KF_CONTROL_KRAFT_VOTERS: return "KRAFT_VOTERS";
    }
    return "UNKNOWN";
}
