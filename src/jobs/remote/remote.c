/* Room jobs/remote/: tiered storage reconciled (`kfsck remote`,
 * include/kfsck/remote.h, docs/formats.md §22). remote.c, the driver (this
 * file); remote_cache.c, the state a broker keeps of __remote_log_metadata
 * and the rules it changes it by; remote_replay.c, a metadata partition's
 * records into that state; remote_local.c, the local copies and the offsets
 * in no tier; remote_storage.c, the remote storage's objects against the
 * metadata; remote_index.c, the remote-log-index-cache.
 *
 * remote.c: replays every __remote_log_metadata partition among the
 * inputs, reads the storage or listing when one is given, then reports each
 * tiered partition in (topic, partition) order: the replayed ones, the
 * local ones of topics with remote.storage.enable=true in the KRaft
 * metadata, and those only the storage's orphans name; then the index
 * cache. Memory is the live segments, one partition's findings at a time,
 * and the orphans. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "format/order.h"
#include "bytes/grow.h"
#include "bytes/opts.h"
#include "jobs/remote/remote_internal.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/file.h"
#include "bytes/satmath.h"

#define METADATA_TOPIC "__remote_log_metadata"
#define DEFAULT_METADATA_PARTITIONS 50 /* remote.log.metadata.topic.num.partitions */
#define MAX_METADATA_PARTITIONS (1 << 16)

void kf_remote_opts_init(kf_remote_opts *o)
{
    *o = (kf_remote_opts)KF_REMOTE_OPTIONS_INIT;
}

const char *kf_remote_finding_name(kf_remote_finding f)
{
    static const char *const n[] = {"copy_stuck", "delete_pending", "missing_in_storage", "epoch_chain_break",
                                    "orphan"};
    return (unsigned)f < 5 ? n[f] : "unknown";
}

/* ---- the partitions to report ---------------------------------------------------------- */

typedef struct rep {
    const char *topic;
    int32_t partition;
    bool has_id;
    uint8_t topic_id[16];
    uint32_t part;             /* in the replayed state, or RM_NONE */
    const kf_partition *local; /* its copies among the inputs, or NULL */
    size_t orphan_from, orphan_to;
} rep;

typedef struct rep_list {
    rep *v;
    size_t n, cap;
} rep_list;

static rep *rep_add(rep_list *r)
{
    if (!KF_GROW(r->v, r->n, r->cap, 32))
        return NULL;
    rep *e = &r->v[r->n++];
    memset(e, 0, sizeof *e);
    e->part = RM_NONE;
    return e;
}

static int cmp_rep(const void *a, const void *b)
{
    const rep *x = a, *y = b;
    int c = kf_cmp_topic_partition(x->topic, x->partition, y->topic, y->partition);
    if (c)
        return c;
    if (x->has_id != y->has_id)
        return x->has_id ? -1 : 1;
    return x->has_id ? memcmp(x->topic_id, y->topic_id, 16) : 0;
}

/* The topic id of a local partition: its copies' partition.metadata, else
 * the KRaft image's. */
static bool local_topic_id(const kf_partition *p, const kf_metadata *m, uint8_t id[16])
{
    for (size_t c = 0; c < p->ncopies; c++)
        if (rm_dir_topic_id(p->copies[c].label, id))
            return true;
    const kf_md_topic *t = m ? kf_metadata_topic_by_name(m, p->topic) : NULL;
    if (t)
        memcpy(id, t->id, 16);
    return t != NULL;
}

static bool remote_enabled(const kf_metadata *m, const char *topic)
{
    const char *v = m ? kf_metadata_config(m, KF_CONFIG_TOPIC, topic, "remote.storage.enable") : NULL;
    return v && !strcmp(v, "true");
}

/* Every partition to report, sorted, the same partition merged once. */
static int collect_reps(const kf_inputs *in, const rm_state *st, const rm_storage *sg, const kf_remote_opts *o,
                        rep_list *out)
{
    rep_list r = {0};
    htab names = {0}; /* (name, partition) of the replayed partitions */
    for (uint32_t i = 0; i < st->nparts; i++) {
        char key[300];
        int kl = snprintf(key, sizeof key, "%s%c%d", st->parts[i].topic, 0, st->parts[i].partition);
        if (kl <= 0 || (size_t)kl >= sizeof key)
            continue;
        void **slot = htab_put(&names, key, (uint32_t)kl, NULL);
        if (!slot)
            goto nomem;
        *slot = &st->parts[i]; /* present */
    }
    for (uint32_t i = 0; i < st->nparts; i++) {
        rep *e = rep_add(&r);
        if (!e)
            goto nomem;
        e->topic = st->parts[i].topic;
        e->partition = st->parts[i].partition;
        e->has_id = true;
        memcpy(e->topic_id, st->parts[i].topic_id, 16);
        e->part = i;
        e->orphan_from = e->orphan_to = 0;
    }
    for (size_t i = 0; i < in->n; i++) {
        const kf_partition *p = &in->parts[i];
        if (!p->topic[0] || p->topic[0] == '_' || p->partition < 0)
            continue; /* internal topics are never tiered */
        char key[300];
        int kl = snprintf(key, sizeof key, "%s%c%d", p->topic, 0, p->partition);
        bool known = kl > 0 && (size_t)kl < sizeof key && htab_get(&names, key, (uint32_t)kl) != NULL;
        if (!known && !remote_enabled(o->metadata, p->topic))
            continue;
        rep *e = rep_add(&r);
        if (!e)
            goto nomem;
        e->topic = p->topic;
        e->partition = p->partition;
        e->has_id = local_topic_id(p, o->metadata, e->topic_id);
        e->local = p;
    }
    for (size_t i = 0; i < sg->norphans;) {
        size_t j = i + 1;
        while (j < sg->norphans && sg->orphans[j].partition == sg->orphans[i].partition &&
               !memcmp(sg->orphans[j].topic_id, sg->orphans[i].topic_id, 16) &&
               !strcmp(sg->orphans[j].topic, sg->orphans[i].topic))
            j++;
        rep *e = rep_add(&r);
        if (!e)
            goto nomem;
        e->topic = sg->orphans[i].topic;
        e->partition = sg->orphans[i].partition;
        e->has_id = true;
        memcpy(e->topic_id, sg->orphans[i].topic_id, 16);
        e->orphan_from = i;
        e->orphan_to = j;
        i = j;
    }
    if (r.n)
        qsort(r.v, r.n, sizeof *r.v, cmp_rep);
    /* merge the entries of one partition: a local one without an id joins
     * the replayed one of its name */
    size_t w = 0;
    for (size_t i = 0; i < r.n; i++) {
        rep *e = &r.v[i];
        if (w) {
            rep *last = &r.v[w - 1];
            bool same = last->partition == e->partition && !strcmp(last->topic, e->topic) &&
                        (!e->has_id || !last->has_id || !memcmp(last->topic_id, e->topic_id, 16));
            if (same) {
                if (e->part != RM_NONE)
                    last->part = e->part;
                if (e->local)
                    last->local = e->local;
                if (e->orphan_to > e->orphan_from) {
                    last->orphan_from = e->orphan_from;
                    last->orphan_to = e->orphan_to;
                }
                if (!last->has_id && e->has_id) {
                    last->has_id = true;
                    memcpy(last->topic_id, e->topic_id, 16);
                }
                continue;
            }
        }
        r.v[w++] = *e;
    }
    r.n = w;
    /* a partition whose remote deletion finished is reported only for its orphans */
    w = 0;
    for (size_t i = 0; i < r.n; i++) {
        rep *e = &r.v[i];
        if (e->part != RM_NONE && st->parts[e->part].gone && e->orphan_to == e->orphan_from && !e->local)
            continue;
        r.v[w++] = *e;
    }
    r.n = w;
    htab_free(&names);
    *out = r;
    return KF_OK;
nomem:
    htab_free(&names);
    free(r.v);
    return kf_error_nomem();
}

/* ---- one partition ----------------------------------------------------------------- */

typedef struct findings {
    kf_remote_segment *v;
    size_t n, cap;
    const rm_state *st;
    uint32_t part;
} findings;

static kf_remote_segment *finding_add(findings *f)
{
    if (!KF_GROW(f->v, f->n, f->cap, 16))
        return NULL;
    kf_remote_segment *s = &f->v[f->n++];
    memset(s, 0, sizeof *s);
    s->lineage_broker = -1;
    return s;
}

/* A finding about a live segment, its fields from the segment. */
static kf_remote_segment *segment_finding(findings *f, const rm_seg *s, kf_remote_finding what)
{
    kf_remote_segment *r = finding_add(f);
    if (!r)
        return NULL;
    r->finding = what;
    memcpy(r->segment_id, s->id, 16);
    r->start_offset = s->start;
    r->end_offset = s->end;
    r->state = s->state;
    r->event_timestamp = s->event_ts;
    r->started_timestamp = s->started_ts;
    r->broker_id = s->broker_id;
    r->max_timestamp = s->max_ts;
    r->size_bytes = s->size;
    r->leader_epochs = rm_seg_epochs(s);
    r->n_leader_epochs = s->nepochs;
    r->object_prefix = s->key_prefix;
    r->found_objects = s->objects;
    r->bytes = s->storage_bytes;
    return r;
}

static int add_chain_break(void *ctx, const kf_remote_segment *b)
{
    findings *f = ctx;
    uint32_t idx = rm_seg_find(f->st, f->part, b->segment_id);
    if (idx == RM_NONE)
        return KF_OK; /* the judge names this partition's own segments: not reached */
    kf_remote_segment *r = segment_finding(f, &f->st->segs[idx], KF_REMOTE_EPOCH_CHAIN_BREAK);
    if (!r)
        return kf_error_nomem();
    r->lineage_broker = b->lineage_broker;
    r->reason = strdup(b->reason ? b->reason : "");
    return r->reason ? KF_OK : kf_error_nomem();
}

static int cmp_finding(const void *a, const void *b)
{
    const kf_remote_segment *x = a, *y = b;
    if (x->finding != y->finding)
        return x->finding < y->finding ? -1 : 1;
    if (x->start_offset != y->start_offset)
        return x->start_offset < y->start_offset ? -1 : 1;
    return memcmp(x->segment_id, y->segment_id, 16);
}

/* The objects a finished segment needs: under Aiven's layout its log and
 * manifest, under LocalTieredStorage's every file but the optional
 * transaction index; with none found, at least its log. */
static unsigned needed_objects(const rm_seg *s)
{
    if (s->aiven)
        return KF_REMOTE_OBJ_LOG | KF_REMOTE_OBJ_MANIFEST;
    if (!s->objects)
        return KF_REMOTE_OBJ_LOG;
    return KF_REMOTE_OBJ_LOG | KF_REMOTE_OBJ_INDEX | KF_REMOTE_OBJ_TIMEINDEX | KF_REMOTE_OBJ_SNAPSHOT |
           KF_REMOTE_OBJ_EPOCHS;
}

typedef struct run {
    const kf_remote_opts *o;
    rm_state *st;
    rm_storage *sg;
    const rm_judge *judge;
    const uint32_t *sorted;    /* live segments by (partition, start) */
    size_t nsorted;
    int64_t now, stuck_after;
    bool have_storage;
    kf_remote_totals *t;
} run;

/* The live segments of part in r->sorted: [*from, return). */
static size_t segs_of(const run *r, uint32_t part, size_t *from)
{
    size_t lo = 0, hi = r->nsorted;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->st->segs[r->sorted[mid]].part < part)
            lo = mid + 1;
        else
            hi = mid;
    }
    *from = lo;
    while (hi < r->nsorted && r->st->segs[r->sorted[hi]].part == part)
        hi++;
    return hi;
}

static int report_partition(run *r, const rep *e, kf_remote_partition_fn fn, void *ctx)
{
    const rm_state *st = r->st;
    kf_remote_partition p;
    memset(&p, 0, sizeof p);
    p.topic = e->topic;
    p.partition = e->partition;
    p.has_topic_id = e->has_id;
    memcpy(p.topic_id, e->topic_id, 16);
    p.in_metadata = e->part != RM_NONE;
    p.partition_delete_state = -1;
    p.has_orphan_bytes = r->have_storage;
    int32_t mpart = -1;
    p.judged = e->part != RM_NONE || (e->has_id && rm_judged(r->judge, e->topic_id, e->partition, &mpart));
    if (e->part != RM_NONE)
        mpart = st->parts[e->part].mpart;
    else if (!e->has_id)
        mpart = -1;
    p.metadata_partition = mpart;
    if (mpart >= 0 && (size_t)mpart < r->judge->nstops && r->judge->stops_at[mpart] >= 0) {
        p.has_metadata_stop = true;
        p.metadata_stop_offset = r->judge->stops_at[mpart];
    }

    findings f = {.st = st, .part = e->part};
    size_t from = 0, to = 0;
    if (e->part != RM_NONE) {
        const rm_part *rp = &st->parts[e->part];
        to = segs_of(r, e->part, &from);
        p.segments[3] = rp->finished;
        p.partition_delete_state = rp->delete_state;
        p.partition_delete_timestamp = rp->delete_ts;
        for (size_t i = from; i < to; i++) {
            const rm_seg *s = &st->segs[r->sorted[i]];
            p.segments[s->state]++;
            kf_remote_segment *x = NULL;
            if (s->state == KF_REMOTE_COPY_FINISHED) {
                if (!p.has_remote_range || s->start < p.remote_start_offset)
                    p.remote_start_offset = s->start;
                if (!p.has_remote_range || s->end > p.remote_end_offset)
                    p.remote_end_offset = s->end;
                p.has_remote_range = true;
                p.remote_bytes += (uint64_t)(s->size > 0 ? s->size : 0);
                unsigned need = needed_objects(s);
                if (r->have_storage && (s->objects & need) != need) {
                    if (!(x = segment_finding(&f, s, KF_REMOTE_MISSING_IN_STORAGE)))
                        goto nomem;
                    x->missing_objects = need & ~(unsigned)s->objects;
                }
            } else if (s->state == KF_REMOTE_COPY_STARTED && r->now - s->event_ts > r->stuck_after) {
                if (!(x = segment_finding(&f, s, KF_REMOTE_COPY_STUCK)))
                    goto nomem;
                x->age_ms = r->now - s->event_ts;
            } else if (s->state == KF_REMOTE_DELETE_STARTED) {
                if (!(x = segment_finding(&f, s, KF_REMOTE_DELETE_PENDING)))
                    goto nomem;
                x->age_ms = r->now - s->event_ts;
            }
        }
    }
    /* the stuck copies' object names: what the storage holds, else the stem */
    char (*stems)[48] = NULL;
    size_t nstuck = 0;
    for (size_t i = 0; i < f.n; i++)
        nstuck += f.v[i].finding == KF_REMOTE_COPY_STUCK && !f.v[i].object_prefix;
    if (nstuck && !(stems = calloc(nstuck, sizeof *stems)))
        goto nomem;
    for (size_t i = 0, k = 0; i < f.n; i++)
        if (f.v[i].finding == KF_REMOTE_COPY_STUCK && !f.v[i].object_prefix) {
            char id[23];
            kf_uuid_to_b64(f.v[i].segment_id, id);
            snprintf(stems[k], sizeof stems[k], "%020" PRId64 "-%s", f.v[i].start_offset, id);
            f.v[i].object_prefix = stems[k++];
        }

    rm_locals l;
    int rc = rm_locals_read(&l, e->local, e->has_id ? e->topic_id : NULL, r->o);
    kf_remote_range *ranges = NULL;
    p.locals = l.v;
    p.n_locals = l.n;
    if (rc == KF_OK && p.judged)
        rc = rm_tier_judge(st, e->part, r->sorted + from, to - from, &l, &p, &ranges, add_chain_break, &f);
    for (size_t i = e->orphan_from; i < e->orphan_to && rc == KF_OK; i++) {
        const rm_orphan *o = &r->sg->orphans[i];
        kf_remote_segment *x = finding_add(&f);
        if (!x) {
            rc = KF_ERR_NOMEM;
            break;
        }
        x->finding = KF_REMOTE_ORPHAN;
        memcpy(x->segment_id, o->segment_id, 16);
        x->start_offset = o->start;
        x->end_offset = -1;
        x->state = -1;
        x->event_timestamp = x->started_timestamp = -1;
        x->broker_id = -1;
        x->max_timestamp = -1;
        x->size_bytes = -1;
        x->keys = (const char *const *)o->keys;
        x->n_keys = o->nkeys;
        x->bytes = o->bytes;
        p.orphan_bytes += o->bytes;
    }
    if (rc == KF_OK) {
        if (f.n)
            qsort(f.v, f.n, sizeof *f.v, cmp_finding);
        p.findings = f.v;
        p.n_findings = f.n;
        for (size_t i = 0; i < f.n; i++) {
            p.counts[f.v[i].finding]++;
            r->t->counts[f.v[i].finding]++;
        }
        r->t->partitions++;
        r->t->offsets_in_no_tier = kf_sat_addu(r->t->offsets_in_no_tier, p.offsets_in_no_tier);
        r->t->partitions_with_gap += p.offsets_in_no_tier > 0;
        if (fn)
            rc = fn(ctx, &p);
    }
    for (size_t i = 0; i < f.n; i++)
        if (f.v[i].finding == KF_REMOTE_EPOCH_CHAIN_BREAK)
            free((char *)f.v[i].reason);
    free(f.v);
    free(stems);
    free(ranges);
    rm_locals_free(&l);
    return rc;
nomem:
    free(f.v);
    return kf_error_nomem();
}

/* ---- the run ----------------------------------------------------------------------------- */

typedef struct live_key {
    uint32_t part;
    uint32_t idx;
    int64_t start;
    const uint8_t *id;
} live_key;

static int cmp_live(const void *a, const void *b)
{
    const live_key *x = a, *y = b;
    if (x->part != y->part)
        return x->part < y->part ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return memcmp(x->id, y->id, 16);
}

/* The live segments by (partition, start offset). */
static uint32_t *sort_live(const rm_state *st, size_t *n)
{
    size_t cap = st->live ? st->live : 1;
    live_key *k = malloc(cap * sizeof *k);
    uint32_t *v = malloc(cap * sizeof *v);
    if (!k || !v) {
        free(k);
        free(v);
        return NULL;
    }
    size_t m = 0;
    for (uint32_t i = 0; i < st->nsegs; i++)
        if (st->segs[i].state >= 0)
            k[m++] = (live_key){st->segs[i].part, i, st->segs[i].start, st->segs[i].id};
    if (m)
        qsort(k, m, sizeof *k, cmp_live);
    for (size_t i = 0; i < m; i++)
        v[i] = k[i].idx;
    free(k);
    *n = m;
    return v;
}

/* The metadata topic's partition count: the KRaft image's, else Kafka's
 * default when every partition among the inputs is below it, else unknown. */
static int32_t metadata_partitions(const kf_remote_opts *o, int32_t highest)
{
    const kf_md_topic *t = o->metadata ? kf_metadata_topic_by_name(o->metadata, METADATA_TOPIC) : NULL;
    if (t && t->nparts && t->nparts <= MAX_METADATA_PARTITIONS && (int32_t)t->nparts > highest)
        return (int32_t)t->nparts;
    return highest < DEFAULT_METADATA_PARTITIONS ? DEFAULT_METADATA_PARTITIONS : 0;
}

int kf_remote_run(const kf_inputs *in, const kf_remote_opts *o, kf_remote_partition_fn partition_fn,
                  kf_remote_index_fn index_fn, void *ctx, kf_remote_totals *tot)
{
    kf_remote_totals t;
    memset(&t, 0, sizeof t);
    kf_remote_opts own;
    if (kf_opts_take(&own, o, sizeof own, KF_REMOTE_OPTIONS_VERSION, NULL) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    kf_opts_nested(&own.read.version, KF_PART_READER_OPTIONS_VERSION);
    o = &own;

    rm_state st;
    memset(&st, 0, sizeof st);
    st.free_head = RM_NONE;
    rm_storage sg;
    memset(&sg, 0, sizeof sg);
    rep_list reps = {0};
    uint32_t *sorted = NULL;
    bool *replayed = NULL;
    int64_t *stops_at = NULL;
    int rc = KF_OK;

    /* the metadata partitions */
    int32_t highest = -1;
    int64_t newest = 0;
    for (size_t i = 0; i < in->n; i++)
        if (!strcmp(in->parts[i].topic, METADATA_TOPIC) && in->parts[i].partition > highest)
            highest = in->parts[i].partition;
    size_t nrep = (size_t)(highest < MAX_METADATA_PARTITIONS ? highest + 2 : 1);
    replayed = calloc(nrep, sizeof *replayed);
    stops_at = malloc(nrep * sizeof *stops_at);
    if (!replayed || !stops_at) {
        rc = KF_ERR_NOMEM;
        goto done;
    }
    for (size_t i = 0; i < nrep; i++)
        stops_at[i] = -1;
    for (size_t i = 0; i < in->n && rc == KF_OK; i++) {
        const kf_partition *p = &in->parts[i];
        if (strcmp(p->topic, METADATA_TOPIC) || p->partition < 0)
            continue;
        rm_replay_result res = {0};
        rc = rm_replay_partition(&st, p, p->partition, o, &res);
        if (st.nomem)
            rc = KF_ERR_NOMEM;
        if (p->partition < MAX_METADATA_PARTITIONS) {
            replayed[p->partition] = true;
            int64_t *at = &stops_at[p->partition];
            if (res.fatal && (*at < 0 || res.first_fatal_offset < *at))
                *at = res.first_fatal_offset;
        }
        t.metadata_partitions++;
        t.records += res.records;
        t.rejected += res.rejected;
        t.fatal_records += res.fatal;
        t.incomplete |= res.incomplete;
        t.unreadable |= res.unreadable;
        if (res.newest_event_ts > newest)
            newest = res.newest_event_ts;
    }
    if (rc != KF_OK)
        goto done;
    t.peak_live_segments = st.peak_live;
    rm_judge judge = {.replayed = replayed,
                      .n = highest < MAX_METADATA_PARTITIONS ? metadata_partitions(o, highest) : 0,
                      .stops_at = stops_at,
                      .nstops = nrep};
    if (judge.n > highest + 1) {
        /* the judge reads replayed[0..n): widen it */
        bool *w = calloc((size_t)judge.n, sizeof *w);
        if (!w) {
            rc = KF_ERR_NOMEM;
            goto done;
        }
        memcpy(w, replayed, (size_t)(highest + 1) * sizeof *w);
        free(replayed);
        replayed = w;
        judge.replayed = w;
    }

    /* the storage */
    bool have_storage = o->storage_dir || o->listing_path;
    if (have_storage && (rc = rm_storage_read(&sg, &st, &judge, o)) != KF_OK)
        goto done;
    t.objects = sg.objects;
    t.unrecognised_objects = sg.unrecognised;
    t.unjudged_objects = sg.unjudged;
    t.listing_bad_lines = sg.bad_lines;

    /* the partitions */
    if ((rc = collect_reps(in, &st, &sg, o, &reps)) != KF_OK)
        goto done;
    size_t nsorted = 0;
    if (!(sorted = sort_live(&st, &nsorted))) {
        rc = KF_ERR_NOMEM;
        goto done;
    }
    run r = {.o = o, .st = &st, .sg = &sg, .judge = &judge, .sorted = sorted, .nsorted = nsorted,
             .now = o->now_ms ? o->now_ms : newest,
             .stuck_after = o->stuck_after_ms > 0 ? o->stuck_after_ms : KF_REMOTE_STUCK_AFTER_MS_DEFAULT,
             .have_storage = have_storage, .t = &t};
    for (size_t i = 0; i < reps.n && rc == KF_OK; i++)
        rc = report_partition(&r, &reps.v[i], partition_fn, ctx);

    /* the index cache: stale entries are judged when every metadata partition was replayed */
    bool all = judge.n > 0;
    for (int32_t i = 0; i < judge.n && all; i++)
        all = replayed[i];
    if (rc == KF_OK)
        rc = rm_index_cache_check(&st, all, o, index_fn, ctx, &t);
done:
    free(sorted);
    free(reps.v);
    free(replayed);
    free(stops_at);
    rm_storage_free(&sg);
    rm_state_free(&st);
    if (tot)
        *tot = t;
    return rc;
}
