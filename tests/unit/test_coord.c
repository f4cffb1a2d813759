/* test_coord.c: unit tests for the coordinator-record decoder
 * (src/records/coord_schema.c, src/records/coord_decode.c): the byte examples of
 * consumer-offsets.md §4 (offset commits v1, v3, and the real Kafka 4.1 v4
 * value), keys of types 0 and 1, classic group metadata v0-v4 built by hand
 * from the §5 layouts with consumer-protocol subscriptions v0/v1/v3 and
 * assignments decoded, a "connect" group (bytes kept), KIP-848 records with
 * tagged fields (type 5 classic member metadata, type 8 assignment epochs),
 * streams/share records, transaction log v0/v1 (known and unknown tags),
 * tombstones, unknown types and versions, values cut at every length,
 * trailing bytes, the node cap, the schema table's own consistency, and the
 * String.hashCode / partition table of §9. */
#include "testutil.h"

#include "records/coord_internal.h"

/* ---- building bytes -------------------------------------------------------- */

typedef struct bb {
    uint8_t b[8192];
    size_t n;
} bb;

static void put(bb *b, const void *p, size_t n)
{
    assert_true(b->n + n <= sizeof b->b);
    memcpy(b->b + b->n, p, n);
    b->n += n;
}
static void u8(bb *b, uint8_t v) { put(b, &v, 1); }
static void i16(bb *b, int16_t v)
{
    uint8_t x[2] = { (uint8_t)((uint16_t)v >> 8), (uint8_t)v };
    put(b, x, 2);
}
static void i32(bb *b, int32_t v)
{
    uint32_t u = (uint32_t)v;
    uint8_t x[4] = { (uint8_t)(u >> 24), (uint8_t)(u >> 16), (uint8_t)(u >> 8), (uint8_t)u };
    put(b, x, 4);
}
static void i64(bb *b, int64_t v)
{
    i32(b, (int32_t)((uint64_t)v >> 32));
    i32(b, (int32_t)(uint32_t)v);
}
static void uvar(bb *b, uint32_t v)
{
    while (v >= 0x80) {
        u8(b, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    u8(b, (uint8_t)v);
}
/* classic string / null string, compact string / null */
static void str(bb *b, const char *s)
{
    i16(b, (int16_t)strlen(s));
    put(b, s, strlen(s));
}
static void nstr(bb *b) { i16(b, -1); }
static void cstr(bb *b, const char *s)
{
    uvar(b, (uint32_t)strlen(s) + 1);
    put(b, s, strlen(s));
}
static void cnull(bb *b) { uvar(b, 0); }
static void bytes32(bb *b, const bb *v)
{
    i32(b, (int32_t)v->n);
    put(b, v->b, v->n);
}
static void cbytes(bb *b, const bb *v)
{
    uvar(b, (uint32_t)v->n + 1);
    put(b, v->b, v->n);
}
/* hex digits; spaces and '|' ignored */
static void hex(bb *b, const char *s)
{
    int hi = -1;
    for (; *s; s++) {
        int d;
        if (*s >= '0' && *s <= '9')
            d = *s - '0';
        else if (*s >= 'a' && *s <= 'f')
            d = *s - 'a' + 10;
        else
            continue;
        if (hi < 0) {
            hi = d;
        } else {
            u8(b, (uint8_t)(hi << 4 | d));
            hi = -1;
        }
    }
    assert_int_equal(hi, -1);
}

static const uint8_t UUID1[16] = { 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
                                   0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };

/* ---- looking at trees -------------------------------------------------------- */

static const kf_dnode *node(const kf_dtree *t, uint32_t i)
{
    assert_true(i != KF_DNODE_NONE);
    assert_true(i < t->n);
    return &t->nodes[i];
}

static const kf_dnode *fld(const kf_dtree *t, const kf_dnode *st, const char *name)
{
    const kf_dnode *f = kf_dnode_field(t, st, name);
    if (!f)
        fail_msg("no field %s", name);
    return f;
}

static void assert_str(const kf_dnode *n, const char *s)
{
    assert_non_null(n);
    assert_int_equal(n->kind, KF_V_STRING);
    assert_int_equal(n->len, strlen(s));
    if (n->len)
        assert_memory_equal(n->p, s, n->len);
}

static void assert_field_str(const kf_dtree *t, const kf_dnode *st, const char *name, const char *s)
{
    assert_str(fld(t, st, name), s);
}

static void assert_field_int(const kf_dtree *t, const kf_dnode *st, const char *name, int64_t v)
{
    const kf_dnode *f = fld(t, st, name);
    assert_int_equal(f->kind, KF_V_INT);
    assert_int_equal(f->i, v);
}

static void assert_field_null(const kf_dtree *t, const kf_dnode *st, const char *name)
{
    assert_int_equal(fld(t, st, name)->kind, KF_V_NULL);
}

static void assert_no_field(const kf_dtree *t, const kf_dnode *st, const char *name)
{
    if (kf_dnode_field(t, st, name))
        fail_msg("unexpected field %s", name);
}

/* The names of a struct's children, comma-separated. */
static const char *names(const kf_dtree *t, const kf_dnode *st)
{
    static char buf[1024];
    size_t l = 0;
    buf[0] = 0;
    for (uint32_t c = st->first_child; c != KF_DNODE_NONE; c = t->nodes[c].next)
        l += (size_t)snprintf(buf + l, sizeof buf - l, "%s%s", l ? "," : "", t->nodes[c].name);
    return buf;
}

/* Checks the whole tree below n: links stay in the arena, counts match. */
static void check_tree(const kf_dtree *t, uint32_t i, int depth)
{
    assert_true(depth < 64);
    const kf_dnode *n = node(t, i);
    uint32_t k = 0;
    for (uint32_t c = n->first_child; c != KF_DNODE_NONE; c = t->nodes[c].next) {
        assert_true(c < t->n);
        check_tree(t, c, depth + 1);
        k++;
        assert_true(k <= t->n);
    }
    assert_int_equal(k, n->n_children);
}

static int decode(int topic, const bb *key, const bb *val, kf_dtree *t, kf_coord_record *r)
{
    kf_dtree_reset(t);
    int rc = kf_coord_decode(topic, key ? key->b : NULL, key ? (int32_t)key->n : -1, val ? val->b : NULL,
                             val ? (int32_t)val->n : -1, t, r);
    if (r->key_root != KF_DNODE_NONE)
        check_tree(t, r->key_root, 0);
    if (r->value_root != KF_DNODE_NONE)
        check_tree(t, r->value_root, 0);
    return rc;
}

static void key_offset(bb *k, int16_t type, const char *g, const char *topic, int32_t p)
{
    k->n = 0;
    i16(k, type);
    str(k, g);
    str(k, topic);
    i32(k, p);
}

/* ---- offset commits (§4) --------------------------------------------------- */

static void test_offset_commit_v3_example(void **state)
{
    (void)state;
    bb k = { .n = 0 }, v = { .n = 0 };
    hex(&k, "00 01 | 00 08 6d792d67726f7570 | 00 06 6f7264657273 | 00 00 00 00");
    hex(&v, "0003 000000000000002a 00000005 0000 0000018bcfe56800");
    kf_dtree t = { 0 };
    kf_coord_record r;
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
    assert_int_equal(r.key_type, 1);
    assert_true(r.known_type);
    assert_string_equal(r.record_type, "offset_commit");
    assert_true(r.key_ok);
    assert_false(r.tombstone);
    assert_int_equal(r.value_version, 3);
    assert_true(r.value_ok);
    assert_false(r.value_partial);
    assert_string_equal(r.err, "");
    const kf_dnode *key = node(&t, r.key_root), *val = node(&t, r.value_root);
    assert_int_equal(key->kind, KF_V_STRUCT);
    assert_null(key->name);
    assert_string_equal(names(&t, key), "group,topic,partition");
    assert_field_str(&t, key, "group", "my-group");
    assert_field_str(&t, key, "topic", "orders");
    assert_field_int(&t, key, "partition", 0);
    assert_string_equal(names(&t, val), "offset,leader_epoch,metadata,commit_timestamp");
    assert_field_int(&t, val, "offset", 42);
    assert_field_int(&t, val, "leader_epoch", 5);
    assert_field_str(&t, val, "metadata", "");
    assert_field_int(&t, val, "commit_timestamp", 1700000000000LL);
    /* strings point into the input */
    assert_ptr_equal(fld(&t, key, "group")->p, k.b + 4);
    /* getters */
    assert_int_equal(kf_dnode_int(&t, val, "offset", -7), 42);
    assert_int_equal(kf_dnode_int(&t, val, "expire_timestamp", -7), -7);
    assert_int_equal(kf_dnode_int(&t, val, "metadata", -7), -7); /* not an int */
    assert_int_equal(kf_dnode_child(&t, val, 1)->i, 5);
    assert_null(kf_dnode_child(&t, val, 4));
    assert_null(kf_dnode_field(&t, NULL, "offset"));
    kf_dtree_free(&t);
}

static void test_offset_commit_v1_v0_v2(void **state)
{
    (void)state;
    bb k, v = { .n = 0 };
    key_offset(&k, 1, "g", "t", 3);
    hex(&v, "0001 000000000000002a 0000 0000018bcfe56800 0000018bf3f1ec00");
    kf_dtree t = { 0 };
    kf_coord_record r;
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
    const kf_dnode *val = node(&t, r.value_root);
    assert_string_equal(names(&t, val), "offset,metadata,commit_timestamp,expire_timestamp");
    assert_field_int(&t, val, "expire_timestamp", 1700604800000LL);
    assert_int_equal(kf_dnode_int(&t, val, "leader_epoch", -1), -1);

    v.n = 0; /* v0 and v2: offset, metadata, commitTimestamp */
    for (int16_t ver = 0; ver <= 2; ver += 2) {
        v.n = 0;
        i16(&v, ver);
        i64(&v, 7);
        str(&v, "meta");
        i64(&v, 123);
        assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
        val = node(&t, r.value_root);
        assert_int_equal(r.value_version, ver);
        assert_string_equal(names(&t, val), "offset,metadata,commit_timestamp");
        assert_field_str(&t, val, "metadata", "meta");
    }
    kf_dtree_free(&t);
}

static void test_offset_commit_v4(void **state)
{
    (void)state;
    bb k, v = { .n = 0 };
    key_offset(&k, 1, "franz", "topic", 1);
    /* the real Kafka 4.1 value from franz-go #1105 */
    hex(&v, "0004 000000000021d4a8 ffffffff 01 0000019964f2d836 00");
    kf_dtree t = { 0 };
    kf_coord_record r;
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
    const kf_dnode *val = node(&t, r.value_root);
    assert_int_equal(r.value_version, 4);
    assert_string_equal(names(&t, val), "offset,leader_epoch,metadata,commit_timestamp");
    assert_field_int(&t, val, "offset", 2217128);
    assert_field_int(&t, val, "leader_epoch", -1);
    assert_field_str(&t, val, "metadata", "");
    assert_field_int(&t, val, "commit_timestamp", 1758335260726LL);

    /* with the tagged topic id (tag 0) and an unknown tag 5 before it */
    v.n = 0;
    hex(&v, "0004 000000000021d4a8 ffffffff 04 6d6574 0000019964f2d836");
    uvar(&v, 2);
    uvar(&v, 5);
    uvar(&v, 3);
    hex(&v, "aabbcc");
    uvar(&v, 0);
    uvar(&v, 16);
    put(&v, UUID1, 16);
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
    val = node(&t, r.value_root);
    assert_string_equal(names(&t, val), "offset,leader_epoch,metadata,commit_timestamp,topic_id");
    assert_field_str(&t, val, "metadata", "met");
    const kf_dnode *id = fld(&t, val, "topic_id");
    assert_int_equal(id->kind, KF_V_UUID);
    assert_int_equal(id->len, 16);
    assert_memory_equal(id->p, UUID1, 16);

    /* a tagged field whose size is too small for its value */
    v.n = 0;
    hex(&v, "0004 000000000021d4a8 ffffffff 01 0000019964f2d836");
    uvar(&v, 1);
    uvar(&v, 0);
    uvar(&v, 15);
    put(&v, UUID1, 15);
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_ERR_CORRUPT);
    assert_true(r.value_partial);
    assert_non_null(strstr(r.err, "topic_id"));
    kf_dtree_free(&t);
}

static void test_offset_keys_type0(void **state)
{
    (void)state;
    bb k, v = { .n = 0 };
    key_offset(&k, 0, "old-group", "t", 2);
    i16(&v, 0);
    i64(&v, 99);
    str(&v, "");
    i64(&v, 1400000000000LL);
    kf_dtree t = { 0 };
    kf_coord_record r;
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
    assert_int_equal(r.key_type, 0);
    assert_string_equal(r.record_type, "offset_commit");
    const kf_dnode *key = node(&t, r.key_root), *val = node(&t, r.value_root);
    assert_field_str(&t, key, "group", "old-group");
    assert_field_int(&t, key, "partition", 2);
    assert_string_equal(names(&t, val), "offset,metadata,commit_timestamp");
    assert_field_int(&t, val, "offset", 99);

    /* type 0 knows only v0: v3 is read best effort as OffsetCommitValue v3 */
    v.n = 0;
    hex(&v, "0003 000000000000002a 00000005 0000 0000018bcfe56800");
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_ERR_UNSUPPORTED);
    assert_true(r.value_partial);
    assert_false(r.value_ok);
    assert_int_equal(r.value_version, 3);
    assert_non_null(strstr(r.err, "unknown version 3"));
    val = node(&t, r.value_root);
    assert_field_int(&t, val, "leader_epoch", 5);
    assert_field_int(&t, val, "commit_timestamp", 1700000000000LL);

    /* key with trailing bytes; key cut short */
    k.n = 0;
    key_offset(&k, 1, "g", "t", 2);
    u8(&k, 0);
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, NULL, &t, &r), KF_ERR_CORRUPT);
    assert_true(r.err_in_key);
    assert_false(r.key_ok);
    assert_int_equal(r.err_pos, k.n - 1);
    k.n -= 3;
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, NULL, &t, &r), KF_ERR_TRUNCATED);
    assert_true(r.err_in_key);
    assert_int_equal(r.err_pos, 8);
    /* the fields read before the cut are there */
    assert_field_str(&t, node(&t, r.key_root), "topic", "t");
    kf_dtree_free(&t);
}

static void test_tombstone_and_unknown(void **state)
{
    (void)state;
    bb k, v = { .n = 0 };
    key_offset(&k, 1, "g", "t", 0);
    kf_dtree t = { 0 };
    kf_coord_record r;
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, NULL, &t, &r), KF_OK);
    assert_true(r.tombstone);
    assert_true(r.key_ok);
    assert_false(r.value_ok);
    assert_false(r.value_partial);
    assert_int_equal(r.value_version, -1);
    assert_int_equal(r.value_root, KF_DNODE_NONE);
    assert_field_str(&t, node(&t, r.key_root), "group", "g");

    /* group tombstone */
    k.n = 0;
    i16(&k, 2);
    str(&k, "grp");
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, NULL, &t, &r), KF_OK);
    assert_true(r.tombstone);
    assert_string_equal(r.record_type, "group_metadata");

    /* unknown record type */
    k.n = 0;
    i16(&k, 32767);
    str(&k, "x");
    hex(&v, "0000 01");
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_ERR_UNSUPPORTED);
    assert_false(r.known_type);
    assert_null(r.record_type);
    assert_int_equal(r.key_type, 32767);
    assert_int_equal(r.key_root, KF_DNODE_NONE);
    assert_non_null(strstr(r.err, "32767"));
    assert_true(r.err_in_key);

    /* type 1 is not a __transaction_state type; type 0 there is */
    key_offset(&k, 1, "g", "t", 0);
    assert_int_equal(decode(KF_COORD_TXN, &k, NULL, &t, &r), KF_ERR_UNSUPPORTED);
    assert_false(r.known_type);

    /* no key / one-byte key / empty value */
    assert_int_equal(decode(KF_COORD_OFFSETS, NULL, &v, &t, &r), KF_ERR_CORRUPT);
    assert_false(r.known_type);
    k.n = 1;
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_ERR_TRUNCATED);
    key_offset(&k, 1, "g", "t", 0);
    v.n = 0;
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_ERR_TRUNCATED);
    assert_false(r.tombstone);
    assert_true(r.value_partial);
    assert_false(r.err_in_key);
    assert_int_equal(kf_coord_decode(7, k.b, (int32_t)k.n, NULL, -1, &t, &r), KF_ERR_UNSUPPORTED);
    kf_dtree_free(&t);
}

static void test_unknown_value_version(void **state)
{
    (void)state;
    bb k, v = { .n = 0 };
    key_offset(&k, 1, "g", "t", 0);
    /* v9: read with the v4 layout; here it fits exactly */
    hex(&v, "0009 000000000021d4a8 ffffffff 01 0000019964f2d836 00");
    kf_dtree t = { 0 };
    kf_coord_record r;
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_ERR_UNSUPPORTED);
    assert_true(r.key_ok);
    assert_false(r.value_ok);
    assert_true(r.value_partial);
    assert_int_equal(r.value_version, 9);
    assert_false(r.err_in_key);
    assert_non_null(strstr(r.err, "unknown version 9"));
    const kf_dnode *val = node(&t, r.value_root);
    assert_field_int(&t, val, "offset", 2217128);
    assert_field_int(&t, val, "commit_timestamp", 1758335260726LL);

    /* v7 with bytes that do not fit the v4 layout: what decoded is kept */
    v.n = 0;
    hex(&v, "0007 000000000000002a ffffffff 05");
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_ERR_UNSUPPORTED);
    assert_true(r.value_partial);
    assert_non_null(strstr(r.err, "unknown version 7"));
    val = node(&t, r.value_root);
    assert_field_int(&t, val, "offset", 42);
    assert_field_int(&t, val, "leader_epoch", -1);
    assert_no_field(&t, val, "metadata");

    /* negative version */
    v.n = 0;
    hex(&v, "ffff 00");
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_ERR_UNSUPPORTED);
    assert_int_equal(r.value_version, -1);
    assert_true(r.value_partial);

    /* group metadata v5 read as v4 (flexible) */
    k.n = 0;
    i16(&k, 2);
    str(&k, "g");
    v.n = 0;
    i16(&v, 5);
    cstr(&v, "");
    i32(&v, 0);
    cnull(&v);
    cnull(&v);
    i64(&v, 5);
    uvar(&v, 1);
    uvar(&v, 0);
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_ERR_UNSUPPORTED);
    val = node(&t, r.value_root);
    assert_string_equal(names(&t, val), "protocol_type,generation,protocol,leader,current_state_timestamp,members");
    kf_dtree_free(&t);
}

static void test_trailing_bytes(void **state)
{
    (void)state;
    bb k, v = { .n = 0 };
    key_offset(&k, 1, "g", "t", 0);
    hex(&v, "0003 000000000000002a 00000005 0000 0000018bcfe56800 beef");
    kf_dtree t = { 0 };
    kf_coord_record r;
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_ERR_CORRUPT);
    assert_true(r.key_ok);
    assert_false(r.value_ok);
    assert_true(r.value_partial);
    assert_false(r.err_in_key);
    assert_int_equal(r.err_pos, v.n - 2);
    assert_non_null(strstr(r.err, "2 trailing bytes"));
    const kf_dnode *val = node(&t, r.value_root);
    assert_field_int(&t, val, "commit_timestamp", 1700000000000LL);
    kf_dtree_free(&t);
}

/* ---- classic group metadata (§5) ------------------------------------------- */

static void sub_v0(bb *s)
{
    s->n = 0;
    i16(s, 0);
    i32(s, 1);
    str(s, "orders");
    i32(s, -1); /* user data null */
}

static void sub_v1(bb *s)
{
    s->n = 0;
    i16(s, 1);
    i32(s, 2);
    str(s, "orders");
    str(s, "payments");
    i32(s, 3);
    hex(s, "010203");
    i32(s, 1); /* owned partitions */
    str(s, "orders");
    i32(s, 2);
    i32(s, 0);
    i32(s, 1);
}

static void sub_v3(bb *s, int16_t ver)
{
    s->n = 0;
    i16(s, ver);
    i32(s, 1);
    str(s, "orders");
    i32(s, -1);
    i32(s, 0);  /* no owned partitions */
    i32(s, 7);  /* generation id */
    str(s, "rack-a");
}

static void asg_v0(bb *a, int16_t ver, bool user_data)
{
    a->n = 0;
    i16(a, ver);
    i32(a, 1);
    str(a, "orders");
    i32(a, 3);
    i32(a, 0);
    i32(a, 1);
    i32(a, 2);
    if (user_data) {
        i32(a, 2);
        hex(a, "abcd");
    } else {
        i32(a, -1);
    }
}

/* GroupMetadataValue at version ver with one member. */
static void group_value(bb *v, int16_t ver, const char *ptype, const bb *sub, const bb *asg)
{
    bool flex = ver >= 4;
    v->n = 0;
    i16(v, ver);
    flex ? cstr(v, ptype) : str(v, ptype);
    i32(v, 5);
    flex ? cstr(v, "range") : str(v, "range");
    flex ? cstr(v, "m1") : str(v, "m1");
    if (ver >= 2)
        i64(v, 1700000000123LL);
    flex ? uvar(v, 2) : i32(v, 1);
    flex ? cstr(v, "m1") : str(v, "m1");
    if (ver >= 3)
        flex ? cnull(v) : nstr(v);
    flex ? cstr(v, "client-1") : str(v, "client-1");
    flex ? cstr(v, "/10.0.0.5") : str(v, "/10.0.0.5");
    if (ver >= 1)
        i32(v, 300000);
    i32(v, 45000);
    flex ? cbytes(v, sub) : bytes32(v, sub);
    flex ? cbytes(v, asg) : bytes32(v, asg);
    if (flex) {
        uvar(v, 0); /* member's tagged fields */
        uvar(v, 0); /* value's tagged fields */
    }
}

static void check_assignment(const kf_dtree *t, const kf_dnode *a, int64_t ver)
{
    assert_int_equal(a->kind, KF_V_STRUCT);
    assert_string_equal(names(t, a), "version,assigned_partitions,user_data");
    assert_field_int(t, a, "version", ver);
    const kf_dnode *ap = fld(t, a, "assigned_partitions");
    assert_int_equal(ap->kind, KF_V_ARRAY);
    assert_int_equal(ap->n_children, 1);
    const kf_dnode *tp = kf_dnode_child(t, ap, 0);
    assert_null(tp->name);
    assert_field_str(t, tp, "topic", "orders");
    const kf_dnode *ps = fld(t, tp, "partitions");
    assert_int_equal(ps->n_children, 3);
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(kf_dnode_child(t, ps, i)->i, i);
}

static void test_group_metadata_versions(void **state)
{
    (void)state;
    bb k = { .n = 0 }, v, sub, asg;
    i16(&k, 2);
    str(&k, "grp");
    kf_dtree t = { 0 };
    kf_coord_record r;
    for (int16_t ver = 0; ver <= 4; ver++) {
        /* subscriptions v0, v1, v3, v1, v3 */
        int sv = ver == 0 ? 0 : (ver % 2 ? 1 : 3);
        if (sv == 0)
            sub_v0(&sub);
        else if (sv == 1)
            sub_v1(&sub);
        else
            sub_v3(&sub, 3);
        asg_v0(&asg, (int16_t)(ver % 4), ver == 2);
        group_value(&v, ver, "consumer", &sub, &asg);
        assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
        assert_true(r.value_ok);
        assert_int_equal(r.value_version, ver);
        assert_field_str(&t, node(&t, r.key_root), "group", "grp");
        const kf_dnode *val = node(&t, r.value_root);
        assert_string_equal(names(&t, val), ver >= 2 ? "protocol_type,generation,protocol,leader,current_state_timestamp,members"
                                                     : "protocol_type,generation,protocol,leader,members");
        assert_field_str(&t, val, "protocol_type", "consumer");
        assert_field_int(&t, val, "generation", 5);
        assert_field_str(&t, val, "protocol", "range");
        assert_field_str(&t, val, "leader", "m1");
        if (ver >= 2)
            assert_field_int(&t, val, "current_state_timestamp", 1700000000123LL);
        const kf_dnode *ms = fld(&t, val, "members");
        assert_int_equal(ms->kind, KF_V_ARRAY);
        assert_int_equal(ms->n_children, 1);
        const kf_dnode *m = kf_dnode_child(&t, ms, 0);
        const char *want[] = {
            "member_id,client_id,client_host,session_timeout,subscription,subscription_bytes,assignment,assignment_bytes",
            "member_id,client_id,client_host,rebalance_timeout,session_timeout,subscription,subscription_bytes,assignment,assignment_bytes",
            "member_id,client_id,client_host,rebalance_timeout,session_timeout,subscription,subscription_bytes,assignment,assignment_bytes",
            "member_id,group_instance_id,client_id,client_host,rebalance_timeout,session_timeout,subscription,subscription_bytes,assignment,assignment_bytes",
            "member_id,group_instance_id,client_id,client_host,rebalance_timeout,session_timeout,subscription,subscription_bytes,assignment,assignment_bytes",
        };
        assert_string_equal(names(&t, m), want[ver]);
        assert_int_equal(m->n_children, ver >= 3 ? 10 : ver >= 1 ? 9 : 8);
        assert_field_str(&t, m, "member_id", "m1");
        if (ver >= 3)
            assert_field_null(&t, m, "group_instance_id");
        assert_field_str(&t, m, "client_host", "/10.0.0.5");
        assert_field_int(&t, m, "session_timeout", 45000);
        if (ver >= 1)
            assert_field_int(&t, m, "rebalance_timeout", 300000);

        const kf_dnode *s = fld(&t, m, "subscription");
        assert_int_equal(s->kind, KF_V_STRUCT);
        assert_field_int(&t, s, "version", sv);
        const kf_dnode *tops = fld(&t, s, "topics");
        assert_str(kf_dnode_child(&t, tops, 0), "orders");
        if (sv == 0) {
            assert_string_equal(names(&t, s), "version,topics,user_data");
            assert_field_null(&t, s, "user_data");
        } else if (sv == 1) {
            assert_string_equal(names(&t, s), "version,topics,user_data,owned_partitions");
            assert_int_equal(tops->n_children, 2);
            assert_str(kf_dnode_child(&t, tops, 1), "payments");
            const kf_dnode *ud = fld(&t, s, "user_data");
            assert_int_equal(ud->kind, KF_V_BYTES);
            assert_int_equal(ud->len, 3);
            const kf_dnode *op = kf_dnode_child(&t, fld(&t, s, "owned_partitions"), 0);
            assert_field_str(&t, op, "topic", "orders");
            assert_int_equal(kf_dnode_child(&t, fld(&t, op, "partitions"), 1)->i, 1);
        } else {
            assert_string_equal(names(&t, s), "version,topics,user_data,owned_partitions,generation_id,rack_id");
            assert_field_int(&t, s, "generation_id", 7);
            assert_field_str(&t, s, "rack_id", "rack-a");
            assert_int_equal(fld(&t, s, "owned_partitions")->n_children, 0);
        }
        const kf_dnode *sb = fld(&t, m, "subscription_bytes");
        assert_int_equal(sb->kind, KF_V_BYTES);
        assert_int_equal(sb->len, sub.n);
        assert_memory_equal(sb->p, sub.b, sub.n);
        check_assignment(&t, fld(&t, m, "assignment"), ver % 4);
        const kf_dnode *ud = fld(&t, fld(&t, m, "assignment"), "user_data");
        if (ver == 2) {
            assert_int_equal(ud->kind, KF_V_BYTES);
            assert_memory_equal(ud->p, "\xab\xcd", 2);
        } else {
            assert_int_equal(ud->kind, KF_V_NULL);
        }
        assert_int_equal(fld(&t, m, "assignment_bytes")->len, asg.n);
    }
    kf_dtree_free(&t);
}

static void test_group_metadata_protocols(void **state)
{
    (void)state;
    bb k = { .n = 0 }, v, sub, asg;
    i16(&k, 2);
    str(&k, "connect-cluster");
    kf_dtree t = { 0 };
    kf_coord_record r;
    /* "connect": the bytes are Connect's protocol and stay bytes, even when
     * they would parse as consumer protocol */
    sub_v0(&sub);
    asg_v0(&asg, 0, false);
    group_value(&v, 3, "connect", &sub, &asg);
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
    const kf_dnode *m = kf_dnode_child(&t, fld(&t, node(&t, r.value_root), "members"), 0);
    assert_string_equal(names(&t, m),
                        "member_id,group_instance_id,client_id,client_host,rebalance_timeout,session_timeout,subscription,assignment");
    assert_int_equal(fld(&t, m, "subscription")->kind, KF_V_BYTES);
    assert_int_equal(fld(&t, m, "assignment")->len, asg.n);

    /* "consumer" whose bytes are not consumer protocol: kept as bytes, no
     * error; an empty assignment too */
    sub.n = 0;
    hex(&sub, "0001 7fffffff");
    asg.n = 0;
    group_value(&v, 3, "consumer", &sub, &asg);
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
    m = kf_dnode_child(&t, fld(&t, node(&t, r.value_root), "members"), 0);
    assert_int_equal(fld(&t, m, "subscription")->kind, KF_V_BYTES);
    assert_int_equal(fld(&t, m, "assignment")->kind, KF_V_BYTES);
    assert_int_equal(fld(&t, m, "assignment")->len, 0);
    assert_no_field(&t, m, "subscription_bytes");
    /* failed attempts leave no nodes behind: key 2, value root + 6 fields,
     * one member + 8 fields */
    assert_int_equal(t.n, 2 + 7 + 9);

    /* an empty group: no members, null protocol and leader */
    v.n = 0;
    i16(&v, 3);
    str(&v, "consumer");
    i32(&v, 8);
    nstr(&v);
    nstr(&v);
    i64(&v, 1672870964792LL);
    i32(&v, 0);
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
    const kf_dnode *val = node(&t, r.value_root);
    assert_field_null(&t, val, "protocol");
    assert_field_null(&t, val, "leader");
    assert_int_equal(fld(&t, val, "members")->n_children, 0);
    kf_dtree_free(&t);
}

static void test_consumer_protocol_api(void **state)
{
    (void)state;
    bb s;
    kf_dtree t = { 0 };
    uint32_t root;
    /* a version above 3 is read as 3 and extra bytes are ignored */
    sub_v3(&s, 6);
    hex(&s, "deadbeef");
    assert_int_equal(kf_consumer_subscription_decode(s.b, s.n, &t, &root), KF_OK);
    const kf_dnode *st = node(&t, root);
    assert_field_int(&t, st, "version", 6);
    assert_field_str(&t, st, "rack_id", "rack-a");
    check_tree(&t, root, 0);
    /* v2: generation id but no rack */
    kf_dtree_reset(&t);
    s.n = 0;
    i16(&s, 2);
    i32(&s, 0);
    i32(&s, -1);
    i32(&s, 0);
    i32(&s, 3);
    assert_int_equal(kf_consumer_subscription_decode(s.b, s.n, &t, &root), KF_OK);
    assert_string_equal(names(&t, node(&t, root)), "version,topics,user_data,owned_partitions,generation_id");
    /* bad: negative version, cut short, nothing */
    kf_dtree_reset(&t);
    s.n = 0;
    hex(&s, "ffff 00000000 ffffffff");
    assert_int_not_equal(kf_consumer_subscription_decode(s.b, s.n, &t, &root), KF_OK);
    assert_int_equal(root, KF_DNODE_NONE);
    sub_v1(&s);
    for (size_t n = 0; n < s.n; n++) {
        kf_dtree_reset(&t);
        assert_int_equal(kf_consumer_subscription_decode(s.b, n, &t, &root), KF_ERR_TRUNCATED);
    }
    asg_v0(&s, 1, true);
    for (size_t n = 0; n < s.n; n++) {
        kf_dtree_reset(&t);
        assert_int_equal(kf_consumer_assignment_decode(s.b, n, &t, &root), KF_ERR_TRUNCATED);
    }
    kf_dtree_reset(&t);
    assert_int_equal(kf_consumer_assignment_decode(s.b, s.n, &t, &root), KF_OK);
    check_assignment(&t, node(&t, root), 1);
    assert_int_equal(kf_consumer_assignment_decode(NULL, 0, &t, &root), KF_ERR_TRUNCATED);
    kf_dtree_free(&t);
}

/* ---- KIP-848, share and streams records ---------------------------------------- */

static void test_consumer_group_member_metadata(void **state)
{
    (void)state;
    bb k = { .n = 0 }, v = { .n = 0 }, cm = { .n = 0 }, md;
    i16(&k, 5);
    str(&k, "cg");
    str(&k, "member-1");
    sub_v3(&md, 3);
    /* tagged ClassicMemberMetadata: presence marker, struct, its own tags */
    uvar(&cm, 1);
    i32(&cm, 45000);
    uvar(&cm, 3); /* two protocols */
    cstr(&cm, "range");
    cbytes(&cm, &md);
    uvar(&cm, 0);
    cstr(&cm, "cooperative-sticky");
    cbytes(&cm, &md);
    uvar(&cm, 0);
    uvar(&cm, 0);

    i16(&v, 0);
    cnull(&v);            /* instance id */
    cstr(&v, "rack-1");   /* rack id */
    cstr(&v, "client");   /* client id */
    cstr(&v, "/1.2.3.4"); /* client host */
    uvar(&v, 3);
    cstr(&v, "a");
    cstr(&v, "b");
    cnull(&v);       /* regex */
    i32(&v, 60000);  /* rebalance timeout */
    cstr(&v, "uniform");
    size_t tagpos = v.n;
    uvar(&v, 2);     /* two tags: unknown 7, then classic (0) */
    uvar(&v, 7);
    uvar(&v, 1);
    u8(&v, 0x55);
    uvar(&v, 0);
    uvar(&v, (uint32_t)cm.n);
    put(&v, cm.b, cm.n);

    kf_dtree t = { 0 };
    kf_coord_record r;
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
    assert_string_equal(r.record_type, "consumer_group_member_metadata");
    const kf_dnode *key = node(&t, r.key_root), *val = node(&t, r.value_root);
    assert_string_equal(names(&t, key), "group_id,member_id");
    assert_field_str(&t, key, "member_id", "member-1");
    assert_string_equal(names(&t, val), "instance_id,rack_id,client_id,client_host,subscribed_topic_names,"
                                        "subscribed_topic_regex,rebalance_timeout_ms,server_assignor,classic_member_metadata");
    assert_field_null(&t, val, "instance_id");
    assert_field_str(&t, val, "rack_id", "rack-1");
    assert_int_equal(fld(&t, val, "subscribed_topic_names")->n_children, 2);
    assert_field_int(&t, val, "rebalance_timeout_ms", 60000);
    assert_field_str(&t, val, "server_assignor", "uniform");
    const kf_dnode *c = fld(&t, val, "classic_member_metadata");
    assert_int_equal(c->kind, KF_V_STRUCT);
    assert_field_int(&t, c, "session_timeout_ms", 45000);
    const kf_dnode *sp = fld(&t, c, "supported_protocols");
    assert_int_equal(sp->n_children, 2);
    assert_field_str(&t, kf_dnode_child(&t, sp, 1), "name", "cooperative-sticky");
    assert_int_equal(fld(&t, kf_dnode_child(&t, sp, 0), "metadata")->len, md.n);

    /* without the tag: the field is absent; tagged null: a null node */
    v.n = tagpos;
    uvar(&v, 0);
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
    assert_no_field(&t, node(&t, r.value_root), "classic_member_metadata");
    v.n = tagpos;
    uvar(&v, 1);
    uvar(&v, 0);
    uvar(&v, 1);
    uvar(&v, 0);
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
    assert_field_null(&t, node(&t, r.value_root), "classic_member_metadata");
    kf_dtree_free(&t);
}

static void test_consumer_group_current_assignment(void **state)
{
    (void)state;
    bb k = { .n = 0 }, v = { .n = 0 };
    i16(&k, 8);
    str(&k, "cg");
    str(&k, "m");
    i16(&v, 0);
    i32(&v, 11);
    i32(&v, 10);
    u8(&v, 0);
    uvar(&v, 2); /* assigned: one topic, with tagged assignment epochs */
    put(&v, UUID1, 16);
    uvar(&v, 3);
    i32(&v, 0);
    i32(&v, 1);
    uvar(&v, 1);
    uvar(&v, 0);
    uvar(&v, 9);
    uvar(&v, 3);
    i32(&v, 10);
    i32(&v, 11);
    uvar(&v, 1); /* pending revocation: empty */
    uvar(&v, 0);
    kf_dtree t = { 0 };
    kf_coord_record r;
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
    assert_string_equal(r.record_type, "consumer_group_current_member_assignment");
    const kf_dnode *val = node(&t, r.value_root);
    assert_string_equal(names(&t, val),
                        "member_epoch,previous_member_epoch,state,assigned_partitions,partitions_pending_revocation");
    assert_field_int(&t, val, "member_epoch", 11);
    const kf_dnode *tp = kf_dnode_child(&t, fld(&t, val, "assigned_partitions"), 0);
    assert_string_equal(names(&t, tp), "topic_id,partitions,assignment_epochs");
    assert_memory_equal(fld(&t, tp, "topic_id")->p, UUID1, 16);
    const kf_dnode *ae = fld(&t, tp, "assignment_epochs");
    assert_int_equal(ae->kind, KF_V_ARRAY);
    assert_int_equal(kf_dnode_child(&t, ae, 1)->i, 11);
    assert_int_equal(fld(&t, val, "partitions_pending_revocation")->n_children, 0);

    /* cut at every length: truncated, with a position inside the value */
    bb cut = v;
    for (size_t n = 0; n < v.n; n++) {
        cut.n = n;
        int rc = decode(KF_COORD_OFFSETS, &k, &cut, &t, &r);
        assert_int_equal(rc, KF_ERR_TRUNCATED);
        assert_true(r.value_partial);
        assert_false(r.err_in_key);
        assert_true(r.err_pos <= n);
        assert_true(r.err[0] != 0);
    }
    kf_dtree_free(&t);
}

static void test_other_modern_records(void **state)
{
    (void)state;
    bb k = { .n = 0 }, v = { .n = 0 };
    kf_dtree t = { 0 };
    kf_coord_record r;

    /* type 3 with tagged metadata hash */
    i16(&k, 3);
    str(&k, "cg");
    i16(&v, 0);
    i32(&v, 4);
    uvar(&v, 1);
    uvar(&v, 0);
    uvar(&v, 8);
    i64(&v, -2);
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
    assert_string_equal(r.record_type, "consumer_group_metadata");
    assert_string_equal(names(&t, node(&t, r.value_root)), "epoch,metadata_hash");
    assert_field_int(&t, node(&t, r.value_root), "metadata_hash", -2);

    /* type 16 key with the regular expression */
    k.n = 0;
    i16(&k, 16);
    str(&k, "cg");
    str(&k, "orders-.*");
    v.n = 0;
    i16(&v, 0);
    uvar(&v, 2);
    cstr(&v, "orders-1");
    i64(&v, 3);
    i64(&v, 1700000000000LL);
    uvar(&v, 0);
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
    assert_field_str(&t, node(&t, r.key_root), "regular_expression", "orders-.*");
    assert_string_equal(names(&t, node(&t, r.value_root)), "topics,version,timestamp");

    /* type 19: streams member with a nullable (untagged) struct and uint16 */
    k.n = 0;
    i16(&k, 19);
    str(&k, "sg");
    str(&k, "m");
    for (int present = 0; present < 2; present++) {
        v.n = 0;
        i16(&v, 0);
        cnull(&v);
        cnull(&v);
        cstr(&v, "c");
        cstr(&v, "h");
        i32(&v, -1);
        i32(&v, 2);
        cstr(&v, "proc");
        if (present) {
            u8(&v, 1);
            cstr(&v, "host");
            i16(&v, (int16_t)0xffff);
            uvar(&v, 0);
        } else {
            u8(&v, 0xff);
        }
        uvar(&v, 2);
        cstr(&v, "zone");
        cstr(&v, "a");
        uvar(&v, 0);
        uvar(&v, 0);
        assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
        const kf_dnode *val = node(&t, r.value_root);
        const kf_dnode *ue = fld(&t, val, "user_endpoint");
        if (present) {
            assert_int_equal(ue->kind, KF_V_STRUCT);
            assert_field_int(&t, ue, "port", 65535);
        } else {
            assert_int_equal(ue->kind, KF_V_NULL);
        }
        assert_field_str(&t, kf_dnode_child(&t, fld(&t, val, "client_tags"), 0), "key", "zone");
    }

    /* type 11 in the later layout (epoch + non-tagged metadata hash) */
    k.n = 0;
    i16(&k, 11);
    str(&k, "share");
    v.n = 0;
    i16(&v, 0);
    i32(&v, 3);
    i64(&v, 0x0102030405060708LL);
    uvar(&v, 0);
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
    assert_string_equal(names(&t, node(&t, r.value_root)), "epoch,metadata_hash");
    v.n = 0; /* and in the snapshot's */
    i16(&v, 0);
    i32(&v, 3);
    uvar(&v, 0);
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
    assert_string_equal(names(&t, node(&t, r.value_root)), "epoch");

    /* type 9 in Kafka 3.9's layout */
    k.n = 0;
    i16(&k, 9);
    str(&k, "share");
    v.n = 0;
    i16(&v, 0);
    uvar(&v, 2);
    put(&v, UUID1, 16);
    cstr(&v, "orders");
    uvar(&v, 2);
    i32(&v, 0);
    uvar(&v, 0);
    uvar(&v, 1);
    uvar(&v, 0);
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
    assert_string_equal(names(&t, node(&t, r.value_root)), "initialized_topics,deleting_topics");

    /* type 23: topology with int16 arrays */
    k.n = 0;
    i16(&k, 23);
    str(&k, "sg");
    v.n = 0;
    i16(&v, 0);
    i32(&v, 1);
    uvar(&v, 2);
    cstr(&v, "0");
    uvar(&v, 2);
    cstr(&v, "in");
    uvar(&v, 1);
    uvar(&v, 2); /* one changelog topic */
    cstr(&v, "store-changelog");
    i32(&v, 0);
    i16(&v, 3);
    uvar(&v, 2);
    cstr(&v, "cleanup.policy");
    cstr(&v, "compact");
    uvar(&v, 0);
    uvar(&v, 0);
    uvar(&v, 1);
    uvar(&v, 1);
    uvar(&v, 2); /* one copartition group */
    uvar(&v, 3);
    i16(&v, 0);
    i16(&v, 1);
    uvar(&v, 1);
    uvar(&v, 1);
    uvar(&v, 0);
    uvar(&v, 0); /* subtopology tags */
    uvar(&v, 0); /* value tags */
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
    const kf_dnode *st = kf_dnode_child(&t, fld(&t, node(&t, r.value_root), "subtopologies"), 0);
    const kf_dnode *cg = kf_dnode_child(&t, fld(&t, st, "copartition_groups"), 0);
    assert_int_equal(kf_dnode_child(&t, fld(&t, cg, "source_topics"), 1)->i, 1);
    const kf_dnode *ci = kf_dnode_child(&t, fld(&t, st, "state_changelog_topics"), 0);
    assert_field_int(&t, ci, "replication_factor", 3);
    kf_dtree_free(&t);
}

/* ---- __transaction_state (§12) ------------------------------------------------ */

/* Type 15, ShareGroupStatePartitionMetadataValue, in the three layouts
 * Kafka wrote under the same version 0: 4.0 (InitializedTopics,
 * DeletingTopics), 4.4.0 (InitializingTopics first; what the broker suite's
 * real 4.4.0 broker writes) and later trunk (CreateTimestamp in each topic).
 * Encoded here by the wire rules: compact arrays and strings, 16-byte
 * uuids, an empty tagged-field section after each struct. */
static void topic_parts(bb *v, uint8_t id, const char *name, int32_t part, bool with_ts)
{
    for (int i = 0; i < 16; i++)
        u8(v, id);
    cstr(v, name);
    uvar(v, 2); /* one partition */
    i32(v, part);
    if (with_ts)
        i64(v, 1700000000000LL);
    uvar(v, 0);
}

static void test_share_state_layouts(void **state)
{
    (void)state;
    bb k = { .n = 0 }, v = { .n = 0 };
    kf_dtree t = { 0 };
    kf_coord_record r;
    i16(&k, 15);
    str(&k, "sg");
    static const char *const want[] = {"initialized_topics,deleting_topics",
                                       "initializing_topics,initialized_topics,deleting_topics",
                                       "initializing_topics,initialized_topics,deleting_topics"};
    for (int layout = 0; layout < 3; layout++) {
        bool ts = layout == 2;
        v.n = 0;
        i16(&v, 0);
        if (layout > 0) { /* InitializingTopics: one topic */
            uvar(&v, 2);
            topic_parts(&v, 0x11, "tasks", 3, ts);
        }
        uvar(&v, 2); /* InitializedTopics: one topic */
        topic_parts(&v, 0x22, "jobs", 0, ts);
        uvar(&v, 1); /* DeletingTopics: none */
        uvar(&v, 0);
        assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
        assert_string_equal(r.record_type, "share_group_state_partition_metadata");
        assert_string_equal(names(&t, node(&t, r.value_root)), want[layout]);
    }
    kf_dtree_free(&t);
}

static void test_transaction_log(void **state)
{
    (void)state;
    bb k = { .n = 0 }, v = { .n = 0 };
    i16(&k, 0);
    str(&k, "txn-1");
    kf_dtree t = { 0 };
    kf_coord_record r;
    /* v0 */
    i16(&v, 0);
    i64(&v, 12);
    i16(&v, 2);
    i32(&v, 60000);
    u8(&v, 1);
    i32(&v, 1);
    str(&v, "orders");
    i32(&v, 2);
    i32(&v, 0);
    i32(&v, 3);
    i64(&v, 1700000000500LL);
    i64(&v, 1700000000000LL);
    assert_int_equal(decode(KF_COORD_TXN, &k, &v, &t, &r), KF_OK);
    assert_string_equal(r.record_type, "transaction_log");
    assert_field_str(&t, node(&t, r.key_root), "transactional_id", "txn-1");
    const kf_dnode *val = node(&t, r.value_root);
    assert_string_equal(names(&t, val), "producer_id,producer_epoch,transaction_timeout_ms,transaction_status,"
                                        "transaction_partitions,transaction_last_update_timestamp_ms,"
                                        "transaction_start_timestamp_ms");
    assert_field_int(&t, val, "producer_id", 12);
    assert_field_int(&t, val, "transaction_status", 1);
    const kf_dnode *tp = kf_dnode_child(&t, fld(&t, val, "transaction_partitions"), 0);
    assert_field_str(&t, tp, "topic", "orders");
    assert_int_equal(kf_dnode_child(&t, fld(&t, tp, "partition_ids"), 1)->i, 3);

    /* v1: compact, null partitions, tags 0, 2 known and 9 unknown */
    v.n = 0;
    i16(&v, 1);
    i64(&v, 12);
    i16(&v, 3);
    i32(&v, 60000);
    u8(&v, 4);
    cnull(&v);
    i64(&v, 1700000000500LL);
    i64(&v, 1700000000000LL);
    uvar(&v, 3);
    uvar(&v, 0);
    uvar(&v, 8);
    i64(&v, 11);
    uvar(&v, 2);
    uvar(&v, 2);
    i16(&v, 2);
    uvar(&v, 9);
    uvar(&v, 2);
    i16(&v, 7); /* e.g. a future NextProducerEpoch */
    assert_int_equal(decode(KF_COORD_TXN, &k, &v, &t, &r), KF_OK);
    val = node(&t, r.value_root);
    /* in schema order, tagged fields where the schema declares them */
    assert_string_equal(names(&t, val), "producer_id,previous_producer_id,producer_epoch,transaction_timeout_ms,"
                                        "transaction_status,transaction_partitions,"
                                        "transaction_last_update_timestamp_ms,transaction_start_timestamp_ms,"
                                        "client_transaction_version");
    assert_field_int(&t, val, "previous_producer_id", 11);
    assert_field_int(&t, val, "client_transaction_version", 2);
    assert_int_equal(kf_dnode_int(&t, val, "next_producer_id", -1), -1);
    assert_field_null(&t, val, "transaction_partitions");

    /* cut at every length */
    bb cut = v;
    for (size_t n = 0; n < v.n; n++) {
        cut.n = n;
        assert_int_equal(decode(KF_COORD_TXN, &k, &cut, &t, &r), KF_ERR_TRUNCATED);
        assert_true(r.err_pos <= n);
    }
    /* v1 with a tag count larger than the bytes */
    v.n = 0;
    i16(&v, 1);
    i64(&v, 12);
    i16(&v, 3);
    i32(&v, 60000);
    u8(&v, 4);
    cnull(&v);
    i64(&v, 1);
    i64(&v, 1);
    uvar(&v, 100);
    assert_int_equal(decode(KF_COORD_TXN, &k, &v, &t, &r), KF_ERR_TRUNCATED);
    assert_int_equal(r.err_pos, v.n - 1);
    assert_field_int(&t, node(&t, r.value_root), "producer_epoch", 3);
    kf_dtree_free(&t);
}

/* ---- damage ---------------------------------------------------------------- */

static void test_truncated_everywhere(void **state)
{
    (void)state;
    bb k = { .n = 0 }, v, sub, asg;
    kf_dtree t = { 0 };
    kf_coord_record r;
    i16(&k, 2);
    str(&k, "grp");
    for (int16_t ver = 0; ver <= 4; ver++) {
        sub_v1(&sub);
        asg_v0(&asg, 0, true);
        group_value(&v, ver, "consumer", &sub, &asg);
        bb cut = v;
        for (size_t n = 0; n < v.n; n++) {
            cut.n = n;
            int rc = decode(KF_COORD_OFFSETS, &k, &cut, &t, &r);
            assert_int_equal(rc, KF_ERR_TRUNCATED);
            assert_true(r.key_ok);
            assert_false(r.value_ok);
            assert_true(r.value_partial);
            assert_true(r.err_pos <= n);
            if (n >= 2) {
                assert_int_equal(r.value_version, ver);
                assert_true(r.value_root != KF_DNODE_NONE);
            }
        }
    }
    /* the offset commit examples too */
    key_offset(&k, 1, "g", "t", 0);
    const char *vals[] = { "0003 000000000000002a 00000005 0000 0000018bcfe56800",
                           "0001 000000000000002a 0000 0000018bcfe56800 0000018bf3f1ec00",
                           "0004 000000000021d4a8 ffffffff 01 0000019964f2d836 00" };
    for (size_t i = 0; i < 3; i++) {
        v.n = 0;
        hex(&v, vals[i]);
        bb cut = v;
        for (size_t n = 0; n < v.n; n++) {
            cut.n = n;
            assert_int_equal(decode(KF_COORD_OFFSETS, &k, &cut, &t, &r), KF_ERR_TRUNCATED);
            assert_true(r.err_pos <= n);
        }
    }
    /* the key too */
    bb kk = k;
    for (size_t n = 0; n < k.n; n++) {
        kk.n = n;
        assert_int_equal(decode(KF_COORD_OFFSETS, &kk, NULL, &t, &r), KF_ERR_TRUNCATED);
        assert_true(r.err_in_key);
        assert_true(r.err_pos <= n);
    }
    kf_dtree_free(&t);
}

static void test_corrupt_values(void **state)
{
    (void)state;
    bb k, v = { .n = 0 };
    kf_dtree t = { 0 };
    kf_coord_record r;
    key_offset(&k, 1, "g", "t", 0);
    /* null metadata in a non-nullable string */
    hex(&v, "0003 000000000000002a 00000005 ffff 0000018bcfe56800");
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_ERR_CORRUPT);
    assert_int_equal(r.err_pos, 14);
    assert_non_null(strstr(r.err, "metadata"));
    assert_field_int(&t, node(&t, r.value_root), "leader_epoch", 5);
    /* compact string longer than Kafka allows */
    v.n = 0;
    hex(&v, "0004 000000000021d4a8 ffffffff");
    uvar(&v, 0x8001);
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_ERR_CORRUPT);
    /* malformed varint (too long) */
    v.n = 0;
    hex(&v, "0004 000000000021d4a8 ffffffff ffffffffff01");
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_ERR_CORRUPT);
    /* huge array count */
    k.n = 0;
    i16(&k, 2);
    str(&k, "g");
    v.n = 0;
    i16(&v, 3);
    str(&v, "consumer");
    i32(&v, 1);
    nstr(&v);
    nstr(&v);
    i64(&v, 0);
    i32(&v, 0x7fffffff);
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_ERR_TRUNCATED);
    assert_true(t.n < 100);
    kf_dtree_free(&t);
}

static void test_node_cap(void **state)
{
    (void)state;
    bb k = { .n = 0 }, v = { .n = 0 };
    i16(&k, 7);
    str(&k, "cg");
    str(&k, "m");
    i16(&v, 0);
    uvar(&v, 2);
    put(&v, UUID1, 16);
    uvar(&v, 201);
    for (int i = 0; i < 200; i++)
        i32(&v, i);
    uvar(&v, 0);
    uvar(&v, 0);
    kf_dtree t = { 0 };
    kf_coord_record r;
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_OK);
    /* key: root + 2; value: root, list, element, uuid, array + 200 ints */
    assert_int_equal(t.n, 3 + 5 + 200);
    t.max_nodes = 50;
    assert_int_equal(decode(KF_COORD_OFFSETS, &k, &v, &t, &r), KF_ERR_TOO_BIG);
    assert_true(t.n <= 50);
    assert_true(r.value_partial);
    assert_true(r.err[0] != 0);
    kf_dtree_free(&t);
    assert_null(t.nodes);
}

/* kf_coord_problem_code: the one rule offsets, groups and dump --decode use */
static void test_problem_codes(void **state)
{
    (void)state;
    bb k, v = { .n = 0 };
    kf_dtree t = { 0 };
    kf_coord_record r;
    kf_severity sev;
    /* an unknown record type: skipped by the coordinator, a warning */
    k.n = 0;
    i16(&k, 99);
    str(&k, "x");
    hex(&v, "0000 01");
    int rc = decode(KF_COORD_OFFSETS, &k, &v, &t, &r);
    assert_string_equal(kf_coord_problem_code(rc, &r, &sev), KF_P_UNKNOWN_RECORD_TYPE);
    assert_int_equal(sev, KF_SEV_WARNING);
    /* a known type's unknown value version: not damage */
    key_offset(&k, 1, "g", "t", 0);
    v.n = 0;
    hex(&v, "0009 000000000021d4a8 ffffffff 01 0000019964f2d836 00");
    rc = decode(KF_COORD_OFFSETS, &k, &v, &t, &r);
    assert_string_equal(kf_coord_problem_code(rc, &r, &sev), KF_P_UNDECODED_RECORD);
    assert_int_equal(sev, KF_SEV_WARNING);
    /* malformed bytes: no key, a key too short for its type, a value cut short */
    rc = decode(KF_COORD_OFFSETS, NULL, &v, &t, &r);
    assert_string_equal(kf_coord_problem_code(rc, &r, &sev), KF_P_BAD_RECORD);
    assert_int_equal(sev, KF_SEV_ERROR);
    k.n = 1;
    rc = decode(KF_COORD_OFFSETS, &k, &v, &t, &r);
    assert_string_equal(kf_coord_problem_code(rc, &r, &sev), KF_P_BAD_RECORD);
    key_offset(&k, 1, "g", "t", 0);
    v.n = 0;
    hex(&v, "0003 0000");
    rc = decode(KF_COORD_OFFSETS, &k, &v, &t, &r);
    assert_string_equal(kf_coord_problem_code(rc, &r, &sev), KF_P_BAD_RECORD);
    assert_int_equal(sev, KF_SEV_ERROR);
    kf_dtree_free(&t);
}

/* ---- the schema table ------------------------------------------------------ */

static bool snake(const char *s)
{
    if (!s || !*s || *s == '_')
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

static void check_struct(const cs_struct *st, int depth)
{
    assert_true(depth < 8);
    assert_non_null(st);
    assert_true(st->n_fields > 0 && st->n_fields <= CS_MAX_FIELDS);
    for (uint16_t i = 0; i < st->n_fields; i++) {
        const cs_field *f = &st->fields[i];
        if (!snake(f->name))
            fail_msg("%s: bad field name %s", st->name, f->name ? f->name : "(null)");
        assert_true(f->v_min <= f->v_max);
        assert_true(f->kind >= CS_INT8 && f->kind <= CS_ARRAY);
        for (uint16_t j = 0; j < i; j++)
            assert_true(strcmp(st->fields[j].name, f->name) != 0);
        if (f->tag >= 0) {
            assert_true(f->tag_min <= f->tag_max);
            for (uint16_t j = 0; j < i; j++)
                assert_true(st->fields[j].tag != f->tag);
        }
        if (f->kind == CS_STRUCT || (f->kind == CS_ARRAY && f->elem == CS_STRUCT))
            check_struct(f->sub, depth + 1);
        else
            assert_null(f->sub);
        if (f->kind == CS_ARRAY)
            assert_true(f->elem >= CS_INT8 && f->elem <= CS_STRUCT);
    }
}

static void test_schema_table(void **state)
{
    (void)state;
    uint32_t n;
    const cs_record *recs = kf_cs_records(KF_COORD_OFFSETS, &n);
    assert_int_equal(n, 25);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(recs[i].type, (int16_t)i);
        assert_ptr_equal(kf_cs_lookup(KF_COORD_OFFSETS, (int16_t)i), &recs[i]);
        assert_true(snake(recs[i].record_type));
        check_struct(recs[i].key->root, 0);
        check_struct(recs[i].value->root, 0);
        assert_int_equal(recs[i].key->flex_min, -1);
        for (uint8_t a = 0; a < recs[i].n_alts; a++)
            check_struct(recs[i].alts[a]->root, 0);
        if (i >= 3) {
            assert_int_equal(recs[i].value->v_max, 0);
            assert_int_equal(recs[i].value->flex_min, 0);
        }
    }
    assert_string_equal(recs[0].record_type, "offset_commit");
    assert_string_equal(recs[5].record_type, "consumer_group_member_metadata");
    assert_string_equal(recs[11].record_type, "share_group_metadata");
    assert_string_equal(recs[24].record_type, "streams_group_target_assignment_resolved_topic_ids");
    assert_null(kf_cs_lookup(KF_COORD_OFFSETS, 25));
    assert_null(kf_cs_lookup(KF_COORD_OFFSETS, -1));
    recs = kf_cs_records(KF_COORD_TXN, &n);
    assert_int_equal(n, 1);
    assert_string_equal(recs[0].record_type, "transaction_log");
    assert_int_equal(recs[0].value->flex_min, 1);
    check_struct(recs[0].value->root, 0);
    check_struct(kf_cs_consumer_subscription.root, 0);
    check_struct(kf_cs_consumer_assignment.root, 0);
}

/* kf_cs_find searches by halves: every table must be sorted by type, strictly.
 * Each type of each table is found, and the gaps and ends are not. */
static void test_schema_tables_sorted(void **state)
{
    (void)state;
    const cs_record *(*const plain[])(uint32_t *) = {kf_cs_share_records, kf_cs_metadata_records,
                                                       kf_cs_control_records, kf_cs_remote_records};
    for (int t = 0; t < 6; t++) {
        uint32_t n;
        const cs_record *recs = t < 2 ? kf_cs_records(t ? KF_COORD_TXN : KF_COORD_OFFSETS, &n) : plain[t - 2](&n);
        assert_true(n > 0);
        for (uint32_t i = 0; i < n; i++) {
            if (i > 0 && recs[i - 1].type >= recs[i].type)
                fail_msg("table %d: type %d after %d", t, recs[i].type, recs[i - 1].type);
            assert_ptr_equal(kf_cs_find(recs, n, recs[i].type), &recs[i]);
            if (i > 0 && recs[i - 1].type + 1 < recs[i].type)
                assert_null(kf_cs_find(recs, n, (int16_t)(recs[i].type - 1)));
        }
        assert_null(kf_cs_find(recs, n, (int16_t)(recs[0].type - 1)));
        assert_null(kf_cs_find(recs, n, (int16_t)(recs[n - 1].type + 1)));
        assert_null(kf_cs_find(recs, n, INT16_MIN));
        assert_null(kf_cs_find(recs, n, INT16_MAX));
    }
    assert_null(kf_cs_find(NULL, 0, 0));
}

/* ---- hashing (§9) ------------------------------------------------------------ */

static void test_hash_table(void **state)
{
    (void)state;
    static const struct {
        const char *id;
        int32_t hash, part;
    } tab[] = {
        { "my-group", -1906497762, 12 },
        { "connect-my-sink", 2031120433, 33 },
        { "console-consumer-12345", 158455506, 6 },
        { "test", 3556498, 48 },
        { "polygenelubricants", INT32_MIN, 0 },
        { "gr\xc3\xbc\xc3\x9f" "e", 98768023, 23 },
        { "group\xc3\xa9\xf0\x9f\x98\x80", 508263725, 25 },
        { "", 0, 0 },
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        const uint8_t *s = (const uint8_t *)tab[i].id;
        assert_int_equal(kf_java_string_hash(s, strlen(tab[i].id)), tab[i].hash);
        assert_int_equal(kf_coordinator_partition(s, strlen(tab[i].id), 50), tab[i].part);
    }
    assert_int_equal(kf_coordinator_partition((const uint8_t *)"x", 1, 0), -1);
    assert_int_equal(kf_coordinator_partition((const uint8_t *)"test", 4, 1), 0);

    /* malformed UTF-8 becomes U+FFFD as Java's String(bytes, UTF_8) makes it */
    const int32_t R = 0xfffd;
    struct {
        const char *b;
        size_t n;
        int32_t h;
    } bad[] = {
        { "\xff", 1, R },
        { "a\xff", 2, 31 * 97 + R },
        { "\x80\x80", 2, 31 * R + R },                  /* lone continuations: one each */
        { "\xc0\x80", 2, 31 * R + R },                  /* overlong 2-byte: lead invalid */
        { "\xc3", 1, R },                               /* cut 2-byte */
        { "\xc3" "A", 2, 31 * R + 'A' },
        { "\xe2\x82", 2, R },                           /* cut 3-byte: one */
        { "\xe2\x82" "A", 3, 31 * R + 'A' },            /* bad third: E2 82 is one */
        { "\xed\xa0\x80", 3, R },                       /* encoded surrogate: one for all 3 */
        { "\xe0\x80\x80", 3, (31 * R + R) * 31 + R },   /* overlong 3-byte: 1 + 1 + 1 */
        { "\xf0\x9f\x98", 3, R },                       /* cut 4-byte at the end */
        { "\xf0\x9f\x98" "A", 4, 31 * R + 'A' },
        { "\xf4\x90\x80\x80", 4, ((31 * R + R) * 31 + R) * 31 + R }, /* above U+10FFFF */
        { "\xf8\x88\x80\x80\x80", 5, 0 },                             /* computed below */
    };
    for (size_t i = 0; i + 1 < sizeof bad / sizeof bad[0]; i++)
        if (kf_java_string_hash((const uint8_t *)bad[i].b, bad[i].n) != bad[i].h)
            fail_msg("malformed case %zu: %d != %d", i, kf_java_string_hash((const uint8_t *)bad[i].b, bad[i].n),
                     bad[i].h);
    uint32_t h5 = 0;
    for (int i = 0; i < 5; i++)
        h5 = 31u * h5 + 0xfffd;
    assert_int_equal(kf_java_string_hash((const uint8_t *)bad[13].b, 5), (int32_t)h5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offset_commit_v3_example),
        cmocka_unit_test(test_offset_commit_v1_v0_v2),
        cmocka_unit_test(test_offset_commit_v4),
        cmocka_unit_test(test_offset_keys_type0),
        cmocka_unit_test(test_tombstone_and_unknown),
        cmocka_unit_test(test_unknown_value_version),
        cmocka_unit_test(test_trailing_bytes),
        cmocka_unit_test(test_group_metadata_versions),
        cmocka_unit_test(test_group_metadata_protocols),
        cmocka_unit_test(test_consumer_protocol_api),
        cmocka_unit_test(test_consumer_group_member_metadata),
        cmocka_unit_test(test_consumer_group_current_assignment),
        cmocka_unit_test(test_other_modern_records),
        cmocka_unit_test(test_share_state_layouts),
        cmocka_unit_test(test_transaction_log),
        cmocka_unit_test(test_truncated_everywhere),
        cmocka_unit_test(test_corrupt_values),
        cmocka_unit_test(test_node_cap),
        cmocka_unit_test(test_problem_codes),
        cmocka_unit_test(test_schema_table),
        cmocka_unit_test(test_schema_tables_sorted),
        cmocka_unit_test(test_hash_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
