/* batch.h: one entry of a .log file: a magic-2 record batch or a magic-0/1
 * message (which may be a compressed wrapper holding inner messages), and an
 * iterator over the records inside it. */
#ifndef KFSCK_BATCH_H
#define KFSCK_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/codec.h"
#include "kfsck/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KF_LOG_OVERHEAD 12          /* offset int64 + size int32 */
#define KF_HEADER_UP_TO_MAGIC 17    /* bytes needed to see the magic */
#define KF_V2_HEADER_SIZE 61
#define KF_V0_MIN_SIZE 14           /* minimum size field of any entry */
#define KF_V1_MIN_SIZE 22

#define KF_ATTR_CODEC_MASK 0x07
#define KF_ATTR_LOG_APPEND_TIME 0x08
#define KF_ATTR_TRANSACTIONAL 0x10
#define KF_ATTR_CONTROL 0x20
#define KF_ATTR_DELETE_HORIZON 0x40

typedef struct kf_batch {
    uint64_t position;        /* byte position of the entry in its file */
    const uint8_t *bytes;     /* the whole entry, `size` bytes */
    uint32_t size;            /* 12 + the length field */
    int8_t magic;

    int64_t base_offset;      /* v2: header. v0/v1: the message offset, or
                                 the first inner offset of a wrapper once its
                                 records were read (base_offset_known) */
    bool base_offset_known;
    int64_t last_offset;      /* v2: base + lastOffsetDelta; v0/v1: message offset */
    int32_t last_offset_delta;
    int32_t count;            /* v2: header; v0/v1: 1, or inner count (-1 until read) */

    uint16_t attributes;
    int codec;
    bool log_append_time, transactional, control, delete_horizon;

    uint32_t crc;             /* stored */
    bool crc_ok;              /* computed by kf_batch_verify_crc */

    int32_t partition_leader_epoch; /* v2 only */
    int64_t base_timestamp;   /* v2: header; v1: message timestamp; v0: -1 */
    int64_t max_timestamp;    /* v2: header; v1: message timestamp; v0: -1 */
    int64_t producer_id;      /* v2 only */
    int16_t producer_epoch;
    int32_t base_sequence;

    const uint8_t *payload;   /* v2: bytes after the 61-byte header (maybe
                                 compressed); v0/v1: the value */
    uint32_t payload_len;
    int32_t legacy_key_len;   /* v0/v1 only: -1 for a null key */
    const uint8_t *legacy_key;
    int32_t legacy_value_len; /* v0/v1 only: -1 for a null value */
} kf_batch;

/* Does a batch's last offset leave no log end offset (last offset + 1)
 * at or below 2^63-1, the largest offset there is? For magic 2 the last
 * offset is base offset + lastOffsetDelta, for magic 0/1 the message's
 * offset. Such a batch is damage (KF_P_LAST_OFFSET_OVERFLOW): the broker's
 * next offset would wrap, and a v2 last_offset, computed wrapping, is
 * meaningless. */
static inline bool kf_batch_last_offset_overflows(const kf_batch *b)
{
    if (b->magic == 2)
        return b->last_offset_delta >= 0 && b->base_offset > INT64_MAX - 1 - b->last_offset_delta;
    return b->last_offset == INT64_MAX;
}

/* What framing found at a position (the broker's FileLogInputStream rules). */
typedef enum kf_frame {
    KF_FRAME_OK = 0,
    KF_FRAME_SHORT_TAIL,   /* fewer than 17 bytes left: the broker stops silently */
    KF_FRAME_TORN,         /* the entry runs past the end of the file */
    KF_FRAME_BAD_SIZE,     /* size field below 14 (zero fill looks like this) */
} kf_frame;

/* Read the 17-byte frame at p (avail bytes readable): size and magic.
 * On KF_FRAME_OK, *size is the whole entry (12 + length) and *magic is set. */
kf_frame kf_batch_frame(const uint8_t *p, uint64_t avail, uint32_t *size, int8_t *magic);

/* Parse the header of a framed entry of `size` bytes at p (size from
 * kf_batch_frame). Returns KF_OK, KF_ERR_CORRUPT (size below the magic's
 * minimum: 61 for v2, 14/22 for v0/v1, or key/value lengths that do not fit)
 * or KF_ERR_UNSUPPORTED (magic not 0..2), the reason in words as the last
 * error. Fills what it could read. */
int kf_batch_parse(const uint8_t *p, uint32_t size, uint64_t position, kf_batch *b);

/* As kf_batch_parse, but the way broker recovery reads an entry
 * (FileLogInputStream): a magic byte above 2 is read as a v2 batch, whose
 * CRC does not cover the magic byte; b->magic keeps the byte found. */
int kf_batch_parse_broker(const uint8_t *p, uint32_t size, uint64_t position, kf_batch *b);

/* Compute the CRC (CRC-32C for v2, and for a magic above 2 as
 * kf_batch_parse_broker reads it; CRC-32 for v0/v1), set b->crc_ok. */
bool kf_batch_verify_crc(kf_batch *b);

/* Kafka's producer sequence arithmetic (DefaultRecordBatch.incrementSequence
 * and decrementSequence): seq + delta in the sequence space 0..INT32_MAX,
 * which wraps from INT32_MAX to 0 and from 0 down to INT32_MAX; the result
 * always lies in the space ((seq + delta) mod 2^31). The last sequence of a
 * batch is kf_sequence_add(base_sequence, last_offset_delta), a record's
 * kf_sequence_add(base_sequence, offset_delta), the first of a producer
 * snapshot entry kf_sequence_add(last_sequence, -(int64_t)offset_delta).
 * The -1 of "no sequence" is the caller's to keep out. */
int32_t kf_sequence_add(int32_t seq, int64_t delta);

/* ---- records ------------------------------------------------------------- */

typedef struct kf_record {
    int64_t offset;
    int64_t timestamp;        /* effective: the batch max timestamp under log-append time */
    int32_t offset_delta;     /* v2 */
    int32_t sequence;         /* v2: base_sequence + delta (wrapping), -1 if none */
    int8_t attributes;
    const uint8_t *key;
    int32_t key_len;          /* -1: null */
    const uint8_t *value;
    int32_t value_len;        /* -1: null */
    int32_t header_count;     /* v2 */
    const uint8_t *headers;   /* raw header bytes, read with kf_header_next */
    size_t headers_len;
    /* v0/v1 inner (or plain) messages */
    uint32_t crc;
    bool crc_ok;
    int8_t magic;
} kf_record;

typedef struct kf_record_iter {
    const kf_batch *b;
    kf_cursor c;
    int32_t index;            /* records returned so far */
    int32_t total;            /* records expected (v2 count; legacy inner count) */
    int64_t legacy_base;      /* v1 wrappers: absolute offset of relative 0 */
    int64_t prev_offset;
    bool legacy_relative;
    bool done;
    const char *err_code;     /* KF_P_* when kf_records_begin/next failed */
    char err_msg[200];        /* what is wrong, as the last error says it too */
} kf_record_iter;

/* Prepare to iterate b's records, decompressing into buf (capped at
 * max_bytes). Returns KF_OK, or a kf_err with the last error set and, for
 * reporting the batch as a problem, it->err_code/err_msg (decompress_error,
 * bad_record, bad_attributes: the problem code, which the last error does
 * not carry, and the same words). For v0/v1 wrappers this also sets b's
 * base_offset/count from the inner messages. */
int kf_records_begin(kf_record_iter *it, kf_batch *b, kf_buf *buf, size_t max_bytes);

/* Next record: 1 and *r filled; 0 at a clean end; -1 on malformed data
 * (it->err_code / err_msg say what, and the last error is KF_ERR_CORRUPT
 * with err_msg's words; the rest of the batch is skipped). A clean end also
 * checks the declared count and that no bytes are left. */
int kf_records_next(kf_record_iter *it, kf_record *r);

/* Start reading r's headers (c: a cursor over r->headers, for
 * kf_header_next). */
void kf_headers_begin(kf_cursor *c, const kf_record *r);
/* Read one header from a record's raw header bytes. Returns 1 with the
 * fields set, 0 at end, -1 when malformed (the last error says so).
 * value_len -1 = null. */
int kf_header_next(kf_cursor *c, const uint8_t **key, int32_t *key_len, const uint8_t **value, int32_t *value_len);

/* Control records (COMMIT/ABORT markers and KRaft control types). */
enum { KF_CONTROL_ABORT = 0, KF_CONTROL_COMMIT = 1, KF_CONTROL_LEADER_CHANGE = 2,
       KF_CONTROL_SNAPSHOT_HEADER = 3, KF_CONTROL_SNAPSHOT_FOOTER = 4,
       KF_CONTROL_KRAFT_VERSION = 5, KF_CONTROL_KRAFT_VOTERS = 6 };

typedef struct kf_control {
    int16_t version;
    int16_t type;             /* KF_CONTROL_* or another number */
    int32_t coordinator_epoch;/* COMMIT/ABORT, else -1 */
} kf_control;

/* A transaction with no COMMIT/ABORT marker yet (ProducerStateManager's
 * ongoing transactions), with what the batches fed since it began show
 * (the producer-state replay of repair, merge and txns; txns.h reports them). */
typedef struct kf_open_txn {
    int64_t producer_id;
    int16_t producer_epoch;     /* the producer's latest epoch */
    int32_t coordinator_epoch;  /* of the producer's last marker; -1 when none is known */
    int64_t first_offset;       /* base offset of its first batch */
    int64_t last_offset;        /* last offset of the producer's last batch; -1 unknown */
    bool has_last_timestamp;
    int64_t last_timestamp;     /* max timestamp of that batch (from a snapshot: its lastTimestamp) */
    uint64_t batches, records;  /* transactional data batches fed since it began, and their record counts */
    bool has_first_timestamp;   /* false when it began before what was fed (known from a snapshot) */
    int64_t first_timestamp;    /* max timestamp of its first batch */
} kf_open_txn;

/* Returns KF_OK or KF_ERR_CORRUPT (key shorter than 4 bytes, negative
 * version, marker value shorter than 6 bytes; the last error says which). */
int kf_control_parse(const kf_record *r, kf_control *ctl);
const char *kf_control_type_name(int16_t type); /* "COMMIT", "ABORT", ... */

#ifdef __cplusplus
}
#endif

#endif
