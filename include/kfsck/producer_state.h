/* producer_state.h: rebuild a partition's producer state and aborted
 * transactions from its batches, as broker recovery does (LogSegment.recover
 * -> ProducerAppendInfo / ProducerStateManager). Feed the kept batches in
 * offset order; each ABORT marker that completes a known transaction yields
 * a .txnindex entry (it belongs to the segment holding the marker); at the
 * end the state is written as a version-1 `.snapshot`. Memory: one entry per
 * producer id plus one per ongoing transaction. */
#ifndef KFSCK_PRODUCER_STATE_H
#define KFSCK_PRODUCER_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/batch.h"
#include "kfsck/codec.h"
#include "kfsck/snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kf_pstate kf_pstate;

/* A completed aborted transaction: one 34-byte .txnindex entry. */
typedef struct kf_aborted_txn {
    int64_t producer_id;
    int64_t first_offset;
    int64_t last_offset;        /* the ABORT marker's offset */
    int64_t last_stable_offset; /* first offset still unstable after it */
} kf_aborted_txn;

/* What one batch did (kf_pstate_add). */
typedef struct kf_pstate_step {
    bool used;                  /* v2 batch with a producer id >= 0 */
    int64_t producer_id;        /* when used */
    int64_t base_offset;        /* when used: the batch base (the marker's offset) */
    bool marker;                /* a COMMIT/ABORT control batch */
    bool abort;                 /* ... an ABORT */
    bool has_aborted;           /* an aborted transaction completed: `aborted` */
    kf_aborted_txn aborted;
} kf_pstate_step;

/* Returns NULL when out of memory. */
kf_pstate *kf_pstate_new(void);
void kf_pstate_free(kf_pstate *ps);

/* Start from a snapshot's state (replace any state held). The snapshot must
 * parse (kf_snapshot_parse == KF_OK). Returns KF_OK or KF_ERR_NOMEM. */
int kf_pstate_load(kf_pstate *ps, const kf_snapshot *s);

/* Feed the next batch (a framed entry of `size` bytes at p). Batches that are
 * not v2 or have no producer id change nothing. Control records are read
 * with buf (decompression capped at max_bytes). Returns KF_OK or
 * KF_ERR_NOMEM; step (may be NULL) says what happened. */
int kf_pstate_add(kf_pstate *ps, const uint8_t *p, uint32_t size, kf_buf *buf, size_t max_bytes,
                  kf_pstate_step *step);

size_t kf_pstate_producers(const kf_pstate *ps);

/* The snapshot file bytes (version 1, entries sorted by producer id):
 * malloc'd into *out (free it), length *len. KF_OK or KF_ERR_NOMEM. */
int kf_pstate_snapshot(const kf_pstate *ps, uint8_t **out, size_t *len);

/* One .txnindex entry (version 0), big-endian, 34 bytes. */
void kf_aborted_txn_encode(const kf_aborted_txn *t, uint8_t out[34]);

#ifdef __cplusplus
}
#endif

#endif
