/* damaged.c: a damaged stretch of a segment (kf_damaged, segment.h), read
 * as far as it goes: the header fields of the batch it starts with
 * (kf_damaged_header) and, when that batch frames but fails its CRC, its
 * records (kf_damaged_records), as kafka-dump-log.sh prints the records of
 * a corrupt batch. The bytes are untrusted: every read is bounds-checked,
 * decompression is capped, and the records stop at the first that does not
 * decode. */
#include "bytes/error.h"
#include "kfsck/sys/segment.h"

#include <stdlib.h>
#include <string.h>

#include "bytes/cursor.h"
#include "kfsck/sys/batch.h"
#include "kfsck/sys/codec.h"

/* ---- a damaged stretch's header ------------------------------------------- */

/* A field of the header at p (n bytes), when its bytes are there. */
#define FIELD(at, len, has, field, type, read) \
    if (n >= (size_t)(at) + (len)) {           \
        d->has = true;                         \
        d->field = (type)read(p + (at));       \
    }

static inline uint8_t be8(const uint8_t *p) { return *p; }

void kf_damaged_header(const uint8_t *p, size_t n, kf_damaged *d)
{
    /* the fields up to the magic byte are the same in every version */
    FIELD(0, 8, has_base_offset, base_offset, int64_t, kf_be64)
    FIELD(8, 4, has_batch_length, batch_length, int32_t, kf_be32)
    FIELD(16, 1, has_magic, magic, int8_t, be8)
    if (!d->has_magic)
        return;
    if (d->magic == 0 || d->magic == 1) { /* offset, length, crc, magic, attributes[, timestamp] (§3.1) */
        FIELD(12, 4, has_crc, crc, uint32_t, kf_be32)
        FIELD(17, 1, has_attributes, attributes, int16_t, be8)
        if (d->magic == 1)
            FIELD(18, 8, has_base_timestamp, base_timestamp, int64_t, kf_be64)
        return;
    }
    if (d->magic != 2)
        return; /* a magic byte kfsck cannot read: the rest has no known layout */
    /* the v2 header (docs/formats.md §2.1) */
    FIELD(12, 4, has_leader_epoch, leader_epoch, int32_t, kf_be32)
    FIELD(17, 4, has_crc, crc, uint32_t, kf_be32)
    FIELD(21, 2, has_attributes, attributes, int16_t, kf_be16)
    FIELD(23, 4, has_last_offset_delta, last_offset_delta, int32_t, kf_be32)
    FIELD(27, 8, has_base_timestamp, base_timestamp, int64_t, kf_be64)
    FIELD(35, 8, has_max_timestamp, max_timestamp, int64_t, kf_be64)
    FIELD(43, 8, has_producer_id, producer_id, int64_t, kf_be64)
    FIELD(51, 2, has_producer_epoch, producer_epoch, int16_t, kf_be16)
    FIELD(53, 4, has_base_sequence, base_sequence, int32_t, kf_be32)
    FIELD(57, 4, has_count, count, int32_t, kf_be32)
}
#undef FIELD

/* ---- a damaged batch's records -------------------------------------------- */

int kf_damaged_records(kf_source *src, const kf_damaged *d, size_t max_batch_bytes, kf_record_fn fn, void *ctx,
                       uint64_t *n)
{
    uint64_t count = 0;
    if (n)
        *n = 0;
    if (!max_batch_bytes)
        max_batch_bytes = KF_DEFAULT_MAX_BATCH_BYTES;
    /* the batch frames: its size field puts its end inside the stretch */
    if (!d->has_batch_length || d->batch_length < KF_V0_MIN_SIZE - KF_LOG_OVERHEAD)
        return KF_OK;
    uint64_t size = (uint64_t)KF_LOG_OVERHEAD + (uint64_t)d->batch_length;
    if (size > d->length || size > max_batch_bytes)
        return KF_OK;
    uint8_t *p = malloc((size_t)size);
    if (!p)
        return kf_error_nomem();
    int rc = KF_OK;
    int64_t got = kf_source_pread(src, d->position, p, (size_t)size);
    kf_batch b;
    uint32_t fsize;
    int8_t magic;
    if (got < 0) {
        rc = KF_ERR_IO;
    } else if ((uint64_t)got == size && kf_batch_frame(p, size, &fsize, &magic) == KF_FRAME_OK && fsize == size &&
               kf_batch_parse(p, (uint32_t)size, d->position, &b) == KF_OK && !kf_batch_verify_crc(&b)) {
        kf_buf buf = {0};
        kf_record_iter it;
        rc = kf_records_begin(&it, &b, &buf, max_batch_bytes);
        if (rc == KF_OK) {
            kf_record r;
            while (kf_records_next(&it, &r) == 1) {
                count++;
                if (fn && fn(ctx, &b, &r))
                    break;
            }
        }
        rc = rc == KF_ERR_NOMEM ? rc : KF_OK; /* records that do not begin to decode: none */
        kf_buf_free(&buf);
    }
    free(p);
    if (n)
        *n = count;
    return rc;
}
