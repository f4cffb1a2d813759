/* coord_walk.c: the generic schema walker behind the decoders of Kafka's
 * internal topics (coordinator records, __share_group_state, KRaft metadata
 * and control records, __remote_log_metadata, the consumer protocol;
 * docs/formats.md §1.2, §11.1, §11.4): the decoding context and its error
 * path, and the readers of primitives, fields, tagged sections, structs and
 * messages. Everything on the per-field path stays in this file.
 *
 * One walker reads any message of the schema table (coord_schema.c) at a
 * given version: fixed-size integers, classic (int16/int32 length) or compact
 * (uvarint length+1) strings, bytes and arrays, nullable fields, uuids,
 * nullable structs, and in flexible versions the tagged-field section that
 * ends every struct (known tags decoded into their named fields, unknown tags
 * skipped by their size). All reads go through the bounds-checked cursor;
 * the first failure stops the walk and is recorded with its byte position and
 * the path of the field being read. The output is a tree of nodes in the
 * caller's arena; strings, bytes and uuids point into the input.
 *
 * What the tree holds: the fields that are in the bytes, in schema order.
 * Fields the version does not have are left out, and so are tagged fields
 * absent from the tagged section (as Kafka's JSON formatters do); their
 * defaults are in the schema table. Partly decoded values keep every field
 * decoded before the failure (containers keep the elements read so far). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "records/coord_walk.h"
#include "bytes/cursor.h"

#define DTREE_FIRST_CAP 64u
#define KAFKA_MAX_STRING 0x7fff /* Kafka refuses longer compact strings */

/* ---- decoding context ------------------------------------------------------ */

static void path_push(cs_dctx *d, const char *name)
{
    if (d->depth < PATH_DEPTH) {
        d->path[d->depth].name = name;
        d->path[d->depth].index = -1;
    }
    d->depth++;
}

static void path_pop(cs_dctx *d) { d->depth--; }

static void path_index(cs_dctx *d, int64_t i)
{
    if (d->depth > 0 && d->depth <= PATH_DEPTH)
        d->path[d->depth - 1].index = i;
}

static void fail(cs_dctx *d, int code, size_t pos, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void fail(cs_dctx *d, int code, size_t pos, const char *fmt, ...)
{
    if (d->err)
        return;
    d->err = code;
    d->err_pos = pos;
    kf_cur_fail(&d->c, code);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    va_end(ap);
    size_t l = strlen(d->msg);
    l += (size_t)snprintf(d->msg + l, sizeof d->msg - l, " at byte %zu", pos);
    if (l >= sizeof d->msg)
        return;
    int depth = d->depth < PATH_DEPTH ? d->depth : PATH_DEPTH;
    for (int i = 0; i < depth && l < sizeof d->msg; i++) {
        const char *nm = d->path[i].name ? d->path[i].name : "?";
        l += (size_t)snprintf(d->msg + l, sizeof d->msg - l, "%s%s", i == 0 ? " in " : ".", nm);
        if (l < sizeof d->msg && d->path[i].index >= 0)
            l += (size_t)snprintf(d->msg + l, sizeof d->msg - l, "[%" PRId64 "]", d->path[i].index);
    }
}

/* After cursor reads: turn a cursor failure into the context's error. */
static bool ok(cs_dctx *d)
{
    if (d->c.err && !d->err) {
        int code = d->c.err;
        /* The cursor stops at the read that failed. */
        fail(d, code, d->c.pos, code == KF_ERR_TRUNCATED ? "truncated" : "malformed varint");
    }
    return d->err == 0;
}

/* node_new when the arena is full: the cap checked, the arena grown. false
 * (d's error set) when it cannot take another node. */
static bool node_room(cs_dctx *d)
{
    kf_dtree *t = d->t;
    uint32_t max = t->max_nodes ? t->max_nodes : DTREE_DEFAULT_MAX;
    if (max >= KF_DNODE_NONE)
        max = KF_DNODE_NONE - 1;
    if (t->n >= max) {
        fail(d, KF_ERR_TOO_BIG, d->c.pos, "more than %" PRIu32 " decoded nodes", max);
        return false;
    }
    if (t->n >= t->cap) {
        uint32_t nc = t->cap ? (t->cap > max / 2 ? max : t->cap * 2) : DTREE_FIRST_CAP;
        if (nc > max)
            nc = max;
        kf_dnode *nn = realloc(t->nodes, (size_t)nc * sizeof *nn);
        if (!nn) {
            fail(d, KF_ERR_NOMEM, d->c.pos, "out of memory");
            return false;
        }
        t->nodes = nn;
        t->cap = nc;
    }
    return true;
}

/* A new node. The arena's room is looked at only when it is full, or when
 * the caller lowered max_nodes below what it holds (d->room, set at the
 * walk's start and on each look, is the nodes it may take without one). */
static inline uint32_t node_new(cs_dctx *d, kf_vkind kind, const char *name)
{
    kf_dtree *t = d->t;
    if (t->n >= d->room) {
        if (!node_room(d))
            return KF_DNODE_NONE;
        uint32_t max = t->max_nodes ? t->max_nodes : DTREE_DEFAULT_MAX;
        d->room = t->cap < max ? t->cap : max;
    }
    kf_dnode *x = &t->nodes[t->n];
    *x = (kf_dnode){.kind = kind, .name = name, .first_child = KF_DNODE_NONE, .next = KF_DNODE_NONE};
    return t->n++;
}

/* ---- the walker ----------------------------------------------------------- */

static void decode_struct(cs_dctx *d, const cs_struct *st, int16_t ver, bool flex, uint32_t self);

/* A length or count: classic int16 (strings) / int32 (bytes, arrays), or
 * compact uvarint(n+1). -1 = null. */
static int64_t read_len(cs_dctx *d, bool flex, bool is_string)
{
    if (flex)
        return (int64_t)kf_cur_uvarint(&d->c) - 1;
    return is_string ? (int64_t)kf_cur_i16(&d->c) : (int64_t)kf_cur_i32(&d->c);
}

static uint32_t null_node(cs_dctx *d, const char *name, bool nullable, size_t at)
{
    if (!nullable) {
        fail(d, KF_ERR_CORRUPT, at, "null in a non-nullable field");
        return KF_DNODE_NONE;
    }
    return node_new(d, KF_V_NULL, name);
}

/* A primitive value (not struct or array). */
static uint32_t decode_prim(cs_dctx *d, int kind, const char *name, bool flex, bool nullable)
{
    size_t at = d->c.pos;
    kf_vkind vk = KF_V_INT;
    int64_t iv = 0;
    double fv = 0;
    const uint8_t *p = NULL;
    uint32_t len = 0;
    switch (kind) {
    case CS_INT8: iv = (int8_t)kf_cur_u8(&d->c); break;
    case CS_INT16: iv = kf_cur_i16(&d->c); break;
    case CS_UINT16: iv = kf_cur_u16(&d->c); break;
    case CS_INT32: iv = kf_cur_i32(&d->c); break;
    case CS_INT64: iv = kf_cur_i64(&d->c); break;
    case CS_FLOAT64:
        vk = KF_V_FLOAT;
        fv = kf_cur_f64(&d->c);
        break;
    case CS_BOOL:
        vk = KF_V_BOOL;
        iv = kf_cur_u8(&d->c) != 0;
        break;
    case CS_UUID:
        vk = KF_V_UUID;
        p = kf_cur_take(&d->c, 16);
        len = 16;
        break;
    case CS_STRING:
    case CS_BYTES: {
        vk = kind == CS_STRING ? KF_V_STRING : KF_V_BYTES;
        int64_t n = read_len(d, flex, kind == CS_STRING);
        if (!ok(d))
            return KF_DNODE_NONE;
        if (n < 0)
            return null_node(d, name, nullable, at);
        if (kind == CS_STRING && n > KAFKA_MAX_STRING) {
            fail(d, KF_ERR_CORRUPT, at, "string length %" PRId64 " over %d", n, KAFKA_MAX_STRING);
            return KF_DNODE_NONE;
        }
        if ((uint64_t)n > kf_cur_left(&d->c)) {
            fail(d, KF_ERR_TRUNCATED, d->c.pos, "%s of %" PRId64 " bytes but %zu left",
                 kind == CS_STRING ? "string" : "bytes", n, kf_cur_left(&d->c));
            return KF_DNODE_NONE;
        }
        p = kf_cur_take(&d->c, (size_t)n);
        len = (uint32_t)n;
        break;
    }
    default:
        fail(d, KF_ERR_CORRUPT, at, "bad schema kind %d", kind);
        return KF_DNODE_NONE;
    }
    if (!ok(d))
        return KF_DNODE_NONE;
    uint32_t x = node_new(d, vk, name);
    if (x == KF_DNODE_NONE)
        return x;
    kf_dnode *nd = &d->t->nodes[x];
    nd->i = iv;
    nd->f = fv;
    nd->p = p;
    nd->len = len;
    return x;
}

/* The kinds of a fixed size (never null: Kafka has no nullable number or
 * uuid), read by decode_fixed; their widths. */
static const uint8_t FIXED_WIDTH[CS_UUID + 1] = {
    [CS_INT8] = 1, [CS_INT16] = 2, [CS_UINT16] = 2, [CS_INT32] = 4, [CS_INT64] = 8,
    [CS_FLOAT64] = 8, [CS_BOOL] = 1, [CS_UUID] = 16,
};

#define FIXED_KINDS                                                                                   \
    (1u << CS_INT8 | 1u << CS_INT16 | 1u << CS_UINT16 | 1u << CS_INT32 | 1u << CS_INT64 | 1u << CS_FLOAT64 | \
     1u << CS_BOOL | 1u << CS_UUID)

static inline bool fixed_kind(unsigned kind) { return kind < 32 && (FIXED_KINDS >> kind & 1u); }

/* A field of a fixed-size kind, the common case of a struct's fields: what
 * decode_prim makes of it, with the field's name put on the error path only
 * when something fails (the path an error names is the same). */
static uint32_t decode_fixed(cs_dctx *d, int kind, const char *name)
{
    kf_dtree *t = d->t;
    const uint8_t *p = t->n < d->room ? kf_cur_take(&d->c, FIXED_WIDTH[kind]) : NULL;
    if (!p) { /* the arena's room to look at, or the bytes end: decode_prim's way */
        path_push(d, name);
        uint32_t x = decode_prim(d, kind, name, false, false);
        path_pop(d);
        return x;
    }
    kf_dnode *v = &t->nodes[t->n];
    *v = (kf_dnode){.kind = KF_V_INT, .name = name, .first_child = KF_DNODE_NONE, .next = KF_DNODE_NONE};
    switch (kind) {
    case CS_INT8: v->i = (int8_t)p[0]; break;
    case CS_INT16: v->i = (int16_t)kf_be16(p); break;
    case CS_UINT16: v->i = kf_be16(p); break;
    case CS_INT32: v->i = (int32_t)kf_be32(p); break;
    case CS_INT64: v->i = (int64_t)kf_be64(p); break;
    case CS_FLOAT64: {
        uint64_t u = kf_be64(p);
        v->kind = KF_V_FLOAT;
        memcpy(&v->f, &u, sizeof v->f);
        break;
    }
    case CS_BOOL:
        v->kind = KF_V_BOOL;
        v->i = p[0] != 0;
        break;
    default: /* CS_UUID */
        v->kind = KF_V_UUID;
        v->p = p;
        v->len = 16;
        break;
    }
    return t->n++;
}

/* One field at version ver. tagged: read from a tagged-field section (a
 * nullable struct then has a uvarint presence marker, not an int8). Returns
 * the field's node, KF_DNODE_NONE if nothing could be made of it; a
 * container that failed part-way is returned with what it holds. */
static uint32_t decode_field(cs_dctx *d, const cs_field *f, int16_t ver, bool flex, bool tagged)
{
    bool nullable = cs_in(ver, f->null_min, f->null_max);
    size_t at = d->c.pos;
    if (f->kind == CS_STRUCT) {
        if (nullable) {
            bool isnull;
            if (tagged)
                isnull = (int32_t)kf_cur_uvarint(&d->c) <= 0; /* Kafka: readUnsignedVarint() <= 0 */
            else
                isnull = (int8_t)kf_cur_u8(&d->c) < 0; /* Kafka: readByte() < 0 */
            if (!ok(d))
                return KF_DNODE_NONE;
            if (isnull)
                return node_new(d, KF_V_NULL, f->name);
        }
        uint32_t s = node_new(d, KF_V_STRUCT, f->name);
        if (s != KF_DNODE_NONE)
            decode_struct(d, f->sub, ver, flex, s);
        return s;
    }
    if (f->kind != CS_ARRAY)
        return decode_prim(d, f->kind, f->name, flex, nullable);

    int64_t count = read_len(d, flex, false);
    if (!ok(d))
        return KF_DNODE_NONE;
    if (count < 0)
        return null_node(d, f->name, nullable, at);
    /* Every element takes at least one byte. */
    if ((uint64_t)count > kf_cur_left(&d->c)) {
        fail(d, KF_ERR_TRUNCATED, at, "array of %" PRId64 " elements but %zu bytes left", count,
             kf_cur_left(&d->c));
        return KF_DNODE_NONE;
    }
    uint32_t a = node_new(d, KF_V_ARRAY, f->name);
    if (a == KF_DNODE_NONE)
        return a;
    uint32_t prev = KF_DNODE_NONE, k = 0;
    for (int64_t i = 0; i < count; i++) {
        path_index(d, i);
        uint32_t e;
        if (f->elem == CS_STRUCT) {
            e = node_new(d, KF_V_STRUCT, NULL);
            if (e != KF_DNODE_NONE)
                decode_struct(d, f->sub, ver, flex, e);
        } else {
            e = decode_prim(d, f->elem, NULL, flex, false);
        }
        if (e != KF_DNODE_NONE) {
            if (prev == KF_DNODE_NONE)
                d->t->nodes[a].first_child = e;
            else
                d->t->nodes[prev].next = e;
            prev = e;
            k++;
        }
        if (d->err)
            break;
    }
    path_index(d, -1);
    d->t->nodes[a].n_children = k;
    return a;
}

static bool tagged_in(const cs_field *f, int16_t ver)
{
    return f->tag >= 0 && cs_in(ver, f->tag_min, f->tag_max);
}

/* The tagged-field section at the end of a flexible struct: known tags
 * decoded into slot (by field index). Whether any slot was set. */
static bool decode_tags(cs_dctx *d, const cs_struct *st, int16_t ver, uint32_t *slot)
{
    size_t at = d->c.pos;
    uint32_t n = kf_cur_uvarint(&d->c);
    bool set = false;
    if (!ok(d))
        return set;
    if (n > kf_cur_left(&d->c) / 2) {
        fail(d, KF_ERR_TRUNCATED, at, "%" PRIu32 " tagged fields but %zu bytes left", n, kf_cur_left(&d->c));
        return set;
    }
    for (uint32_t i = 0; i < n; i++) {
        size_t tat = d->c.pos;
        uint32_t tag = kf_cur_uvarint(&d->c);
        uint32_t size = kf_cur_uvarint(&d->c);
        if (!ok(d))
            return set;
        if (size > kf_cur_left(&d->c)) {
            fail(d, KF_ERR_TRUNCATED, tat, "tagged field %" PRIu32 " of %" PRIu32 " bytes but %zu left", tag,
                 size, kf_cur_left(&d->c));
            return set;
        }
        int fi = -1;
        for (uint16_t j = 0; j < st->n_fields; j++)
            if (tagged_in(&st->fields[j], ver) && (uint32_t)st->fields[j].tag == tag) {
                fi = j;
                break;
            }
        size_t end = d->c.pos + size;
        if (fi < 0) { /* unknown tag: skipped by its size */
            kf_cur_skip(&d->c, size);
            continue;
        }
        const cs_field *f = &st->fields[fi];
        size_t save_len = d->c.len;
        d->c.len = end;
        path_push(d, f->name);
        uint32_t x = decode_field(d, f, ver, true, true);
        (void)ok(d);
        if (d->err == KF_ERR_TRUNCATED) {
            /* The value ran past its own size: the size is wrong. */
            d->err = KF_ERR_CORRUPT;
            size_t l = strlen(d->msg);
            snprintf(d->msg + l, sizeof d->msg - l, " (tag %" PRIu32 " size %" PRIu32 ")", tag, size);
        }
        if (x != KF_DNODE_NONE && (f->flags & CS_F_SECRET))
            d->t->nodes[x].flags |= KF_DNODE_SECRET;
        slot[fi] = x; /* a repeated tag: the last one wins, as in Kafka */
        set |= x != KF_DNODE_NONE;
        path_pop(d);
        d->c.len = save_len;
        if (d->err)
            return set;
        d->c.pos = end; /* bytes the field did not use are ignored */
    }
    return set;
}

/* Decodes st's fields into the struct node self and links them in schema
 * order. The untagged fields are linked as they are read (their reading
 * order is the schema's); fields found in the tagged section are put in
 * their places afterwards. */
static void decode_struct(cs_dctx *d, const cs_struct *st, int16_t ver, bool flex, uint32_t self)
{
    uint32_t slot[CS_MAX_FIELDS];
    uint16_t nf = st->n_fields < CS_MAX_FIELDS ? st->n_fields : CS_MAX_FIELDS;
    kf_dnode *nodes;
    uint32_t prev = KF_DNODE_NONE, k = 0;
    uint16_t i = 0;
    for (; i < nf && !d->err; i++) {
        const cs_field *f = &st->fields[i];
        slot[i] = KF_DNODE_NONE;
        /* Tagged fields are read from the tagged section (flexible versions only). */
        if (!cs_in(ver, f->v_min, f->v_max) || tagged_in(f, ver))
            continue;
        uint32_t x;
        if (fixed_kind(f->kind)) {
            x = decode_fixed(d, f->kind, f->name);
        } else if (f->kind == CS_STRUCT && !cs_in(ver, f->null_min, f->null_max)) {
            /* decode_field's way for a struct that cannot be null */
            path_push(d, f->name);
            x = node_new(d, KF_V_STRUCT, f->name);
            if (x != KF_DNODE_NONE)
                decode_struct(d, f->sub, ver, flex, x);
            path_pop(d);
        } else if (f->kind != CS_STRUCT && f->kind != CS_ARRAY) {
            /* decode_field's way for a string or bytes */
            path_push(d, f->name);
            x = decode_prim(d, f->kind, f->name, flex, cs_in(ver, f->null_min, f->null_max));
            path_pop(d);
        } else {
            path_push(d, f->name);
            x = decode_field(d, f, ver, flex, false);
            path_pop(d);
        }
        if (x == KF_DNODE_NONE)
            continue;
        slot[i] = x;
        nodes = d->t->nodes; /* the arena may have moved */
        if (f->flags & CS_F_SECRET)
            nodes[x].flags |= KF_DNODE_SECRET;
        if (prev == KF_DNODE_NONE)
            nodes[self].first_child = x;
        else
            nodes[prev].next = x;
        prev = x;
        k++;
    }
    if (flex && !d->err && decode_tags(d, st, ver, slot)) {
        /* tagged fields came: link every field again in schema order */
        nodes = d->t->nodes;
        prev = KF_DNODE_NONE;
        k = 0;
        for (i = 0; i < nf; i++) {
            uint32_t x = slot[i];
            if (x == KF_DNODE_NONE)
                continue;
            if (prev == KF_DNODE_NONE)
                nodes[self].first_child = x;
            else
                nodes[prev].next = x;
            nodes[x].next = KF_DNODE_NONE;
            prev = x;
            k++;
        }
    }
    d->t->nodes[self].n_children = k;
}

/* A whole message at layout version ver from the cursor's position: a root
 * struct node. */
uint32_t cs_decode_message(cs_dctx *d, const cs_message *m, int16_t ver)
{
    bool flex = m->flex_min >= 0 && ver >= m->flex_min;
    uint32_t root = node_new(d, KF_V_STRUCT, NULL);
    if (root != KF_DNODE_NONE)
        decode_struct(d, m->root, ver, flex, root);
    return root;
}

/* ---- entry points for the other decoders ----------------------------------- */

bool cs_walk_ok(cs_dctx *d) { return ok(d); }

uint32_t cs_walk_node(cs_dctx *d, kf_vkind kind, const char *name) { return node_new(d, kind, name); }

void cs_walk_struct(cs_dctx *d, const cs_struct *st, int16_t ver, bool flex, uint32_t self)
{
    decode_struct(d, st, ver, flex, self);
}
