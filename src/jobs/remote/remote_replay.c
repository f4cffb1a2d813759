/* remote_replay.c: one __remote_log_metadata partition replayed into the
 * state of remote_cache.c as a broker's metadata consumer replays it
 * (ConsumerTask.processConsumerRecord: RemoteLogMetadataSerde.deserialize,
 * then RemotePartitionMetadataEventHandler.handleRemoteLogMetadata;
 * docs/formats.md §22.1). Its copies are read as one log by the partition
 * reader; each record is decoded by the KRaft-envelope decoder over the
 * remote_schema.c tables (kf_kraft_decode) and turned into the event the
 * broker's serde makes of it, with the checks its constructors make.
 *
 * A record the broker's serde or handler throws on stops its consumer
 * task (ConsumerTask.ingestRecords closes on any exception but a retriable
 * one): it is a bad_record error, and the replay goes on past it so the rest
 * is still judged. An event the broker drops is an invalid_transition
 * warning. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "bytes/report.h"
#include "jobs/remote/remote_internal.h"
#include "kfsck/sys/coord.h"
#include "kfsck/sys/kraft.h"
#include "kfsck/sys/part_feed.h"

/* A struct's fields are its children in schema order (coord.h): they are
 * taken by position, each checked to be the field named (by its name
 * pointer once that was seen to be the schema's, else by the name), and
 * looked up by name when the layout differs. */
#define MAX_FIELDS 12

typedef struct layout {
    const char *const *names;     /* the fields wanted, by position */
    size_t n;
    const char *seen[MAX_FIELDS]; /* the decoder's name pointers, once checked */
} layout;

typedef struct layouts {
    layout tip, segid, seg, upd, del, epoch;
} layouts;

/* A decoded record waiting to be applied, or the problem it is. */
#define AHEAD 32

typedef struct pending {
    int64_t offset;
    rm_event ev;
    size_t ep_at;           /* its epochs in the pool */
    const char *code;       /* NULL: an event to apply; else the problem to report */
    kf_severity sev;
    bool fatal;             /* it stops the broker's metadata consumer */
    char msg[448];
} pending;

typedef struct replay {
    rm_state *st;
    int32_t mpart;
    const kf_remote_opts *o;
    rm_replay_result *res;
    kf_dtree tree;
    layouts lay;
    kf_leader_epoch *epochs; /* the event being decoded, sorted */
    size_t capepochs;
    pending ahead[AHEAD];
    size_t nahead;
    kf_leader_epoch *pool;   /* the pending events' epochs */
    size_t pool_n, pool_cap;
    int rc;
} replay;

static void problem(replay *r, kf_part_reader *pr, const kf_batch *b, int64_t offset, const char *code,
                    kf_severity sev, const char *what)
{
    kf_report_in(r->o->problem_fn, r->o->problem_ctx, kf_part_reader_file(pr), code, sev, b->position, true, offset,
                 "__remote_log_metadata-%d offset %" PRId64 ": %s", r->mpart, offset, what);
}

/* ---- from the decoded tree to the broker's event --------------------------------- */


typedef struct fields {
    const kf_dnode *f[MAX_FIELDS];
} fields;

/* A name no node has: what layout.seen holds until a field was seen. */
static const char UNSEEN[] = "";

static void fields_of(const kf_dtree *t, const kf_dnode *st, layout *l, fields *out)
{
    const kf_dnode *nodes = t->nodes;
    uint32_t n = t->n, c = st && st->kind == KF_V_STRUCT ? st->first_child : KF_DNODE_NONE;
    size_t i = 0, nf = l->n;
    /* the usual case: each child the field seen before at its position */
    for (; i < nf && c < n && nodes[c].name == l->seen[i]; i++) {
        out->f[i] = &nodes[c];
        c = nodes[c].next;
    }
    for (; i < nf; i++) {
        const kf_dnode *k = c < n ? &nodes[c] : NULL; /* KF_DNODE_NONE is past any arena */
        if (k && k->name && (k->name == l->seen[i] || !strcmp(k->name, l->names[i]))) {
            l->seen[i] = k->name;
            out->f[i] = k;
        } else {
            out->f[i] = st ? kf_dnode_field(t, st, l->names[i]) : NULL;
        }
        if (k)
            c = k->next;
    }
}

static bool int_at(const fields *f, size_t i, int64_t *v)
{
    if (!f->f[i] || f->f[i]->kind != KF_V_INT)
        return false;
    *v = f->f[i]->i;
    return true;
}

static const char *const TIP_NAMES[] = {"name", "id", "partition"};
static const char *const SEGID_NAMES[] = {"topic_id_partition", "id"};
static const char *const SEG_NAMES[] = {"remote_log_segment_id", "start_offset", "end_offset", "broker_id",
                                        "max_timestamp_ms", "event_timestamp_ms", "segment_leader_epochs",
                                        "segment_size_in_bytes", "custom_metadata", "remote_log_segment_state"};
static const char *const UPD_NAMES[] = {"remote_log_segment_id", "broker_id", "event_timestamp_ms", "custom_metadata",
                                        "remote_log_segment_state"};
static const char *const DEL_NAMES[] = {"topic_id_partition", "broker_id", "event_timestamp_ms",
                                        "remote_partition_delete_state"};
static const char *const EPOCH_NAMES[] = {"leader_epoch", "offset"};

static void layout_init(layout *l, const char *const *names, size_t n)
{
    l->names = names;
    l->n = n;
    for (size_t i = 0; i < MAX_FIELDS; i++)
        l->seen[i] = UNSEEN;
}

#define LAYOUT(l, names) layout_init(l, names, sizeof names / sizeof names[0])

static void layouts_init(layouts *l)
{
    LAYOUT(&l->tip, TIP_NAMES);
    LAYOUT(&l->segid, SEGID_NAMES);
    LAYOUT(&l->seg, SEG_NAMES);
    LAYOUT(&l->upd, UPD_NAMES);
    LAYOUT(&l->del, DEL_NAMES);
    LAYOUT(&l->epoch, EPOCH_NAMES);
}

/* A TopicIdPartitionEntry into ev. */
static bool topic_id_partition(replay *r, const kf_dtree *t, const kf_dnode *tip, rm_event *ev)
{
    fields f;
    fields_of(t, tip, &r->lay.tip, &f);
    int64_t partition;
    if (!f.f[0] || f.f[0]->kind != KF_V_STRING || !f.f[1] || f.f[1]->kind != KF_V_UUID || !int_at(&f, 2, &partition))
        return false;
    ev->name = (const char *)f.f[0]->p;
    ev->name_len = f.f[0]->len;
    memcpy(ev->topic_id, f.f[1]->p, 16);
    ev->partition = (int32_t)partition;
    return true;
}

/* A RemoteLogSegmentIdEntry into ev. */
static bool segment_id(replay *r, const kf_dtree *t, const kf_dnode *sid, rm_event *ev)
{
    fields f;
    fields_of(t, sid, &r->lay.segid, &f);
    if (!f.f[1] || f.f[1]->kind != KF_V_UUID)
        return false;
    memcpy(ev->segment_id, f.f[1]->p, 16);
    return topic_id_partition(r, t, f.f[0], ev);
}

/* The record's leader epochs as the segment metadata's TreeMap holds them
 * (a HashMap first: an epoch listed twice keeps its last offset). */
static int epochs_of(replay *r, const kf_dtree *t, const kf_dnode *arr, rm_event *ev)
{
    ev->nepochs = 0;
    if (!arr || arr->kind != KF_V_ARRAY)
        return KF_OK;
    if (arr->n_children > r->capepochs) {
        kf_leader_epoch *ne = realloc(r->epochs, arr->n_children * sizeof *ne);
        if (!ne)
            return kf_error_nomem();
        r->epochs = ne;
        r->capepochs = arr->n_children;
    }
    size_t n = 0;
    for (uint32_t c = arr->first_child; c != KF_DNODE_NONE && c < t->n && n < r->capepochs; c = t->nodes[c].next) {
        fields f;
        fields_of(t, &t->nodes[c], &r->lay.epoch, &f);
        int64_t epoch, offset;
        if (!int_at(&f, 0, &epoch) || !int_at(&f, 1, &offset))
            continue;
        kf_leader_epoch x = {(int32_t)epoch, offset};
        /* insertion by epoch (a record lists a few, in order); a later entry
         * of an epoch already there replaces it */
        size_t j = n;
        while (j > 0 && r->epochs[j - 1].epoch > x.epoch)
            j--;
        if (j > 0 && r->epochs[j - 1].epoch == x.epoch) {
            r->epochs[j - 1] = x;
            continue;
        }
        memmove(&r->epochs[j + 1], &r->epochs[j], (n - j) * sizeof *r->epochs);
        r->epochs[j] = x;
        n++;
    }
    ev->epochs = r->epochs;
    ev->nepochs = n;
    return KF_OK;
}

/* What every event says, from its fields at these indexes: the broker that
 * wrote it and when (RemoteLogMetadata's brokerId and eventTimestampMs),
 * and the state it moves to, which is returned. */
static int64_t event_fields(const fields *f, size_t broker_at, size_t ts_at, size_t state_at, rm_event *ev)
{
    int64_t broker = -1, ts = -1, state = -1;
    int_at(f, broker_at, &broker);
    int_at(f, ts_at, &ts);
    int_at(f, state_at, &state);
    ev->broker_id = (int32_t)broker;
    ev->event_ts = ts;
    ev->state = (int)state;
    return state;
}

/* The event of a decoded record, or why the broker's serde throws on it
 * (then false). */
static bool to_event(replay *r, const kf_dtree *t, const kf_kraft_record *kr, rm_event *ev, char *why, size_t n)
{
    const kf_dnode *root = &t->nodes[kr->root];
    memset(ev, 0, sizeof *ev);
    ev->kind = kr->api_key;
    int64_t state;
    fields f;
    switch (kr->api_key) {
    case 0: {
        fields_of(t, root, &r->lay.seg, &f);
        int64_t start = 0, end = 0, max_ts = -1, size = 0;
        if (!segment_id(r, t, f.f[0], ev) || !int_at(&f, 1, &start) || !int_at(&f, 2, &end)) {
            snprintf(why, n, "segment metadata without its fields");
            return false;
        }
        state = event_fields(&f, 3, 5, 9, ev);
        int_at(&f, 4, &max_ts);
        int_at(&f, 7, &size);
        ev->start = start;
        ev->end = end;
        ev->max_ts = max_ts;
        ev->size = (int32_t)size;
        if ((r->rc = epochs_of(r, t, f.f[6], ev)) != KF_OK)
            return false;
        /* the RemoteLogSegmentMetadata constructor's checks */
        if (start < 0)
            snprintf(why, n, "start offset %" PRId64 " is negative (RemoteLogSegmentMetadata throws)", start);
        else if (end < start)
            snprintf(why, n, "end offset %" PRId64 " is below start offset %" PRId64 " (RemoteLogSegmentMetadata throws)",
                     end, start);
        else if (!ev->nepochs)
            snprintf(why, n, "no segment leader epochs (RemoteLogSegmentMetadata throws)");
        else if (!kf_remote_state_name((int)state))
            snprintf(why, n, "unknown segment state %" PRId64 " (the serde's state is null: it throws)", state);
        else
            return true;
        return false;
    }
    case 1:
        fields_of(t, root, &r->lay.upd, &f);
        if (!segment_id(r, t, f.f[0], ev)) {
            snprintf(why, n, "segment metadata update without its fields");
            return false;
        }
        state = event_fields(&f, 1, 2, 4, ev);
        if (!kf_remote_state_name((int)state)) {
            snprintf(why, n, "unknown segment state %" PRId64 " (the serde's state is null: it throws)", state);
            return false;
        }
        return true;
    case 2:
        fields_of(t, root, &r->lay.del, &f);
        if (!topic_id_partition(r, t, f.f[0], ev)) {
            snprintf(why, n, "partition delete metadata without its fields");
            return false;
        }
        state = event_fields(&f, 1, 2, 3, ev);
        if (!kf_remote_partition_state_name((int)state)) {
            snprintf(why, n, "unknown partition delete state %" PRId64 " (the serde's state is null: it throws)",
                     state);
            return false;
        }
        return true;
    default:
        snprintf(why, n, "a %s record in the topic: the metadata handler accepts no such record (it throws)",
                 kr->record_type ? kr->record_type : "snapshot");
        return false;
    }
}

/* ---- the records ------------------------------------------------------------------ */

/* The records of a batch are decoded up to AHEAD at a time, then applied in
 * order: the segments' slots of the whole run are asked for before the
 * first is looked up, so the table's cache misses overlap. */

static void fatal_words(pending *q, const char *what)
{
    q->code = KF_P_BAD_RECORD;
    q->sev = KF_SEV_ERROR;
    q->fatal = true;
    snprintf(q->msg, sizeof q->msg,
             "%s; the broker's metadata consumer stops here (ConsumerTask closes) and applies nothing after it",
             what);
}

/* Decodes one record into the next pending slot. */
static int decode_one(replay *r, const kf_record *rec)
{
    pending *q = &r->ahead[r->nahead++];
    q->offset = rec->offset;
    q->code = NULL;
    q->fatal = false;
    r->res->records++;
    kf_dtree_reset(&r->tree);
    kf_kraft_record kr;
    int rc = kf_kraft_decode(KF_KRAFT_REMOTE, rec->key, rec->key_len, rec->value, rec->value_len, &r->tree, &kr);
    if (rc == KF_ERR_NOMEM)
        return rc;
    char why[300];
    if (rc == KF_ERR_UNSUPPORTED && !kr.known && kr.frame_version == 1 && kr.record_type) {
        /* a version this build does not know: the broker reads it with the layout it knows */
        q->code = KF_P_UNDECODED_RECORD;
        q->sev = KF_SEV_WARNING;
        snprintf(q->msg, sizeof q->msg, "%s: not applied", kr.err);
        return KF_OK;
    }
    if (rc != KF_OK || !kr.ok || kr.root == KF_DNODE_NONE) {
        snprintf(why, sizeof why, "undecodable record (%s)", kr.err[0] ? kr.err : kf_err_str(rc));
        fatal_words(q, why);
        return KF_OK;
    }
    if (!to_event(r, &r->tree, &kr, &q->ev, why, sizeof why)) {
        if (r->rc != KF_OK)
            return r->rc;
        fatal_words(q, why);
        return KF_OK;
    }
    if (q->ev.event_ts > r->res->newest_event_ts)
        r->res->newest_event_ts = q->ev.event_ts;
    /* the epochs move to the run's pool (r->epochs is the next record's) */
    q->ep_at = r->pool_n;
    if (q->ev.nepochs) {
        if (r->pool_n + q->ev.nepochs > r->pool_cap) {
            size_t cap = (r->pool_n + q->ev.nepochs) * 2;
            kf_leader_epoch *np = realloc(r->pool, cap * sizeof *np);
            if (!np)
                return kf_error_nomem();
            r->pool = np;
            r->pool_cap = cap;
        }
        memcpy(r->pool + r->pool_n, q->ev.epochs, q->ev.nepochs * sizeof *r->pool);
        r->pool_n += q->ev.nepochs;
    }
    return KF_OK;
}

/* Applies the pending records in order. */
static int apply_pending(replay *r, kf_part_reader *pr, const kf_batch *b)
{
    for (size_t i = 0; i < r->nahead; i++)
        if (!r->ahead[i].code)
            rm_prefetch(r->st, r->ahead[i].ev.segment_id);
    for (size_t i = 0; i < r->nahead; i++)
        if (!r->ahead[i].code)
            rm_prefetch_segment(r->st, r->ahead[i].ev.segment_id);
    for (size_t i = 0; i < r->nahead; i++) {
        pending *q = &r->ahead[i];
        if (!q->code) {
            q->ev.epochs = q->ev.nepochs ? r->pool + q->ep_at : NULL;
            char why[300];
            switch (rm_apply(r->st, r->mpart, &q->ev, why, sizeof why)) {
            case RM_APPLIED: continue;
            case RM_DROPPED:
                r->res->rejected++;
                q->code = KF_P_INVALID_TRANSITION;
                q->sev = KF_SEV_WARNING;
                snprintf(q->msg, sizeof q->msg, "%s", why);
                break;
            case RM_FATAL: fatal_words(q, why); break;
            case RM_NOMEM: return kf_error_nomem();
            }
        }
        if (q->fatal && r->res->fatal++ == 0)
            r->res->first_fatal_offset = q->offset;
        if (q->fatal || !strcmp(q->code, KF_P_UNDECODED_RECORD))
            r->res->incomplete = true;
        problem(r, pr, b, q->offset, q->code, q->sev, q->msg);
    }
    r->nahead = 0;
    r->pool_n = 0;
    return KF_OK;
}

static int on_batch(void *ctx, kf_part_reader *pr, kf_batch *b)
{
    replay *r = ctx;
    if (b->control)
        return KF_OK;
    kf_record_iter it;
    char msg[300];
    if (kf_part_reader_records(pr, b, &it) != KF_OK) {
        r->res->incomplete = true;
        snprintf(msg, sizeof msg, "batch skipped: %s", it.err_msg);
        problem(r, pr, b, b->base_offset, it.err_code ? it.err_code : KF_P_BAD_RECORD, KF_SEV_ERROR, msg);
        return KF_OK;
    }
    kf_record rec;
    int got, rc = KF_OK;
    while (rc == KF_OK && (got = kf_records_next(&it, &rec)) == 1) {
        rc = decode_one(r, &rec);
        if (rc == KF_OK && r->nahead == AHEAD)
            rc = apply_pending(r, pr, b);
    }
    if (rc == KF_OK)
        rc = apply_pending(r, pr, b);
    if (rc != KF_OK)
        return rc;
    if (got < 0) {
        r->res->incomplete = true;
        snprintf(msg, sizeof msg, "rest of batch skipped: %s", it.err_msg);
        problem(r, pr, b, b->base_offset, it.err_code ? it.err_code : KF_P_BAD_RECORD, KF_SEV_ERROR, msg);
    }
    return KF_OK;
}

int rm_replay_partition(rm_state *st, const kf_partition *p, int32_t mpart, const kf_remote_opts *o,
                        rm_replay_result *res)
{
    replay *r = calloc(1, sizeof *r);
    if (!r)
        return kf_error_nomem();
    *r = (replay){.st = st, .mpart = mpart, .o = o, .res = res, .rc = KF_OK};
    layouts_init(&r->lay);
    kf_part_result pres;
    int rc = kf_part_feed(p, &o->read, on_batch, r, &pres);
    if (pres.uncovered)
        res->incomplete = true;
    if (pres.unreadable)
        res->unreadable = true;
    kf_dtree_free(&r->tree);
    free(r->epochs);
    free(r->pool);
    free(r);
    return rc;
}
