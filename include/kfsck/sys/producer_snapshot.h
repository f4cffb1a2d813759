/* producer_snapshot.h: the producer-state snapshot (`<offset>.snapshot`), version 1:
 * version int16, crc uint32 (CRC-32C of bytes [6, EOF)), count int32, then
 * 46-byte producer entries. */
#ifndef KFSCK_PRODUCER_SNAPSHOT_H
#define KFSCK_PRODUCER_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>

#include "kfsck/common.h"
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kf_producer_snapshot_entry {
    int64_t producer_id;
    int16_t producer_epoch;
    int32_t last_sequence;
    int64_t last_offset;
    int32_t offset_delta;
    int64_t timestamp;
    int32_t coordinator_epoch;
    int64_t current_txn_first_offset;
} kf_producer_snapshot_entry;

#define KF_PRODUCER_SNAPSHOT_HEADER_SIZE 10
#define KF_PRODUCER_SNAPSHOT_ENTRY_SIZE 46

typedef struct kf_producer_snapshot {
    int16_t version;
    uint32_t crc;          /* stored */
    uint32_t crc_computed;
    bool crc_ok;
    int32_t count;         /* as stored */
    uint64_t entries;      /* whole entries present (may differ from count when damaged) */
    const uint8_t *data;   /* the bytes in memory (parse); NULL for a file (open) */
    uint64_t size;
    struct kf_slot_window *win;     /* a file's entries in memory a piece at a time (open), else NULL */
} kf_producer_snapshot;

/* Parse the header. Returns KF_OK when the file is a well-formed version-1
 * snapshot with a matching CRC and count; otherwise a kf_err, with the reason
 * in words as the last error (kf_error_last), and `s` still filled as far as
 * it could be read (entries that are present can be listed even when the
 * CRC fails). */
int kf_producer_snapshot_parse(const uint8_t *data, uint64_t size, kf_producer_snapshot *s);
/* The same over the snapshot file at path, read in pieces whatever its size
 * (its CRC a block at a time, its entries a window at a time as
 * kf_producer_snapshot_get asks for them): parse's results, or KF_ERR_IO
 * (the last error with the errno; 0 when the file shrank while its CRC was
 * computed) or KF_ERR_NOMEM with nothing read. Close with
 * kf_producer_snapshot_close whatever it returned. */
int kf_producer_snapshot_open(kf_producer_snapshot *s, const char *path);
void kf_producer_snapshot_close(kf_producer_snapshot *s);
/* KF_OK, or KF_ERR_IO when a read of an opened snapshot's entries failed
 * or came back short (those entries read as zeros): the last error has the
 * errno, 0 when the file shrank. */
int kf_producer_snapshot_read_status(const kf_producer_snapshot *s);
/* Entry i (< s->entries); all zeros past the bytes there are. */
void kf_producer_snapshot_get(const kf_producer_snapshot *s, uint64_t i, kf_producer_snapshot_entry *e);

#ifdef __cplusplus
}
#endif

#endif
