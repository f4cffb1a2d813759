/* producer_snapshot.c: reads a producer-state snapshot (`<offset>.snapshot`,
 * docs/formats.md §6) in place: the 10-byte header (version int16 = 1,
 * CRC-32C of bytes [6, EOF) as uint32, entry count int32) and the 46-byte
 * producer entries. The checks are the broker's (ProducerStateManager.
 * readSnapshot): the file must hold the entries its count says, the version
 * must be 1 and the CRC must match; anything else makes the broker discard
 * the file and rebuild producer state from the log. Bytes after the last
 * entry, which Kafka's reader leaves unread (they are inside the CRC), are
 * refused too. Fields are filled as far as the bytes go, so a damaged
 * snapshot can still be listed. No allocation. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bytes/error.h"
#include "kfsck/sys/crc.h"
#include "kfsck/sys/producer_snapshot.h"

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const uint8_t *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }

static uint16_t be16(const uint8_t *p) { return (uint16_t)((uint16_t)p[0] << 8 | p[1]); }

int kf_producer_snapshot_parse(const uint8_t *data, uint64_t size, kf_producer_snapshot *s)
{
    memset(s, 0, sizeof *s);
    if (!data)
        size = 0;
    s->data = data;
    s->size = size;
    s->version = -1;
    s->count = -1;

    if (size == 0) {
        return kf_error_set(KF_ERR_TRUNCATED, 0, NULL, "empty (0-byte) snapshot: no header");
    }
    if (size < KF_PRODUCER_SNAPSHOT_HEADER_SIZE) {
        if (size >= 2)
            s->version = (int16_t)be16(data);
        if (size >= 6) {
            s->crc = be32(data + 2);
            s->crc_computed = kf_crc32c(0, data + 6, (size_t)(size - 6));
            s->crc_ok = s->crc == s->crc_computed;
        }
        return kf_error_set(KF_ERR_TRUNCATED, 0, NULL, "snapshot is %" PRIu64 " bytes, shorter than its %d-byte header",
                            size, KF_PRODUCER_SNAPSHOT_HEADER_SIZE);
    }
    s->version = (int16_t)be16(data);
    s->crc = be32(data + 2);
    s->count = (int32_t)be32(data + 6);
    s->crc_computed = kf_crc32c(0, data + 6, (size_t)(size - 6));
    s->crc_ok = s->crc == s->crc_computed;
    uint64_t avail = (size - KF_PRODUCER_SNAPSHOT_HEADER_SIZE) / KF_PRODUCER_SNAPSHOT_ENTRY_SIZE;
    s->entries = (s->count >= 0 && (uint64_t)s->count < avail) ? (uint64_t)s->count : avail;

    /* The count against the size first, then the version, then the CRC
     * (Kafka checks the version before the entries). */
    if (s->count < 0) {
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "snapshot entry count %" PRId32 " is negative", s->count);
    }
    uint64_t want = KF_PRODUCER_SNAPSHOT_HEADER_SIZE + (uint64_t)s->count * KF_PRODUCER_SNAPSHOT_ENTRY_SIZE;
    if (size < want) {
        return kf_error_set(KF_ERR_TRUNCATED, 0, NULL,
                            "snapshot holds %" PRId32 " entries (%" PRIu64 " bytes) but the file is only %" PRIu64 " bytes",
                            s->count, want, size);
    }
    if (size > want) {
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "snapshot has %" PRIu64 " bytes after its %" PRId32 " entries",
                            size - want, s->count);
    }
    if (s->version != 1) {
        return kf_error_set(KF_ERR_UNSUPPORTED, 0, NULL, "snapshot contained an unknown file version %d", s->version);
    }
    if (!s->crc_ok) {
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL,
                            "snapshot is corrupt (CRC is no longer valid). Stored crc: %" PRIu32 ". Computed crc: %" PRIu32,
                            s->crc, s->crc_computed);
    }
    return KF_OK;
}

void kf_producer_snapshot_get(const kf_producer_snapshot *s, uint64_t i, kf_producer_snapshot_entry *e)
{
    memset(e, 0, sizeof *e);
    if (!s->data || s->size < KF_PRODUCER_SNAPSHOT_HEADER_SIZE ||
        i >= (s->size - KF_PRODUCER_SNAPSHOT_HEADER_SIZE) / KF_PRODUCER_SNAPSHOT_ENTRY_SIZE)
        return;
    const uint8_t *p = s->data + KF_PRODUCER_SNAPSHOT_HEADER_SIZE + i * KF_PRODUCER_SNAPSHOT_ENTRY_SIZE;
    e->producer_id = (int64_t)be64(p);
    e->producer_epoch = (int16_t)be16(p + 8);
    e->last_sequence = (int32_t)be32(p + 10);
    e->last_offset = (int64_t)be64(p + 14);
    e->offset_delta = (int32_t)be32(p + 22);
    e->timestamp = (int64_t)be64(p + 26);
    e->coordinator_epoch = (int32_t)be32(p + 34);
    e->current_txn_first_offset = (int64_t)be64(p + 38);
}
