/* Room jobs/offsets/: what the group coordinator would load from
 * __consumer_offsets, and what it means to a consumer.
 *   replay.c          the replay's rules (this file)
 *   offsets_topic.c   every partition of the topic among the inputs, on one time line
 *   offsets_asof.c    the table as it stood at a time (--as-of)
 *   offsets_table.c   the committed table; offsets_sort.c its order
 *   offsets_view.c    the consumer's view: log bounds, lag, out of range, may be stale
 *   offset_expiry.c   when the broker would expire a group's offsets
 *   groups.c          the groups model (kind, state, members)
 *   name_suggest.c    the names closest to one that matches nothing
 *   connect.c, connect_topic.c   Kafka Connect source offsets
 *
 * replay.c: the group coordinator's load-time replay of __consumer_offsets
 * (docs/formats.md §11.6, following the current Kafka 4.x coordinator):
 *   - plain offset commits: last write wins per (group, topic, partition);
 *   - offset tombstones delete, and drop the key from every open transaction;
 *   - transactional commits are staged per producer id and applied at the
 *     producer's COMMIT marker only when newer in the log than the current
 *     value; ABORT drops them;
 *   - every other record type: latest value per key bytes (groups view).
 * Every change to the committed table passes through emit(), in the order
 * it takes effect (a batch's deletions together at its end): to the history
 * callback and, with as-of, to the as-of fold (offsets_asof.c), both
 * holding only the changes whose time is at or before the cut, so --as-of
 * is the fold of --history --as-of by construction.
 * State is one hash table entry per distinct key (plus staged offsets). */
#include "bytes/report.h"
#include "bytes/opts.h"
#include "kfsck/replay.h"

#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "bytes/grow.h"
#include "bytes/htab.h"
#include "jobs/offsets/offsets_asof.h"
#include "jobs/offsets/offsets_sort.h"
#include "jobs/offsets/offsets_table.h"
#include "records/offset_commit.h"
#include "kfsck/sys/codec.h"
#include "kfsck/sys/coord.h"

typedef struct pid_stage {
    uint8_t **keys; /* staged-table keys in arrival order (may repeat) */
    uint32_t *lens;  /* their lengths (n of them too) */
    size_t n, cap, cap_lens;
} pid_stage;

/* Where the lost ranges of a partition end (kf_replay_lost_range): only
 * the highest end matters to the rows. */
typedef struct lost_end {
    int32_t partition;
    bool open;          /* a range to the end of the log */
    int64_t end_offset;
} lost_end;

/* A deletion of the batch being replayed, not yet emitted: the deletions of
 * a batch are one moment of the change stream (dated by its max timestamp)
 * and go out together at the batch's end. */
typedef struct batch_delete {
    offset_row *old;      /* the row removed (owned); NULL once emitted */
    int64_t at;           /* the tombstone's offset */
} batch_delete;

typedef struct group_rec {
    kf_group_record pub;
    uint8_t *key;
    uint8_t *value;
} group_rec;

struct kf_replay {
    kf_replay_opts o;
    int32_t partition;
    const char *file; /* the segment the batches come from (kf_replay_file); NULL: not known */
    offsets_table offsets; /* the committed table: slot -> offset_row */
    htab staged;   /* txn id + slot bytes -> offset_row* */
    htab pids;     /* pid(8) -> pid_stage* */
    htab groups;   /* raw key -> group_rec* */
    htab dead;     /* group name -> (void*)(intptr_t)type of its metadata tombstone */
    htab simple;   /* group name -> NULL: the groups an offset commit's replay creates */
    offsets_asof asof; /* with has_as_of: the table folded from the changes */
    kf_dtree tree;
    kf_buf buf;
    kf_replay_stats stats;
    const kf_offset_value **sorted;
    size_t nsorted;
    bool sorted_valid; /* sorted is the table as it is (no batch since) */
    const kf_group_record **gsorted;
    const char **dsorted;
    const char **ssorted;
    int err;       /* KF_ERR_NOMEM once allocation failed */
    kf_coord_load_error_fn load_error_fn; /* kf_replay_on_load_error */
    void *load_error_ctx;
    lost_end *lost;    /* per partition: the end of its highest lost range */
    size_t nlost;
    bool has_newest;
    int64_t newest;    /* the newest batch max timestamp replayed */
    batch_delete *dels; /* the batch's deletions, in log order */
    size_t ndels, dels_cap;
    htab del_slots;    /* slot bytes -> index + 1 in dels, not yet emitted */
    int64_t del_time;  /* their time: the batch's max timestamp */
    uint8_t *key_buf;  /* KEY_MAX bytes, made on first use: an offset key built from decoded fields */
    uint8_t *slot_buf; /* SLOT_MAX bytes, made on first use: the slot bytes of a change for the as-of fold */
};

void kf_replay_file(kf_replay *r, const char *file) { r->file = file; }

void kf_replay_opts_init(kf_replay_opts *o)
{
    *o = (kf_replay_opts)KF_REPLAY_OPTIONS_INIT;
}

int kf_replay_new(kf_replay **out, const kf_replay_opts *o)
{
    *out = NULL;
    kf_replay *r;
    int rc = KF_OPTS_NEW(&r, kf_replay, o, KF_REPLAY_OPTIONS_VERSION, max_batch_bytes);
    if (rc != KF_OK)
        return rc;
    r->partition = -1;
    offsets_asof_init(&r->asof, r->o.as_of);
    *out = r;
    return KF_OK;
}

static void free_values(htab *h)
{
    for (size_t i = 0; i < h->cap; i++)
        if (h->e[i].key)
            free(h->e[i].val);
}

static void free_stage(pid_stage *ps)
{
    for (size_t i = 0; i < ps->n; i++)
        free(ps->keys[i]);
    free(ps->keys);
    free(ps->lens);
    free(ps);
}

void kf_replay_free(kf_replay *r)
{
    if (!r)
        return;
    offsets_table_free(&r->offsets);
    free_values(&r->staged);
    for (size_t i = 0; i < r->pids.cap; i++)
        if (r->pids.e[i].key)
            free_stage(r->pids.e[i].val);
    for (size_t i = 0; i < r->groups.cap; i++)
        if (r->groups.e[i].key) {
            group_rec *g = r->groups.e[i].val;
            free(g->key);
            free(g->value);
            free(g);
        }
    htab_free(&r->staged);
    htab_free(&r->pids);
    htab_free(&r->groups);
    htab_free(&r->dead);
    htab_free(&r->simple);
    offsets_asof_free(&r->asof);
    kf_dtree_free(&r->tree);
    kf_buf_free(&r->buf);
    free(r->sorted);
    free(r->gsorted);
    free(r->dsorted);
    free(r->ssorted);
    for (size_t i = 0; i < r->ndels; i++)
        free(r->dels[i].old);
    free(r->dels);
    htab_free(&r->del_slots);
    free(r->key_buf);
    free(r->slot_buf);
    free(r->lost);
    free(r);
}

static void report(kf_replay *r, const kf_batch *b, const char *code, kf_severity sev, int64_t offset, const char *what,
                   const char *detail)
{
    kf_report_in(r->o.problem_fn, r->o.problem_ctx, r->file, code, sev, b ? b->position : 0, offset >= 0, offset, "%s: %s", what,
              detail ? detail : "");
}

/* ---- slots ------------------------------------------------------------ */

/* A slot is its offset key (offsets_table.h: the record key's bytes after
 * its type) and its source partition; the tables keyed by bytes (staged
 * offsets, the as-of fold, the batch's deletions) take the two in one
 * string, the slot bytes. Group and topic are at most 32767 bytes. */
#define KEY_MAX (2 + 32767 + 2 + 32767 + 4)
#define SLOT_MAX (KEY_MAX + 4)

/* The offset key of oc's fields, as an offset commit's record key holds it. */
static uint32_t offset_key(uint8_t out[KEY_MAX], const kf_offset_commit *oc)
{
    uint8_t *p = out;
    *p++ = (uint8_t)(oc->group_len >> 8);
    *p++ = (uint8_t)oc->group_len;
    memcpy(p, oc->group, oc->group_len);
    p += oc->group_len;
    *p++ = (uint8_t)(oc->topic_len >> 8);
    *p++ = (uint8_t)oc->topic_len;
    memcpy(p, oc->topic, oc->topic_len);
    p += oc->topic_len;
    uint32_t part = (uint32_t)oc->partition;
    for (int i = 3; i >= 0; i--)
        *p++ = (uint8_t)(part >> (8 * i));
    return (uint32_t)(p - out);
}

/* The slot bytes of key and source partition src. */
static uint32_t slot_bytes(uint8_t out[SLOT_MAX], const uint8_t *key, uint32_t klen, int32_t src)
{
    memcpy(out, key, klen);
    memcpy(out + klen, &src, 4);
    return klen + 4;
}

static uint32_t row_slot_bytes(uint8_t out[SLOT_MAX], const offset_row *row)
{
    return slot_bytes(out, row->key, row->klen, row->v.source_partition);
}

/* The numeric fields of an offset commit. */
static void fill_fields(kf_offset_value *v, const kf_offset_commit *oc)
{
    v->partition = oc->partition;
    v->offset = oc->offset;
    v->leader_epoch = oc->leader_epoch;
    v->commit_timestamp = oc->commit_timestamp;
    v->expire_timestamp = oc->expire_timestamp;
    v->has_topic_id = oc->has_topic_id;
    memcpy(v->topic_id, oc->topic_id, sizeof v->topic_id);
    v->value_version = oc->value_version;
}

/* A row of the slot (key, src; hv its hash) holding oc's value. */
static offset_row *new_row(const kf_offset_commit *oc, const uint8_t *key, uint32_t klen, int32_t src, uint64_t hv)
{
    offset_row_strings s = {oc->group, oc->topic, oc->metadata, oc->group_len, oc->topic_len, oc->metadata_len};
    offset_row *row = offset_row_new(key, klen, src, hv, &s);
    if (row)
        fill_fields(&row->v, oc);
    return row;
}

/* Every change to the table goes through here, in the order it takes
 * effect: to the caller's history callback and, with as-of, to the fold of
 * the table as of as_of. With as-of, a change whose time is after as_of
 * goes to neither (offsets_asof.h: the rule): one stream, so the as-of
 * table is the fold of the changes the callback saw. */
static void emit(kf_replay *r, const offset_row *row, bool deleted, int64_t time, int64_t at)
{
    if (r->o.has_as_of && !offsets_asof_takes(&r->asof, time))
        return;
    if (r->o.change_fn)
        r->o.change_fn(r->o.change_ctx, &row->v, deleted, time, at);
    if (r->o.has_as_of) {
        if (!r->slot_buf && !(r->slot_buf = malloc(SLOT_MAX))) {
            r->err = KF_ERR_NOMEM;
            return;
        }
        uint32_t slen = row_slot_bytes(r->slot_buf, row);
        if (offsets_asof_change(&r->asof, r->slot_buf, slen, &row->v, deleted) != KF_OK)
            r->err = KF_ERR_NOMEM;
    }
}

/* ---- the batch's deletions ------------------------------------------------
 *
 * kfsck(1) (offsets, --as-of) dates a deletion by its batch's max
 * timestamp, so the deletions of one batch are one moment: they leave the
 * table at once (the replay's own state is the coordinator's, record by
 * record) but go to the change stream together after the batch's other
 * changes, whose commit timestamps are at or before that moment. A key
 * committed again later in the same batch has its deletion emitted just
 * before that commit, so each key's changes keep their log order and the
 * stream still leaves the coordinator's table. */

static void emit_batch_delete(kf_replay *r, batch_delete *d)
{
    emit(r, d->old, true, r->del_time, d->at);
    free(d->old);
    d->old = NULL;
}

/* The deletion of row's slot, if any, goes out now (before row's commit). */
static void emit_batch_delete_of(kf_replay *r, const offset_row *row)
{
    if (!r->del_slots.n)
        return;
    uint8_t slot[SLOT_MAX];
    uintptr_t i = (uintptr_t)htab_del(&r->del_slots, slot, row_slot_bytes(slot, row));
    if (i)
        emit_batch_delete(r, &r->dels[i - 1]);
}

/* The end of a batch: its deletions not yet emitted go out, in log order. */
static void emit_batch_deletes(kf_replay *r)
{
    for (size_t i = 0; i < r->ndels; i++)
        if (r->dels[i].old)
            emit_batch_delete(r, &r->dels[i]);
    r->ndels = 0;
    if (r->del_slots.n)
        htab_free(&r->del_slots);
}

static void keep_batch_delete(kf_replay *r, offset_row *old, int64_t at)
{
    if (r->ndels == r->dels_cap) {
        size_t nc = r->dels_cap ? r->dels_cap * 2 : 16;
        batch_delete *nd = realloc(r->dels, nc * sizeof *nd);
        if (!nd) {
            r->err = KF_ERR_NOMEM;
            free(old);
            return;
        }
        r->dels = nd;
        r->dels_cap = nc;
    }
    uint8_t slot[SLOT_MAX];
    void **ix = htab_put(&r->del_slots, slot, row_slot_bytes(slot, old), NULL);
    if (!ix) {
        r->err = KF_ERR_NOMEM;
        free(old);
        return;
    }
    r->dels[r->ndels] = (batch_delete){old, at};
    *ix = (void *)(uintptr_t)++r->ndels;
}

/* Put row in the table as a change dated time (takes ownership). */
static void apply_commit(kf_replay *r, offset_row *row, int64_t time, int64_t at)
{
    offset_row *old;
    if (!offsets_table_put(&r->offsets, row, &old)) {
        r->err = KF_ERR_NOMEM;
        free(row);
        return;
    }
    if (!old)
        emit_batch_delete_of(r, row); /* absent: perhaps deleted earlier in the batch */
    free(old);
    emit(r, row, false, time, at);
}

/* A tombstone of the slot (key, the current partition; hv its hash) in the
 * batch whose max timestamp is time. */
static void apply_delete(kf_replay *r, const uint8_t *key, uint32_t klen, uint64_t hv, int64_t time, int64_t at)
{
    offset_row *old = offsets_table_del(&r->offsets, key, klen, r->partition, hv);
    if (!old)
        return; /* not in the table: not a change */
    r->del_time = time;
    keep_batch_delete(r, old, at);
}

/* ---- transactions --------------------------------------------------------- */

/* A producer's transaction may span several __consumer_offsets partitions
 * (one per group coordinator), each with its own marker: stage per
 * (partition, producer). */
typedef struct txn_id {
    int32_t partition;
    int64_t pid;
} txn_id;

#define TXN_ID_SIZE 12

static void txn_id_bytes(uint8_t out[TXN_ID_SIZE], int32_t partition, int64_t pid)
{
    memcpy(out, &partition, 4);
    memcpy(out + 4, &pid, 8);
}

static uint32_t staged_key(uint8_t *out, size_t cap, const uint8_t id[TXN_ID_SIZE], const uint8_t *slot, uint32_t slen)
{
    if ((size_t)slen + TXN_ID_SIZE > cap)
        return 0;
    memcpy(out, id, TXN_ID_SIZE);
    memcpy(out + TXN_ID_SIZE, slot, slen);
    return slen + TXN_ID_SIZE;
}

static void stage(kf_replay *r, int64_t pid, offset_row *v)
{
    uint8_t k[TXN_ID_SIZE + SLOT_MAX], id[TXN_ID_SIZE], slot[SLOT_MAX];
    txn_id_bytes(id, r->partition, pid);
    uint32_t kl = staged_key(k, sizeof k, id, slot, row_slot_bytes(slot, v));
    void **sv = kl ? htab_put(&r->staged, k, kl, NULL) : NULL;
    bool created;
    void **ps = htab_put(&r->pids, id, TXN_ID_SIZE, &created);
    if (!sv || !ps) {
        r->err = KF_ERR_NOMEM;
        free(v);
        return;
    }
    free(*sv);
    *sv = v;
    if (created)
        *ps = calloc(1, sizeof(pid_stage));
    pid_stage *st = *ps;
    if (!st) {
        r->err = KF_ERR_NOMEM;
        return;
    }
    if (!KF_GROW(st->keys, st->n, st->cap, 8) || !KF_GROW(st->lens, st->n, st->cap_lens, 8)) {
        r->err = KF_ERR_NOMEM;
        return;
    }
    uint8_t *copy = malloc(kl);
    if (!copy) {
        r->err = KF_ERR_NOMEM;
        return;
    }
    memcpy(copy, k, kl);
    st->keys[st->n] = copy;
    st->lens[st->n] = kl;
    st->n++;
}

static int cmp_staged_out(const void *a, const void *b)
{
    int64_t x = (*(offset_row *const *)a)->v.source_offset, y = (*(offset_row *const *)b)->v.source_offset;
    return x < y ? -1 : x > y;
}

/* The producer's staged offsets in this partition committed or dropped by
 * its marker at marker_offset, in a batch whose max timestamp is
 * marker_time: a committed offset takes effect there, so it is dated by the
 * marker (by its own commit timestamp when that is later: a clock stepped
 * back), as the coordinator showed it (docs/formats.md §11.12). */
static void end_transaction(kf_replay *r, int64_t pid, bool commit, int64_t marker_offset, int64_t marker_time)
{
    uint8_t id[TXN_ID_SIZE];
    txn_id_bytes(id, r->partition, pid);
    pid_stage *st = htab_del(&r->pids, id, TXN_ID_SIZE);
    if (!st)
        return; /* a marker with nothing staged */
    offset_row **outs = malloc((st->n ? st->n : 1) * sizeof *outs);
    size_t n = 0;
    for (size_t i = 0; i < st->n; i++) {
        offset_row *v = htab_del(&r->staged, st->keys[i], st->lens[i]);
        if (!v)
            continue; /* repeated key already taken, or dropped by a tombstone */
        if (!commit || !outs) {
            free(v);
            continue;
        }
        outs[n++] = v;
    }
    if (commit && !outs)
        r->err = KF_ERR_NOMEM;
    /* the committed offsets take effect in the order they were written */
    if (n > 1)
        qsort(outs, n, sizeof *outs, cmp_staged_out);
    for (size_t i = 0; i < n; i++) {
        offset_row *cur =
            offsets_table_get(&r->offsets, outs[i]->key, outs[i]->klen, outs[i]->v.source_partition, outs[i]->hash);
        if (!cur || outs[i]->v.source_offset > cur->v.source_offset) {
            int64_t ct = outs[i]->v.commit_timestamp;
            apply_commit(r, outs[i], ct > marker_time ? ct : marker_time, marker_offset);
        }
        else
            free(outs[i]); /* a newer plain commit stays: not a change */
    }
    free(outs);
    free_stage(st);
}

static void drop_staged_slot(kf_replay *r, const uint8_t *key, uint32_t klen)
{
    if (!r->pids.n)
        return;
    uint8_t k[TXN_ID_SIZE + SLOT_MAX], slot[SLOT_MAX];
    uint32_t slen = slot_bytes(slot, key, klen, r->partition);
    for (size_t i = 0; i < r->pids.cap; i++) {
        if (!r->pids.e[i].key)
            continue;
        uint32_t kl = staged_key(k, sizeof k, r->pids.e[i].key, slot, slen);
        if (kl)
            free(htab_del(&r->staged, k, kl));
    }
}

static void report_open_transactions(kf_replay *r)
{
    for (size_t i = 0; i < r->pids.cap; i++) {
        if (!r->pids.e[i].key)
            continue;
        int32_t part;
        int64_t pid;
        memcpy(&part, r->pids.e[i].key, 4);
        memcpy(&pid, r->pids.e[i].key + 4, 8);
        char msg[200];
        snprintf(msg, sizeof msg,
                 "__consumer_offsets-%d: producer %lld has offsets staged in a transaction with no COMMIT or ABORT "
                 "marker (open, or the copy is truncated); they are not applied",
                 part, (long long)pid);
        kf_report_in(r->o.problem_fn, r->o.problem_ctx, r->file, KF_P_OPEN_TRANSACTION, KF_SEV_WARNING, 0, false, 0, "%s", msg);
        r->stats.open_transactions++;
        free_stage(r->pids.e[i].val);
    }
    free_values(&r->staged);
    htab_free(&r->staged);
    htab_free(&r->pids);
}

/* ---- group records ------------------------------------------------------ */

static bool is_group_metadata_type(int16_t t) { return t == 2 || t == 3 || t == 11 || t == 17; }

static void group_record(kf_replay *r, const kf_coord_record *cr, const kf_record *rec)
{
    if (cr->key_type < 2)
        return;
    if (cr->tombstone) {
        group_rec *g = htab_del(&r->groups, rec->key, (uint32_t)rec->key_len);
        if (g) {
            free(g->key);
            free(g->value);
            free(g);
        }
    } else {
        bool created;
        void **slot = htab_put(&r->groups, rec->key, (uint32_t)rec->key_len, &created);
        group_rec *g = slot ? (created ? calloc(1, sizeof *g) : *slot) : NULL;
        uint8_t *v = malloc(rec->value_len > 0 ? (size_t)rec->value_len : 1);
        uint8_t *k = created ? malloc((size_t)rec->key_len) : NULL;
        if (!g || !v || (created && !k)) {
            free(v);
            free(k);
            r->err = KF_ERR_NOMEM;
            return;
        }
        if (created) {
            memcpy(k, rec->key, (size_t)rec->key_len);
            g->key = k;
            *slot = g;
        }
        memcpy(v, rec->value, (size_t)rec->value_len);
        free(g->value);
        g->value = v;
        g->pub.key = g->key;
        g->pub.key_len = (uint32_t)rec->key_len;
        g->pub.value = v;
        g->pub.value_len = (uint32_t)rec->value_len;
        g->pub.source_partition = r->partition;
        g->pub.source_offset = rec->offset;
    }
    /* the group's life: metadata tombstoned (dead) or (re)created */
    if (is_group_metadata_type(cr->key_type) && cr->key_root != KF_DNODE_NONE) {
        const kf_dnode *kr = &r->tree.nodes[cr->key_root];
        const kf_dnode *gid = kf_dnode_field(&r->tree, kr, cr->key_type == 2 ? "group" : "group_id");
        if (gid && gid->kind == KF_V_STRING) {
            if (cr->tombstone) {
                void **d = htab_put(&r->dead, gid->p, gid->len, NULL);
                if (d)
                    *d = (void *)(intptr_t)cr->key_type;
                else
                    r->err = KF_ERR_NOMEM;
            } else {
                htab_del(&r->dead, gid->p, gid->len);
            }
        }
    }
}

/* ---- batches -------------------------------------------------------------- */

void kf_replay_partition(kf_replay *r, int32_t partition) { r->partition = partition; }

void kf_replay_finish(kf_replay *r)
{
    report_open_transactions(r);
    r->partition = -1;
}

/* key/klen/hv: the record's offset key and its slot's hash when found
 * ahead (klen 0: build them here). */
static void offset_record(kf_replay *r, kf_batch *b, const kf_offset_commit *oc, const kf_record *rec,
                          const uint8_t *key, uint32_t klen, uint64_t hv)
{
    if (!klen) {
        if (oc->group_len > INT16_MAX || oc->topic_len > INT16_MAX)
            return; /* not an offset key's strings (int16 lengths) */
        if (!r->key_buf && !(r->key_buf = malloc(KEY_MAX))) {
            r->err = KF_ERR_NOMEM;
            return;
        }
        klen = offset_key(r->key_buf, oc);
        key = r->key_buf;
        hv = offsets_slot_hash(key, klen, r->partition);
    }
    if (!oc->tombstone) {
        /* OffsetMetadataManager.replay: a commit's value creates its group
         * when there is none (an empty classic "simple" group), committed,
         * staged or later aborted alike, and after a metadata tombstone too */
        if (!htab_put(&r->simple, oc->group, oc->group_len, NULL))
            r->err = KF_ERR_NOMEM;
        htab_del(&r->dead, oc->group, oc->group_len);
    }
    if (oc->tombstone) {
        /* Kafka 4.x: a tombstone removes the value and the key's staged offsets */
        drop_staged_slot(r, key, klen);
        apply_delete(r, key, klen, hv, b->max_timestamp, rec->offset);
        return;
    }
    if (!(b->transactional && b->producer_id >= 0)) {
        /* a re-commit whose metadata has the old length: update in place */
        offset_row *cur = offsets_table_get(&r->offsets, key, klen, r->partition, hv);
        if (cur && cur->metadata_len == oc->metadata_len) {
            fill_fields(&cur->v, oc);
            if (oc->metadata_len)
                memcpy((char *)cur->v.metadata, oc->metadata, oc->metadata_len);
            cur->v.source_offset = rec->offset;
            cur->v.transactional = false;
            emit(r, cur, false, cur->v.commit_timestamp, rec->offset);
            return;
        }
    }
    offset_row *v = new_row(oc, key, klen, r->partition, hv);
    if (!v) {
        r->err = KF_ERR_NOMEM;
        return;
    }
    v->v.source_offset = rec->offset;
    if (b->transactional && b->producer_id >= 0) {
        v->v.transactional = true;
        stage(r, b->producer_id, v);
    } else {
        apply_commit(r, v, v->v.commit_timestamp, rec->offset);
    }
}

void kf_replay_on_load_error(kf_replay *r, kf_coord_load_error_fn fn, void *ctx)
{
    r->load_error_fn = fn;
    r->load_error_ctx = ctx;
}

/* A record of a known type that does not decode: what fails to decode, as
 * a coordinator_load_error problem (GroupCoordinatorRecordSerde throws, and
 * CoordinatorLoaderImpl fails the partition's load on anything but an
 * unknown record type). */
static void report_load_error(kf_replay *r, const kf_batch *b, const kf_record *rec, const kf_coord_record *cr,
                              const char *decode_error)
{
    kf_problem p;
    memset(&p, 0, sizeof p);
    p.code = KF_P_COORDINATOR_LOAD_ERROR;
    p.file = r->file;
    p.severity = KF_SEV_ERROR;
    p.position = b->position;
    p.has_offset = true;
    p.offset = rec->offset;
    snprintf(p.message, sizeof p.message,
             "%.40s %s does not decode (the coordinator fails to load __consumer_offsets-%d here): %.100s",
             cr->record_type ? cr->record_type : "record", cr->err_in_key || !cr->key_ok ? "key" : "value",
             r->partition, cr->err[0] ? cr->err : "undecodable");
    if (r->load_error_fn) {
        kf_coord_load_error e = {&p, r->partition, decode_error};
        r->load_error_fn(r->load_error_ctx, &e);
    } else if (r->o.problem_fn) {
        r->o.problem_fn(r->o.problem_ctx, &p);
    }
}

/* Records are taken a window at a time: the offset commits of the window
 * are decoded and their slots hashed and prefetched first, then every
 * record is applied in order. A table of many keys is a cache miss per
 * lookup; this overlaps the misses of a window (10M commits over 100k keys:
 * twice as fast). A row is prefetched ROW_LAG records after its entry, when
 * the entry naming it has come in: all of them at once would fill the
 * core's miss buffers and stall it. */
#define WINDOW 64
#define ROW_LAG 8

typedef struct pending {
    kf_record rec;
    bool fast;            /* oc holds the record, decoded without a tree */
    kf_offset_commit oc;
    uint32_t klen;        /* fast: its offset key's length (the record key after its type) */
    uint64_t hv;
} pending;

/* One record of a non-control batch, in order. */
static void apply_record(kf_replay *r, kf_batch *b, pending *p)
{
    kf_record *rec = &p->rec;
    r->stats.records++;
    if (p->fast) {
        offset_record(r, b, &p->oc, rec, rec->key + 2, p->klen, p->hv); /* the common case: no tree */
        return;
    }
    kf_dtree_reset(&r->tree);
    kf_coord_record cr;
    int rc = kf_coord_decode(KF_COORD_OFFSETS, rec->key, rec->key_len, rec->value, rec->value_len, &r->tree, &cr);
    if (rc == KF_ERR_NOMEM) {
        r->err = rc;
        return;
    }
    if (rc != KF_OK || !cr.key_ok || (!cr.tombstone && !cr.value_ok)) {
        /* the same codes as dump --decode (kf_coord_problem_code) */
        kf_severity sev;
        const char *code = kf_coord_problem_code(rc, &cr, &sev);
        if (!strcmp(code, KF_P_UNKNOWN_RECORD_TYPE)) {
            /* the coordinator skips unknown types too ("left over from an aborted upgrade") */
            r->stats.unknown++;
            kf_report_in(r->o.problem_fn, r->o.problem_ctx, r->file, code, sev, b->position, true, rec->offset,
                      "__consumer_offsets-%d offset %lld: unknown record type %d, skipped", r->partition,
                      (long long)rec->offset, cr.key_type);
            return;
        }
        /* a known type that does not deserialize: the coordinator's load of
         * the whole partition fails there (docs/formats.md §11.7) */
        r->stats.skipped++;
        report_load_error(r, b, rec, &cr, code);
        return;
    }
    if (cr.key_type == 0 || cr.key_type == 1) {
        kf_offset_commit oc;
        if (kf_offset_commit_from_tree(&r->tree, &cr, &oc))
            offset_record(r, b, &oc, rec, NULL, 0, 0);
    } else {
        group_record(r, &cr, rec);
    }
}

int kf_replay_batch(kf_replay *r, kf_batch *b)
{
    r->stats.batches++;
    r->sorted_valid = false;
    if (!r->has_newest || b->max_timestamp > r->newest) {
        r->has_newest = true;
        r->newest = b->max_timestamp;
    }
    kf_record_iter it;
    if (kf_records_begin(&it, b, &r->buf, r->o.max_batch_bytes) != KF_OK) {
        report(r, b, it.err_code ? it.err_code : KF_P_BAD_RECORD, KF_SEV_ERROR, b->base_offset,
               "batch skipped", it.err_msg);
        kf_replay_lost_range(r, r->partition, true, b->last_offset); /* its commits are lost too */
        return kf_error_sticky(r->err);
    }
    pending win[WINDOW];
    int n = 1;
    while (n == 1 && !r->err) {
        size_t k = 0;
        while (k < WINDOW && (n = kf_records_next(&it, &win[k].rec)) == 1) {
            pending *p = &win[k];
            p->klen = 0;
            p->fast = !b->control &&
                      kf_offset_commit_fast(p->rec.key, p->rec.key_len, p->rec.value, p->rec.value_len, &p->oc);
            if (p->fast) {
                /* the slot found from the record's own bytes */
                p->klen = (uint32_t)p->rec.key_len - 2;
                p->hv = offsets_slot_hash(p->rec.key + 2, p->klen, r->partition);
                offsets_table_prefetch(&r->offsets, p->hv);
            }
            if (k >= ROW_LAG && win[k - ROW_LAG].klen)
                offsets_table_prefetch_row(&r->offsets, win[k - ROW_LAG].hv);
            k++;
        }
        for (size_t i = k > ROW_LAG ? k - ROW_LAG : 0; i < k; i++)
            if (win[i].klen)
                offsets_table_prefetch_row(&r->offsets, win[i].hv);
        for (size_t i = 0; i < k && !r->err; i++) {
            if (b->control) {
                kf_control ctl;
                if (kf_control_parse(&win[i].rec, &ctl) == KF_OK && b->producer_id >= 0 &&
                    (ctl.type == KF_CONTROL_COMMIT || ctl.type == KF_CONTROL_ABORT))
                    end_transaction(r, b->producer_id, ctl.type == KF_CONTROL_COMMIT, win[i].rec.offset,
                                    b->max_timestamp);
                continue;
            }
            apply_record(r, b, &win[i]);
        }
    }
    emit_batch_deletes(r);
    if (n < 0) {
        report(r, b, it.err_code, KF_SEV_ERROR, b->base_offset, "rest of batch skipped", it.err_msg);
        kf_replay_lost_range(r, r->partition, true, b->last_offset);
    }
    return kf_error_sticky(r->err);
}

/* ---- results -------------------------------------------------------------- */

size_t kf_replay_offsets(kf_replay *r, const kf_offset_value ***out)
{
    if (r->sorted_valid) { /* asked again (groups, then the table): sorted once */
        *out = r->sorted;
        return r->nsorted;
    }
    size_t n = r->o.has_as_of ? r->asof.table.n : r->offsets.n;
    free(r->sorted);
    r->sorted = malloc((n ? n : 1) * sizeof *r->sorted);
    if (!r->sorted) {
        *out = NULL;
        return 0;
    }
    size_t k = 0;
    if (r->o.has_as_of) {
        const htab *t = &r->asof.table;
        for (size_t i = 0; i < t->cap; i++)
            if (t->e[i].key)
                r->sorted[k++] = t->e[i].val;
    } else {
        const offsets_table *t = &r->offsets;
        for (size_t i = 0; i < t->cap; i++)
            if (t->e[i].row)
                r->sorted[k++] = &t->e[i].row->v;
    }
    offsets_sort(r->sorted, k);
    *out = r->sorted;
    r->nsorted = k;
    r->sorted_valid = true;
    return k;
}

static int cmp_group_recs(const void *a, const void *b)
{
    const kf_group_record *x = *(const kf_group_record *const *)a, *y = *(const kf_group_record *const *)b;
    uint32_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = memcmp(x->key, y->key, n);
    if (c)
        return c;
    return x->key_len < y->key_len ? -1 : x->key_len > y->key_len;
}

size_t kf_replay_group_records(kf_replay *r, const kf_group_record ***out)
{
    free(r->gsorted);
    r->gsorted = malloc((r->groups.n ? r->groups.n : 1) * sizeof *r->gsorted);
    if (!r->gsorted) {
        *out = NULL;
        return 0;
    }
    size_t k = 0;
    for (size_t i = 0; i < r->groups.cap; i++)
        if (r->groups.e[i].key)
            r->gsorted[k++] = &((group_rec *)r->groups.e[i].val)->pub;
    qsort(r->gsorted, k, sizeof *r->gsorted, cmp_group_recs);
    *out = r->gsorted;
    return k;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* The keys of t as NUL-terminated names, sorted, in one block at *block
 * (freed and made again). */
static size_t sorted_names(const htab *t, const char ***block, const char *const **out)
{
    /* keys are stored without a NUL: copy them into one block */
    free(*block);
    size_t total = 0;
    for (size_t i = 0; i < t->cap; i++)
        if (t->e[i].key)
            total += t->e[i].klen + 1;
    *block = malloc((t->n ? t->n : 1) * sizeof(char *) + total);
    if (!*block) {
        *out = NULL;
        return 0;
    }
    char *s = (char *)(*block + (t->n ? t->n : 1));
    size_t k = 0;
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->e[i].key)
            continue;
        memcpy(s, t->e[i].key, t->e[i].klen);
        s[t->e[i].klen] = 0;
        (*block)[k++] = s;
        s += t->e[i].klen + 1;
    }
    qsort(*block, k, sizeof **block, cmp_str);
    *out = (const char *const *)*block;
    return k;
}

size_t kf_replay_dead_groups(kf_replay *r, const char *const **out) { return sorted_names(&r->dead, &r->dsorted, out); }

size_t kf_replay_offset_groups(kf_replay *r, const char *const **out)
{
    return sorted_names(&r->simple, &r->ssorted, out);
}

int16_t kf_replay_dead_group_type(const kf_replay *r, const char *group)
{
    void *t = htab_get(&r->dead, group, (uint32_t)strlen(group));
    return t ? (int16_t)(intptr_t)t : -1;
}

kf_replay_stats kf_replay_get_stats(const kf_replay *r) { return r->stats; }

bool kf_replay_newest_time(const kf_replay *r, int64_t *ms)
{
    *ms = r->has_newest ? r->newest : 0;
    return r->has_newest;
}

void kf_replay_lost_range(kf_replay *r, int32_t partition, bool has_end, int64_t end_offset)
{
    lost_end *l = NULL;
    for (size_t i = 0; i < r->nlost && !l; i++)
        if (r->lost[i].partition == partition)
            l = &r->lost[i];
    if (!l) {
        lost_end *n = realloc(r->lost, (r->nlost + 1) * sizeof *n);
        if (!n) {
            r->err = KF_ERR_NOMEM;
            return;
        }
        r->lost = n;
        l = &r->lost[r->nlost++];
        *l = (lost_end){partition, false, INT64_MIN};
    }
    if (!has_end)
        l->open = true;
    else if (end_offset > l->end_offset)
        l->end_offset = end_offset;
}

bool kf_replay_row_may_be_stale(const kf_replay *r, const kf_offset_value *v)
{
    for (size_t i = 0; i < r->nlost; i++)
        if (r->lost[i].partition == v->source_partition)
            return r->lost[i].open || v->source_offset < r->lost[i].end_offset;
    return false;
}
