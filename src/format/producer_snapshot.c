/* producer_snapshot.c: reads a producer-state snapshot (`<offset>.snapshot`,
 * docs/formats.md §6) in place: the 10-byte header (version int16 = 1,
 * CRC-32C of bytes [6, EOF) as uint32, entry count int32) and the 46-byte
 * producer entries. The checks are the broker's (ProducerStateManager.
 * readSnapshot): the file must hold the entries its count says, the version
 * must be 1 and the CRC must match; anything else makes the broker discard
 * the file and rebuild producer state from the log. Bytes after the last
 * entry, which Kafka's reader leaves unread (they are inside the CRC), are
 * refused too. Fields are filled as far as the bytes go, so a damaged
 * snapshot can still be listed. A snapshot is bytes in memory (no
 * allocation) or a file read in pieces (kf_producer_snapshot_open: the CRC
 * computed a block at a time, the entries read a window at a time), so a
 * snapshot of any size is checked and listed in bounded memory. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "kfsck/sys/crc.h"
#include "kfsck/sys/file.h"
#include "kfsck/sys/producer_snapshot.h"

#include "format/slot_window.h"

/* Entries read at a time from a snapshot file (46 KiB), and the block the
 * CRC is computed over. */
#define SNAP_WINDOW_ENTRIES 1024
#define SNAP_CRC_BLOCK (256u << 10)

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const uint8_t *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }

static uint16_t be16(const uint8_t *p) { return (uint16_t)((uint16_t)p[0] << 8 | p[1]); }

/* The header's fields and the checks of a snapshot of `size` bytes whose
 * first min(size, 10) bytes are at head and whose CRC over [6, EOF) is
 * crc_computed (computed when size >= 6). */
static int check_header(kf_producer_snapshot *s, const uint8_t *head, uint64_t size, uint32_t crc_computed)
{
    s->size = size;
    s->version = -1;
    s->count = -1;

    if (size == 0) {
        return kf_error_set(KF_ERR_TRUNCATED, 0, NULL, "empty (0-byte) snapshot: no header");
    }
    if (size >= 2)
        s->version = (int16_t)be16(head);
    if (size >= 6) {
        s->crc = be32(head + 2);
        s->crc_computed = crc_computed;
        s->crc_ok = s->crc == s->crc_computed;
    }
    if (size < KF_PRODUCER_SNAPSHOT_HEADER_SIZE)
        return kf_error_set(KF_ERR_TRUNCATED, 0, NULL, "snapshot is %" PRIu64 " bytes, shorter than its %d-byte header",
                            size, KF_PRODUCER_SNAPSHOT_HEADER_SIZE);
    s->count = (int32_t)be32(head + 6);
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

int kf_producer_snapshot_parse(const uint8_t *data, uint64_t size, kf_producer_snapshot *s)
{
    memset(s, 0, sizeof *s);
    if (!data)
        size = 0;
    s->data = data;
    return check_header(s, data, size, size >= 6 ? kf_crc32c(0, data + 6, (size_t)(size - 6)) : 0);
}

int kf_producer_snapshot_open(kf_producer_snapshot *s, const char *path)
{
    memset(s, 0, sizeof *s);
    kf_source *src;
    int rc = kf_source_open(&src, path, 0);
    if (rc != KF_OK)
        return rc;
    uint64_t size = kf_source_size(src);
    uint64_t whole = size > KF_PRODUCER_SNAPSHOT_HEADER_SIZE
                         ? (size - KF_PRODUCER_SNAPSHOT_HEADER_SIZE) / KF_PRODUCER_SNAPSHOT_ENTRY_SIZE
                         : 0;
    kf_slot_window *w = kf_slot_window_new(src, KF_PRODUCER_SNAPSHOT_HEADER_SIZE, whole, KF_PRODUCER_SNAPSHOT_ENTRY_SIZE,
                                           SNAP_WINDOW_ENTRIES, SNAP_CRC_BLOCK);
    if (!w) {
        kf_source_close(src);
        return kf_error_set(KF_ERR_NOMEM, ENOMEM, path, "out of memory");
    }
    w->owns_src = true;
    s->win = w;
    uint8_t *buf = w->buf; /* the CRC's blocks first, then the entries' windows */
    uint8_t head[KF_PRODUCER_SNAPSHOT_HEADER_SIZE] = {0};
    uint32_t crc = 0;
    for (uint64_t pos = 0; pos < size;) {
        size_t n = size - pos < SNAP_CRC_BLOCK ? (size_t)(size - pos) : SNAP_CRC_BLOCK;
        int64_t got = kf_source_pread(src, pos, buf, n);
        if (got < 0 || (uint64_t)got < n) {
            int e = got < 0 ? errno : 0;
            kf_producer_snapshot_close(s);
            return kf_error_set(KF_ERR_IO, e, path, "%s", e ? strerror(e) : "the file shrank while it was read");
        }
        if (pos < sizeof head)
            memcpy(head + pos, buf, sizeof head - pos < n ? sizeof head - pos : n);
        uint64_t from = pos < 6 ? 6 - pos : 0; /* the CRC covers [6, EOF) */
        if (from < n)
            crc = kf_crc32c(crc, buf + from, n - (size_t)from);
        pos += n;
    }
    return check_header(s, head, size, crc);
}

void kf_producer_snapshot_close(kf_producer_snapshot *s)
{
    if (s)
        kf_slot_window_close(&s->win);
}

int kf_producer_snapshot_read_status(const kf_producer_snapshot *s) { return kf_slot_window_status(s->win); }

void kf_producer_snapshot_get(const kf_producer_snapshot *s, uint64_t i, kf_producer_snapshot_entry *e)
{
    memset(e, 0, sizeof *e);
    if ((!s->data && !s->win) || s->size < KF_PRODUCER_SNAPSHOT_HEADER_SIZE ||
        i >= (s->size - KF_PRODUCER_SNAPSHOT_HEADER_SIZE) / KF_PRODUCER_SNAPSHOT_ENTRY_SIZE)
        return;
    const uint8_t *p = s->win ? kf_slot_window_at(s->win, i)
                              : s->data + KF_PRODUCER_SNAPSHOT_HEADER_SIZE + i * KF_PRODUCER_SNAPSHOT_ENTRY_SIZE;
    if (!p)
        return;
    e->producer_id = (int64_t)be64(p);
    e->producer_epoch = (int16_t)be16(p + 8);
    e->last_sequence = (int32_t)be32(p + 10);
    e->last_offset = (int64_t)be64(p + 14);
    e->offset_delta = (int32_t)be32(p + 22);
    e->timestamp = (int64_t)be64(p + 26);
    e->coordinator_epoch = (int32_t)be32(p + 34);
    e->current_txn_first_offset = (int64_t)be64(p + 38);
}
