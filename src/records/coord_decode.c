/* coord_decode.c: the generic decoder of coordinator records
 * (__consumer_offsets, __transaction_state), the consumer-protocol decoder
 * for classic group members, and Java's String.hashCode / the coordinator
 * partition rule (docs/formats.md §1.2, §1.3, §11.1, §11.4).
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

#include "records/coord_internal.h"
#include "kfsck/coord.h"
#include "bytes/cursor.h"

#define DTREE_DEFAULT_MAX (1u << 20)
#define DTREE_FIRST_CAP 64u
#define PATH_DEPTH 10
#define KAFKA_MAX_STRING 0x7fff /* Kafka refuses longer compact strings */

/* ---- the arena ------------------------------------------------------------ */

void kf_dtree_reset(kf_dtree *t)
{
    if (t)
        t->n = 0;
}

void kf_dtree_free(kf_dtree *t)
{
    if (!t)
        return;
    free(t->nodes);
    t->nodes = NULL;
    t->n = t->cap = 0;
}

const kf_dnode *kf_dnode_child(const kf_dtree *t, const kf_dnode *n, uint32_t i)
{
    if (!t || !n)
        return NULL;
    uint32_t c = n->first_child;
    for (uint32_t k = 0; c != KF_DNODE_NONE && c < t->n; k++) {
        if (k == i)
            return &t->nodes[c];
        c = t->nodes[c].next;
    }
    return NULL;
}

const kf_dnode *kf_dnode_field(const kf_dtree *t, const kf_dnode *st, const char *name)
{
    if (!t || !st || !name || st->kind != KF_V_STRUCT)
        return NULL;
    for (uint32_t c = st->first_child; c != KF_DNODE_NONE && c < t->n; c = t->nodes[c].next) {
        /* equal literals are mostly one string after linking: the pointer
         * test settles most hits, the first character most misses */
        const char *n = t->nodes[c].name;
        if (n == name || (n && n[0] == name[0] && strcmp(n, name) == 0))
            return &t->nodes[c];
    }
    return NULL;
}

int64_t kf_dnode_int(const kf_dtree *t, const kf_dnode *st, const char *name, int64_t def)
{
    const kf_dnode *f = kf_dnode_field(t, st, name);
    return f && f->kind == KF_V_INT ? f->i : def;
}

/* ---- decoding context ------------------------------------------------------ */

typedef struct dctx {
    kf_cursor c;
    kf_dtree *t;
    int err;        /* first kf_err, 0 while fine */
    size_t err_pos; /* where it happened (byte position in the buffer) */
    char msg[144];  /* what happened, with the field path */
    struct {
        const char *name;
        int64_t index; /* array element index, -1 when not in an array */
    } path[PATH_DEPTH];
    int depth;
} dctx;

static void dctx_init(dctx *d, kf_dtree *t, const uint8_t *p, size_t n, size_t pos)
{
    /* the message and path buffers are written before they are read: not cleared */
    d->err = 0;
    d->err_pos = 0;
    d->msg[0] = 0;
    d->depth = 0;
    kf_cur_init(&d->c, p, n);
    d->c.pos = pos <= n ? pos : n;
    d->t = t;
}

static void path_push(dctx *d, const char *name)
{
    if (d->depth < PATH_DEPTH) {
        d->path[d->depth].name = name;
        d->path[d->depth].index = -1;
    }
    d->depth++;
}

static void path_pop(dctx *d) { d->depth--; }

static void path_index(dctx *d, int64_t i)
{
    if (d->depth > 0 && d->depth <= PATH_DEPTH)
        d->path[d->depth - 1].index = i;
}

static void fail(dctx *d, int code, size_t pos, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void fail(dctx *d, int code, size_t pos, const char *fmt, ...)
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
static bool ok(dctx *d)
{
    if (d->c.err && !d->err) {
        int code = d->c.err;
        /* The cursor stops at the read that failed. */
        fail(d, code, d->c.pos, code == KF_ERR_TRUNCATED ? "truncated" : "malformed varint");
    }
    return d->err == 0;
}

static uint32_t node_new(dctx *d, kf_vkind kind, const char *name)
{
    kf_dtree *t = d->t;
    uint32_t max = t->max_nodes ? t->max_nodes : DTREE_DEFAULT_MAX;
    if (max >= KF_DNODE_NONE)
        max = KF_DNODE_NONE - 1;
    if (t->n >= max) {
        fail(d, KF_ERR_TOO_BIG, d->c.pos, "more than %" PRIu32 " decoded nodes", max);
        return KF_DNODE_NONE;
    }
    if (t->n >= t->cap) {
        uint32_t nc = t->cap ? (t->cap > max / 2 ? max : t->cap * 2) : DTREE_FIRST_CAP;
        if (nc > max)
            nc = max;
        kf_dnode *nn = realloc(t->nodes, (size_t)nc * sizeof *nn);
        if (!nn) {
            fail(d, KF_ERR_NOMEM, d->c.pos, "out of memory");
            return KF_DNODE_NONE;
        }
        t->nodes = nn;
        t->cap = nc;
    }
    kf_dnode *x = &t->nodes[t->n];
    memset(x, 0, sizeof *x);
    x->kind = kind;
    x->name = name;
    x->first_child = KF_DNODE_NONE;
    x->next = KF_DNODE_NONE;
    return t->n++;
}

/* ---- the walker ----------------------------------------------------------- */

static void decode_struct(dctx *d, const cs_struct *st, int16_t ver, bool flex, uint32_t self);

/* A length or count: classic int16 (strings) / int32 (bytes, arrays), or
 * compact uvarint(n+1). -1 = null. */
static int64_t read_len(dctx *d, bool flex, bool is_string)
{
    if (flex)
        return (int64_t)kf_cur_uvarint(&d->c) - 1;
    return is_string ? (int64_t)kf_cur_i16(&d->c) : (int64_t)kf_cur_i32(&d->c);
}

static uint32_t null_node(dctx *d, const char *name, bool nullable, size_t at)
{
    if (!nullable) {
        fail(d, KF_ERR_CORRUPT, at, "null in a non-nullable field");
        return KF_DNODE_NONE;
    }
    return node_new(d, KF_V_NULL, name);
}

/* A primitive value (not struct or array). */
static uint32_t decode_prim(dctx *d, int kind, const char *name, bool flex, bool nullable)
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

/* One field at version ver. tagged: read from a tagged-field section (a
 * nullable struct then has a uvarint presence marker, not an int8). Returns
 * the field's node, KF_DNODE_NONE if nothing could be made of it; a
 * container that failed part-way is returned with what it holds. */
static uint32_t decode_field(dctx *d, const cs_field *f, int16_t ver, bool flex, bool tagged)
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

/* The tagged-field section at the end of a flexible struct. */
static void decode_tags(dctx *d, const cs_struct *st, int16_t ver, uint32_t *slot)
{
    size_t at = d->c.pos;
    uint32_t n = kf_cur_uvarint(&d->c);
    if (!ok(d))
        return;
    if (n > kf_cur_left(&d->c) / 2) {
        fail(d, KF_ERR_TRUNCATED, at, "%" PRIu32 " tagged fields but %zu bytes left", n, kf_cur_left(&d->c));
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        size_t tat = d->c.pos;
        uint32_t tag = kf_cur_uvarint(&d->c);
        uint32_t size = kf_cur_uvarint(&d->c);
        if (!ok(d))
            return;
        if (size > kf_cur_left(&d->c)) {
            fail(d, KF_ERR_TRUNCATED, tat, "tagged field %" PRIu32 " of %" PRIu32 " bytes but %zu left", tag,
                 size, kf_cur_left(&d->c));
            return;
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
        path_pop(d);
        d->c.len = save_len;
        if (d->err)
            return;
        d->c.pos = end; /* bytes the field did not use are ignored */
    }
}

/* Decodes st's fields into the struct node self and links them in schema
 * order. */
static void decode_struct(dctx *d, const cs_struct *st, int16_t ver, bool flex, uint32_t self)
{
    uint32_t slot[CS_MAX_FIELDS];
    uint16_t nf = st->n_fields < CS_MAX_FIELDS ? st->n_fields : CS_MAX_FIELDS;
    for (uint16_t i = 0; i < nf; i++)
        slot[i] = KF_DNODE_NONE;
    for (uint16_t i = 0; i < nf && !d->err; i++) {
        const cs_field *f = &st->fields[i];
        /* Tagged fields are read from the tagged section (flexible versions only). */
        if (!cs_in(ver, f->v_min, f->v_max) || tagged_in(f, ver))
            continue;
        path_push(d, f->name);
        slot[i] = decode_field(d, f, ver, flex, false);
        if (slot[i] != KF_DNODE_NONE && (f->flags & CS_F_SECRET))
            d->t->nodes[slot[i]].flags |= KF_DNODE_SECRET;
        path_pop(d);
    }
    if (flex && !d->err)
        decode_tags(d, st, ver, slot);
    uint32_t prev = KF_DNODE_NONE, k = 0;
    for (uint16_t i = 0; i < nf; i++) {
        uint32_t x = slot[i];
        if (x == KF_DNODE_NONE)
            continue;
        if (prev == KF_DNODE_NONE)
            d->t->nodes[self].first_child = x;
        else
            d->t->nodes[prev].next = x;
        d->t->nodes[x].next = KF_DNODE_NONE;
        prev = x;
        k++;
    }
    d->t->nodes[self].n_children = k;
}

/* A whole message at layout version ver from the cursor's position: a root
 * struct node. */
static uint32_t decode_message(dctx *d, const cs_message *m, int16_t ver)
{
    bool flex = m->flex_min >= 0 && ver >= m->flex_min;
    uint32_t root = node_new(d, KF_V_STRUCT, NULL);
    if (root != KF_DNODE_NONE)
        decode_struct(d, m->root, ver, flex, root);
    return root;
}

/* ---- consumer protocol ---------------------------------------------------- */

static int consumer_decode(const cs_message *m, const uint8_t *p, size_t n, kf_dtree *t, uint32_t *root)
{
    if (root)
        *root = KF_DNODE_NONE;
    if (!t)
        return KF_ERR_CORRUPT;
    dctx d;
    dctx_init(&d, t, p, p ? n : 0, 0);
    int16_t v = kf_cur_i16(&d.c);
    if (!ok(&d))
        return d.err;
    if (v < 0)
        return KF_ERR_CORRUPT;
    int16_t lv = v > m->v_max ? m->v_max : v; /* newer versions only append fields */
    uint32_t r = node_new(&d, KF_V_STRUCT, NULL);
    uint32_t vn = node_new(&d, KF_V_INT, "version");
    if (r == KF_DNODE_NONE || vn == KF_DNODE_NONE)
        return d.err;
    t->nodes[vn].i = v;
    decode_struct(&d, m->root, lv, false, r);
    t->nodes[vn].next = t->nodes[r].first_child;
    t->nodes[r].first_child = vn;
    t->nodes[r].n_children++;
    if (root)
        *root = r;
    /* Bytes after the known fields are ignored, as Kafka's ConsumerProtocol does. */
    return d.err;
}

int kf_consumer_subscription_decode(const uint8_t *p, size_t n, kf_dtree *t, uint32_t *root)
{
    return consumer_decode(&kf_cs_consumer_subscription, p, n, t, root);
}

int kf_consumer_assignment_decode(const uint8_t *p, size_t n, kf_dtree *t, uint32_t *root)
{
    return consumer_decode(&kf_cs_consumer_assignment, p, n, t, root);
}

static uint32_t field_index(const kf_dtree *t, uint32_t st, const char *name)
{
    for (uint32_t c = t->nodes[st].first_child; c != KF_DNODE_NONE; c = t->nodes[c].next)
        if (t->nodes[c].name && strcmp(t->nodes[c].name, name) == 0)
            return c;
    return KF_DNODE_NONE;
}

/* Turns a member's bytes field `name` into the decoded struct and adds the
 * raw bytes after it as `bytes_name`. Undecodable bytes stay as they are. */
static void expand_member_field(kf_dtree *t, uint32_t member, const char *name, const char *bytes_name,
                                int (*fn)(const uint8_t *, size_t, kf_dtree *, uint32_t *))
{
    uint32_t s = field_index(t, member, name);
    if (s == KF_DNODE_NONE || t->nodes[s].kind != KF_V_BYTES)
        return;
    uint32_t mark = t->n, r = KF_DNODE_NONE;
    int rc = fn(t->nodes[s].p, t->nodes[s].len, t, &r);
    if (rc != KF_OK || r == KF_DNODE_NONE) {
        t->n = mark;
        return;
    }
    /* The new root's slot becomes the bytes node; the field's slot the struct. */
    kf_dnode bytes = t->nodes[s];
    kf_dnode st = t->nodes[r];
    t->nodes[s].kind = KF_V_STRUCT;
    t->nodes[s].p = NULL;
    t->nodes[s].len = 0;
    t->nodes[s].first_child = st.first_child;
    t->nodes[s].n_children = st.n_children;
    t->nodes[r] = bytes;
    t->nodes[r].name = bytes_name;
    t->nodes[r].next = bytes.next;
    t->nodes[s].next = r;
    t->nodes[member].n_children++;
}

static void expand_consumer_protocol(kf_dtree *t, uint32_t root)
{
    uint32_t pt = field_index(t, root, "protocol_type");
    if (pt == KF_DNODE_NONE || t->nodes[pt].kind != KF_V_STRING || t->nodes[pt].len != 8 ||
        memcmp(t->nodes[pt].p, "consumer", 8) != 0)
        return;
    uint32_t ms = field_index(t, root, "members");
    if (ms == KF_DNODE_NONE || t->nodes[ms].kind != KF_V_ARRAY)
        return;
    for (uint32_t m = t->nodes[ms].first_child; m != KF_DNODE_NONE; m = t->nodes[m].next) {
        if (t->nodes[m].kind != KF_V_STRUCT)
            continue;
        expand_member_field(t, m, "subscription", "subscription_bytes", kf_consumer_subscription_decode);
        expand_member_field(t, m, "assignment", "assignment_bytes", kf_consumer_assignment_decode);
    }
}

/* ---- records ---------------------------------------------------------------- */

static void set_err(kf_coord_record *out, bool in_key, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void set_err(kf_coord_record *out, bool in_key, size_t pos, const char *fmt, ...)
{
    if (out->err[0])
        return;
    out->err_in_key = in_key;
    out->err_pos = (uint32_t)pos;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->err, sizeof out->err, fmt, ap);
    va_end(ap);
}

static int decode_key(const cs_record *rec, const uint8_t *key, size_t n, kf_dtree *t, kf_coord_record *out)
{
    dctx d;
    dctx_init(&d, t, key, n, 2);
    uint32_t root = decode_message(&d, rec->key, 0);
    out->key_root = root;
    if (d.err) {
        set_err(out, true, d.err_pos, "key: %s", d.msg);
        return d.err;
    }
    size_t left = kf_cur_left(&d.c);
    if (left) {
        set_err(out, true, d.c.pos, "key: %zu trailing bytes", left);
        return KF_ERR_CORRUPT;
    }
    out->key_ok = true;
    return KF_OK;
}

/* Decodes the value with layout m at version ver from pos; *clean when it
 * decoded with no error and no trailing byte. */
static uint32_t try_layout(dctx *d, kf_dtree *t, const uint8_t *v, size_t n, size_t pos, const cs_message *m,
                           int16_t ver, bool trailing_ok, bool *clean)
{
    dctx_init(d, t, v, n, pos);
    uint32_t root = decode_message(d, m, ver);
    *clean = !d->err && (trailing_ok || kf_cur_left(&d->c) == 0);
    return root;
}

static void body_err(cs_body *out, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void body_err(cs_body *out, size_t pos, const char *fmt, ...)
{
    if (out->err[0])
        return;
    out->err_pos = (uint32_t)pos;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->err, sizeof out->err, fmt, ap);
    va_end(ap);
}

void cs_decode_body(const cs_record *rec, int16_t ver, const uint8_t *v, size_t n, size_t pos, int flags,
                    kf_dtree *t, cs_body *out)
{
    bool trailing_ok = flags & CS_BODY_TRAILING_OK;
    out->ok = out->partial = false;
    out->rc = KF_OK;
    out->layout = NULL;
    out->err_pos = 0;
    out->err[0] = 0;
    out->root = KF_DNODE_NONE;
    const cs_message *m = rec->value;
    dctx d;
    bool clean;

    if (cs_in(ver, m->v_min, m->v_max)) {
        const cs_message *used = m;
        uint32_t root = try_layout(&d, t, v, n, pos, m, ver, trailing_ok, &clean);
        if (!clean && d.err != KF_ERR_TOO_BIG && d.err != KF_ERR_NOMEM) {
            uint32_t mark2 = t->n;
            for (uint8_t i = 0; i < rec->n_alts; i++) {
                const cs_message *alt = rec->alts[i];
                if (!cs_in(ver, alt->v_min, alt->v_max))
                    continue;
                dctx d2;
                bool clean2;
                uint32_t r2 = try_layout(&d2, t, v, n, pos, alt, ver, trailing_ok, &clean2);
                if (clean2) {
                    root = r2; /* the primary's nodes stay unused in the arena */
                    clean = true;
                    used = alt;
                    break;
                }
                t->n = mark2;
            }
        }
        out->root = root;
        out->layout = used;
        if (clean) {
            out->ok = true;
        } else {
            out->partial = true;
            if (d.err) {
                out->rc = d.err;
                body_err(out, d.err_pos, "%s v%d: %s", m->name, ver, d.msg);
            } else {
                out->rc = KF_ERR_CORRUPT;
                body_err(out, d.c.pos, "%s v%d: %zu trailing bytes", m->name, ver, kf_cur_left(&d.c));
            }
        }
        return;
    }
    /* Unknown version: read it as the closest layout known, best effort. */
    out->rc = KF_ERR_UNSUPPORTED;
    out->partial = true;
    if (ver < 0 || !(flags & CS_BODY_BEST_EFFORT)) {
        body_err(out, pos, "%s: unknown version %d", m->name, ver);
        return;
    }
    const cs_message *bm =
        rec->fallback && cs_in(ver, rec->fallback->v_min, rec->fallback->v_max) ? rec->fallback : m;
    int16_t lv = ver > bm->v_max ? bm->v_max : ver < bm->v_min ? bm->v_min : ver;
    uint32_t root = try_layout(&d, t, v, n, pos, bm, lv, trailing_ok, &clean);
    out->root = root;
    out->layout = bm;
    if (d.err)
        body_err(out, d.err_pos, "%s: unknown version %d (read as %s v%d: %s)", m->name, ver, bm->name, lv, d.msg);
    else if (!clean)
        body_err(out, pos, "%s: unknown version %d (read as %s v%d, %zu bytes left over)", m->name, ver, bm->name,
                 lv, kf_cur_left(&d.c));
    else
        body_err(out, pos, "%s: unknown version %d (read as %s v%d)", m->name, ver, bm->name, lv);
    if (d.err == KF_ERR_TOO_BIG || d.err == KF_ERR_NOMEM)
        out->rc = d.err;
}

static int decode_value(const cs_record *rec, const uint8_t *v, size_t n, kf_dtree *t, kf_coord_record *out)
{
    if (n < 2) {
        out->value_partial = true;
        set_err(out, false, 0, "value of %zu bytes has no version", n);
        return KF_ERR_TRUNCATED;
    }
    int16_t ver = (int16_t)kf_be16(v);
    out->value_version = ver;
    cs_body body;
    cs_decode_body(rec, ver, v, n, 2, CS_BODY_BEST_EFFORT, t, &body);
    out->value_root = body.root;
    out->value_ok = body.ok;
    out->value_partial = body.partial;
    if (body.ok && body.layout && body.layout != rec->value)
        out->value_layout = body.layout->name;
    if (body.err[0])
        set_err(out, false, body.err_pos, "%s", body.err);
    if ((rec->flags & CS_REC_CONSUMER_PROTOCOL) && out->value_root != KF_DNODE_NONE)
        expand_consumer_protocol(t, out->value_root);
    return body.rc;
}

int kf_coord_decode(int topic, const uint8_t *key, int32_t key_len, const uint8_t *value, int32_t value_len,
                    kf_dtree *t, kf_coord_record *out)
{
    if (!out)
        return KF_ERR_CORRUPT;
    memset(out, 0, sizeof *out);
    out->key_type = -1;
    out->key_root = KF_DNODE_NONE;
    out->value_root = KF_DNODE_NONE;
    out->value_version = -1;
    out->tombstone = value == NULL || value_len < 0;
    if (!t) {
        set_err(out, false, 0, "no node arena");
        return KF_ERR_CORRUPT;
    }
    if (topic != KF_COORD_OFFSETS && topic != KF_COORD_TXN && topic != KF_COORD_SHARE) {
        set_err(out, true, 0, "unknown coordinator topic %d", topic);
        return KF_ERR_UNSUPPORTED;
    }
    if (!key || key_len < 0) {
        set_err(out, true, 0, "missing key (not a coordinator record)");
        return KF_ERR_CORRUPT;
    }
    if (key_len < 2) {
        set_err(out, true, 0, "key of %" PRId32 " bytes has no record type", key_len);
        return KF_ERR_TRUNCATED;
    }
    int16_t type = (int16_t)kf_be16(key);
    out->key_type = type;
    const cs_record *rec = kf_cs_lookup(topic, type);
    if (!rec) {
        if (!out->tombstone && value_len >= 2)
            out->value_version = (int16_t)kf_be16(value);
        set_err(out, true, 0, "unknown record type %d", type);
        return KF_ERR_UNSUPPORTED;
    }
    out->known_type = true;
    out->record_type = rec->record_type;
    int rc = decode_key(rec, key, (size_t)key_len, t, out);
    if (!out->tombstone) {
        int vrc = decode_value(rec, value, (size_t)value_len, t, out);
        if (rc == KF_OK)
            rc = vrc;
    }
    return rc;
}

const char *kf_coord_problem_code(int rc, const kf_coord_record *cr, kf_severity *sev)
{
    if (rc == KF_ERR_UNSUPPORTED && !cr->known_type) { /* the key's type was read: not in the table */
        *sev = KF_SEV_WARNING;
        return KF_P_UNKNOWN_RECORD_TYPE;
    }
    if (rc == KF_ERR_CORRUPT || rc == KF_ERR_TRUNCATED) {
        *sev = KF_SEV_ERROR;
        return KF_P_BAD_RECORD;
    }
    *sev = KF_SEV_WARNING;
    return KF_P_UNDECODED_RECORD;
}

/* ---- String.hashCode and the coordinator partition --------------------------- */

static bool not_cont(uint8_t b) { return (b & 0xc0) != 0x80; }

/* Java's String.hashCode of the string `new String(bytes, UTF_8)` makes:
 * UTF-8 decoded to UTF-16 code units the way the JDK's String decoder does it
 * (JDK 9+ String.decodeUTF8_UTF16): each malformed sequence becomes one
 * U+FFFD, with the same rule as the JDK for how many bytes it swallows (e.g.
 * a bad lead byte: 1; an encoded surrogate ED A0 80: 3; a sequence cut by
 * the end of the input: all its bytes). */
int32_t kf_java_string_hash(const uint8_t *s, size_t n)
{
    uint32_t h = 0;
    const uint32_t repl = 0xfffd;
    size_t i = 0;
    if (!s)
        return 0;
#define PUT(u) (h = 31u * h + (uint32_t)(u))
    while (i < n) {
        uint8_t b1 = s[i++];
        if (b1 < 0x80) {
            PUT(b1);
        } else if (b1 >= 0xc2 && b1 <= 0xdf) {
            if (i < n) {
                uint8_t b2 = s[i];
                if (not_cont(b2)) {
                    PUT(repl);
                } else {
                    i++;
                    PUT(((uint32_t)(b1 & 0x1f) << 6) | (b2 & 0x3f));
                }
                continue;
            }
            PUT(repl);
            break;
        } else if (b1 >= 0xe0 && b1 <= 0xef) {
            if (i + 1 < n) {
                uint8_t b2 = s[i], b3 = s[i + 1];
                bool bad = (b1 == 0xe0 && (b2 & 0xe0) == 0x80) || not_cont(b2) || not_cont(b3);
                if (bad) {
                    PUT(repl);
                    i += ((b1 == 0xe0 && (b2 & 0xe0) == 0x80) || not_cont(b2)) ? 0 : 1;
                } else {
                    uint32_t c = ((uint32_t)(b1 & 0x0f) << 12) | ((uint32_t)(b2 & 0x3f) << 6) | (b3 & 0x3f);
                    i += 2;
                    PUT(c >= 0xd800 && c <= 0xdfff ? repl : c);
                }
                continue;
            }
            if (i < n && ((b1 == 0xe0 && (s[i] & 0xe0) == 0x80) || not_cont(s[i]))) {
                PUT(repl);
                continue;
            }
            PUT(repl);
            break;
        } else if (b1 >= 0xf0 && b1 <= 0xf7) {
            if (i + 2 < n) {
                uint8_t b2 = s[i], b3 = s[i + 1], b4 = s[i + 2];
                uint32_t uc = ((uint32_t)(b1 & 0x07) << 18) | ((uint32_t)(b2 & 0x3f) << 12) |
                              ((uint32_t)(b3 & 0x3f) << 6) | (b4 & 0x3f);
                if (not_cont(b2) || not_cont(b3) || not_cont(b4) || uc < 0x10000 || uc > 0x10ffff) {
                    PUT(repl);
                    /* JDK malformed4: how many bytes the bad sequence takes */
                    if (b1 > 0xf4 || (b1 == 0xf0 && (b2 < 0x90 || b2 > 0xbf)) ||
                        (b1 == 0xf4 && (b2 & 0xf0) != 0x80) || not_cont(b2))
                        i += 0;
                    else if (not_cont(b3))
                        i += 1;
                    else
                        i += 2;
                } else {
                    uc -= 0x10000;
                    PUT(0xd800 + (uc >> 10));
                    PUT(0xdc00 + (uc & 0x3ff));
                    i += 3;
                }
                continue;
            }
            if (b1 > 0xf4 ||
                (i < n && ((b1 == 0xf0 && (s[i] < 0x90 || s[i] > 0xbf)) ||
                           (b1 == 0xf4 && (s[i] & 0xf0) != 0x80) || not_cont(s[i])))) {
                PUT(repl);
                continue;
            }
            i++;
            PUT(repl);
            if (i < n && not_cont(s[i]))
                continue;
            break;
        } else {
            PUT(repl);
        }
    }
#undef PUT
    return (int32_t)h;
}

int32_t kf_coordinator_partition(const uint8_t *utf8, size_t n, int32_t partitions)
{
    if (partitions <= 0)
        return -1;
    int32_t h = kf_java_string_hash(utf8, n);
    int32_t a = h == INT32_MIN ? 0 : (h < 0 ? -h : h); /* Utils.abs */
    return a % partitions;
}
