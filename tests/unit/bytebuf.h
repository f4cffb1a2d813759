/* bytebuf.h: building record bytes by hand in unit tests (big-endian ints,
 * unsigned varints, classic and compact strings, hex) and looking at the
 * decoded kf_dtree. Include after testutil.h. */
#ifndef KFSCK_TEST_BYTEBUF_H
#define KFSCK_TEST_BYTEBUF_H

typedef struct bb {
    uint8_t b[16384];
    size_t n;
} bb;

static inline void bb_put(bb *b, const void *p, size_t n)
{
    assert_true(b->n + n <= sizeof b->b);
    memcpy(b->b + b->n, p, n);
    b->n += n;
}
static inline void bb_u8(bb *b, uint8_t v) { bb_put(b, &v, 1); }
static inline void bb_i16(bb *b, int16_t v)
{
    uint8_t x[2] = {(uint8_t)((uint16_t)v >> 8), (uint8_t)v};
    bb_put(b, x, 2);
}
static inline void bb_i32(bb *b, int32_t v)
{
    uint32_t u = (uint32_t)v;
    uint8_t x[4] = {(uint8_t)(u >> 24), (uint8_t)(u >> 16), (uint8_t)(u >> 8), (uint8_t)u};
    bb_put(b, x, 4);
}
static inline void bb_i64(bb *b, int64_t v)
{
    bb_i32(b, (int32_t)((uint64_t)v >> 32));
    bb_i32(b, (int32_t)(uint32_t)v);
}
static inline void bb_f64(bb *b, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    bb_i64(b, (int64_t)u);
}
static inline void bb_uvar(bb *b, uint32_t v)
{
    while (v >= 0x80) {
        bb_u8(b, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    bb_u8(b, (uint8_t)v);
}
/* classic (int16 length) string */
static inline void bb_str(bb *b, const char *s)
{
    bb_i16(b, (int16_t)strlen(s));
    bb_put(b, s, strlen(s));
}
/* compact string / bytes (uvarint length + 1), compact null */
static inline void bb_cstr(bb *b, const char *s)
{
    bb_uvar(b, (uint32_t)strlen(s) + 1);
    bb_put(b, s, strlen(s));
}
static inline void bb_cbytes(bb *b, const void *p, size_t n)
{
    bb_uvar(b, (uint32_t)n + 1);
    bb_put(b, p, n);
}
static inline void bb_cnull(bb *b) { bb_uvar(b, 0); }
static inline void bb_uuid(bb *b, const uint8_t u[16]) { bb_put(b, u, 16); }
/* compact array of int32 */
static inline void bb_cints(bb *b, int n, const int32_t *v)
{
    bb_uvar(b, (uint32_t)n + 1);
    for (int i = 0; i < n; i++)
        bb_i32(b, v[i]);
}
/* hex digits; anything else (spaces, '|') ignored */
static inline void bb_hex(bb *b, const char *s)
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
            bb_u8(b, (uint8_t)(hi << 4 | d));
            hi = -1;
        }
    }
    assert_int_equal(hi, -1);
}

/* ---- looking at trees -------------------------------------------------------- */

static inline const kf_dnode *tnode(const kf_dtree *t, uint32_t i)
{
    assert_true(i != KF_DNODE_NONE);
    assert_true(i < t->n);
    return &t->nodes[i];
}

static inline const kf_dnode *tfld(const kf_dtree *t, const kf_dnode *st, const char *name)
{
    const kf_dnode *f = kf_dnode_field(t, st, name);
    if (!f)
        fail_msg("no field %s", name);
    return f;
}

static inline void assert_tstr(const kf_dtree *t, const kf_dnode *st, const char *name, const char *s)
{
    const kf_dnode *n = tfld(t, st, name);
    assert_int_equal(n->kind, KF_V_STRING);
    assert_int_equal(n->len, strlen(s));
    if (n->len)
        assert_memory_equal(n->p, s, n->len);
}

static inline void assert_tint(const kf_dtree *t, const kf_dnode *st, const char *name, int64_t v)
{
    const kf_dnode *f = tfld(t, st, name);
    assert_true(f->kind == KF_V_INT || f->kind == KF_V_BOOL);
    assert_int_equal(f->i, v);
}

static inline void assert_tuuid(const kf_dtree *t, const kf_dnode *st, const char *name, const char *b64)
{
    const kf_dnode *f = tfld(t, st, name);
    assert_int_equal(f->kind, KF_V_UUID);
    char s[23];
    kf_uuid_to_b64(f->p, s);
    assert_string_equal(s, b64);
}

static inline void assert_tabsent(const kf_dtree *t, const kf_dnode *st, const char *name)
{
    if (kf_dnode_field(t, st, name))
        fail_msg("field %s should be absent", name);
}

/* The int32 elements of an array field, compared with want[0..n). */
static inline void assert_tints(const kf_dtree *t, const kf_dnode *st, const char *name, int n, const int32_t *want)
{
    const kf_dnode *a = tfld(t, st, name);
    assert_int_equal(a->kind, KF_V_ARRAY);
    assert_int_equal(a->n_children, (uint32_t)n);
    for (int i = 0; i < n; i++)
        assert_int_equal(kf_dnode_child(t, a, (uint32_t)i)->i, want[i]);
}

#endif
