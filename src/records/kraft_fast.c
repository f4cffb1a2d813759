/* kraft_fast.c: the hot KRaft metadata records without a tree
 * (kraft_fast.h). The layouts (docs/formats.md §14.1-§14.2, §14.9), from
 * Kafka's metadata schemas (metadata/src/main/resources/common/metadata/
 * PartitionChangeRecord.json, PartitionRecord.json, TopicRecord.json,
 * ConfigRecord.json, BrokerRegistrationChangeRecord.json, NoOpRecord.json),
 * as kraft_schema.c describes them to the generic decoder:
 *   envelope: uvarint frame version 1, uvarint apiKey, uvarint version
 *   TopicRecord v0: name, topic_id
 *   PartitionRecord v0-2: partition_id, topic_id, replicas, isr,
 *     removing_replicas, adding_replicas, leader, leader_epoch,
 *     partition_epoch, v1+ directories; tags 0 leader_recovery_state,
 *     v2+ 1 eligible_leader_replicas, 2 last_known_elr (nullable)
 *   ConfigRecord v0: int8 resource_type, resource_name, name, value (nullable)
 *   PartitionChangeRecord v0-2: partition_id, topic_id; tags (nullable
 *     arrays) 0 isr, 1 leader, 2 replicas, 3 removing_replicas,
 *     4 adding_replicas, 5 leader_recovery_state, v1+ 8 directories,
 *     v2+ 6 eligible_leader_replicas, 7 last_known_elr
 *   BrokerRegistrationChangeRecord v0-3: broker_id, int64 broker_epoch;
 *     tags 0 int8 fenced, v1+ 1 int8 in_controlled_shutdown, v2+ 2 log_dirs,
 *     v3+ 3 cordoned_log_dirs (nullable)
 *   NoOpRecord v0: nothing
 * (flexible encoding: compact strings and arrays, uvarint length + 1, 0 for
 * null; every struct ends with its tagged fields, uvarint count then tag,
 * size and value each). The generic decoder's rules are kept where it
 * accepts a record: a tagged field's value read within its size and the rest
 * of the size ignored, a repeated tag's last value kept, unknown tags
 * skipped by their size, no byte left over. Whatever it would refuse is
 * declined here. Hand-written on purpose: this runs once per record of a
 * metadata log of millions, where building the tree took several times
 * what reading the fields does. */
#include "records/kraft_fast.h"

#include <string.h>

#include "bytes/cursor.h"
#include "kfsck/sys/kraft.h"
#include "records/coord_internal.h"

#define FRAME_VERSION 1
#define SHORT_MAX 32767    /* the header numbers and a string's length */
/* Records larger than this are declined: below it the generic decoder's
 * node cap (1 << 20 nodes, each at least two bytes of input) cannot be hit. */
#define FAST_MAX_VALUE (1u << 20)

/* ---- reading the flexible encoding ------------------------------------------------------ */

/* What is left of a record (or of a tagged field's value): p..end. Every
 * read checks it has the bytes; a false return declines the record. */
typedef struct rd {
    const uint8_t *p, *end;
} rd;

static size_t left(const rd *r) { return (size_t)(r->end - r->p); }

/* An unsigned varint of at most 5 bytes, its bits above 32 dropped (as
 * kf_cur_uvarint reads it). */
static bool uv_slow(rd *r, uint32_t *out)
{
    uint64_t v = 0;
    for (int i = 0; i < 5 && r->p < r->end; i++) {
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *out = (uint32_t)v;
            return true;
        }
    }
    return false;
}

static inline bool uv(rd *r, uint32_t *out)
{
    if (r->p < r->end && r->p[0] < 0x80) {
        *out = *r->p++;
        return true;
    }
    return uv_slow(r, out);
}

static inline const uint8_t *take(rd *r, size_t n)
{
    if (left(r) < n)
        return NULL;
    const uint8_t *q = r->p;
    r->p += n;
    return q;
}

static inline bool rd_i8(rd *r, int8_t *v)
{
    if (r->p >= r->end)
        return false;
    *v = (int8_t)*r->p++;
    return true;
}

static inline bool rd_i32(rd *r, int32_t *v)
{
    const uint8_t *q = take(r, 4);
    if (q)
        *v = (int32_t)kf_be32(q);
    return q != NULL;
}

/* A compact string (uvarint length + 1, 0 for null); false when it is null
 * and may not be, or does not fit. */
static bool rd_str(rd *r, kf_kraft_str *s, bool nullable)
{
    uint32_t n1;
    if (!uv(r, &n1))
        return false;
    s->p = NULL;
    s->len = 0;
    if (n1 == 0)
        return nullable;
    if (n1 - 1 > SHORT_MAX || !(s->p = take(r, n1 - 1)))
        return false;
    s->len = n1 - 1;
    return true;
}

static inline void no_array(kf_kraft_array *a)
{
    a->present = false;
    a->n = 0;
}

static inline void no_lists(kf_kraft_partition_fields *l)
{
    const kf_kraft_array none = {.present = false};
    l->replicas = l->isr = l->removing_replicas = l->adding_replicas = l->elr = l->last_known_elr = l->directories =
        none;
}

/* A compact array of elem-byte elements (int32s or uuids). */
static inline bool rd_array(rd *r, kf_kraft_array *a, size_t elem, bool nullable)
{
    uint32_t n1;
    if (!uv(r, &n1))
        return false;
    no_array(a);
    if (n1 == 0)
        return nullable;
    if (n1 - 1 > left(r) / elem)
        return false;
    a->present = true;
    a->n = n1 - 1;
    a->be = take(r, (size_t)a->n * elem);
    return true;
}

/* One known tagged field of a record, read from its own bytes (v);
 * false: the record is declined. Tags it does not know are skipped. */
typedef bool (*tag_fn)(kf_kraft_flat *f, uint32_t tag, rd *v);

/* The tagged-field section that ends the record, each field given to fn
 * (NULL: none known, all skipped). Inlined into each record's reader, so
 * fn is a direct call there. */
static inline __attribute__((always_inline)) bool rd_tags(rd *r, kf_kraft_flat *f, tag_fn fn)
{
    uint32_t n;
    if (!uv(r, &n) || n > left(r) / 2)
        return false;
    while (n--) {
        uint32_t tag, size;
        if (!uv(r, &tag) || !uv(r, &size) || size > left(r))
            return false;
        rd v = {r->p, r->p + size};
        r->p += size;
        if (fn && !fn(f, tag, &v))
            return false;
    }
    return true;
}

/* ---- the records ------------------------------------------------------------------------ */

/* The start of both partition records (the id and topic id), with the
 * values of the tagged fields when the record lacks them. */
static inline bool partition_head(rd *r, kf_kraft_partition_fields *l, int32_t leader, int8_t lrs)
{
    l->leader = leader;
    l->leader_recovery_state = lrs;
    no_lists(l);
    return rd_i32(r, &l->partition_id) && (l->topic_id = take(r, 16));
}

static bool partition_tag(kf_kraft_flat *f, uint32_t tag, rd *v)
{
    kf_kraft_partition_fields *l = &f->u.partition.part;
    if (tag == 0)
        return rd_i8(v, &l->leader_recovery_state);
    if (tag == 1 && f->version >= 2)
        return rd_array(v, &l->elr, 4, true);
    if (tag == 2 && f->version >= 2)
        return rd_array(v, &l->last_known_elr, 4, true);
    return true;
}

static bool partition(rd *r, kf_kraft_flat *f)
{
    kf_kraft_partition *p = &f->u.partition;
    kf_kraft_partition_fields *l = &p->part;
    if (!partition_head(r, l, -1, 0) || !rd_array(r, &l->replicas, 4, false) || !rd_array(r, &l->isr, 4, false) ||
        !rd_array(r, &l->removing_replicas, 4, false) || !rd_array(r, &l->adding_replicas, 4, false) ||
        !rd_i32(r, &l->leader) || !rd_i32(r, &p->leader_epoch) || !rd_i32(r, &p->partition_epoch))
        return false;
    if (f->version >= 1 && !rd_array(r, &l->directories, 16, false))
        return false;
    return rd_tags(r, f, partition_tag);
}

static bool change_tag(kf_kraft_flat *f, uint32_t tag, rd *v)
{
    kf_kraft_partition_fields *l = &f->u.partition_change.part;
    switch (tag) {
    case 0: return rd_array(v, &l->isr, 4, true);
    case 1: return rd_i32(v, &l->leader);
    case 2: return rd_array(v, &l->replicas, 4, true);
    case 3: return rd_array(v, &l->removing_replicas, 4, true);
    case 4: return rd_array(v, &l->adding_replicas, 4, true);
    case 5: return rd_i8(v, &l->leader_recovery_state);
    case 6: return f->version < 2 || rd_array(v, &l->elr, 4, true);
    case 7: return f->version < 2 || rd_array(v, &l->last_known_elr, 4, true);
    case 8: return f->version < 1 || rd_array(v, &l->directories, 16, true);
    default: return true;
    }
}

static bool partition_change(rd *r, kf_kraft_flat *f)
{
    return partition_head(r, &f->u.partition_change.part, -2, -1) && rd_tags(r, f, change_tag);
}

static bool topic(rd *r, kf_kraft_flat *f)
{
    kf_kraft_topic *t = &f->u.topic;
    return rd_str(r, &t->name, false) && (t->topic_id = take(r, 16)) && rd_tags(r, f, NULL);
}

static bool config(rd *r, kf_kraft_flat *f)
{
    kf_kraft_config *k = &f->u.config;
    k->has_names = k->has_value = true;
    return rd_i8(r, &k->resource_type) && rd_str(r, &k->resource_name, false) && rd_str(r, &k->name, false) &&
           rd_str(r, &k->value, true) && rd_tags(r, f, NULL);
}

static bool broker_change_tag(kf_kraft_flat *f, uint32_t tag, rd *v)
{
    kf_kraft_broker_change *b = &f->u.broker_change;
    if (tag == 0)
        return rd_i8(v, &b->fenced);
    if (tag == 1 && f->version >= 1)
        return rd_i8(v, &b->in_controlled_shutdown);
    if (tag == 2 && f->version >= 2)
        return rd_array(v, &b->log_dirs, 16, false);
    if (tag == 3 && f->version >= 3)
        return rd_array(v, &b->cordoned_log_dirs, 16, true);
    return true; /* a later version's tag, or an unknown one */
}

static bool broker_change(rd *r, kf_kraft_flat *f)
{
    kf_kraft_broker_change *b = &f->u.broker_change;
    b->fenced = b->in_controlled_shutdown = 0;
    no_array(&b->log_dirs);
    no_array(&b->cordoned_log_dirs);
    const uint8_t *e;
    if (!rd_i32(r, &b->broker_id) || !(e = take(r, 8)))
        return false;
    b->broker_epoch = (int64_t)kf_be64(e);
    return rd_tags(r, f, broker_change_tag);
}

bool kf_kraft_fast(const uint8_t *value, int32_t value_len, kf_kraft_flat *out)
{
    if (!value || value_len < 3 || (uint32_t)value_len > FAST_MAX_VALUE)
        return false;
    rd r = {value, value + value_len};
    uint32_t frame, key, ver;
    if (!uv(&r, &frame) || !uv(&r, &key) || !uv(&r, &ver) || frame != FRAME_VERSION || key > SHORT_MAX ||
        ver > SHORT_MAX)
        return false;
    out->api_key = (int16_t)key;
    out->version = (int16_t)ver;
    bool ok;
    switch (key) {
    case KF_MD_TOPIC: ok = ver == 0 && topic(&r, out); break;
    case KF_MD_PARTITION: ok = ver <= 2 && partition(&r, out); break;
    case KF_MD_CONFIG: ok = ver == 0 && config(&r, out); break;
    case KF_MD_PARTITION_CHANGE: ok = ver <= 2 && partition_change(&r, out); break;
    case KF_MD_BROKER_REGISTRATION_CHANGE: ok = ver <= 3 && broker_change(&r, out); break;
    case KF_MD_NO_OP: ok = ver == 0 && rd_tags(&r, out, NULL); break;
    default: return false;
    }
    return ok && r.p == r.end;
}

/* ---- the same from the generic decoder's tree ---------------------------------------------- */

void kf_kraft_array_of_node(const kf_dtree *t, const kf_dnode *arr, bool uuids, kf_kraft_array *out)
{
    memset(out, 0, sizeof *out);
    out->t = t;
    out->first = KF_DNODE_NONE;
    if (!arr || arr->kind != KF_V_ARRAY)
        return;
    out->present = true;
    out->first = arr->first_child;
    /* the elements of the kind the array holds (an array the decoder read
     * in full holds no other) */
    uint32_t k = 0;
    for (uint32_t c = arr->first_child; c != KF_DNODE_NONE && k < arr->n_children; c = t->nodes[c].next)
        if (t->nodes[c].kind == (uuids ? KF_V_UUID : KF_V_INT))
            k++;
    out->n = k;
}

void kf_kraft_ints_copy(const kf_kraft_array *a, int32_t *out)
{
    if (!a->n)
        return;
    if (a->be) {
        for (uint32_t i = 0; i < a->n; i++)
            out[i] = (int32_t)kf_be32(a->be + 4 * (size_t)i);
        return;
    }
    uint32_t k = 0;
    for (uint32_t c = a->first; c != KF_DNODE_NONE && k < a->n; c = a->t->nodes[c].next)
        if (a->t->nodes[c].kind == KF_V_INT)
            out[k++] = (int32_t)a->t->nodes[c].i;
}

void kf_kraft_uuids_copy(const kf_kraft_array *a, uint8_t (*out)[16])
{
    if (!a->n)
        return;
    if (a->be) {
        memcpy(out, a->be, 16 * (size_t)a->n);
        return;
    }
    uint32_t k = 0;
    for (uint32_t c = a->first; c != KF_DNODE_NONE && k < a->n; c = a->t->nodes[c].next)
        if (a->t->nodes[c].kind == KF_V_UUID)
            memcpy(out[k++], a->t->nodes[c].p, 16);
}

static int64_t node_int(const kf_dtree *t, const kf_dnode *st, const char *name, int64_t def)
{
    const kf_dnode *n = kf_dnode_field(t, st, name);
    return n && (n->kind == KF_V_INT || n->kind == KF_V_BOOL) ? n->i : def;
}

static const uint8_t *node_uuid(const kf_dtree *t, const kf_dnode *st, const char *name)
{
    const kf_dnode *n = kf_dnode_field(t, st, name);
    return n && n->kind == KF_V_UUID ? n->p : NULL;
}

/* A string field: false when absent or not a string; a null one has p NULL. */
static bool node_str(const kf_dtree *t, const kf_dnode *st, const char *name, bool null_ok, kf_kraft_str *s)
{
    const kf_dnode *n = kf_dnode_field(t, st, name);
    s->p = NULL;
    s->len = 0;
    if (n && n->kind == KF_V_NULL)
        return null_ok;
    if (!n || n->kind != KF_V_STRING)
        return false;
    s->p = n->p;
    s->len = n->len;
    return true;
}

static void node_array(const kf_dtree *t, const kf_dnode *st, const char *name, bool uuids, kf_kraft_array *out)
{
    kf_kraft_array_of_node(t, kf_dnode_field(t, st, name), uuids, out);
}

/* The fields of a partition or partition change record; leader and lrs
 * when the tree lacks them (absent lists: not present). */
static void node_partition(const kf_dtree *t, const kf_dnode *st, int32_t leader, int8_t lrs,
                           kf_kraft_partition_fields *l)
{
    l->partition_id = (int32_t)node_int(t, st, "partition_id", -1);
    l->topic_id = node_uuid(t, st, "topic_id");
    l->leader = (int32_t)node_int(t, st, "leader", leader);
    l->leader_recovery_state = (int8_t)node_int(t, st, "leader_recovery_state", lrs);
    node_array(t, st, "replicas", false, &l->replicas);
    node_array(t, st, "isr", false, &l->isr);
    node_array(t, st, "removing_replicas", false, &l->removing_replicas);
    node_array(t, st, "adding_replicas", false, &l->adding_replicas);
    node_array(t, st, "eligible_leader_replicas", false, &l->elr);
    node_array(t, st, "last_known_elr", false, &l->last_known_elr);
    node_array(t, st, "directories", true, &l->directories);
}

bool kf_kraft_flat_from_tree(const kf_dtree *t, uint32_t root, int16_t api_key, int16_t version, kf_kraft_flat *out)
{
    if (root == KF_DNODE_NONE || root >= t->n)
        return false;
    const kf_dnode *st = &t->nodes[root];
    out->api_key = api_key;
    out->version = version;
    switch (api_key) {
    case KF_MD_TOPIC: {
        kf_kraft_topic *r = &out->u.topic;
        node_str(t, st, "name", false, &r->name);
        r->topic_id = node_uuid(t, st, "topic_id");
        return true;
    }
    case KF_MD_PARTITION: {
        kf_kraft_partition *r = &out->u.partition;
        node_partition(t, st, -1, 0, &r->part);
        r->leader_epoch = (int32_t)node_int(t, st, "leader_epoch", -1);
        r->partition_epoch = (int32_t)node_int(t, st, "partition_epoch", -1);
        return true;
    }
    case KF_MD_CONFIG: {
        kf_kraft_config *r = &out->u.config;
        r->resource_type = (int8_t)node_int(t, st, "resource_type", 0);
        r->has_names = node_str(t, st, "resource_name", false, &r->resource_name) &&
                       node_str(t, st, "name", false, &r->name);
        r->has_value = node_str(t, st, "value", true, &r->value);
        return true;
    }
    case KF_MD_PARTITION_CHANGE: node_partition(t, st, -2, -1, &out->u.partition_change.part); return true;
    case KF_MD_BROKER_REGISTRATION_CHANGE: {
        kf_kraft_broker_change *r = &out->u.broker_change;
        r->broker_id = (int32_t)node_int(t, st, "broker_id", -1);
        r->broker_epoch = node_int(t, st, "broker_epoch", -1);
        r->fenced = (int8_t)node_int(t, st, "fenced", 0);
        r->in_controlled_shutdown = (int8_t)node_int(t, st, "in_controlled_shutdown", 0);
        node_array(t, st, "log_dirs", true, &r->log_dirs);
        node_array(t, st, "cordoned_log_dirs", true, &r->cordoned_log_dirs);
        return true;
    }
    case KF_MD_NO_OP: return true;
    default: return false;
    }
}

const char *kf_kraft_record_type(int16_t api_key)
{
    uint32_t n = 0;
    const cs_record *recs = kf_cs_metadata_records(&n);
    const cs_record *r = kf_cs_find(recs, n, api_key);
    return r ? r->record_type : NULL;
}
