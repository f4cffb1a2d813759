/* compaction_aborted.h: internal. The aborted transactions the log cleaner
 * drops, as it knows them: from the partition's .txnindex files, read
 * ahead of the log (Kafka's UnifiedLog.collectAbortedTransactions), then
 * followed batch by batch as LogCleaner's CleanedTransactionMetadata does
 * (docs/formats.md §19.4). Memory: 32 bytes an aborted transaction listed
 * (an entry repeating the one before it in its file counted once). */
#ifndef KFSCK_COMPACTION_ABORTED_H
#define KFSCK_COMPACTION_ABORTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/batch.h"
#include "kfsck/partition.h"

typedef struct cp_abort {
    int64_t producer_id, first_offset, last_offset;
} cp_abort;

typedef struct cp_aborts {
    cp_abort *v;         /* every .txnindex entry, by first offset */
    size_t cap;          /* room in v */
    size_t n, next;      /* next: the first whose transaction has not begun yet */
    int64_t *ongoing;    /* producers inside an aborted transaction (no ABORT marker read
                            yet): room for n */
    size_t nongoing;
} cp_aborts;

/* The .txnindex entries of the copy's segments (files that are missing or
 * cannot be read hold none: the txns job reports them). KF_OK or
 * KF_ERR_NOMEM. */
int cp_aborts_read(cp_aborts *a, const kf_partition_copy *c);

/* A data batch, in offset order: true when it belongs to an aborted
 * transaction (its records are dropped, not indexed). */
bool cp_aborts_data(cp_aborts *a, const kf_batch *b);

/* A control batch, in offset order; abort: it is an ABORT marker. */
void cp_aborts_marker(cp_aborts *a, const kf_batch *b, bool abort);

void cp_aborts_free(cp_aborts *a);

#endif
