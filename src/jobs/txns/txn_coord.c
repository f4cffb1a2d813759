/* txn_coord.c: the transaction coordinator's view, rebuilt from
 * `__transaction_state` the way the coordinator loads it
 * (TransactionStateManager.loadTransactionMetadata; docs/formats.md §12):
 * each record is TransactionLogKey (int16 0 + transactional id) ->
 * TransactionLogValue (producer id and epoch, state, partitions, times);
 * the last write per transactional id wins and a tombstone (null value)
 * deletes the id. Records are decoded by the coordinator-record decoder
 * (coord.h); only the fields `kfsck txns` needs are kept, one entry per
 * transactional id. A producer id is looked up through an index sorted by
 * producer id, rebuilt after the replay changed something. */
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/grow.h"
#include "bytes/error.h"
#include "bytes/htab.h"
#include "kfsck/sys/coord.h"
#include "kfsck/txns.h"

typedef struct centry {
    kf_txn_coord_entry pub;
    char *tid;
    size_t at;          /* index in kf_txn_coord.all */
    uint64_t seq;       /* write order */
} centry;

struct kf_txn_coord {
    htab by_id;         /* transactional id bytes -> centry* */
    centry **all;
    size_t n, cap;
    centry **by_pid;    /* sorted by producer id, then write order; rebuilt when dirty */
    size_t nby;
    bool dirty;
    uint64_t seq;
    kf_dtree tree;
};

static const char *const STATE_NAMES[] = {
    "Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence",
};

const char *kf_txn_state_name(int state)
{
    if (state < 0 || state >= (int)(sizeof STATE_NAMES / sizeof STATE_NAMES[0]))
        return NULL;
    return STATE_NAMES[state];
}

int kf_txn_coord_new(kf_txn_coord **out)
{
    *out = calloc(1, sizeof(kf_txn_coord));
    return *out ? KF_OK : kf_error_nomem();
}

void kf_txn_coord_free(kf_txn_coord *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->all[i]->tid);
        free(c->all[i]);
    }
    free(c->all);
    free(c->by_pid);
    htab_free(&c->by_id);
    kf_dtree_free(&c->tree);
    free(c);
}

size_t kf_txn_coord_count(const kf_txn_coord *c) { return c->n; }

static void remove_id(kf_txn_coord *c, const uint8_t *id, uint32_t len)
{
    centry *e = htab_del(&c->by_id, id, len);
    if (!e)
        return;
    c->all[e->at] = c->all[c->n - 1];
    c->all[e->at]->at = e->at;
    c->n--;
    free(e->tid);
    free(e);
    c->dirty = true;
}

static int put_id(kf_txn_coord *c, const uint8_t *id, uint32_t len, centry **out)
{
    bool created = false;
    void **slot = htab_put(&c->by_id, id, len, &created);
    if (!slot)
        return kf_error_nomem();
    if (!created) {
        *out = *slot;
        return KF_OK;
    }
    centry *e = calloc(1, sizeof *e);
    char *tid = malloc((size_t)len + 1);
    bool room = KF_GROW(c->all, c->n, c->cap, 64);
    if (!e || !tid || !room) {
        free(e);
        free(tid);
        htab_del(&c->by_id, id, len);
        return kf_error_nomem();
    }
    memcpy(tid, id, len);
    tid[len] = 0; /* an id holding a NUL byte is shown up to it */
    e->tid = tid;
    e->pub.transactional_id = tid;
    e->at = c->n;
    c->all[c->n++] = e;
    *slot = e;
    *out = e;
    return KF_OK;
}

static void problem(kf_problem_fn fn, void *ctx, const char *code, kf_severity sev, const kf_batch *b,
                    int64_t offset, int32_t partition, const char *what)
{
    kf_report(fn, ctx, code, sev, b->position, true, offset, "__transaction_state-%d offset %lld: %s", partition,
              (long long)offset, what);
}

int kf_txn_coord_batch(kf_txn_coord *c, int32_t partition, kf_batch *b, kf_buf *buf, size_t max_bytes,
                       kf_problem_fn fn, void *ctx)
{
    if (b->control)
        return KF_OK;
    kf_record_iter it;
    if (kf_records_begin(&it, b, buf, max_bytes) != KF_OK) {
        char msg[300];
        snprintf(msg, sizeof msg, "batch skipped: %s", it.err_msg);
        problem(fn, ctx, it.err_code ? it.err_code : KF_P_BAD_RECORD, KF_SEV_ERROR, b, b->base_offset, partition,
                msg);
        return KF_OK;
    }
    kf_record rec;
    int got;
    while ((got = kf_records_next(&it, &rec)) == 1) {
        kf_dtree_reset(&c->tree);
        kf_coord_record cr;
        int rc = kf_coord_decode(KF_COORD_TXN, rec.key, rec.key_len, rec.value, rec.value_len, &c->tree, &cr);
        if (rc == KF_ERR_NOMEM)
            return rc;
        char msg[300];
        if (!cr.known_type) {
            snprintf(msg, sizeof msg, "unknown record type %d, skipped", cr.key_type);
            problem(fn, ctx, KF_P_UNKNOWN_RECORD_TYPE, KF_SEV_WARNING, b, rec.offset, partition, msg);
            continue;
        }
        if (rc != KF_OK || !cr.key_ok || (!cr.tombstone && !cr.value_ok)) {
            bool damage = rc == KF_ERR_CORRUPT || rc == KF_ERR_TRUNCATED;
            snprintf(msg, sizeof msg, "record skipped: %s", cr.err[0] ? cr.err : "undecodable");
            problem(fn, ctx, damage ? KF_P_BAD_RECORD : KF_P_UNDECODED_RECORD, damage ? KF_SEV_ERROR : KF_SEV_WARNING, b,
                    rec.offset, partition, msg);
            continue;
        }
        const kf_dnode *key = &c->tree.nodes[cr.key_root];
        const kf_dnode *id = kf_dnode_field(&c->tree, key, "transactional_id");
        if (!id || id->kind != KF_V_STRING)
            continue;
        if (cr.tombstone) {
            remove_id(c, id->p, id->len);
            continue;
        }
        centry *e = NULL;
        if (put_id(c, id->p, id->len, &e) != KF_OK)
            return kf_error_nomem();
        const kf_dnode *v = &c->tree.nodes[cr.value_root];
        e->pub.producer_id = kf_dnode_int(&c->tree, v, "producer_id", -1);
        e->pub.producer_epoch = (int16_t)kf_dnode_int(&c->tree, v, "producer_epoch", -1);
        e->pub.state = (int)kf_dnode_int(&c->tree, v, "transaction_status", -1);
        e->pub.timeout_ms = (int32_t)kf_dnode_int(&c->tree, v, "transaction_timeout_ms", -1);
        e->pub.last_update_ms = kf_dnode_int(&c->tree, v, "transaction_last_update_timestamp_ms", -1);
        e->pub.start_ms = kf_dnode_int(&c->tree, v, "transaction_start_timestamp_ms", -1);
        e->pub.source_partition = partition;
        e->pub.source_offset = rec.offset;
        e->seq = ++c->seq;
        c->dirty = true;
    }
    if (got < 0) {
        char msg[300];
        snprintf(msg, sizeof msg, "rest of batch skipped: %s", it.err_msg);
        problem(fn, ctx, it.err_code ? it.err_code : KF_P_BAD_RECORD, KF_SEV_ERROR, b, b->base_offset, partition,
                msg);
    }
    return KF_OK;
}

static int cmp_pid(const void *a, const void *b)
{
    const centry *x = *(const centry *const *)a, *y = *(const centry *const *)b;
    if (x->pub.producer_id != y->pub.producer_id)
        return x->pub.producer_id < y->pub.producer_id ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

const kf_txn_coord_entry *kf_txn_coord_find(kf_txn_coord *c, int64_t pid)
{
    if (c->dirty) {
        centry **s = realloc(c->by_pid, (c->n ? c->n : 1) * sizeof *s);
        if (!s)
            return NULL; /* out of memory: unknown, as for an id never seen */
        c->by_pid = s;
        memcpy(s, c->all, c->n * sizeof *s);
        if (c->n)
            qsort(s, c->n, sizeof *s, cmp_pid);
        c->nby = c->n;
        c->dirty = false;
    }
    /* the last entry with this producer id: the one written last */
    size_t lo = 0, hi = c->nby;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->by_pid[mid]->pub.producer_id <= pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || c->by_pid[lo - 1]->pub.producer_id != pid)
        return NULL;
    return &c->by_pid[lo - 1]->pub;
}
