/* replicas_partition.c: one topic-partition's replicas judged for the
 * replicas job (replicas_internal.h, replicas.h): each replica's epochs
 * loaded as its broker would (from its batches when a data dir has no
 * leader-epoch-checkpoint), each replica as the candidate leader with where
 * every other one truncates (replicas_rule.c), the best candidate, the
 * KRaft metadata's ISR and ELR, divergence (epoch histories that disagree
 * below a common end, and, for data dirs, batches over the same offsets
 * that differ: replicas_copies.c), and each candidate's acknowledged
 * offsets missing with what the copies still hold of them (salvage). */
#include "kfsck/replicas.h"
#include "kfsck/sys/part_reader.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "bytes/report.h"
#include "jobs/replicas/replicas_internal.h"
#include "bytes/satmath.h"

/* ---- replicas ----------------------------------------------------------------- */

static bool same_broker(const rp_rec *a, const rp_rec *b)
{
    if (a->has_broker || b->has_broker)
        return a->has_broker && b->has_broker && a->broker == b->broker;
    return !strcmp(a->datadir, b->datadir);
}

/* Broker ids in order, brokers with no id after them by data dir. */
static int cmp_replica(const void *x, const void *y)
{
    const kf_replica *a = x, *b = y;
    if (a->has_broker != b->has_broker)
        return a->has_broker ? -1 : 1;
    if (a->has_broker)
        return a->broker < b->broker ? -1 : a->broker > b->broker;
    return strcmp(a->datadir, b->datadir);
}

static void drop_problem(void *ctx, const kf_problem *p)
{
    (void)ctx;
    (void)p;
}

/* The leader epochs a broker with no leader-epoch-checkpoint rebuilds at
 * start-up after an unclean shutdown (the assumption of scan's
 * recovery_end_offset, docs/formats.md §18): LogLoader recovers the
 * segments from the one holding the recovery point on, and LogSegment.recover
 * assigns a batch's epoch when it is above the latest, from the batch's base
 * offset. Batches of earlier segments give none. */
static int epochs_of_batches(rp_rec *r, size_t max_batch_bytes)
{
    kf_partition p;
    const char *dirs[1] = {r->dir};
    int rc = kf_partition_of_dirs(&p, dirs, 1, NULL, NULL);
    if (rc == KF_ERR_NOMEM)
        return rc;
    if (rc != KF_OK || !p.ncopies) {
        kf_partition_free(&p);
        return KF_OK; /* unreadable: the scan counted it */
    }
    int64_t rp = r->checkpoints.recovery_point.has ? r->checkpoints.recovery_point.offset : 0, from = 0;
    for (size_t i = 0; i < p.copies[0].nseg; i++)
        if (p.copies[0].bases[i] >= 0 && p.copies[0].bases[i] <= rp && p.copies[0].bases[i] > from)
            from = p.copies[0].bases[i];
    kf_part_reader_opts ro;
    kf_part_reader_opts_init(&ro);
    ro.max_batch_bytes = max_batch_bytes;
    ro.problem_fn = drop_problem; /* the scan reported the damage */
    kf_part_reader *pr;
    if ((rc = kf_part_reader_open(&pr, &p, &ro)) != KF_OK) {
        kf_partition_free(&p);
        return rc;
    }
    size_t cap = 0;
    kf_batch b;
    while ((rc = kf_part_reader_next(pr, &b)) == 1) {
        if (b.magic != 2 || b.partition_leader_epoch < 0 || b.base_offset < from ||
            (r->nepochs && b.partition_leader_epoch <= r->epochs[r->nepochs - 1].epoch))
            continue;
        if (r->nepochs == cap) {
            cap = cap ? cap * 2 : 8;
            kf_leader_epoch *ne = realloc(r->epochs, cap * sizeof *ne);
            if (!ne) {
                rc = KF_ERR_NOMEM;
                break;
            }
            r->epochs = ne;
        }
        r->epochs[r->nepochs++] = (kf_leader_epoch){b.partition_leader_epoch, b.base_offset};
    }
    kf_part_reader_close(pr, NULL);
    kf_partition_free(&p);
    return rc == KF_ERR_NOMEM ? rc : KF_OK;
}

/* The replica of rec, its epochs loaded (rec->epochs loaded in place). */
static kf_replica replica_of(rp_rec *rec)
{
    const kf_partition_checkpoints *ck = &rec->checkpoints;
    kf_replica r;
    memset(&r, 0, sizeof r);
    r.has_broker = rec->has_broker;
    r.broker = rec->broker;
    r.datadir = rec->datadir;
    r.dir = rec->dir;
    r.source = rec->source;
    r.from_scan_file = rec->from_scan_file;
    r.has_log_start = ck->log_start_offset.has || rec->has_first_offset;
    r.log_start_offset = ck->log_start_offset.has ? ck->log_start_offset.offset : rec->first_offset;
    r.has_log_end = rec->has_end;
    r.log_end_offset = rec->end;
    r.has_high_watermark = ck->high_watermark.has;
    r.high_watermark = ck->high_watermark.offset;
    rec->nepochs = kf_replica_epochs_load(rec->epochs, rec->nepochs,
                                          ck->log_start_offset.has ? ck->log_start_offset.offset : 0,
                                          rec->has_end ? rec->end : -1);
    r.leader_epochs = rec->epochs;
    r.n_leader_epochs = rec->nepochs;
    r.epochs_from_batches = rec->epochs_file_missing;
    r.errors = rec->errors;
    r.damaged = rec->errors > 0;
    return r;
}

/* The high watermark a follower's broker loads: the checkpoint's (0 when
 * none) kept within the log (UnifiedLog.updateHighWatermark). */
static int64_t loaded_hw(const kf_replica *r)
{
    int64_t hw = r->has_high_watermark ? r->high_watermark : 0;
    int64_t lo = r->has_log_start ? r->log_start_offset : 0;
    if (hw > r->log_end_offset)
        hw = r->log_end_offset;
    return hw < lo ? lo : hw;
}

/* ---- divergence ------------------------------------------------------------------ */

/* The epoch of offset off in a loaded history, -1 before its first entry. */
static int32_t epoch_at(const kf_replica *r, int64_t off)
{
    int32_t e = -1;
    for (size_t i = 0; i < r->n_leader_epochs && r->leader_epochs[i].start_offset <= off; i++)
        e = r->leader_epochs[i].epoch;
    return e;
}

static bool epochs_differ_at(const kf_replica *a, const kf_replica *b, int64_t off)
{
    int32_t x = epoch_at(a, off), y = epoch_at(b, off);
    return x >= 0 && y >= 0 && x != y;
}

/* Two histories disagree below the end both logs reach (from the start
 * both hold): some offset there belongs to different epochs. */
static bool histories_disagree(const kf_replica *a, const kf_replica *b)
{
    if (!a->has_log_end || !b->has_log_end || !a->n_leader_epochs || !b->n_leader_epochs)
        return false;
    int64_t end = a->log_end_offset < b->log_end_offset ? a->log_end_offset : b->log_end_offset;
    int64_t lo = 0;
    if (a->has_log_start && a->log_start_offset > lo)
        lo = a->log_start_offset;
    if (b->has_log_start && b->log_start_offset > lo)
        lo = b->log_start_offset;
    if (lo < end && epochs_differ_at(a, b, lo))
        return true;
    const kf_replica *both[2] = {a, b};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < both[k]->n_leader_epochs; i++) {
            int64_t s = both[k]->leader_epochs[i].start_offset;
            if (s > lo && s < end && epochs_differ_at(a, b, s))
                return true;
        }
    return false;
}

/* ---- elections -------------------------------------------------------------------- */

static bool in_list(const int32_t *v, size_t n, const kf_replica *r)
{
    for (size_t i = 0; r->has_broker && i < n; i++)
        if (v[i] == r->broker)
            return true;
    return false;
}

static const kf_md_partition *md_partition(const kf_metadata *m, const char *topic, int32_t partition)
{
    const kf_md_topic *t = m ? kf_metadata_topic_by_name(m, topic) : NULL;
    for (uint32_t i = 0; t && i < t->nparts; i++)
        if (t->parts[i].id == partition)
            return &t->parts[i];
    return NULL;
}

/* a is a better candidate than b (the contract's order). */
static bool better(const kf_replica_partition *p, const kf_replica_election *a, const kf_replica_election *b)
{
    if (a->acknowledged_missing != b->acknowledged_missing)
        return a->acknowledged_missing < b->acknowledged_missing;
    if (a->acknowledged_lost != b->acknowledged_lost)
        return a->acknowledged_lost < b->acknowledged_lost;
    if (a->offsets_lost != b->offsets_lost)
        return a->offsets_lost < b->offsets_lost;
    const kf_replica *ra = &p->replicas[a->candidate], *rb = &p->replicas[b->candidate];
    bool ia = in_list(p->isr, p->nisr, ra) || in_list(p->elr, p->nelr, ra);
    bool ib = in_list(p->isr, p->nisr, rb) || in_list(p->elr, p->nelr, rb);
    if (ia != ib)
        return ia;
    return cmp_replica(ra, rb) < 0;
}

static void elect(const kf_replica_partition *p, size_t cand, kf_replica_follower *fol, kf_replica_election *e)
{
    const kf_replica *reps = p->replicas, *c = &reps[cand];
    size_t n = p->nreplicas;
    memset(e, 0, sizeof *e);
    e->candidate = cand;
    e->followers = fol;
    e->leader_log_end = c->log_end_offset;
    if (p->has_high_watermark && p->high_watermark > c->log_end_offset)
        e->acknowledged_missing = kf_offsets_between(c->log_end_offset, p->high_watermark);
    for (size_t j = 0; j < n; j++) {
        const kf_replica *f = &reps[j];
        if (j == cand || !f->has_log_end)
            continue;
        int64_t hw = loaded_hw(f);
        kf_replica_truncation t = kf_replica_reconcile(c->leader_epochs, c->n_leader_epochs, c->log_end_offset,
                                                       f->leader_epochs, f->n_leader_epochs, f->log_end_offset, hw);
        kf_replica_follower *x = &fol[e->nfollowers++];
        x->replica = j;
        x->truncate_to = t.truncate_to;
        x->rounds = t.rounds;
        x->offsets_lost = kf_offsets_between(t.truncate_to, f->log_end_offset);
        x->acknowledged_lost = kf_offsets_between(t.truncate_to, hw);
        if (x->offsets_lost > e->offsets_lost)
            e->offsets_lost = x->offsets_lost;
        if (x->acknowledged_lost > e->acknowledged_lost)
            e->acknowledged_lost = x->acknowledged_lost;
    }
}

/* ---- the partition ------------------------------------------------------------------ */

/* Drops the later records of a broker already among recs (reported); the
 * new count. */
static size_t one_per_broker(rp_rec *recs, size_t n, const rp_judge_opts *o)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < kept && !same_broker(&recs[j], &recs[i]))
            j++;
        if (j < kept) {
            kf_report_in(o->problem_fn, o->problem_ctx, recs[i].dir ? recs[i].dir : recs[i].source,
                         KF_P_DUPLICATE_REPLICA, KF_SEV_WARNING, 0, false, 0,
                         "%s-%" PRId32 " is also in %s of the same broker; the first one is compared, this one left out",
                         recs[i].topic, recs[i].partition, recs[j].dir ? recs[j].dir : recs[j].source);
            rp_rec_free(&recs[i]);
            continue;
        }
        if (kept != i) {
            recs[kept] = recs[i];
            memset(&recs[i], 0, sizeof recs[i]);
        }
        kept++;
    }
    return kept;
}

int rp_judge(rp_rec *recs, size_t n, const rp_judge_opts *o,
             void (*partition_fn)(void *ctx, const kf_replica_partition *p), void *ctx, bool *at_risk)
{
    n = one_per_broker(recs, n, o);
    int rc = KF_OK;
    for (size_t i = 0; rc == KF_OK && i < n; i++)
        if (recs[i].epochs_file_missing && recs[i].dir && !recs[i].from_scan_file)
            rc = epochs_of_batches(&recs[i], o->max_batch_bytes);
    if (rc != KF_OK)
        return rc; /* out of memory, its error set by what failed */
    kf_replica *reps = calloc(n ? n : 1, sizeof *reps);
    kf_replica_election *el = calloc(n ? n : 1, sizeof *el);
    kf_replica_follower *fol = calloc(n > 0 ? n * n : 1, sizeof *fol);
    if (!reps || !el || !fol) {
        free(reps);
        free(el);
        free(fol);
        return kf_error_nomem();
    }
    for (size_t i = 0; i < n; i++)
        reps[i] = replica_of(&recs[i]);
    qsort(reps, n, sizeof *reps, cmp_replica);

    kf_replica_partition p;
    memset(&p, 0, sizeof p);
    p.topic = recs[0].topic;
    p.partition = recs[0].partition;
    p.replicas = reps;
    p.nreplicas = n;
    p.elections = el;
    const kf_md_partition *mp = md_partition(o->meta, p.topic, p.partition);
    if (mp) {
        p.has_metadata = p.has_unclean = true;
        p.leader = mp->leader;
        p.leader_epoch = mp->leader_epoch;
        p.isr = mp->isr.v;
        p.nisr = mp->isr.n;
        p.elr = mp->elr.v;
        p.nelr = mp->elr.n;
    }
    for (size_t i = 0; i < n; i++)
        if (reps[i].has_high_watermark && (!p.has_high_watermark || reps[i].high_watermark > p.high_watermark)) {
            p.has_high_watermark = true;
            p.high_watermark = reps[i].high_watermark;
        }
    bool missing = false;
    int64_t from = INT64_MAX; /* the lowest offset some candidate misses */
    for (size_t i = 0; i < n; i++) {
        if (!reps[i].has_log_end)
            continue;
        kf_replica_election *e = &el[p.nelections];
        elect(&p, i, fol + i * n, e);
        if (e->acknowledged_missing > 0) {
            missing = true;
            from = e->leader_log_end < from ? e->leader_log_end : from;
        }
        if (!p.has_best || better(&p, e, &el[p.best]))
            p.best = p.nelections;
        p.has_best = true;
        p.nelections++;
    }
    if (p.has_unclean && p.has_best) {
        const kf_replica *b = &reps[el[p.best].candidate];
        p.unclean = !in_list(p.isr, p.nisr, b) && !in_list(p.elr, p.nelr, b);
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            p.diverged |= histories_disagree(&reps[i], &reps[j]);
    rp_merged m;
    rc = rp_read_copies(reps, n, o, missing, from, &m, &p.disagreements);
    p.diverged |= p.disagreements > 0;
    kf_replica_salvage *sal = rc == KF_OK ? calloc(p.nelections * (m.n ? m.n : 1) + 1, sizeof *sal) : NULL;
    if (rc == KF_OK && !sal)
        rc = KF_ERR_NOMEM;
    for (size_t i = 0; rc == KF_OK && i < p.nelections; i++)
        rp_salvage(&m, &p, &el[i], sal + i * (m.n ? m.n : 1));
    if (rc == KF_OK) {
        *at_risk = p.diverged || !p.has_best || el[p.best].acknowledged_missing > 0 ||
                   el[p.best].acknowledged_lost > 0;
        if (partition_fn)
            partition_fn(ctx, &p);
    }
    rp_merged_free(&m);
    free(sal);
    free(reps);
    free(el);
    free(fol);
    return rc;
}
