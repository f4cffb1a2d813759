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
 * metadata log of millions, and the tree costs ten times the fields. */
#include "records/kraft_fast.h"

#include <string.h>

#include "bytes/cursor.h"
#include "kfsck/kraft.h"
#include "records/coord_internal.h"

#define FRAME_VERSION 1
#define SHORT_MAX 32767    /* the header numbers and a string's length */
/* Records larger than this are declined: below it the generic decoder's
 * node cap (1 << 20 nodes, each at least two bytes of input) cannot be hit. */
#define FAST_MAX_VALUE (1u << 20)

/* ---- reading the flexible encoding ------------------------------------------------------ */

/* A compact string; false when it is null and may not be, or does not fit. */
static bool rd_str(kf_cursor *c, kf_kraft_str *s, bool nullable)
{
    int64_t n = (int64_t)kf_cur_uvarint(c) - 1;
    if (c->err)
        return false;
    s->p = NULL;
    s->len = 0;
    if (n < 0)
        return nullable;
    if (n > SHORT_MAX || (uint64_t)n > kf_cur_left(c))
        return false;
    s->p = kf_cur_take(c, (size_t)n);
    s->len = (uint32_t)n;
    return true;
}

/* A compact array of elem-byte elements (int32s or uuids). */
static bool rd_array(kf_cursor *c, kf_kraft_array *a, size_t elem, bool nullable)
{
    int64_t n = (int64_t)kf_cur_uvarint(c) - 1;
    if (c->err)
        return false;
    memset(a, 0, sizeof *a);
    if (n < 0)
        return nullable;
    if ((uint64_t)n > kf_cur_left(c) / elem)
        return false;
    a->present = true;
    a->n = (uint32_t)n;
    a->be = kf_cur_take(c, (size_t)n * elem);
    return true;
}

static bool rd_i8(kf_cursor *c, int8_t *v)
{
    *v = (int8_t)kf_cur_u8(c);
    return !c->err;
}

static bool rd_i32(kf_cursor *c, int32_t *v)
{
    *v = kf_cur_i32(c);
    return !c->err;
}

/* One known tagged field of a record, read from its own bytes (c). */
typedef bool (*tag_fn)(kf_kraft_flat *f, uint32_t tag, kf_cursor *c);

/* The tagged-field section that ends the record: the tags with a bit in
 * known (those of the record's version) read by fn, the others skipped. */
static bool rd_tags(kf_cursor *c, kf_kraft_flat *f, uint32_t known, tag_fn fn)
{
    uint32_t n = kf_cur_uvarint(c);
    if (c->err || n > kf_cur_left(c) / 2)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t tag = kf_cur_uvarint(c);
        uint32_t size = kf_cur_uvarint(c);
        if (c->err || size > kf_cur_left(c))
            return false;
        const uint8_t *p = kf_cur_take(c, size);
        if (tag >= 32 || !(known & (1u << tag)))
            continue; /* unknown at this version: skipped */
        kf_cursor v;
        kf_cur_init(&v, p, size);
        if (!fn(f, tag, &v))
            return false;
    }
    return true;
}

/* ---- the records ------------------------------------------------------------------------ */

static bool partition_tag(kf_kraft_flat *f, uint32_t tag, kf_cursor *c)
{
    kf_kraft_partition *p = &f->u.partition;
    switch (tag) {
    case 0: return rd_i8(c, &p->leader_recovery_state);
    case 1: return rd_array(c, &p->elr, 4, true);
    default: return rd_array(c, &p->last_known_elr, 4, true);
    }
}

static bool partition(kf_cursor *c, kf_kraft_flat *f)
{
    kf_kraft_partition *p = &f->u.partition;
    memset(p, 0, sizeof *p);
    if (!rd_i32(c, &p->partition_id) || !(p->topic_id = kf_cur_take(c, 16)) ||
        !rd_array(c, &p->replicas, 4, false) || !rd_array(c, &p->isr, 4, false) ||
        !rd_array(c, &p->removing_replicas, 4, false) || !rd_array(c, &p->adding_replicas, 4, false) ||
        !rd_i32(c, &p->leader) || !rd_i32(c, &p->leader_epoch) || !rd_i32(c, &p->partition_epoch))
        return false;
    if (f->version >= 1 && !rd_array(c, &p->directories, 16, false))
        return false;
    return rd_tags(c, f, f->version >= 2 ? 0x7u : 0x1u, partition_tag);
}

static bool change_tag(kf_kraft_flat *f, uint32_t tag, kf_cursor *c)
{
    kf_kraft_partition_change *p = &f->u.partition_change;
    switch (tag) {
    case 0: return rd_array(c, &p->isr, 4, true);
    case 1: return rd_i32(c, &p->leader);
    case 2: return rd_array(c, &p->replicas, 4, true);
    case 3: return rd_array(c, &p->removing_replicas, 4, true);
    case 4: return rd_array(c, &p->adding_replicas, 4, true);
    case 5: return rd_i8(c, &p->leader_recovery_state);
    case 6: return rd_array(c, &p->elr, 4, true);
    case 7: return rd_array(c, &p->last_known_elr, 4, true);
    default: return rd_array(c, &p->directories, 16, true);
    }
}

static bool partition_change(kf_cursor *c, kf_kraft_flat *f)
{
    kf_kraft_partition_change *p = &f->u.partition_change;
    memset(p, 0, sizeof *p);
    p->leader = -2;
    p->leader_recovery_state = -1;
    if (!rd_i32(c, &p->partition_id) || !(p->topic_id = kf_cur_take(c, 16)))
        return false;
    uint32_t known = 0x3fu | (f->version >= 1 ? 1u << 8 : 0) | (f->version >= 2 ? 0xc0u : 0);
    return rd_tags(c, f, known, change_tag);
}

static bool topic(kf_cursor *c, kf_kraft_flat *f)
{
    kf_kraft_topic *t = &f->u.topic;
    return rd_str(c, &t->name, false) && (t->topic_id = kf_cur_take(c, 16)) && rd_tags(c, f, 0, NULL);
}

static bool config(kf_cursor *c, kf_kraft_flat *f)
{
    kf_kraft_config *k = &f->u.config;
    k->has_names = k->has_value = true;
    return rd_i8(c, &k->resource_type) && rd_str(c, &k->resource_name, false) && rd_str(c, &k->name, false) &&
           rd_str(c, &k->value, true) && rd_tags(c, f, 0, NULL);
}

static bool broker_change_tag(kf_kraft_flat *f, uint32_t tag, kf_cursor *c)
{
    kf_kraft_broker_change *b = &f->u.broker_change;
    switch (tag) {
    case 0: return rd_i8(c, &b->fenced);
    case 1: return rd_i8(c, &b->in_controlled_shutdown);
    case 2: return rd_array(c, &b->log_dirs, 16, false);
    default: return rd_array(c, &b->cordoned_log_dirs, 16, true);
    }
}

static bool broker_change(kf_cursor *c, kf_kraft_flat *f)
{
    kf_kraft_broker_change *b = &f->u.broker_change;
    memset(b, 0, sizeof *b);
    if (!rd_i32(c, &b->broker_id))
        return false;
    b->broker_epoch = kf_cur_i64(c);
    if (c->err)
        return false;
    return rd_tags(c, f, (1u << (f->version + 1)) - 1, broker_change_tag);
}

bool kf_kraft_fast(const uint8_t *value, int32_t value_len, kf_kraft_flat *out)
{
    if (!value || value_len < 3 || (uint32_t)value_len > FAST_MAX_VALUE)
        return false;
    kf_cursor c;
    kf_cur_init(&c, value, (size_t)value_len);
    uint32_t frame = kf_cur_uvarint(&c), key = kf_cur_uvarint(&c), ver = kf_cur_uvarint(&c);
    if (c.err || frame != FRAME_VERSION || key > SHORT_MAX || ver > SHORT_MAX)
        return false;
    out->api_key = (int16_t)key;
    out->version = (int16_t)ver;
    bool ok;
    switch (key) {
    case KF_MD_TOPIC: ok = ver == 0 && topic(&c, out); break;
    case KF_MD_PARTITION: ok = ver <= 2 && partition(&c, out); break;
    case KF_MD_CONFIG: ok = ver == 0 && config(&c, out); break;
    case KF_MD_PARTITION_CHANGE: ok = ver <= 2 && partition_change(&c, out); break;
    case KF_MD_BROKER_REGISTRATION_CHANGE: ok = ver <= 3 && broker_change(&c, out); break;
    case KF_MD_NO_OP: ok = ver == 0 && rd_tags(&c, out, 0, NULL); break;
    default: return false;
    }
    return ok && !c.err && kf_cur_left(&c) == 0;
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
    if (a->be) {
        if (a->n)
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
        r->partition_id = (int32_t)node_int(t, st, "partition_id", -1);
        r->topic_id = node_uuid(t, st, "topic_id");
        r->leader = (int32_t)node_int(t, st, "leader", -1);
        r->leader_epoch = (int32_t)node_int(t, st, "leader_epoch", -1);
        r->partition_epoch = (int32_t)node_int(t, st, "partition_epoch", -1);
        r->leader_recovery_state = (int8_t)node_int(t, st, "leader_recovery_state", 0);
        node_array(t, st, "replicas", false, &r->replicas);
        node_array(t, st, "isr", false, &r->isr);
        node_array(t, st, "removing_replicas", false, &r->removing_replicas);
        node_array(t, st, "adding_replicas", false, &r->adding_replicas);
        node_array(t, st, "directories", true, &r->directories);
        node_array(t, st, "eligible_leader_replicas", false, &r->elr);
        node_array(t, st, "last_known_elr", false, &r->last_known_elr);
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
    case KF_MD_PARTITION_CHANGE: {
        kf_kraft_partition_change *r = &out->u.partition_change;
        r->partition_id = (int32_t)node_int(t, st, "partition_id", -1);
        r->topic_id = node_uuid(t, st, "topic_id");
        r->leader = (int32_t)node_int(t, st, "leader", -2);
        r->leader_recovery_state = (int8_t)node_int(t, st, "leader_recovery_state", -1);
        node_array(t, st, "isr", false, &r->isr);
        node_array(t, st, "replicas", false, &r->replicas);
        node_array(t, st, "removing_replicas", false, &r->removing_replicas);
        node_array(t, st, "adding_replicas", false, &r->adding_replicas);
        node_array(t, st, "directories", true, &r->directories);
        node_array(t, st, "eligible_leader_replicas", false, &r->elr);
        node_array(t, st, "last_known_elr", false, &r->last_known_elr);
        return true;
    }
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
