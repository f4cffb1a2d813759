/* compaction_aborted.c: which batches the log cleaner drops as aborted
 * (compaction_aborted.h). The rule is Kafka's CleanedTransactionMetadata
 * (core/src/main/scala/kafka/log/LogCleaner.scala): the aborted
 * transactions listed in the .txnindex files, by first offset, begin as
 * the batches reach them; a transactional batch of a producer inside one is
 * aborted; that producer's ABORT marker ends it. */
#include "bytes/error.h"
#include "bytes/grow.h"
#include "jobs/compaction/compaction_aborted.h"

#include <stdlib.h>
#include <string.h>

#include "kfsck/sys/file.h"
#include "kfsck/sys/index.h"
#include "kfsck/sys/names.h"

/* The entries of one .txnindex, read in pieces: an entry that repeats the
 * one before it (a zeroed or sparse file repeats one all-zero entry) adds
 * nothing the cleaner would do otherwise, and is kept once. */
static int add_entries(cp_aborts *a, const kf_index *ix)
{
    kf_txn_entry prev = {0};
    for (uint64_t i = 0; i < ix->entries; i++) {
        kf_txn_entry e;
        kf_txn_index_entry(ix, i, &e);
        if (i > 0 && e.version == prev.version && e.producer_id == prev.producer_id &&
            e.first_offset == prev.first_offset && e.last_offset == prev.last_offset &&
            e.last_stable_offset == prev.last_stable_offset)
            continue;
        prev = e;
        if (!KF_GROW(a->v, a->n, a->cap, 64))
            return kf_error_nomem();
        a->v[a->n++] = (cp_abort){e.producer_id, e.first_offset, e.last_offset};
    }
    return KF_OK;
}

static int by_first_offset(const void *x, const void *y)
{
    const cp_abort *a = x, *b = y;
    return a->first_offset < b->first_offset ? -1 : a->first_offset > b->first_offset;
}

int cp_aborts_read(cp_aborts *a, const kf_partition_copy *c)
{
    memset(a, 0, sizeof *a);
    for (size_t s = 0; c && s < c->nseg; s++) {
        char *path = kf_sibling_path(c->segments[s], ".txnindex");
        if (!path)
            continue; /* not named like a segment: no index beside it */
        kf_index ix;
        int rc = kf_index_open_path(&ix, path, KF_TXN_ENTRY_SIZE, c->bases[s]);
        free(path);
        if (rc == KF_ERR_NOMEM)
            return rc;
        if (rc == KF_OK) {
            rc = add_entries(a, &ix);
            kf_index_close(&ix);
        }
        if (rc == KF_ERR_NOMEM)
            return rc;
    }
    if (a->n > 1)
        qsort(a->v, a->n, sizeof *a->v, by_first_offset);
    if (a->n && !(a->ongoing = malloc(a->n * sizeof *a->ongoing)))
        return kf_error_nomem();
    return KF_OK;
}

static size_t find_ongoing(const cp_aborts *a, int64_t pid)
{
    size_t i = 0;
    while (i < a->nongoing && a->ongoing[i] != pid)
        i++;
    return i;
}

/* Every aborted transaction that has begun by offset joins the ongoing ones
 * (room for all of them was made when they were read). */
static void begin_up_to(cp_aborts *a, int64_t offset)
{
    for (; a->next < a->n && a->v[a->next].first_offset <= offset; a->next++) {
        int64_t pid = a->v[a->next].producer_id;
        if (find_ongoing(a, pid) == a->nongoing)
            a->ongoing[a->nongoing++] = pid;
    }
}

bool cp_aborts_data(cp_aborts *a, const kf_batch *b)
{
    begin_up_to(a, b->last_offset);
    return b->transactional && find_ongoing(a, b->producer_id) < a->nongoing;
}

void cp_aborts_marker(cp_aborts *a, const kf_batch *b, bool abort)
{
    begin_up_to(a, b->last_offset);
    size_t i = find_ongoing(a, b->producer_id);
    if (abort && i < a->nongoing)
        a->ongoing[i] = a->ongoing[--a->nongoing];
}

void cp_aborts_free(cp_aborts *a)
{
    free(a->v);
    free(a->ongoing);
    memset(a, 0, sizeof *a);
}
