/* remote_cache.c: the state a broker keeps of __remote_log_metadata, and the
 * rules it changes it by (docs/formats.md §22.2): Kafka's
 * RemotePartitionMetadataStore (a cache per user partition, partition
 * delete metadata), RemoteLogMetadataCache (the live segments by id, the
 * state transitions it accepts and the ones it drops) and
 * RemoteLogLeaderEpochState (per leader epoch, the finished segments by the
 * offset their epoch starts at in them, with the rule that a segment
 * copied again by a later leader over the same offsets replaces the
 * earlier ones; highestLogOffset). A segment is forgotten when it reaches
 * DELETE_SEGMENT_FINISHED, so memory follows the live segments.
 *
 * Segments live in one pool indexed by a (partition, segment id) hash
 * table of 4-byte slots; an epoch's offset map is a sorted array whose
 * removed entries stay as holes until they outnumber the live ones (the
 * oldest segments are deleted first: a removal at the front costs no
 * move). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/grow.h"
#include "bytes/openaddr.h"
#include "bytes/sorted.h"
#include "jobs/remote/remote_internal.h"

/* ---- names -------------------------------------------------------------- */

const char *kf_remote_state_name(int state)
{
    static const char *const n[] = {"copy_segment_started", "copy_segment_finished", "delete_segment_started",
                                    "delete_segment_finished"};
    return state >= 0 && state < 4 ? n[state] : NULL;
}

const char *kf_remote_partition_state_name(int state)
{
    static const char *const n[] = {"delete_partition_marked", "delete_partition_started",
                                    "delete_partition_finished"};
    return state >= 0 && state < 3 ? n[state] : NULL;
}

/* Kafka's enum names, for the words of a dropped event. */
static const char *state_kafka(int state)
{
    static const char *const n[] = {"COPY_SEGMENT_STARTED", "COPY_SEGMENT_FINISHED", "DELETE_SEGMENT_STARTED",
                                    "DELETE_SEGMENT_FINISHED"};
    return state >= 0 && state < 4 ? n[state] : "?";
}

/* RemoteLogSegmentState.isValidTransition (src -1: no metadata yet). */
static bool valid_transition(int src, int target)
{
    if (src < 0)
        return target == KF_REMOTE_COPY_STARTED;
    if (src == target)
        return true;
    if (src == KF_REMOTE_COPY_STARTED)
        return target == KF_REMOTE_COPY_FINISHED || target == KF_REMOTE_DELETE_STARTED;
    if (src == KF_REMOTE_COPY_FINISHED)
        return target == KF_REMOTE_DELETE_STARTED;
    if (src == KF_REMOTE_DELETE_STARTED)
        return target == KF_REMOTE_DELETE_FINISHED;
    return false;
}

/* ---- partitions ------------------------------------------------------------ */

static bool id_eq(const uint8_t x[16], const uint8_t y[16])
{
    uint64_t a[2], b[2];
    memcpy(a, x, 16);
    memcpy(b, y, 16);
    return ((a[0] ^ b[0]) | (a[1] ^ b[1])) == 0;
}

/* A 32-bit hash of a 16-byte id (a topic's, a segment's) and salt. */
static uint32_t id_hash_with(const uint8_t id[16], uint32_t salt)
{
    uint64_t a, b;
    memcpy(&a, id, 8);
    memcpy(&b, id + 8, 8);
    return (uint32_t)(htab_mix64(a ^ (b * 0x9e3779b97f4a7c15ull) ^ salt) >> 32);
}

static uint32_t part_hash(const uint8_t topic_id[16], int32_t partition)
{
    return id_hash_with(topic_id, (uint32_t)partition);
}

static bool part_is(const rm_part *p, const uint8_t topic_id[16], int32_t partition, const char *name, size_t len)
{
    return p->partition == partition && id_eq(p->topic_id, topic_id) && p->topic_len == len &&
           !memcmp(p->topic, name, len);
}

/* This file's arrays and tables count in 32 bits (an index is a uint32_t,
 * RM_NONE the largest): their capacities double up to 2^31 at most.
 *
 * grow32: KF_GROW (bytes/grow.h) for such an array: room in *pv (n used of
 * *cap) for one element more. */
static bool grow32(void *pv, uint32_t n, uint32_t *cap, size_t elem, uint32_t first)
{
    size_t c = *cap;
    if (n < c)
        return true;
    if (c > UINT32_MAX / 2 || !kf_grow_(pv, &c, elem, first))
        return false;
    *cap = (uint32_t)c;
    return true;
}

/* kf_oa_grow for such a table; inlined as kf_oa_grow is, for the shape to
 * stay a constant. */
KF_OA_INLINE bool slots_grow(const kf_oa_shape *sh, void *pslots, uint32_t *cap, uint32_t first, const rm_state *st)
{
    size_t n = *cap;
    if (n > UINT32_MAX / 2 || !kf_oa_grow(sh, pslots, &n, first, st))
        return false;
    *cap = (uint32_t)n;
    return true;
}

/* The partitions' table: index + 1 of each, open addressing, load at most
 * 1/2, on the probe loops of src/bytes/openaddr.h (ctx: the rm_state). Like
 * the segment table below, not the shared one (src/bytes/htab.h): no copy
 * of the key (a 16-byte topic id and a partition), no XXH3 over it, ids
 * compared as two words; with the decoder's changes that came with it,
 * callgrind counted 4,245 instead of 4,710 instructions a record over
 * 200,000 records of the bench's shape. */
static bool part_slot_used(const void *slot, const void *st)
{
    return *(const uint32_t *)slot != 0;
}

static uint64_t part_slot_hash(const void *slot, const void *st)
{
    const rm_part *p = &((const rm_state *)st)->parts[*(const uint32_t *)slot - 1];
    return part_hash(p->topic_id, p->partition);
}

static const kf_oa_shape part_shape = {.size = sizeof(uint32_t), .used = part_slot_used, .hash = part_slot_hash};

/* The partition a lookup names. */
typedef struct part_key {
    const uint8_t *topic_id;
    int32_t partition;
    const char *name;
    size_t len;
} part_key;

static bool part_slot_is(const void *slot, const void *key, const void *st)
{
    const part_key *k = key;
    const rm_part *p = &((const rm_state *)st)->parts[*(const uint32_t *)slot - 1];
    return part_is(p, k->topic_id, k->partition, k->name, k->len);
}

uint32_t rm_part_get(rm_state *st, const uint8_t topic_id[16], int32_t partition, const char *name, size_t name_len,
                     bool create)
{
    part_key k = {topic_id, partition, name, name_len};
    uint32_t hash = part_hash(topic_id, partition);
    size_t j = 0;
    if (st->npart_slots) {
        j = kf_oa_probe(&part_shape, st->part_slots, st->npart_slots, hash, part_slot_is, &k, st);
        if (st->part_slots[j])
            return st->part_slots[j] - 1;
    }
    if (!create)
        return RM_NONE;
    if ((st->nparts + 1) * 2 > st->npart_slots) {
        if (!slots_grow(&part_shape, &st->part_slots, &st->npart_slots, 64, st))
            goto nomem;
        j = kf_oa_probe(&part_shape, st->part_slots, st->npart_slots, hash, NULL, NULL, st);
    }
    if (!grow32(&st->parts, st->nparts, &st->capparts, sizeof *st->parts, 16))
        goto nomem;
    rm_part *p = &st->parts[st->nparts];
    memset(p, 0, sizeof *p);
    p->topic = malloc(name_len + 1);
    if (!p->topic)
        goto nomem;
    memcpy(p->topic, name, name_len);
    p->topic[name_len] = 0;
    p->topic_len = name_len;
    memcpy(p->topic_id, topic_id, 16);
    p->partition = partition;
    p->mpart = -1;
    p->delete_state = -1;
    p->first_seg = RM_NONE;
    st->part_slots[j] = st->nparts + 1;
    return st->nparts++;
nomem:
    st->nomem = true;
    return RM_NONE;
}

/* ---- the segment table -------------------------------------------------------- */

/* A slot: the segment's hash (its id's) in the high half, its pool index + 1
 * in the low half; 0 empty. The hash in the slot spares a look at the pool
 * for every other segment on the probe, and the table's growth and
 * deletions any. On the probe loops of src/bytes/openaddr.h (ctx: the
 * rm_state). */
static uint32_t id_hash(const uint8_t id[16]) { return id_hash_with(id, 0); }

static uint64_t slot_of(uint32_t hash, uint32_t idx) { return (uint64_t)hash << 32 | (idx + 1); }

static bool seg_slot_used(const void *slot, const void *st)
{
    return *(const uint64_t *)slot != 0;
}

static uint64_t seg_slot_hash(const void *slot, const void *st)
{
    return *(const uint64_t *)slot >> 32;
}

static const kf_oa_shape seg_shape = {.size = sizeof(uint64_t), .used = seg_slot_used, .hash = seg_slot_hash};

/* The segment a lookup names: its id, and a test of its partition. */
typedef struct seg_key {
    const uint8_t *id;
    uint32_t hash; /* id_hash(id) */
    bool (*part_ok)(const rm_state *st, uint32_t part, const void *ctx);
    const void *ctx;
} seg_key;

static bool seg_slot_is(const void *slot, const void *key, const void *st)
{
    uint64_t s = *(const uint64_t *)slot;
    const seg_key *k = key;
    if ((uint32_t)(s >> 32) != k->hash)
        return false;
    const rm_seg *g = &((const rm_state *)st)->segs[(uint32_t)s - 1];
    return id_eq(g->id, k->id) && k->part_ok(st, g->part, k->ctx);
}

/* The live segment with this id whose partition passes match, or RM_NONE. */
static uint32_t seg_probe(const rm_state *st, const uint8_t id[16], bool (*match)(const rm_state *, uint32_t, const void *),
                          const void *ctx)
{
    if (!st->nslots)
        return RM_NONE;
    seg_key k = {id, id_hash(id), match, ctx};
    uint64_t s = st->slots[kf_oa_probe(&seg_shape, st->slots, st->nslots, k.hash, seg_slot_is, &k, st)];
    return s ? (uint32_t)s - 1 : RM_NONE;
}

static bool same_part(const rm_state *st, uint32_t part, const void *ctx)
{
    (void)st;
    return part == *(const uint32_t *)ctx;
}

void rm_prefetch(const rm_state *st, const uint8_t id[16])
{
    if (st->nslots)
        __builtin_prefetch(&st->slots[id_hash(id) & (st->nslots - 1)]);
}

void rm_prefetch_segment(const rm_state *st, const uint8_t id[16])
{
    if (!st->nslots)
        return;
    uint32_t h = id_hash(id);
    uint64_t s = st->slots[h & (st->nslots - 1)];
    if (s && (uint32_t)(s >> 32) == h)
        __builtin_prefetch(&st->segs[(uint32_t)s - 1]);
}

uint32_t rm_seg_find(const rm_state *st, uint32_t part, const uint8_t id[16])
{
    return seg_probe(st, id, same_part, &part);
}

/* The partition an event names is this one (topic id, number, name). */
static bool event_part(const rm_state *st, uint32_t part, const void *ctx)
{
    const rm_event *ev = ctx;
    return part_is(&st->parts[part], ev->topic_id, ev->partition, ev->name, ev->name_len);
}

/* Room for one more live segment in the table (load at most 1/2). */
static bool slots_reserve(rm_state *st)
{
    return (st->live + 1) * 2 <= st->nslots || slots_grow(&seg_shape, &st->slots, &st->nslots, 1024, st);
}

static bool slot_equal(const void *slot, const void *key, const void *st)
{
    return *(const uint64_t *)slot == *(const uint64_t *)key;
}

/* Removes idx's slot (no tombstones). */
static void slot_remove(rm_state *st, uint32_t idx)
{
    uint64_t slot = slot_of(id_hash(st->segs[idx].id), idx);
    size_t i = kf_oa_probe(&seg_shape, st->slots, st->nslots, slot >> 32, slot_equal, &slot, st);
    kf_oa_remove(&seg_shape, st->slots, st->nslots, i, st);
}

static uint32_t seg_alloc(rm_state *st)
{
    if (!slots_reserve(st))
        return RM_NONE;
    if (st->free_head != RM_NONE) {
        uint32_t i = st->free_head;
        st->free_head = st->segs[i].part;
        return i;
    }
    if (!grow32(&st->segs, st->nsegs, &st->capsegs, sizeof *st->segs, 256))
        return RM_NONE;
    return st->nsegs++;
}

/* Takes a live segment out of the table and its partition's list, back to
 * the pool's free list. */
static void seg_release(rm_state *st, uint32_t idx)
{
    rm_seg *s = &st->segs[idx];
    rm_part *p = &st->parts[s->part];
    if (s->pprev != RM_NONE)
        st->segs[s->pprev].pnext = s->pnext;
    else
        p->first_seg = s->pnext;
    if (s->pnext != RM_NONE)
        st->segs[s->pnext].pprev = s->pprev;
    p->live--;
    slot_remove(st, idx);
    if (s->nepochs > 1)
        free(s->ep.many);
    free(s->key_prefix);
    s->key_prefix = NULL;
    s->state = -1;
    s->part = st->free_head;
    st->free_head = idx;
    st->live--;
}

void rm_state_free(rm_state *st)
{
    for (uint32_t i = 0; i < st->nparts; i++) {
        rm_part *p = &st->parts[i];
        for (uint32_t e = 0; e < p->nepochs; e++)
            free(p->epochs[e].v);
        free(p->epochs);
        free(p->topic);
    }
    for (uint32_t i = 0; i < st->nsegs; i++)
        if (st->segs[i].state >= 0) {
            if (st->segs[i].nepochs > 1)
                free(st->segs[i].ep.many);
            free(st->segs[i].key_prefix);
        }
    free(st->parts);
    free(st->segs);
    free(st->slots);
    free(st->part_slots);
    memset(st, 0, sizeof *st);
    st->free_head = RM_NONE;
}

/* ---- an epoch's offset map (RemoteLogLeaderEpochState.offsetToId) ------------ */

/* kf_lower_bound's order: an epoch state before an epoch. */
static bool epoch_below(const void *e, const void *epoch)
{
    return ((const rm_epoch *)e)->epoch < *(const int32_t *)epoch;
}

static rm_epoch *epoch_find(const rm_part *p, int32_t epoch, uint32_t *at)
{
    uint32_t lo = (uint32_t)kf_lower_bound(p->epochs, p->nepochs, sizeof *p->epochs, &epoch, epoch_below);
    if (at)
        *at = lo;
    return lo < p->nepochs && p->epochs[lo].epoch == epoch ? &p->epochs[lo] : NULL;
}

const rm_epoch *rm_epoch_of(const rm_state *st, uint32_t part, int32_t epoch)
{
    return part < st->nparts ? epoch_find(&st->parts[part], epoch, NULL) : NULL;
}

/* kf_lower_bound's order: an entry before a start offset. */
static bool ref_below(const void *r, const void *start) { return ((const rm_ref *)r)->start < *(const int64_t *)start; }

/* The first entry of v[head..n) whose start is >= start. */
static uint32_t ref_lower(const rm_epoch *e, int64_t start)
{
    if (e->head == e->n) /* none: v may be NULL */
        return e->head;
    return e->head + (uint32_t)kf_lower_bound(e->v + e->head, e->n - e->head, sizeof *e->v, &start, ref_below);
}

/* Drops holes at either end, and squeezes them out when they are many. */
static void ref_tidy(rm_epoch *e)
{
    while (e->n > e->head && e->v[e->n - 1].seg == RM_NONE) {
        e->n--;
        e->holes--;
    }
    while (e->head < e->n && e->v[e->head].seg == RM_NONE) {
        e->head++;
        e->holes--;
    }
    if (e->head == e->n) {
        e->head = e->n = e->holes = 0;
        return;
    }
    if (e->holes > 16 && e->holes * 2 > e->n - e->head) {
        uint32_t w = 0;
        for (uint32_t r = e->head; r < e->n; r++)
            if (e->v[r].seg != RM_NONE)
                e->v[w++] = e->v[r];
        e->head = 0;
        e->n = w;
        e->holes = 0;
    }
}

/* offsetToId.remove(start, seg): only when start maps to seg. */
static void ref_remove(rm_epoch *e, int64_t start, uint32_t seg)
{
    uint32_t i = ref_lower(e, start);
    if (i < e->n && e->v[i].start == start && e->v[i].seg == seg) {
        e->v[i].seg = RM_NONE;
        e->holes++;
        ref_tidy(e);
    }
}

/* offsetToId.put(start, seg). */
static bool ref_put(rm_epoch *e, int64_t start, uint32_t seg)
{
    uint32_t i = ref_lower(e, start);
    if (i < e->n && e->v[i].start == start) {
        if (e->v[i].seg == RM_NONE)
            e->holes--;
        e->v[i].seg = seg;
        return true;
    }
    if (i == e->head && e->head > 0) { /* before the first: into the room the removed ones left */
        e->v[--e->head] = (rm_ref){start, seg};
        return true;
    }
    if (e->n == e->cap) {
        if (e->head > 0) {
            memmove(e->v, e->v + e->head, (e->n - e->head) * sizeof *e->v);
            i -= e->head;
            e->n -= e->head;
            e->head = 0;
        } else if (!grow32(&e->v, e->n, &e->cap, sizeof *e->v, 4)) {
            return false;
        }
    }
    memmove(&e->v[i + 1], &e->v[i], (e->n - i) * sizeof *e->v);
    e->v[i] = (rm_ref){start, seg};
    e->n++;
    return true;
}

/* The last live entry, or NULL (the last entry is never a hole). */
static rm_ref *ref_last(rm_epoch *e) { return e->n > e->head ? &e->v[e->n - 1] : NULL; }

int64_t rm_epoch_end(const rm_seg *s, int32_t epoch)
{
    const kf_leader_epoch *ep = rm_seg_epochs(s);
    size_t i = rm_epoch_upper(ep, s->nepochs, epoch);
    return i < s->nepochs ? ep[i].start_offset - 1 : s->end;
}

/* Every epoch of ep[0..n) (sorted) in p's epoch states, the missing ones
 * merged in at once (a segment may list many epochs). */
static bool epochs_ensure(rm_part *p, const kf_leader_epoch *ep, uint32_t n)
{
    uint32_t missing = 0;
    for (uint32_t i = 0, j = 0; i < n; i++) {
        while (j < p->nepochs && p->epochs[j].epoch < ep[i].epoch)
            j++;
        missing += j == p->nepochs || p->epochs[j].epoch != ep[i].epoch;
    }
    if (!missing)
        return true;
    if (p->nepochs + missing > p->capepochs) {
        uint32_t cap = (p->nepochs + missing) * 2;
        rm_epoch *ne = realloc(p->epochs, cap * sizeof *ne);
        if (!ne)
            return false;
        p->epochs = ne;
        p->capepochs = cap;
    }
    /* from the back: the old entries and the new ones, by epoch */
    uint32_t w = p->nepochs + missing, a = p->nepochs, b = n;
    while (b > 0) {
        if (a > 0 && p->epochs[a - 1].epoch > ep[b - 1].epoch) {
            p->epochs[--w] = p->epochs[--a];
        } else if (a > 0 && p->epochs[a - 1].epoch == ep[b - 1].epoch) {
            p->epochs[--w] = p->epochs[--a];
            b--;
        } else {
            rm_epoch *e = &p->epochs[--w];
            memset(e, 0, sizeof *e);
            e->epoch = ep[--b].epoch;
        }
    }
    p->nepochs += missing;
    return true;
}

/* RemoteLogLeaderEpochState.handleSegmentWithCopySegmentFinishedState. */
static bool epoch_finished(rm_epoch *e, int64_t start, uint32_t seg, int64_t epoch_end)
{
    /* a segment copied again over these offsets by a later leader replaces
     * the ones starting at or after its start (they become unreferenced) */
    rm_ref *last;
    while ((last = ref_last(e)) && last->start >= start && e->has_highest && e->highest <= epoch_end) {
        e->n--;
        ref_tidy(e);
    }
    if (!ref_put(e, start, seg))
        return false;
    if (!e->has_highest || epoch_end > e->highest) {
        e->highest = epoch_end;
        e->has_highest = true;
    }
    return true;
}

/* ---- applying events ------------------------------------------------------------ */

/* Sets s's epochs from the event's (RemoteLogSegmentMetadata keeps a TreeMap). */
static bool seg_set_epochs(rm_seg *s, const rm_event *ev)
{
    kf_leader_epoch *many = NULL;
    if (ev->nepochs > 1) {
        many = malloc(ev->nepochs * sizeof *many);
        if (!many)
            return false;
        memcpy(many, ev->epochs, ev->nepochs * sizeof *many);
    }
    if (s->nepochs > 1)
        free(s->ep.many);
    s->nepochs = (uint32_t)ev->nepochs;
    if (many)
        s->ep.many = many;
    else
        s->ep.one = ev->epochs[0];
    return true;
}

/* addCopyInProgressSegment (a RemoteLogSegmentMetadataRecord). */
static rm_outcome add_copy_in_progress(rm_state *st, uint32_t part, const rm_event *ev, char *why, size_t n)
{
    if (ev->state != KF_REMOTE_COPY_STARTED) {
        snprintf(why, n, "segment metadata with state %s: only COPY_SEGMENT_STARTED may be added "
                         "(RemoteLogMetadataCache.addCopyInProgressSegment throws)", state_kafka(ev->state));
        return RM_FATAL;
    }
    uint32_t idx = rm_seg_find(st, part, ev->segment_id);
    if (idx != RM_NONE && st->segs[idx].state != KF_REMOTE_COPY_STARTED) {
        snprintf(why, n, "%s cannot go to %s: the broker drops the event", state_kafka(st->segs[idx].state),
                 state_kafka(ev->state));
        return RM_DROPPED;
    }
    bool fresh = idx == RM_NONE;
    if (fresh) {
        idx = seg_alloc(st);
        if (idx == RM_NONE)
            return RM_NOMEM;
        rm_seg *s = &st->segs[idx];
        memset(s, 0, sizeof *s);
        memcpy(s->id, ev->segment_id, 16);
        s->part = part;
    }
    rm_seg *s = &st->segs[idx];
    if (!seg_set_epochs(s, ev)) {
        if (fresh) {
            s->state = -1;
            s->part = st->free_head;
            st->free_head = idx;
        }
        return RM_NOMEM;
    }
    s->state = KF_REMOTE_COPY_STARTED;
    s->start = ev->start;
    s->end = ev->end;
    s->max_ts = ev->max_ts;
    s->event_ts = s->started_ts = ev->event_ts;
    s->broker_id = ev->broker_id;
    s->size = ev->size;
    if (fresh) {
        uint32_t hash = id_hash(s->id);
        st->slots[kf_oa_probe(&seg_shape, st->slots, st->nslots, hash, NULL, NULL, st)] = slot_of(hash, idx);
        rm_part *p = &st->parts[part];
        s->pprev = RM_NONE;
        s->pnext = p->first_seg;
        if (p->first_seg != RM_NONE)
            st->segs[p->first_seg].pprev = idx;
        p->first_seg = idx;
        st->live++;
        p->live++;
        if (st->live > st->peak_live)
            st->peak_live = st->live;
    }
    return RM_APPLIED;
}

/* updateRemoteLogSegmentMetadata (a RemoteLogSegmentMetadataUpdateRecord). */
static rm_outcome update_segment(rm_state *st, uint32_t part, uint32_t idx, const rm_event *ev, char *why, size_t n)
{
    if (idx == RM_NONE) {
        snprintf(why, n, "update to %s of a segment with no metadata (never added, or deleted): the broker drops it",
                 state_kafka(ev->state));
        return RM_DROPPED;
    }
    rm_seg *s = &st->segs[idx];
    if (!valid_transition(s->state, ev->state)) {
        snprintf(why, n, "%s cannot go to %s: the broker drops the event", state_kafka(s->state),
                 state_kafka(ev->state));
        return RM_DROPPED;
    }
    rm_part *p = &st->parts[part];
    const kf_leader_epoch *ep = rm_seg_epochs(s);
    switch (ev->state) {
    case KF_REMOTE_COPY_STARTED:
        snprintf(why, n, "update to COPY_SEGMENT_STARTED: RemoteLogMetadataCache.updateRemoteLogSegmentMetadata "
                         "throws");
        return RM_FATAL;
    case KF_REMOTE_COPY_FINISHED:
        if (!epochs_ensure(p, ep, s->nepochs))
            return RM_NOMEM;
        for (uint32_t i = 0; i < s->nepochs; i++) {
            /* the epoch's last offset in the segment: the next epoch's start - 1, or its end */
            int64_t end = i + 1 < s->nepochs ? ep[i + 1].start_offset - 1 : s->end;
            rm_epoch *e = epoch_find(p, ep[i].epoch, NULL);
            if (!e || !epoch_finished(e, ep[i].start_offset, idx, end))
                return RM_NOMEM;
        }
        break;
    case KF_REMOTE_DELETE_STARTED:
        for (uint32_t i = 0; i < s->nepochs; i++) {
            rm_epoch *e = epoch_find(p, ep[i].epoch, NULL);
            if (e)
                ref_remove(e, ep[i].start_offset, idx);
        }
        break;
    case KF_REMOTE_DELETE_FINISHED:
        p->finished++;
        seg_release(st, idx);
        return RM_APPLIED;
    }
    s->state = (int8_t)ev->state;
    s->event_ts = ev->event_ts;
    s->broker_id = ev->broker_id;
    return RM_APPLIED;
}

/* RemotePartitionMetadataStore.handleRemotePartitionDeleteMetadata: kept as
 * is (no transition check); DELETE_PARTITION_FINISHED drops the partition's
 * cache. */
static void delete_partition(rm_state *st, uint32_t part, const rm_event *ev)
{
    rm_part *p = &st->parts[part];
    p->delete_state = (int8_t)ev->state;
    p->delete_ts = ev->event_ts;
    if (ev->state != KF_REMOTE_PARTITION_FINISHED)
        return;
    while (p->first_seg != RM_NONE)
        seg_release(st, p->first_seg);
    for (uint32_t e = 0; e < p->nepochs; e++)
        free(p->epochs[e].v);
    free(p->epochs);
    p->epochs = NULL;
    p->nepochs = p->capepochs = 0;
    p->gone = true;
}

rm_outcome rm_apply(rm_state *st, int32_t mpart, const rm_event *ev, char *why, size_t why_len)
{
    why[0] = 0;
    /* an update finds its segment by id (its partition compared by name), the
     * partition's own lookup spared; anything else looks the partition up */
    uint32_t idx = ev->kind == 1 ? seg_probe(st, ev->segment_id, event_part, ev) : RM_NONE;
    uint32_t part = idx != RM_NONE ? st->segs[idx].part
                                   : rm_part_get(st, ev->topic_id, ev->partition, ev->name, ev->name_len, true);
    if (part == RM_NONE)
        return RM_NOMEM;
    rm_part *p = &st->parts[part];
    if (p->mpart < 0)
        p->mpart = mpart;
    if (ev->kind == 2) {
        delete_partition(st, part, ev);
        return RM_APPLIED;
    }
    if (p->gone) {
        snprintf(why, why_len, "the partition's remote deletion finished (DELETE_PARTITION_FINISHED): a broker no "
                               "longer replays its events");
        return RM_DROPPED;
    }
    rm_outcome out = ev->kind == 0 ? add_copy_in_progress(st, part, ev, why, why_len)
                                   : update_segment(st, part, idx, ev, why, why_len);
    if (out == RM_NOMEM)
        st->nomem = true;
    return out;
}
