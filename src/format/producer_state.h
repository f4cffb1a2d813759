/* producer_state.h: rebuild a partition's producer state and aborted
 * transactions from its batches, as broker recovery does (LogSegment.recover
 * -> ProducerAppendInfo / ProducerStateManager). Feed the kept batches in
 * offset order; each ABORT marker that completes a known transaction yields
 * a .txnindex entry (it belongs to the segment holding the marker); at the
 * end the state is written as a version-1 `.snapshot`, and the transactions
 * still open can be listed. Memory: one entry per producer id plus one per
 * ongoing transaction; a state made by kf_pstate_new_open_txns keeps only
 * the producers with an open transaction. Internal to the library
 * (repair, merge and txns use it). */
#ifndef KFSCK_PRODUCER_STATE_H
#define KFSCK_PRODUCER_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/batch.h"
#include "kfsck/sys/codec.h"
#include "kfsck/sys/producer_snapshot.h"

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
    int16_t producer_epoch;     /* when used: the batch's */
    int64_t base_offset;        /* when used: the batch base (the marker's offset) */
    bool txn_data;              /* a transactional data batch: part of the producer's open transaction */
    bool txn_started;           /* ... which it began */
    bool marker;                /* a COMMIT/ABORT control batch */
    bool abort;                 /* ... an ABORT */
    int32_t coordinator_epoch;  /* ... the marker's */
    bool completed;             /* the marker ended an open transaction (Kafka's CompletedTxn) */
    int64_t txn_first_offset;   /* txn_data or completed: first offset of that transaction */
    bool has_aborted;           /* an aborted transaction completed: `aborted` */
    kf_aborted_txn aborted;
    /* A control batch of a producer whose first record is not a readable
     * COMMIT/ABORT marker (undecodable, or another control type in a
     * transactional batch): nothing changed; why in words. An empty control
     * batch (left by the cleaner) is not this. */
    const char *marker_error;
} kf_pstate_step;

/* Returns NULL when out of memory. */
kf_pstate *kf_pstate_new(void);
/* A state that keeps only the producers with an open transaction: an entry
 * is made at a producer's first transactional batch and dropped at the
 * marker that ends its transaction, so memory is proportional to the open
 * transactions. The transaction rules are the same; what it cannot know is
 * what lies between transactions (sequence numbers, the coordinator epoch of
 * earlier markers), so kf_pstate_snapshot returns KF_ERR_UNSUPPORTED. */
kf_pstate *kf_pstate_new_open_txns(void);
void kf_pstate_free(kf_pstate *ps);

/* Start from a snapshot's state (replace any state held). The snapshot must
 * parse (kf_producer_snapshot_parse == KF_OK). A state from kf_pstate_new_open_txns
 * takes only the entries with a transaction open. Returns KF_OK or
 * KF_ERR_NOMEM. */
int kf_pstate_load(kf_pstate *ps, const kf_producer_snapshot *s);

/* Feed the next batch (a framed entry of `size` bytes at p). Batches that are
 * not v2 or have no producer id change nothing. Control records are read
 * with buf (decompression capped at max_bytes). Returns KF_OK or
 * KF_ERR_NOMEM; step (may be NULL) says what happened. */
int kf_pstate_add(kf_pstate *ps, const uint8_t *p, uint32_t size, kf_buf *buf, size_t max_bytes,
                  kf_pstate_step *step);
/* The same for a parsed batch, read the way broker recovery reads it: any
 * magic of 2 or more is a v2 batch (kf_batch_parse_broker). A batch of which
 * only the header is at hand (payload_len 0) is fine: a control batch's
 * marker is then unreadable (step->marker_error). */
int kf_pstate_add_batch(kf_pstate *ps, const kf_batch *b, kf_buf *buf, size_t max_bytes, kf_pstate_step *step);

size_t kf_pstate_producers(const kf_pstate *ps);

/* Make dst the same state as src (dst's own is replaced). KF_OK or
 * KF_ERR_NOMEM (dst unchanged). */
int kf_pstate_copy(kf_pstate *dst, const kf_pstate *src);

/* kf_open_txn (batch.h): a transaction with no marker yet. */

/* Number of open transactions; the i-th oldest (by first offset) into *t. */
size_t kf_pstate_open_count(const kf_pstate *ps);
void kf_pstate_open_get(const kf_pstate *ps, size_t i, kf_open_txn *t);

/* The snapshot file bytes (version 1, entries sorted by producer id):
 * malloc'd into *out (free it), length *len. KF_OK or KF_ERR_NOMEM. */
int kf_pstate_snapshot(const kf_pstate *ps, uint8_t **out, size_t *len);

/* One .txnindex entry (version 0), big-endian, 34 bytes. */
void kf_aborted_txn_encode(const kf_aborted_txn *t, uint8_t out[34]);

#ifdef __cplusplus
}
#endif

#endif
