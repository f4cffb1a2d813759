/* Room jobs/txns/: transactions. txns.c, one partition's transactions
 * and its .txnindex check (this file); txn_coord.c, the coordinator's view
 * rebuilt from __transaction_state; txns_read.c, the drivers that feed
 * both a partition at a time; txns_run.c, `kfsck txns` over the inputs
 * (the coordinator's view of every __transaction_state partition, then
 * every data partition).
 *
 * txns.c: one partition's transactions for `kfsck txns` (txns.h).
 *
 * The transaction rules are the producer-state builder's (producer_state.c,
 * in its open-transactions-only mode, so memory follows the open
 * transactions): a transactional data batch begins a transaction when its
 * producer has none open, only a COMMIT or ABORT marker ends it (whatever
 * the marker's epoch), and an ABORT that ends one is what the broker lists in
 * the `.txnindex` of the segment holding the marker. When the log starts past
 * offset 0, the producer snapshot at its first segment's base (what the
 * broker itself loads) gives the transactions begun before it.
 *
 * The `.txnindex` check walks every copy of the partition segment by segment
 * as the ABORT markers come (in offset order), with one index open per copy
 * at a time (read in pieces, kf_index_open_path, whatever its size):
 *  - an entry whose last offset is not the offset of an ABORT marker of the
 *    same producer is extra (checked in every copy: entries are matched by
 *    offset, whichever copy the marker was read from);
 *  - an ABORT marker that ended a transaction this replay saw data of, with
 *    no entry, is missing (checked in the copy the marker was read from: a
 *    copy that lacks the marker's offsets cannot be judged). An ABORT with no
 *    data before it (the cleaner removed it, or there was none) needs no
 *    entry but may keep one (LogCleaner keeps the entry while it keeps the
 *    marker).
 * The first offsets and last stable offsets inside entries are not compared:
 * compaction and retention legitimately make them differ from a replay. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/report.h"
#include "bytes/error.h"
#include "format/producer_state.h"
#include "bytes/opts.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/file.h"
#include "kfsck/sys/index.h"
#include "kfsck/sys/names.h"
#include "kfsck/sys/producer_snapshot.h"
#include "kfsck/txns.h"

#define NONE SIZE_MAX
/* At most this many missing/extra problems per .txnindex; then one summary. */
#define TIX_MAX_PROBLEMS 100

/* One copy's walk over its segments' .txnindex files. */
typedef struct tix {
    const kf_partition_copy *c;
    size_t seg;          /* segment whose index is loaded; NONE before the first */
    char *path;          /* that segment's .txnindex path (NULL: the segment has no usable name) */
    kf_index ix;         /* its view (open: has_ix) */
    bool has_ix;
    uint64_t n, k;       /* whole entries; next entry to match */
    uint64_t reported, suppressed;
} tix;

struct kf_txns {
    kf_txns_opts o;
    const kf_partition *p;
    kf_pstate *ps;
    kf_buf buf;
    tix *ix;
    size_t nix;
    char *snapshot;
    bool start_unknown;
    bool has_start;
    int64_t start;
    bool has_last;
    int64_t last;
    bool has_newest;
    int64_t newest;
    uint64_t committed, aborted, bad_markers, ix_missing, ix_extra;
    bool nomem;          /* a .txnindex could not be read for want of memory */
};

void kf_txns_opts_init(kf_txns_opts *o)
{
    *o = (kf_txns_opts)KF_TXNS_OPTIONS_INIT;
}

/* ---- problems ------------------------------------------------------------- */


typedef struct file_ctx {
    kf_txns *t;
    const char *file;
} file_ctx;

/* Problems from the index and snapshot readers, which do not know the file name. */
static void in_file(void *ctx, const kf_problem *p)
{
    file_ctx *f = ctx;
    kf_problem_pass(f->t->o.problem_fn, f->t->o.problem_ctx, p, f->file, NULL, NULL);
}

/* ---- paths ----------------------------------------------------------------- */

/* Why a file could not be read, as the partition reader words it. */
static const char *read_error(int err_no) { return err_no == EINVAL ? "not a regular file" : strerror(err_no); }

/* ---- the .txnindex walk -------------------------------------------------------- */

static void tix_problem(kf_txns *t, tix *x, const char *code, uint64_t entry, int64_t offset, const char *msg)
{
    if (!strcmp(code, KF_P_TXNINDEX_MISSING))
        t->ix_missing++;
    else
        t->ix_extra++;
    if (x->reported >= TIX_MAX_PROBLEMS) {
        x->suppressed++;
        return;
    }
    x->reported++;
    kf_report_in(t->o.problem_fn, t->o.problem_ctx,
                 x->path ? x->path : x->c->segments[x->seg], code, KF_SEV_ERROR, entry * KF_TXN_ENTRY_SIZE, true,
                 offset, "%s", msg);
}

static void tix_open(kf_txns *t, tix *x, size_t s)
{
    x->seg = s;
    x->n = x->k = 0;
    x->reported = x->suppressed = 0;
    x->has_ix = false;
    x->path = kf_sibling_path(x->c->segments[s], ".txnindex");
    if (!x->path)
        return;
    int err_no = 0;
    int64_t base = x->c->bases[s] >= 0 ? x->c->bases[s] : INT64_MIN;
    int rc = kf_error_errno(kf_index_open_path(&x->ix, x->path, KF_TXN_ENTRY_SIZE, base), &err_no);
    if (rc != KF_OK) {
        if (rc == KF_ERR_NOMEM)
            t->nomem = true;
        else if (rc == KF_ERR_IO && err_no != ENOENT)
            kf_report_in(t->o.problem_fn, t->o.problem_ctx,
                         x->path, KF_P_UNREADABLE, KF_SEV_ERROR, 0, false, 0, "cannot read: %s", read_error(err_no));
        return;
    }
    x->has_ix = true;
    x->n = x->ix.entries;
    file_ctx fc = {t, x->path};
    kf_txn_index_check(&x->ix, in_file, &fc);
}

/* Entries left when the walk moves past the segment name no ABORT marker. */
static void tix_close(kf_txns *t, tix *x)
{
    if (x->seg == NONE)
        return;
    for (; x->k < x->n; x->k++) {
        kf_txn_entry e;
        kf_txn_index_entry(&x->ix, x->k, &e);
        char msg[512];
        snprintf(msg, sizeof msg,
                 "entry for producer %" PRId64 " (offsets %" PRId64 "..%" PRId64 ") names no ABORT marker in this "
                 "segment's part of the log: read_committed consumers would skip that producer's records there",
                 e.producer_id, e.first_offset, e.last_offset);
        tix_problem(t, x, KF_P_TXNINDEX_EXTRA, x->k, e.last_offset, msg);
    }
    if (x->suppressed) {
        kf_report_in(t->o.problem_fn, t->o.problem_ctx,
                     x->path ? x->path : x->c->segments[x->seg], KF_P_TXNINDEX_EXTRA, KF_SEV_ERROR, 0, false, 0,
                     "%" PRIu64 " more missing or extra entries in this transaction index not listed", x->suppressed);
    }
    if (x->has_ix) {
        if (kf_index_read_status(&x->ix) != KF_OK)
            kf_report_in(t->o.problem_fn, t->o.problem_ctx, x->path, KF_P_UNREADABLE, KF_SEV_ERROR, 0, false, 0,
                         "read error: %s", kf_read_error_str(KF_ERR_IO, kf_error_last()->err_no));
        kf_index_close(&x->ix);
        x->has_ix = false;
    }
    free(x->path);
    x->path = NULL;
}

/* Walk x to segment `target` (closing the ones passed). */
static void tix_walk_to(kf_txns *t, tix *x, size_t target)
{
    while (x->seg == NONE || x->seg < target) {
        size_t next = x->seg == NONE ? 0 : x->seg + 1;
        tix_close(t, x);
        tix_open(t, x, next);
    }
}

/* The segment of x's copy that holds offset m. */
static size_t tix_segment_of(const tix *x, int64_t m)
{
    size_t s = x->seg == NONE ? 0 : x->seg;
    while (s + 1 < x->c->nseg && x->c->bases[s + 1] >= 0 && x->c->bases[s + 1] <= m)
        s++;
    return s;
}

/* An ABORT marker of producer pid at offset m, read from `file`. */
static void tix_abort(kf_txns *t, tix *x, int64_t m, int64_t pid, const kf_pstate_step *st, const char *file)
{
    if (!x->c->nseg)
        return;
    tix_walk_to(t, x, tix_segment_of(x, m));
    bool served = file && !strcmp(file, x->c->segments[x->seg]);
    char msg[512];
    while (x->k < x->n) {
        kf_txn_entry e;
        kf_txn_index_entry(&x->ix, x->k, &e);
        if (e.last_offset > m)
            break;
        if (e.last_offset == m && e.producer_id == pid) {
            x->k++;
            return;
        }
        if (e.last_offset == m)
            snprintf(msg, sizeof msg,
                     "entry names producer %" PRId64 " for the ABORT marker at offset %" PRId64
                     ", which is producer %" PRId64 "'s",
                     e.producer_id, m, pid);
        else
            snprintf(msg, sizeof msg,
                     "entry for producer %" PRId64 " (offsets %" PRId64 "..%" PRId64 ") names no ABORT marker: "
                     "read_committed consumers would skip that producer's records there",
                     e.producer_id, e.first_offset, e.last_offset);
        tix_problem(t, x, KF_P_TXNINDEX_EXTRA, x->k, e.last_offset, msg);
        x->k++;
    }
    if (st->has_aborted && served) {
        snprintf(msg, sizeof msg,
                 "no entry for the ABORT marker of producer %" PRId64 " at offset %" PRId64 " (transaction from offset "
                 "%" PRId64 "): read_committed consumers would be given its aborted records",
                 pid, m, st->aborted.first_offset);
        tix_problem(t, x, KF_P_TXNINDEX_MISSING, x->k, m, msg);
    }
}

/* ---- the job -------------------------------------------------------------------- */

/* The producer snapshot at the log's first offset, when the log starts past 0. */
static int load_snapshot(kf_txns *t)
{
    int64_t first = INT64_MAX;
    for (size_t i = 0; i < t->p->ncopies; i++) {
        const kf_partition_copy *c = &t->p->copies[i];
        if (c->nseg && c->bases[0] >= 0 && c->bases[0] < first)
            first = c->bases[0];
    }
    if (first == INT64_MAX)
        return KF_OK;
    t->has_start = true;
    t->start = first;
    if (first == 0)
        return KF_OK;
    t->start_unknown = true;
    for (size_t i = 0; i < t->p->ncopies && t->start_unknown; i++) {
        const kf_partition_copy *c = &t->p->copies[i];
        if (!c->nseg || c->bases[0] != first)
            continue;
        char name[48];
        snprintf(name, sizeof name, "%020" PRId64 ".snapshot", first);
        char *dir = kf_path_dir(c->segments[0]);
        char *path = dir ? kf_path_join(dir, name) : NULL;
        free(dir);
        if (!path)
            return KF_ERR_NOMEM;
        int err_no = 0;
        kf_producer_snapshot s; /* read in pieces, whatever its size */
        int rc = kf_error_errno(kf_producer_snapshot_open(&s, path), &err_no);
        if (rc == KF_ERR_NOMEM) {
            kf_producer_snapshot_close(&s);
            free(path);
            return rc;
        }
        if (rc == KF_ERR_IO) {
            if (err_no != ENOENT)
                kf_report_in(t->o.problem_fn, t->o.problem_ctx,
                             path, KF_P_UNREADABLE, KF_SEV_ERROR, 0, false, 0, "cannot read: %s", read_error(err_no));
            kf_producer_snapshot_close(&s);
            free(path);
            continue;
        }
        if (rc == KF_OK && kf_pstate_load(t->ps, &s) != KF_OK) {
            kf_producer_snapshot_close(&s);
            free(path);
            return KF_ERR_NOMEM;
        }
        if (rc == KF_OK && kf_producer_snapshot_read_status(&s) != KF_OK) {
            /* it shrank while its entries were read: as one that cannot be read */
            kf_producer_snapshot none = {0};
            (void)kf_pstate_load(t->ps, &none);
            kf_report_in(t->o.problem_fn, t->o.problem_ctx, path, KF_P_UNREADABLE, KF_SEV_ERROR, 0, false, 0,
                         "cannot read: %s", kf_read_error_str(KF_ERR_IO, kf_error_last()->err_no));
            free(path);
        } else if (rc == KF_OK) {
            t->snapshot = path;
            t->start_unknown = false;
        } else {
            char msg[512];
            snprintf(msg, sizeof msg, "producer snapshot not used (%.200s): transactions begun before offset %" PRId64
                     " are seen from their first later batch", kf_error_last()->message, first);
            kf_report_in(t->o.problem_fn, t->o.problem_ctx,
                         path, KF_P_SNAPSHOT_INVALID, KF_SEV_WARNING, 0, false, 0, "%s", msg);
            free(path);
        }
        kf_producer_snapshot_close(&s);
    }
    return KF_OK;
}

int kf_txns_open(kf_txns **out, const kf_partition *p, const kf_txns_opts *o)
{
    *out = NULL;
    kf_txns *t;
    int rc = KF_OPTS_NEW(&t, kf_txns, o, KF_TXNS_OPTIONS_VERSION, max_batch_bytes);
    if (rc != KF_OK)
        return rc;
    if (!t->o.has_hanging_ms)
        t->o.hanging_ms = KF_TXN_MAX_TIMEOUT_MS_DEFAULT;
    t->p = p;
    t->ps = kf_pstate_new_open_txns();
    t->ix = calloc(p->ncopies ? p->ncopies : 1, sizeof *t->ix);
    if (!t->ps || !t->ix) {
        kf_txns_close(t);
        return kf_error_nomem();
    }
    t->nix = p->ncopies;
    for (size_t i = 0; i < t->nix; i++) {
        t->ix[i].c = &p->copies[i];
        t->ix[i].seg = NONE;
    }
    if (load_snapshot(t) != KF_OK) {
        kf_txns_close(t);
        return kf_error_nomem();
    }
    *out = t;
    return KF_OK;
}

int kf_txns_batch(kf_txns *t, const kf_batch *b, const char *file)
{
    if (!t->has_start) {
        t->has_start = true;
        t->start = b->base_offset_known ? b->base_offset : b->last_offset;
    }
    if (!t->has_last || b->last_offset > t->last) {
        t->has_last = true;
        t->last = b->last_offset;
    }
    if (b->magic >= 1 && (!t->has_newest || b->max_timestamp > t->newest)) {
        t->has_newest = true;
        t->newest = b->max_timestamp;
    }
    /* b is parsed already (the partition reader gives magic 0-2 only; v0/v1
     * batches change no producer state) */
    kf_pstate_step st;
    if (kf_pstate_add_batch(t->ps, b, &t->buf, t->o.max_batch_bytes, &st) != KF_OK)
        return kf_error_nomem();
    if (!st.used)
        return KF_OK;
    if (st.marker_error) {
        t->bad_markers++;
        char msg[512];
        snprintf(msg, sizeof msg,
                 "control batch of producer %" PRId64 " is not a readable transaction marker (%s): a transaction it "
                 "ended may be shown as open",
                 st.producer_id, st.marker_error);
        kf_report_in(t->o.problem_fn, t->o.problem_ctx,
                     file, KF_P_BAD_MARKER, KF_SEV_ERROR, b->position, true, b->base_offset, "%s", msg);
        return KF_OK;
    }
    if (!st.marker)
        return KF_OK;
    if (!st.abort) {
        t->committed++;
        return KF_OK;
    }
    t->aborted++;
    for (size_t i = 0; i < t->nix; i++)
        tix_abort(t, &t->ix[i], st.base_offset, st.producer_id, &st, file);
    return t->nomem ? KF_ERR_NOMEM : KF_OK;
}

static bool coordinator_completed(const kf_txn_coord_entry *e, const kf_open_txn *x)
{
    return e && (e->state == KF_TXN_COMPLETE_COMMIT || e->state == KF_TXN_COMPLETE_ABORT) &&
           e->producer_epoch >= x->producer_epoch;
}

int kf_txns_finish(kf_txns *t, bool damaged, kf_txn_report_fn fn, void *ctx, kf_txns_result *res)
{
    kf_txns_result r;
    memset(&r, 0, sizeof r);
    for (size_t i = 0; i < t->nix; i++) {
        tix *x = &t->ix[i];
        if (x->c->nseg) {
            tix_walk_to(t, x, x->c->nseg - 1);
            tix_close(t, x);
        }
    }
    if (t->nomem)
        return kf_error_nomem();
    if (t->has_last) {
        r.has_log_end = true;
        r.log_end_offset = t->last + 1;
    } else {
        for (size_t i = 0; i < t->p->ncopies; i++) {
            const kf_partition_copy *c = &t->p->copies[i];
            if (c->nseg && c->bases[c->nseg - 1] >= 0 &&
                (!r.has_log_end || c->bases[c->nseg - 1] > r.log_end_offset)) {
                r.has_log_end = true;
                r.log_end_offset = c->bases[c->nseg - 1];
            }
        }
    }
    size_t n = kf_pstate_open_count(t->ps);
    for (size_t i = 0; i < n; i++) {
        kf_txn_report rep;
        memset(&rep, 0, sizeof rep);
        kf_pstate_open_get(t->ps, i, &rep.txn);
        const kf_open_txn *x = &rep.txn;
        if (i == 0) {
            r.has_last_stable = true;
            r.last_stable_offset = x->first_offset;
        }
        if (t->has_newest && x->has_first_timestamp) {
            rep.has_age = true;
            rep.age_ms = t->newest - x->first_timestamp;
        }
        if (t->has_newest && x->has_last_timestamp) {
            rep.has_idle = true;
            rep.idle_ms = t->newest - x->last_timestamp;
            rep.hanging = rep.idle_ms > t->o.hanging_ms;
        }
        if (t->o.coord) {
            rep.coordinator = kf_txn_coord_find(t->o.coord, x->producer_id);
            rep.marker_missing = coordinator_completed(rep.coordinator, x);
        }
        r.open_transactions++;
        r.hanging_transactions += rep.hanging;
        if (rep.marker_missing) {
            const kf_txn_coord_entry *e = rep.coordinator;
            bool commit = e->state == KF_TXN_COMPLETE_COMMIT;
            char msg[512];
            snprintf(msg, sizeof msg,
                     "producer %" PRId64 " (transactional id \"%.60s\"): the coordinator completed its transaction "
                     "(%s, epoch %d) but this partition has no %s marker for it: read_committed consumers are held "
                     "at offset %" PRId64,
                     x->producer_id, e->transactional_id, kf_txn_state_name(e->state), e->producer_epoch,
                     commit ? "COMMIT" : "ABORT", x->first_offset);
            r.markers_missing++;
            kf_report_in(t->o.problem_fn, t->o.problem_ctx,
                         t->p->ncopies ? t->p->copies[0].label : NULL, KF_P_MARKER_MISSING, KF_SEV_ERROR, 0, true,
                         x->first_offset, "%s", msg);
        }
        if (fn)
            fn(ctx, &rep);
    }
    if (!r.has_last_stable && r.has_log_end) {
        r.has_last_stable = true;
        r.last_stable_offset = r.log_end_offset;
    }
    r.committed_transactions = t->committed;
    r.aborted_transactions = t->aborted;
    r.txnindex_missing = t->ix_missing;
    r.txnindex_extra = t->ix_extra;
    r.bad_markers = t->bad_markers;
    r.has_newest_timestamp = t->has_newest;
    r.newest_timestamp = t->newest;
    r.has_start = t->has_start;
    r.start_offset = t->start;
    r.snapshot = t->snapshot;
    r.start_unknown = t->start_unknown;
    r.incomplete = damaged || t->bad_markers > 0;
    if (res)
        *res = r;
    return KF_OK;
}

void kf_txns_close(kf_txns *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nix; i++) {
        if (t->ix[i].has_ix)
            kf_index_close(&t->ix[i].ix);
        free(t->ix[i].path);
    }
    free(t->ix);
    kf_pstate_free(t->ps);
    kf_buf_free(&t->buf);
    free(t->snapshot);
    free(t);
}
