/* remote_local.c: a tiered partition's local copies among the inputs, and
 * what they say against the remote segments (docs/formats.md §22.3-22.5):
 *
 *  - each copy's log start (its data dir's log-start-offset-checkpoint: for
 *    a tiered topic the broker always writes an entry, and loads 0 without
 *    one), local log start (the log start raised to the first local
 *    segment's base, UnifiedLog), log end, and leader epochs as the broker
 *    loads them (kf_replica_epochs_load);
 *  - the offsets in no tier: from the highest log start to the highest log
 *    end, those no copy holds locally and no broker's remote fetch finds
 *    (RemoteLogManager.read: the epoch of the offset in the broker's epoch
 *    cache, then that epoch's finished segment at or below the offset, if
 *    the offset is inside that epoch's part of it);
 *  - the finished segments whose epochs break the lineage of the copy most
 *    likely to lead (the longest log with epochs), by
 *    RemoteLogManager.isRemoteSegmentWithinLeaderEpochs. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bytes/error.h"
#include "jobs/remote/remote_internal.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/file.h"
#include "kfsck/paths.h"
#include "kfsck/replicas.h"
#include "bytes/grow.h"
#include "bytes/satmath.h"

/* ---- the local copies ----------------------------------------------------------- */

bool rm_dir_topic_id(const char *dir, uint8_t id[16])
{
    char *path = kf_path_join(dir, "partition.metadata");
    kf_partition_metadata pm;
    bool ok = path && kf_partition_metadata_read(path, &pm) == KF_OK;
    free(path);
    if (ok)
        memcpy(id, pm.topic_id, 16);
    return ok;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* One copy: KF_OK (filled), KF_ERR_NOMEM; 1 when it is not a partition dir
 * or is another topic's. */
static int read_copy(rm_locals *l, const kf_partition *p, kf_partition_copy *cp, const uint8_t *topic_id,
                     const kf_remote_opts *o)
{
    if (!is_dir(cp->label))
        return 1;
    uint8_t id[16];
    if (topic_id && rm_dir_topic_id(cp->label, id) && memcmp(id, topic_id, 16))
        return 1; /* another incarnation of the topic name */
    size_t i = l->n++; /* from here the entry is the list's, freed with it */
    kf_remote_local *v = &l->v[i];
    memset(v, 0, sizeof *v);
    l->dirs[i] = strdup(cp->label);
    if (!l->dirs[i])
        return kf_error_nomem();
    v->dir = l->dirs[i];
    v->broker = -1;
    char *datadir = kf_path_dir(cp->label);
    if (!datadir)
        return KF_ERR_NOMEM;
    kf_datadir_info info;
    int rc = kf_datadir_info_read(&info, datadir);
    if (rc == KF_OK && info.has_meta)
        v->broker = info.meta.has_broker_id ? info.meta.broker_id : info.meta.has_node_id ? info.meta.node_id : -1;
    kf_datadir_info_free(&info);
    char *ck = rc == KF_OK ? kf_path_join(datadir, "log-start-offset-checkpoint") : NULL;
    free(datadir);
    if (rc != KF_OK || !ck) {
        free(ck);
        return KF_ERR_NOMEM;
    }
    bool found = false;
    int64_t start = 0;
    rc = kf_checkpoint_find(ck, p->topic, p->partition, &found, &start, NULL, NULL);
    free(ck);
    if (rc == KF_ERR_NOMEM)
        return rc;
    v->has_log_start_checkpoint = found;
    v->log_start_offset = found ? start : 0;
    v->local_log_start_offset = v->log_start_offset;
    if (cp->nseg && cp->bases[0] > v->local_log_start_offset)
        v->local_log_start_offset = cp->bases[0];
    kf_partition one = {.topic = p->topic, .partition = p->partition, .copies = cp, .ncopies = 1};
    int64_t end;
    if (!cp->nseg || !kf_partition_log_end(&one, o->read.max_batch_bytes, &end))
        end = v->local_log_start_offset;
    v->log_end_offset = end < v->local_log_start_offset ? v->local_log_start_offset : end;
    char *lec = kf_path_join(cp->label, "leader-epoch-checkpoint");
    if (!lec)
        return KF_ERR_NOMEM;
    kf_leader_epochs le;
    /* the broker cuts the cache at the log end when it loads it */
    rc = kf_leader_epochs_read(lec, v->log_end_offset - 1, false, &le, NULL, NULL);
    free(lec);
    if (rc != KF_OK)
        return rc;
    size_t n = kf_replica_epochs_load(le.entries, le.n, v->log_start_offset, v->log_end_offset);
    if (n) {
        l->epochs[i] = le.entries; /* taken over */
        le.entries = NULL;
        v->leader_epochs = l->epochs[i];
        v->n_leader_epochs = n;
        v->has_epochs = true;
    }
    kf_leader_epochs_free(&le);
    return KF_OK;
}

int rm_locals_read(rm_locals *l, const kf_partition *p, const uint8_t *topic_id, const kf_remote_opts *o)
{
    memset(l, 0, sizeof *l);
    if (!p || !p->ncopies)
        return KF_OK;
    l->v = calloc(p->ncopies, sizeof *l->v);
    l->epochs = calloc(p->ncopies, sizeof *l->epochs);
    l->dirs = calloc(p->ncopies, sizeof *l->dirs);
    if (!l->v || !l->epochs || !l->dirs)
        return kf_error_nomem();
    for (size_t c = 0; c < p->ncopies; c++) {
        int rc = read_copy(l, p, &p->copies[c], topic_id, o);
        if (rc < 0)
            return rc;
    }
    return KF_OK;
}

void rm_locals_free(rm_locals *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->dirs[i]);
        free(l->epochs[i]);
    }
    free(l->v);
    free(l->epochs);
    free(l->dirs);
    memset(l, 0, sizeof *l);
}

/* ---- ranges ------------------------------------------------------------------------ */

typedef struct spans {
    kf_remote_range *v;
    size_t n, cap;
} spans;

static bool span_add(spans *s, int64_t from, int64_t to)
{
    if (from >= to)
        return true;
    if (!KF_GROW(s->v, s->n, s->cap, 16))
        return false;
    s->v[s->n++] = (kf_remote_range){from, to};
    return true;
}

static int cmp_span(const void *a, const void *b)
{
    const kf_remote_range *x = a, *y = b;
    return (x->from_offset > y->from_offset) - (x->from_offset < y->from_offset);
}

/* [from, to) less the union of cover, into out. */
static bool span_subtract(int64_t from, int64_t to, spans *cover, spans *out)
{
    if (cover->n)
        qsort(cover->v, cover->n, sizeof *cover->v, cmp_span);
    int64_t at = from;
    for (size_t i = 0; i < cover->n && at < to; i++) {
        if (cover->v[i].to_offset <= at)
            continue;
        if (cover->v[i].from_offset > at && !span_add(out, at, cover->v[i].from_offset < to ? cover->v[i].from_offset : to))
            return false;
        if (cover->v[i].to_offset > at)
            at = cover->v[i].to_offset;
    }
    return at >= to || span_add(out, at, to);
}

/* What broker b's remote fetches find: for each epoch of its cache, the
 * epoch's finished segments over their part of that epoch. */
static bool reachable_by(const rm_state *st, uint32_t part, const kf_remote_local *b, spans *cover)
{
    for (size_t i = 0; i < b->n_leader_epochs; i++) {
        int32_t epoch = b->leader_epochs[i].epoch;
        int64_t lo = b->leader_epochs[i].start_offset;
        int64_t hi = i + 1 < b->n_leader_epochs ? b->leader_epochs[i + 1].start_offset : INT64_MAX;
        const rm_epoch *e = rm_epoch_of(st, part, epoch);
        if (!e)
            continue;
        for (uint32_t j = e->head; j < e->n; j++) {
            if (e->v[j].seg == RM_NONE)
                continue;
            uint32_t k = j + 1;
            while (k < e->n && e->v[k].seg == RM_NONE)
                k++;
            /* floorEntry gives this segment from its key to the next key */
            int64_t from = e->v[j].start;
            int64_t to = k < e->n ? e->v[k].start : INT64_MAX;
            int64_t epoch_end = rm_epoch_end(&st->segs[e->v[j].seg], epoch);
            if (epoch_end < INT64_MAX && epoch_end + 1 < to)
                to = epoch_end + 1;
            if (from < lo)
                from = lo;
            if (to > hi)
                to = hi;
            if (!span_add(cover, from, to))
                return false;
        }
    }
    return true;
}

/* ---- the lineage check (isRemoteSegmentWithinLeaderEpochs) ----------------------------- */

/* buildFilteredLeaderEpochMap: an epoch whose start equals the next one's
 * holds no records and goes. In place; the new count. */
static size_t filter_epochs(kf_leader_epoch *e, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + 1 < n && e[i + 1].start_offset == e[i].start_offset)
            continue;
        e[w++] = e[i];
    }
    return w;
}

static const kf_leader_epoch *epoch_in(const kf_leader_epoch *e, size_t n, int32_t epoch)
{
    size_t i = rm_epoch_upper(e, n, epoch);
    return i > 0 && e[i - 1].epoch == epoch ? &e[i - 1] : NULL;
}

static const kf_leader_epoch *higher(const kf_leader_epoch *e, size_t n, int32_t epoch)
{
    size_t i = rm_epoch_upper(e, n, epoch);
    return i < n ? &e[i] : NULL;
}

/* false, with why, when s breaks the lineage L (filtered, not empty) of a
 * log ending at log_end. */
static bool within_lineage(const rm_seg *s, const kf_leader_epoch *L, size_t nl, int64_t log_end, kf_leader_epoch *S,
                           char *why, size_t wn)
{
    memcpy(S, rm_seg_epochs(s), s->nepochs * sizeof *S);
    size_t ns = filter_epochs(S, s->nepochs);
    int32_t seg_last = S[ns - 1].epoch;
    if (seg_last < L[0].epoch || seg_last > L[nl - 1].epoch) {
        snprintf(why, wn, "its last epoch %d is outside the local lineage's epochs %d..%d", seg_last, L[0].epoch,
                 L[nl - 1].epoch);
        return false;
    }
    const kf_leader_epoch *first = NULL;
    for (size_t i = 0; i < ns && !first; i++)
        if (S[i].epoch >= L[0].epoch)
            first = &S[i];
    if (!first) {
        snprintf(why, wn, "none of its epochs reaches the local lineage's first epoch %d", L[0].epoch);
        return false;
    }
    for (size_t i = 0; i < ns; i++) {
        int32_t epoch = S[i].epoch;
        if (epoch < first->epoch)
            continue;
        const kf_leader_epoch *le = epoch_in(L, nl, epoch);
        if (!le) {
            snprintf(why, wn, "its epoch %d is not in the local lineage", epoch);
            return false;
        }
        if (epoch == first->epoch && le != &L[0] && S[i].start_offset < le->start_offset) {
            snprintf(why, wn, "its epoch %d starts at offset %" PRId64 ", before the local lineage's %" PRId64, epoch,
                     S[i].start_offset, le->start_offset);
            return false;
        }
        if (epoch == seg_last) {
            const kf_leader_epoch *next = higher(L, nl, epoch);
            if (next && s->end > next->start_offset - 1) {
                snprintf(why, wn, "it ends at offset %" PRId64 ", past the end of epoch %d in the local lineage (%" PRId64
                                  ")",
                         s->end, epoch, next->start_offset - 1);
                return false;
            }
        } else {
            const kf_leader_epoch *ln = higher(L, nl, epoch), *sn = higher(S, ns, epoch);
            if (!ln || ln->epoch != sn->epoch || ln->start_offset != sn->start_offset) {
                if (ln)
                    snprintf(why, wn, "after epoch %d it goes to epoch %d at offset %" PRId64
                                      ", the local lineage to epoch %d at offset %" PRId64,
                             epoch, sn->epoch, sn->start_offset, ln->epoch, ln->start_offset);
                else
                    snprintf(why, wn, "after epoch %d it goes to epoch %d at offset %" PRId64
                                      ", where the local lineage has no later epoch",
                             epoch, sn->epoch, sn->start_offset);
                return false;
            }
        }
    }
    if (s->end >= log_end) {
        snprintf(why, wn, "it ends at offset %" PRId64 ", at or past the local log end %" PRId64, s->end, log_end);
        return false;
    }
    return true;
}

/* ---- the judgement ----------------------------------------------------------------------- */

int rm_tier_judge(const rm_state *st, uint32_t part, const uint32_t *segs, size_t nsegs, const rm_locals *l,
                  kf_remote_partition *r, kf_remote_range **ranges, rm_add_finding_fn add, void *add_ctx)
{
    *ranges = NULL;
    r->n_no_tier = 0;
    r->offsets_in_no_tier = 0;
    if (!l->n)
        return KF_OK;
    int64_t ls = INT64_MIN, end = INT64_MIN, local = INT64_MAX;
    const kf_remote_local *lead = NULL;
    for (size_t i = 0; i < l->n; i++) {
        const kf_remote_local *b = &l->v[i];
        if (b->log_start_offset > ls)
            ls = b->log_start_offset;
        if (b->log_end_offset > end)
            end = b->log_end_offset;
        if (b->log_end_offset > b->local_log_start_offset && b->local_log_start_offset < local)
            local = b->local_log_start_offset;
        if (b->has_epochs && (!lead || b->log_end_offset > lead->log_end_offset))
            lead = b;
    }
    if (local == INT64_MAX)
        local = end;
    r->log_start_offset = ls;
    r->local_log_start_offset = local < ls ? ls : local;
    r->has_tier_gap = local > ls;

    spans cover = {0}, out = {0};
    bool ok = true;
    for (size_t i = 0; i < l->n && ok; i++)
        ok = span_add(&cover, l->v[i].local_log_start_offset, l->v[i].log_end_offset);
    if (part != RM_NONE) {
        if (lead) {
            for (size_t i = 0; i < l->n && ok; i++)
                if (l->v[i].has_epochs)
                    ok = reachable_by(st, part, &l->v[i], &cover);
        } else {
            /* no copy has an epoch lineage: what the finished segments hold */
            for (size_t i = 0; i < nsegs && ok; i++) {
                const rm_seg *s = &st->segs[segs[i]];
                if (s->state == KF_REMOTE_COPY_FINISHED)
                    ok = span_add(&cover, s->start, s->end + 1);
            }
        }
    }
    ok = ok && span_subtract(ls, end, &cover, &out);
    free(cover.v);
    if (!ok) {
        free(out.v);
        return kf_error_nomem();
    }
    for (size_t i = 0; i < out.n; i++)
        r->offsets_in_no_tier = kf_sat_addu(r->offsets_in_no_tier,
                                            (uint64_t)kf_offsets_between(out.v[i].from_offset, out.v[i].to_offset));
    *ranges = out.v;
    r->no_tier = out.v;
    r->n_no_tier = out.n;

    if (!lead || part == RM_NONE)
        return KF_OK;
    kf_leader_epoch *L = malloc(lead->n_leader_epochs * sizeof *L);
    if (!L)
        return kf_error_nomem();
    memcpy(L, lead->leader_epochs, lead->n_leader_epochs * sizeof *L);
    size_t nl = filter_epochs(L, lead->n_leader_epochs);
    int rc = KF_OK;
    for (size_t i = 0; i < nsegs && rc == KF_OK; i++) {
        const rm_seg *s = &st->segs[segs[i]];
        if (s->state != KF_REMOTE_COPY_FINISHED)
            continue;
        kf_leader_epoch *S = malloc(s->nepochs * sizeof *S);
        if (!S) {
            rc = KF_ERR_NOMEM;
            break;
        }
        char why[200];
        if (!within_lineage(s, L, nl, lead->log_end_offset, S, why, sizeof why)) {
            kf_remote_segment f = {.finding = KF_REMOTE_EPOCH_CHAIN_BREAK, .lineage_broker = lead->broker,
                                   .reason = why};
            memcpy(f.segment_id, s->id, 16);
            rc = add(add_ctx, &f);
        }
        free(S);
    }
    free(L);
    return rc;
}
