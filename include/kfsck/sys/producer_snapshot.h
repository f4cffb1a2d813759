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
    const uint8_t *data;
    uint64_t size;
} kf_producer_snapshot;

/* Parse the header. Returns KF_OK when the file is a well-formed version-1
 * snapshot with a matching CRC and count; otherwise a kf_err, with the reason
 * in words as the last error (kf_error_last), and `s` still filled as far as
 * it could be read (entries that are present can be listed even when the
 * CRC fails). */
int kf_producer_snapshot_parse(const uint8_t *data, uint64_t size, kf_producer_snapshot *s);
void kf_producer_snapshot_get(const kf_producer_snapshot *s, uint64_t i, kf_producer_snapshot_entry *e);

#ifdef __cplusplus
}
#endif

#endif
