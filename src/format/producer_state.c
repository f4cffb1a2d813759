/* producer_state.c: the producer-state builder behind rebuilt `.snapshot`
 * and `.txnindex` files and behind `kfsck txns`. It follows what broker
 * recovery does per batch (LogSegment.updateProducerState ->
 * ProducerAppendInfo.append, ProducerStateManager.update / lastStableOffset /
 * completeTxn), with the leniency of a replicated append (AppendOrigin
 * REPLICATION: an older epoch or coordinator epoch is accepted, not refused):
 *
 *  - a data batch sets the producer's epoch (a new epoch clears its batch
 *    metadata), last sequence, last offset, offset delta and last timestamp
 *    (the batch max timestamp); a transactional batch with no transaction
 *    open starts one at the batch base offset; a batch with a newer epoch
 *    does not end an open transaction;
 *  - a COMMIT/ABORT marker (first record of a control batch) ends the open
 *    transaction, if any (the CompletedTxn), whatever the marker's epoch (a
 *    fenced producer's transaction is ended by the coordinator's ABORT with
 *    the bumped epoch, and transaction version 2 writes every marker with a
 *    bumped epoch), then sets the epoch, coordinator epoch and last
 *    timestamp (the marker record's timestamp); an ABORT that completed a
 *    transaction gives a .txnindex entry whose lastStableOffset is the first
 *    offset of the earliest transaction of another producer still open, or
 *    the marker offset + 1 when there is none; an empty control batch (the
 *    cleaner's) changes nothing.
 *
 * Producers are never expired here (the broker expires them at run time,
 * not at load). Snapshot entries are written sorted by producer id (the
 * broker iterates a hash map; for the small ids seen in practice that is
 * the same order). In open-transactions-only mode (kf_pstate_new_open_txns)
 * an entry lives from a producer's first transactional batch to the marker
 * that ends its transaction. */
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "kfsck/sys/crc.h"
#include "bytes/grow.h"
#include "bytes/openaddr.h"
#include "bytes/cursor.h"
#include "format/producer_state.h"

typedef struct pentry {
    int64_t pid;
    int16_t epoch;
    bool has_batch;          /* batch metadata present */
    int32_t last_seq;
    int64_t last_offset;
    int32_t offset_delta;
    int64_t timestamp;       /* lastTimestamp */
    int32_t coord_epoch;
    int64_t txn_first;       /* -1: none */
    /* the open transaction, as fed (kf_open_txn) */
    uint64_t txn_batches, txn_records;
    bool has_txn_first_ts;
    int64_t txn_first_ts;
} pentry;

typedef struct otxn {
    int64_t first;
    int64_t pid;
} otxn;

/* The producers: a dense array of entries (sorted into a snapshot) and a
 * table of 4-byte slots holding an entry's index. Not the shared table
 * (src/bytes/htab.h), which would copy each id as a key and add a 32-byte
 * entry: measured on the same ids (10 M lookups, -O2, a loaded 2-core VM),
 * 1 M producers 52 vs 341 ns a lookup and 17 vs 108 bytes a producer;
 * 1,000 producers 2 vs 29 ns; every batch looks its producer up. The
 * slots' loops are src/bytes/openaddr.h's. */
struct kf_pstate {
    pentry *e;
    size_t n, cap;
    uint32_t *slot;          /* open addressing: entry index + 1, 0 empty */
    size_t nslot;            /* power of two */
    otxn *ot;                /* ongoing transactions, sorted by first offset */
    size_t not, capot;
    bool open_only;          /* keep only producers with an open transaction */
};

kf_pstate *kf_pstate_new(void) { return calloc(1, sizeof(kf_pstate)); }

kf_pstate *kf_pstate_new_open_txns(void)
{
    kf_pstate *ps = kf_pstate_new();
    if (ps)
        ps->open_only = true;
    return ps;
}

void kf_pstate_free(kf_pstate *ps)
{
    if (!ps)
        return;
    free(ps->e);
    free(ps->slot);
    free(ps->ot);
    free(ps);
}

/* The slots on the probe loops of src/bytes/openaddr.h (ctx: the kf_pstate). */
static uint64_t pid_hash(int64_t pid) { return (uint64_t)pid * 0x9E3779B97F4A7C15ull >> 17; }

static const pentry *slot_entry(const void *slot, const void *ps)
{
    return &((const kf_pstate *)ps)->e[*(const uint32_t *)slot - 1];
}

static bool slot_used(const void *slot, const void *ps)
{
    return *(const uint32_t *)slot != 0;
}

static uint64_t slot_hash(const void *slot, const void *ps) { return pid_hash(slot_entry(slot, ps)->pid); }

static bool slot_is(const void *slot, const void *pid, const void *ps)
{
    return slot_entry(slot, ps)->pid == *(const int64_t *)pid;
}

static const kf_oa_shape slot_shape = {.size = sizeof(uint32_t), .used = slot_used, .hash = slot_hash};

/* The hash slot holding pid's entry, or SIZE_MAX. */
static size_t find_slot(const kf_pstate *ps, int64_t pid)
{
    if (!ps->nslot)
        return SIZE_MAX;
    size_t h = kf_oa_probe(&slot_shape, ps->slot, ps->nslot, pid_hash(pid), slot_is, &pid, ps);
    return ps->slot[h] ? h : SIZE_MAX;
}

static pentry *find_entry(const kf_pstate *ps, int64_t pid)
{
    size_t h = find_slot(ps, pid);
    return h == SIZE_MAX ? NULL : &ps->e[ps->slot[h] - 1];
}

/* The entry of pid, created empty (ProducerStateEntry.empty) when missing. */
static pentry *get_entry(kf_pstate *ps, int64_t pid)
{
    pentry *found = find_entry(ps, pid);
    if (found)
        return found;
    if (ps->n >= UINT32_MAX - 1)
        return NULL;
    /* the slots stay at most half full, counting one entry more */
    if ((ps->n + 2) * 2 > ps->nslot && !kf_oa_grow(&slot_shape, &ps->slot, &ps->nslot, 32, ps))
        return NULL;
    if (!KF_GROW(ps->e, ps->n, ps->cap, 16))
        return NULL;
    pentry *e = &ps->e[ps->n++];
    *e = (pentry){pid, -1, false, -1, -1, 0, -1, -1, -1, 0, 0, false, 0};
    ps->slot[kf_oa_probe(&slot_shape, ps->slot, ps->nslot, pid_hash(pid), NULL, NULL, ps)] = (uint32_t)ps->n;
    return e;
}

/* Remove pid's entry (open-transactions-only mode): the last entry moves
 * into its place, and the hash slot is freed by backward-shift deletion so
 * that no lookup ever crosses a hole. */
static void drop_entry(kf_pstate *ps, int64_t pid)
{
    size_t h = find_slot(ps, pid);
    if (h == SIZE_MAX)
        return;
    uint32_t idx = ps->slot[h] - 1;
    kf_oa_remove(&slot_shape, ps->slot, ps->nslot, h, ps);
    size_t last = ps->n - 1;
    if (idx != last) {
        ps->e[idx] = ps->e[last];
        size_t lh = find_slot(ps, ps->e[idx].pid); /* still names `last` */
        ps->slot[lh] = idx + 1;
    }
    ps->n--;
}

static int ot_add(kf_pstate *ps, int64_t first, int64_t pid)
{
    if (!KF_GROW(ps->ot, ps->not, ps->capot, 16))
        return kf_error_nomem();
    size_t k = ps->not; /* usually appended at the end */
    while (k > 0 && ps->ot[k - 1].first > first)
        k--;
    memmove(ps->ot + k + 1, ps->ot + k, (ps->not - k) * sizeof *ps->ot);
    ps->ot[k] = (otxn){first, pid};
    ps->not++;
    return KF_OK;
}

static void ot_remove(kf_pstate *ps, int64_t first, int64_t pid)
{
    for (size_t k = 0; k < ps->not; k++)
        if (ps->ot[k].first == first && ps->ot[k].pid == pid) {
            memmove(ps->ot + k, ps->ot + k + 1, (ps->not - k - 1) * sizeof *ps->ot);
            ps->not--;
            return;
        }
}

static void reset(kf_pstate *ps)
{
    ps->n = 0;
    ps->not = 0;
    if (ps->slot)
        memset(ps->slot, 0, ps->nslot * sizeof *ps->slot);
}

int kf_pstate_load(kf_pstate *ps, const kf_producer_snapshot *s)
{
    reset(ps);
    for (uint64_t i = 0; i < s->entries; i++) {
        kf_producer_snapshot_entry se;
        kf_producer_snapshot_get(s, i, &se);
        if (ps->open_only && se.current_txn_first_offset < 0) {
            pentry *old = find_entry(ps, se.producer_id); /* a repeated id: the later entry wins */
            if (old) {
                if (old->txn_first >= 0)
                    ot_remove(ps, old->txn_first, old->pid);
                drop_entry(ps, se.producer_id);
            }
            continue;
        }
        pentry *e = get_entry(ps, se.producer_id);
        if (!e)
            return kf_error_nomem();
        e->epoch = se.producer_epoch;
        e->has_batch = se.last_offset >= 0;
        e->last_seq = se.last_sequence;
        e->last_offset = se.last_offset;
        e->offset_delta = se.offset_delta;
        e->timestamp = se.timestamp;
        e->coord_epoch = se.coordinator_epoch;
        if (e->txn_first >= 0)
            ot_remove(ps, e->txn_first, e->pid);
        e->txn_first = se.current_txn_first_offset >= 0 ? se.current_txn_first_offset : -1;
        e->txn_batches = e->txn_records = 0;
        e->has_txn_first_ts = false;
        if (e->txn_first >= 0 && ot_add(ps, e->txn_first, e->pid) != KF_OK)
            return KF_ERR_NOMEM;
    }
    return KF_OK;
}

/* ProducerStateEntry.maybeUpdateProducerEpoch */
static void set_epoch(pentry *e, int16_t epoch)
{
    if (e->epoch != epoch) {
        e->has_batch = false;
        e->epoch = epoch;
    }
}

/* DefaultRecordBatch.lastSequence / incrementSequence */
static int32_t last_sequence(int32_t base_seq, int32_t delta)
{
    if (base_seq == -1)
        return -1;
    if (delta < 0)
        return base_seq;
    return kf_sequence_add(base_seq, delta);
}

int kf_pstate_add(kf_pstate *ps, const uint8_t *p, uint32_t size, kf_buf *buf, size_t max_bytes,
                  kf_pstate_step *step)
{
    kf_batch b;
    if (kf_batch_parse(p, size, 0, &b) != KF_OK || b.magic != 2) {
        b.magic = 0; /* not a v2 batch: changes nothing */
        b.size = 0;
    }
    return kf_pstate_add_batch(ps, &b, buf, max_bytes, step);
}

int kf_pstate_add_batch(kf_pstate *ps, const kf_batch *batch, kf_buf *buf, size_t max_bytes, kf_pstate_step *step)
{
    kf_pstate_step dummy;
    if (!step)
        step = &dummy;
    memset(step, 0, sizeof *step);
    step->txn_first_offset = -1;
    step->coordinator_epoch = -1;
    /* the broker reads any magic >= 2 as a v2 batch */
    if (batch->magic < 2 || batch->size < KF_V2_HEADER_SIZE || batch->producer_id < 0)
        return KF_OK;
    kf_batch b = *batch; /* kf_records_begin may fill in fields */
    b.magic = 2;
    step->used = true;
    step->producer_id = b.producer_id;
    step->producer_epoch = b.producer_epoch;
    step->base_offset = b.base_offset;
    if (!b.control) {
        pentry *e = ps->open_only ? find_entry(ps, b.producer_id) : get_entry(ps, b.producer_id);
        if (!e && ps->open_only && b.transactional)
            e = get_entry(ps, b.producer_id);
        if (!e)
            return ps->open_only && !b.transactional ? KF_OK : KF_ERR_NOMEM;
        set_epoch(e, b.producer_epoch);
        e->has_batch = true;
        e->last_seq = last_sequence(b.base_sequence, b.last_offset_delta);
        e->last_offset = b.last_offset;
        e->offset_delta = b.last_offset_delta;
        e->timestamp = b.max_timestamp;
        if (b.transactional && e->txn_first < 0) {
            e->txn_first = b.base_offset;
            e->txn_batches = e->txn_records = 0;
            e->has_txn_first_ts = true;
            e->txn_first_ts = b.max_timestamp;
            step->txn_started = true;
            if (ot_add(ps, e->txn_first, e->pid) != KF_OK)
                return KF_ERR_NOMEM;
        }
        if (b.transactional) {
            step->txn_data = true;
            step->txn_first_offset = e->txn_first;
            e->txn_batches++;
            e->txn_records += b.count > 0 ? (uint64_t)b.count : 0;
        }
        return KF_OK;
    }
    /* a control batch: its first record, when it is an end-transaction marker */
    pentry *e = ps->open_only ? find_entry(ps, b.producer_id) : get_entry(ps, b.producer_id);
    if (!e && !ps->open_only)
        return kf_error_nomem();
    if (b.count == 0)
        return KF_OK; /* emptied by the cleaner: the whole transaction is gone */
    kf_record_iter it;
    if (kf_records_begin(&it, &b, buf, max_bytes) != KF_OK) {
        step->marker_error = "its records cannot be read";
        return KF_OK;
    }
    kf_record r;
    int got = kf_records_next(&it, &r);
    if (got == 0)
        return KF_OK;
    if (got < 0) {
        step->marker_error = "its first record is malformed";
        return KF_OK;
    }
    kf_control ctl;
    if (kf_control_parse(&r, &ctl) != KF_OK) {
        step->marker_error = "its control key or value is malformed";
        return KF_OK;
    }
    if (ctl.type != KF_CONTROL_ABORT && ctl.type != KF_CONTROL_COMMIT) {
        if (b.transactional)
            step->marker_error = "a transactional control batch that is neither COMMIT nor ABORT";
        return KF_OK;
    }
    step->marker = true;
    step->abort = ctl.type == KF_CONTROL_ABORT;
    step->coordinator_epoch = ctl.coordinator_epoch;
    int64_t marker = b.base_offset;
    if (e && e->txn_first >= 0) {
        int64_t first = e->txn_first;
        step->completed = true;
        step->txn_first_offset = first;
        if (step->abort) {
            /* lastStableOffset: the earliest open transaction of another producer */
            int64_t lso = marker + 1;
            for (size_t k = 0; k < ps->not; k++)
                if (ps->ot[k].pid != e->pid) {
                    lso = ps->ot[k].first;
                    break;
                }
            step->has_aborted = true;
            step->aborted = (kf_aborted_txn){e->pid, first, marker, lso};
        }
        ot_remove(ps, first, e->pid);
    }
    if (!e)
        return KF_OK;
    if (ps->open_only) {
        drop_entry(ps, b.producer_id);
        return KF_OK;
    }
    set_epoch(e, b.producer_epoch);
    e->txn_first = -1;
    e->coord_epoch = ctl.coordinator_epoch;
    e->timestamp = r.timestamp;
    return KF_OK;
}

size_t kf_pstate_producers(const kf_pstate *ps) { return ps->n; }

int kf_pstate_copy(kf_pstate *dst, const kf_pstate *src)
{
    pentry *e = src->n ? malloc(src->cap * sizeof *e) : NULL;
    uint32_t *slot = src->nslot ? malloc(src->nslot * sizeof *slot) : NULL;
    otxn *ot = src->not ? malloc(src->capot * sizeof *ot) : NULL;
    if ((src->n && !e) || (src->nslot && !slot) || (src->not && !ot)) {
        free(e);
        free(slot);
        free(ot);
        return kf_error_nomem();
    }
    if (e)
        memcpy(e, src->e, src->n * sizeof *e);
    if (slot)
        memcpy(slot, src->slot, src->nslot * sizeof *slot);
    if (ot)
        memcpy(ot, src->ot, src->not * sizeof *ot);
    free(dst->e);
    free(dst->slot);
    free(dst->ot);
    *dst = *src;
    dst->e = e;
    dst->cap = e ? src->cap : 0;
    dst->n = e ? src->n : 0;
    dst->slot = slot;
    dst->nslot = slot ? src->nslot : 0;
    dst->ot = ot;
    dst->capot = ot ? src->capot : 0;
    dst->not = ot ? src->not : 0;
    return KF_OK;
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)(v >> 16));
    put16(p + 2, (uint16_t)v);
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)(v >> 32));
    put32(p + 4, (uint32_t)v);
}

static int cmp_pentry(const void *a, const void *b)
{
    const pentry *x = *(const pentry *const *)a, *y = *(const pentry *const *)b;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

size_t kf_pstate_open_count(const kf_pstate *ps) { return ps->not; }

void kf_pstate_open_get(const kf_pstate *ps, size_t i, kf_open_txn *t)
{
    memset(t, 0, sizeof *t);
    if (i >= ps->not)
        return;
    const pentry *e = find_entry(ps, ps->ot[i].pid);
    t->producer_id = ps->ot[i].pid;
    t->first_offset = ps->ot[i].first;
    t->producer_epoch = -1;
    t->coordinator_epoch = -1;
    if (!e)
        return; /* cannot happen: an ongoing transaction has its entry */
    t->producer_epoch = e->epoch;
    t->coordinator_epoch = e->coord_epoch;
    t->last_offset = e->has_batch ? e->last_offset : -1;
    /* a snapshot's entry with no batch metadata still has its lastTimestamp */
    t->has_last_timestamp = e->has_batch || e->timestamp != -1;
    t->last_timestamp = e->timestamp;
    t->batches = e->txn_batches;
    t->records = e->txn_records;
    t->has_first_timestamp = e->has_txn_first_ts;
    t->first_timestamp = e->has_txn_first_ts ? e->txn_first_ts : -1;
}

int kf_pstate_snapshot(const kf_pstate *ps, uint8_t **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    if (ps->open_only)
        return KF_ERR_UNSUPPORTED;
    if (ps->n > (size_t)INT32_MAX)
        return KF_ERR_TOO_BIG;
    size_t n = KF_PRODUCER_SNAPSHOT_HEADER_SIZE + ps->n * KF_PRODUCER_SNAPSHOT_ENTRY_SIZE;
    uint8_t *d = malloc(n);
    const pentry **order = malloc((ps->n ? ps->n : 1) * sizeof *order);
    if (!d || !order) {
        free(d);
        free(order);
        return kf_error_nomem();
    }
    for (size_t i = 0; i < ps->n; i++)
        order[i] = &ps->e[i];
    if (ps->n)
        qsort(order, ps->n, sizeof *order, cmp_pentry);
    put16(d, 1);
    put32(d + 6, (uint32_t)ps->n);
    uint8_t *q = d + KF_PRODUCER_SNAPSHOT_HEADER_SIZE;
    for (size_t i = 0; i < ps->n; i++, q += KF_PRODUCER_SNAPSHOT_ENTRY_SIZE) {
        const pentry *e = order[i];
        put64(q, (uint64_t)e->pid);
        put16(q + 8, (uint16_t)e->epoch);
        put32(q + 10, (uint32_t)(e->has_batch ? e->last_seq : -1));
        put64(q + 14, (uint64_t)(e->has_batch ? e->last_offset : -1));
        put32(q + 22, (uint32_t)(e->has_batch ? e->offset_delta : 0));
        put64(q + 26, (uint64_t)e->timestamp);
        put32(q + 34, (uint32_t)e->coord_epoch);
        put64(q + 38, (uint64_t)e->txn_first);
    }
    put32(d + 2, kf_crc32c(0, d + 6, n - 6));
    free(order);
    *out = d;
    *len = n;
    return KF_OK;
}

void kf_aborted_txn_encode(const kf_aborted_txn *t, uint8_t out[34])
{
    put16(out, 0);
    put64(out + 2, (uint64_t)t->producer_id);
    put64(out + 10, (uint64_t)t->first_offset);
    put64(out + 18, (uint64_t)t->last_offset);
    put64(out + 26, (uint64_t)t->last_stable_offset);
}
