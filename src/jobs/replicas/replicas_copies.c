/* replicas_copies.c: a partition's data dir copies read together, as
 * `kfsck merge` reads them (the partition reader, partition.h): where the
 * copies disagree (copies_disagree, one problem per conflict), and which
 * copy the merged log takes each stretch of offsets from. From the second,
 * each election's salvage: the acknowledged offsets its candidate does not
 * hold that the merged log brings back (docs/formats.md §18.5). Only the
 * stretches at or past the lowest offset some candidate misses are kept,
 * at most RP_RUNS_MAX of them: past that the salvage is left short, never
 * long. */
#include "kfsck/replicas.h"
#include "kfsck/sys/part_reader.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/report.h"
#include "jobs/replicas/replicas_internal.h"
#include "bytes/satmath.h"

#define RP_RUNS_MAX 4096

typedef struct reading {
    const rp_judge_opts *o;
    const kf_replica *reps;     /* the partition's replicas */
    const size_t *of_copy;      /* copy index -> replica index */
    uint64_t conflicts;
    int64_t from;               /* stretches ending at or below it are not kept */
    rp_merged *m;
    bool hole;                  /* a hole since the last batch taken */
} reading;

static void on_conflict(void *ctx, const kf_part_conflict *c)
{
    reading *rd = ctx;
    rd->conflicts++;
    char who[160] = "";
    size_t len = 0;
    for (size_t i = 0; i < c->ncopies && len < sizeof who - 40; i++) {
        if (!c->has[i])
            continue;
        const kf_replica *r = &rd->reps[rd->of_copy[i]];
        int w = r->has_broker ? snprintf(who + len, sizeof who - len, "%sbroker %" PRId32 " epoch %" PRId32,
                                         len ? ", " : "", r->broker, c->leader_epochs[i])
                              : snprintf(who + len, sizeof who - len, "%s%s epoch %" PRId32, len ? ", " : "",
                                         r->datadir, c->leader_epochs[i]);
        len += w > 0 ? (size_t)w : 0;
        if (len >= sizeof who)
            len = sizeof who - 1;
    }
    kf_report_in(rd->o->problem_fn, rd->o->problem_ctx, rd->reps[rd->of_copy[c->chosen]].dir, KF_P_COPIES_DISAGREE,
                 KF_SEV_WARNING, 0, true, c->start_offset,
                 "offsets %" PRId64 "..%" PRId64 " are different batches on the brokers' copies (%s)", c->start_offset,
                 c->end_offset, who);
}

static void on_hole(void *ctx, const kf_part_hole *h)
{
    (void)h;
    ((reading *)ctx)->hole = true;
}

/* A batch the merged log takes from replica r: its stretch extended, or a
 * new one. A gap between two batches taken that no hole explains (offsets
 * compaction removed) belongs to the stretch before it. */
static void take(reading *rd, size_t r, int64_t base, int64_t end, int32_t epoch)
{
    rp_merged *m = rd->m;
    if (m->short_)
        return;
    rp_run *last = m->n ? &m->runs[m->n - 1] : NULL;
    if (last && !rd->hole)
        last->to = base;
    rd->hole = false;
    if (last && last->replica == r && last->to == base && last->epoch == epoch) {
        last->to = end;
        return;
    }
    if (end <= rd->from)
        return;
    if (m->n == RP_RUNS_MAX) {
        m->short_ = true;
        return;
    }
    m->runs[m->n++] = (rp_run){r, base, end, epoch};
}

int rp_read_copies(const kf_replica *reps, size_t n, const rp_judge_opts *o, bool need_runs, int64_t from,
                   rp_merged *m, uint64_t *conflicts)
{
    memset(m, 0, sizeof *m);
    *conflicts = 0;
    const char **dirs = malloc((n ? n : 1) * sizeof *dirs);
    size_t *of_copy = malloc((n ? n : 1) * sizeof *of_copy);
    size_t k = 0;
    int rc = dirs && of_copy ? KF_OK : KF_ERR_NOMEM;
    for (size_t i = 0; rc == KF_OK && i < n; i++)
        if (!reps[i].from_scan_file && reps[i].dir) {
            of_copy[k] = i;
            dirs[k++] = reps[i].dir;
        }
    m->read = k > 0;
    if (rc == KF_OK && need_runs && k > 0 && !(m->runs = malloc(RP_RUNS_MAX * sizeof *m->runs)))
        rc = KF_ERR_NOMEM;
    if (rc == KF_OK && (k >= 2 || (need_runs && k > 0))) {
        kf_partition p;
        rc = kf_partition_of_dirs(&p, dirs, k, NULL, NULL);
        if (rc == KF_OK) {
            reading rd = {o, reps, of_copy, 0, from, m, false};
            kf_part_reader_opts ro;
            kf_part_reader_opts_init(&ro);
            ro.max_batch_bytes = o->max_batch_bytes;
            ro.conflict_fn = on_conflict;
            ro.hole_fn = on_hole;
            ro.event_ctx = &rd;
            kf_part_reader *pr;
            if ((rc = kf_part_reader_open(&pr, &p, &ro)) == KF_OK) {
                kf_batch b;
                while ((rc = kf_part_reader_next(pr, &b)) == 1)
                    if (m->runs)
                        take(&rd, of_copy[kf_part_reader_copy(pr)], b.base_offset, b.last_offset + 1,
                             b.magic >= 2 ? b.partition_leader_epoch : -1);
                kf_part_reader_close(pr, NULL);
                rc = rc == KF_ERR_NOMEM ? rc : KF_OK;
            }
            *conflicts = rd.conflicts;
        } else if (rc != KF_ERR_NOMEM) {
            rc = KF_OK; /* a copy that cannot be listed: the scan reported it */
            m->read = false;
        }
        kf_partition_free(&p);
    }
    free(dirs);
    free(of_copy);
    return rc;
}

void rp_merged_free(rp_merged *m)
{
    free(m->runs);
    memset(m, 0, sizeof *m);
}

/* Where a history of epoch e ends for the replicas: the first start of a
 * higher epoch any of them has loaded (INT64_MAX when none). */
static int64_t history_end(const kf_replica_partition *p, int32_t e)
{
    int64_t end = INT64_MAX;
    for (size_t i = 0; i < p->nreplicas && e >= 0; i++)
        for (size_t k = 0; k < p->replicas[i].n_leader_epochs; k++) {
            const kf_leader_epoch *x = &p->replicas[i].leader_epochs[k];
            if (x->epoch > e && x->start_offset < end)
                end = x->start_offset;
        }
    return end;
}

void rp_salvage(const rp_merged *m, const kf_replica_partition *p, kf_replica_election *e, kf_replica_salvage *out)
{
    int64_t hw = p->high_watermark;
    e->has_salvage = m->read;
    e->salvage = out;
    e->nsalvage = 0;
    e->acknowledged_missing_after_merge = e->acknowledged_missing;
    int64_t lo = e->leader_log_end;
    for (size_t i = 0; m->read && i < m->n && lo < hw; i++) {
        int64_t hend = history_end(p, m->runs[i].epoch);
        int64_t from = m->runs[i].from > lo ? m->runs[i].from : lo, to = m->runs[i].to < hw ? m->runs[i].to : hw;
        if (to > hend)
            to = hend;
        if (from >= to)
            continue;
        kf_replica_salvage *last = e->nsalvage ? &out[e->nsalvage - 1] : NULL;
        if (last && last->replica == m->runs[i].replica && last->to_offset == from)
            last->to_offset = to;
        else
            out[e->nsalvage++] = (kf_replica_salvage){m->runs[i].replica, from, to};
        int64_t got = kf_offsets_between(from, to);
        e->acknowledged_missing_after_merge = e->acknowledged_missing_after_merge > got
                                              ? e->acknowledged_missing_after_merge - got : 0;
    }
}
