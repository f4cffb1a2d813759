/* compaction_feed.c: one read of a compacted partition for the compaction
 * job (compaction_internal.h). Each batch, in offset order through
 * kf_part_feed, goes to three places at once: the txns job (the open
 * transactions that hold the last stable offset), the segment it lies in
 * (the largest timestamp and the first batch's, for the compaction lags)
 * and, for a data batch, the key table, where each record replaces the
 * latest one of its key: what a full cleaning keeps and frees
 * (docs/formats.md §19.4, from Kafka's LogCleaner.shouldRetainRecord);
 * batches of aborted transactions (compaction_aborted.c) are dropped
 * whole. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bytes/error.h"
#include "bytes/report.h"
#include "jobs/compaction/compaction_aborted.h"
#include "jobs/compaction/compaction_internal.h"
#include "jobs/compaction/compaction_keys.h"
#include "kfsck/sys/part_feed.h"

typedef struct cp_feed {
    const kf_compaction_opts *o;
    kf_compaction_result *r;
    cp_log *log;
    kf_txns *txns;
    ck_table keys;
    cp_aborts aborts;          /* the aborted transactions of the .txnindex files */
    size_t seg;                /* the segment the last batch lay in */
} cp_feed;

/* The first copy's segments, their sizes from the files. */
static int segments_of(const kf_partition *p, cp_log *log)
{
    const kf_partition_copy *c = p->ncopies ? &p->copies[0] : NULL;
    size_t n = c && c->nseg ? c->nseg : 1;
    if (!(log->segs = calloc(n, sizeof *log->segs)))
        return kf_error_nomem();
    log->nseg = n;
    for (size_t i = 0; c && i < c->nseg; i++) {
        kf_cleaner_segment *s = &log->segs[i];
        s->base_offset = c->bases[i] >= 0 ? c->bases[i] : (i ? log->segs[i - 1].base_offset : 0);
        struct stat st;
        if (stat(c->segments[i], &st) == 0 && S_ISREG(st.st_mode))
            s->bytes = (uint64_t)st.st_size;
    }
    return KF_OK;
}

/* The segment a batch lies in: the last whose base is at or below it. */
static kf_cleaner_segment *segment_of(cp_feed *F, int64_t offset)
{
    cp_log *log = F->log;
    while (F->seg + 1 < log->nseg && log->segs[F->seg + 1].base_offset <= offset)
        F->seg++;
    return &log->segs[F->seg];
}

static void note_timestamps(cp_feed *F, const kf_batch *b)
{
    kf_cleaner_segment *s = segment_of(F, b->base_offset);
    if (!s->has_first_batch_timestamp) {
        s->has_first_batch_timestamp = true;
        s->first_batch_timestamp = b->max_timestamp;
    }
    if (!s->has_largest_timestamp || b->max_timestamp > s->largest_timestamp) {
        s->has_largest_timestamp = true;
        s->largest_timestamp = b->max_timestamp;
    }
}

/* Records wait in a small stage between being hashed and being put, so
 * that their slots are fetched from memory while the next are decoded: the
 * table is far larger than the caches and each put is a miss otherwise. */
#define CP_STAGE 32

typedef struct cp_staged {
    uint64_t hash;
    uint32_t latest;     /* size | CK_TOMBSTONE */
} cp_staged;

/* Each staged record replaces the latest one of its key. */
static int put_staged(cp_feed *F, const cp_staged *st, size_t n)
{
    kf_compaction_result *r = F->r;
    for (size_t i = 0; i < n; i++) {
        uint32_t prev;
        int k = ck_put(&F->keys, st[i].hash, st[i].latest, &prev);
        if (k < 0)
            return kf_error_nomem();
        if (k == 1) {
            r->reclaimable_bytes += prev & CK_SIZE_MASK;
            r->tombstones -= (prev & CK_TOMBSTONE) != 0;
        }
        r->tombstones += (st[i].latest & CK_TOMBSTONE) != 0;
    }
    return KF_OK;
}

/* b's records; aborted: b belongs to an aborted transaction, so they are
 * all dropped and none is indexed. */
static int data_batch(cp_feed *F, kf_part_reader *rd, kf_batch *b, bool aborted)
{
    kf_compaction_result *r = F->r;
    kf_record_iter it;
    int rc = kf_part_reader_records(rd, b, &it);
    /* A plain v0/v1 message is its own record: the entry's bytes. */
    bool plain = b->magic < 2 && b->codec == KF_CODEC_NONE;
    cp_staged st[CP_STAGE];
    size_t nst = 0;
    kf_record rec;
    while (rc == KF_OK) {
        size_t before = it.c.pos;
        int k = kf_records_next(&it, &rec);
        if (k <= 0) {
            rc = k;
            break;
        }
        r->records++;
        uint32_t size = plain ? b->size : (uint32_t)(it.c.pos - before);
        if (aborted) {
            r->aborted_records++;
            r->reclaimable_bytes += size;
            continue;
        }
        if (!rec.key) {
            r->keyless_records++;
            r->reclaimable_bytes += size;
            continue;
        }
        cp_staged *s = &st[nst++];
        s->hash = ck_hash(rec.key, (size_t)rec.key_len);
        s->latest = (size & CK_SIZE_MASK) | (rec.value ? 0 : CK_TOMBSTONE);
        ck_prefetch(&F->keys, s->hash);
        if (nst == CP_STAGE) {
            if (put_staged(F, st, nst) != KF_OK)
                return KF_ERR_NOMEM;
            nst = 0;
        }
    }
    if (put_staged(F, st, nst) != KF_OK)
        return KF_ERR_NOMEM;
    if (rc != KF_OK) {
        kf_report_in(F->o->problem_fn, F->o->problem_ctx, kf_part_reader_file(rd),
                     it.err_code ? it.err_code : KF_P_BAD_RECORD, KF_SEV_ERROR, b->position, true, b->base_offset,
                     "records of this batch not counted by compaction: %s", it.err_msg);
        r->incomplete = true;
    }
    return KF_OK;
}

/* A control batch whose first record is an ABORT marker. */
static bool is_abort_marker(kf_part_reader *rd, kf_batch *b)
{
    kf_record_iter it;
    kf_record rec;
    kf_control ctl;
    return kf_part_reader_records(rd, b, &it) == KF_OK && kf_records_next(&it, &rec) == 1 &&
           kf_control_parse(&rec, &ctl) == KF_OK && ctl.type == KF_CONTROL_ABORT;
}

static int feed_batch(void *ctx, kf_part_reader *rd, kf_batch *b)
{
    cp_feed *F = ctx;
    cp_log *log = F->log;
    if (!log->has_batches) {
        log->has_batches = true;
        log->first_offset = b->base_offset;
    }
    int rc = kf_txns_batch(F->txns, b, kf_part_reader_file(rd));
    if (rc != KF_OK)
        return rc;
    note_timestamps(F, b);
    if (b->control) {
        F->r->control_batches++;
        cp_aborts_marker(&F->aborts, b, is_abort_marker(rd, b));
        return KF_OK;
    }
    return data_batch(F, rd, b, cp_aborts_data(&F->aborts, b));
}

static void keep_oldest(void *ctx, const kf_txn_report *t)
{
    cp_log *log = ctx;
    if (!log->has_oldest_open) {
        log->has_oldest_open = true;
        log->oldest_open = t->txn;
    }
}

int cp_read_partition(const kf_partition *p, const kf_compaction_opts *o, kf_compaction_result *r, cp_log *log,
                      bool *unreadable)
{
    memset(log, 0, sizeof *log);
    int rc = segments_of(p, log);
    if (rc != KF_OK)
        return rc;
    kf_txns_opts to;
    kf_txns_opts_init(&to);
    to.max_batch_bytes = o->read.max_batch_bytes;
    to.problem_fn = o->problem_fn;
    to.problem_ctx = o->problem_ctx;
    cp_feed F = {.o = o, .r = r, .log = log};
    if ((rc = cp_aborts_read(&F.aborts, p->ncopies ? &p->copies[0] : NULL)) != KF_OK ||
        (rc = kf_txns_open(&F.txns, p, &to)) != KF_OK) {
        cp_aborts_free(&F.aborts);
        return rc;
    }
    kf_part_result pr;
    rc = kf_part_feed(p, &o->read, feed_batch, &F, &pr);
    bool damaged = pr.uncovered > 0 || pr.unreadable;
    if (rc == KF_OK)
        rc = kf_txns_finish(F.txns, damaged, keep_oldest, log, &log->txns);
    log->txns.snapshot = NULL; /* owned by the txns job, closed below */
    kf_txns_close(F.txns);
    r->keys = F.keys.n;
    r->live_records = F.keys.n;
    ck_free(&F.keys);
    cp_aborts_free(&F.aborts);
    r->incomplete |= damaged;
    *unreadable |= pr.unreadable;
    return rc;
}
