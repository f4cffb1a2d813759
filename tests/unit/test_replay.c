/* test_replay.c: the __consumer_offsets replay (include/kfsck/replay.h) on
 * hand-built batches of offset commits (key type 1 and value v3 / v4, laid
 * out as consumer-offsets.md §3 gives them), checking the coordinator's
 * rules of §8 one at a time: last write wins, tombstones delete, a
 * transactional commit takes effect at its COMMIT marker only if newer in
 * the log than the key's value, ABORT drops it, an offset tombstone drops
 * the key's staged offsets, unknown record types are skipped, and the
 * tree-less decoding of v3 agrees with the generic decoding of v4. */
#include "testutil.h"

static size_t str16(uint8_t *p, const char *s)
{
    size_t n = strlen(s);
    tb_put16(p, (uint16_t)n);
    memcpy(p + 2, s, n);
    return n + 2;
}

static int32_t commit_key(uint8_t *out, const char *group, const char *topic, int32_t part)
{
    size_t k = 0;
    tb_put16(out, 1);
    k += 2;
    k += str16(out + k, group);
    k += str16(out + k, topic);
    tb_put32(out + k, (uint32_t)part);
    return (int32_t)(k + 4);
}

/* OffsetCommitValue v3 (classic) or v4 (flexible: compact string, tags). */
static int32_t commit_value(uint8_t *out, int version, int64_t offset, int32_t epoch, const char *md, int64_t ts)
{
    size_t k = 0;
    tb_put16(out, (uint16_t)version);
    k += 2;
    tb_put64(out + k, (uint64_t)offset);
    k += 8;
    tb_put32(out + k, (uint32_t)epoch);
    k += 4;
    if (version >= 4) {
        size_t n = strlen(md);
        out[k++] = (uint8_t)(n + 1); /* compact string length + 1 (short strings: one byte) */
        memcpy(out + k, md, n);
        k += n;
    } else {
        k += str16(out + k, md);
    }
    tb_put64(out + k, (uint64_t)ts);
    k += 8;
    if (version >= 4)
        out[k++] = 0; /* no tagged fields */
    return (int32_t)k;
}

/* A COMMIT (type 1) or ABORT (type 0) marker batch of producer pid. */
static uint32_t marker(uint8_t *out, int64_t base, int type, int64_t pid, int64_t ts)
{
    static uint8_t key[4], val[6];
    tb_put16(key, 0);
    tb_put16(key + 2, (uint16_t)type);
    tb_put16(val, 0);
    tb_put32(val + 2, 5);
    tb_rec r = {key, 4, val, 6};
    uint32_t size = tb_batch(out, base, &r, 1, KF_ATTR_CONTROL | KF_ATTR_TRANSACTIONAL, pid, 0, ts);
    return size;
}

typedef struct change {
    char group[32], topic[32];
    int32_t partition;
    int64_t offset;
    bool deleted, transactional;
    int64_t time, at;
} change;

typedef struct history {
    change c[64];
    int n;
} history;

static void on_change(void *ctx, const kf_offset_value *v, bool deleted, int64_t time, int64_t at)
{
    history *h = ctx;
    assert_true(h->n < 64);
    change *c = &h->c[h->n++];
    snprintf(c->group, sizeof c->group, "%s", v->group);
    snprintf(c->topic, sizeof c->topic, "%s", v->topic);
    c->partition = v->partition;
    c->offset = v->offset;
    c->deleted = deleted;
    c->transactional = v->transactional;
    c->time = time;
    c->at = at;
}

typedef struct feed {
    kf_replay *r;
    uint8_t buf[4096];
    int64_t next; /* the next offset */
} feed;

static void feed_batch(feed *f, const tb_rec *rs, int n, uint16_t attrs, int64_t pid, int64_t ts)
{
    uint32_t size = tb_batch(f->buf, f->next, rs, n, attrs, pid, 0, ts);
    kf_batch b = tb_parse(f->buf, size);
    assert_int_equal(kf_replay_batch(f->r, &b), KF_OK);
    f->next += n;
}

static void feed_marker(feed *f, int type, int64_t pid, int64_t ts)
{
    uint32_t size = marker(f->buf, f->next, type, pid, ts);
    kf_batch b = tb_parse(f->buf, size);
    assert_int_equal(kf_replay_batch(f->r, &b), KF_OK);
    f->next++;
}

/* One commit as a record in k/v (buffers the caller keeps). */
static tb_rec commit(uint8_t *k, uint8_t *v, const char *g, const char *t, int32_t p, int64_t off, int64_t ts,
                     int version)
{
    tb_rec r = {k, commit_key(k, g, t, p), v, commit_value(v, version, off, 7, "md", ts)};
    return r;
}

static kf_replay *new_replay(history *h)
{
    kf_replay_opts o;
    kf_replay_opts_init(&o);
    o.change_fn = on_change;
    o.change_ctx = h;
    kf_replay *r;
    assert_int_equal(kf_replay_new(&r, &o), KF_OK);
    assert_non_null(r);
    kf_replay_partition(r, 12);
    return r;
}

static const kf_offset_value *find(kf_replay *r, const char *g, const char *t, int32_t p)
{
    const kf_offset_value **rows;
    size_t n = kf_replay_offsets(r, &rows);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(rows[i]->group, g) && !strcmp(rows[i]->topic, t) && rows[i]->partition == p)
            return rows[i];
    return NULL;
}

static void test_last_write_wins_and_tombstones(void **state)
{
    (void)state;
    history h = {0};
    feed f = {new_replay(&h), {0}, 0};
    uint8_t k[4][64], v[4][64];
    tb_rec rs[4] = {commit(k[0], v[0], "g", "orders", 0, 10, 100, 3), commit(k[1], v[1], "g", "orders", 1, 5, 101, 3),
                    commit(k[2], v[2], "g", "orders", 0, 20, 102, 3)};
    feed_batch(&f, rs, 3, 0, -1, 100);
    const kf_offset_value *x = find(f.r, "g", "orders", 0);
    assert_non_null(x);
    assert_true(x->offset == 20 && x->source_offset == 2 && x->source_partition == 12 && x->leader_epoch == 7);
    assert_string_equal(x->metadata, "md");
    /* a tombstone of partition 1 deletes it; the change has the batch's max time */
    tb_rec t = {k[3], commit_key(k[3], "g", "orders", 1), NULL, -1};
    feed_batch(&f, &t, 1, 0, -1, 555);
    assert_null(find(f.r, "g", "orders", 1));
    assert_int_equal(h.n, 4);
    assert_true(h.c[3].deleted && h.c[3].offset == 5 && h.c[3].time == 555 && h.c[3].at == 3);
    /* a tombstone of a key not in the table changes nothing */
    feed_batch(&f, &t, 1, 0, -1, 556);
    assert_int_equal(h.n, 4);
    kf_replay_free(f.r);
}

static void test_transactions(void **state)
{
    (void)state;
    history h = {0};
    feed f = {new_replay(&h), {0}, 0};
    uint8_t k[4][64], v[4][64];
    /* producer 9 stages orders-0 = 50; a plain commit of 60 comes later in
     * the log; at the COMMIT marker the staged 50 is older: it loses */
    tb_rec s = commit(k[0], v[0], "g", "orders", 0, 50, 200, 3);
    feed_batch(&f, &s, 1, KF_ATTR_TRANSACTIONAL, 9, 200);
    assert_null(find(f.r, "g", "orders", 0)); /* staged only */
    tb_rec p = commit(k[1], v[1], "g", "orders", 0, 60, 201, 3);
    feed_batch(&f, &p, 1, 0, -1, 201);
    feed_marker(&f, KF_CONTROL_COMMIT, 9, 202);
    assert_true(find(f.r, "g", "orders", 0)->offset == 60);
    /* producer 9 stages payments-0 = 7 and commits: applied at the marker */
    tb_rec s2 = commit(k[2], v[2], "g", "payments", 0, 7, 300, 3);
    feed_batch(&f, &s2, 1, KF_ATTR_TRANSACTIONAL, 9, 300);
    feed_marker(&f, KF_CONTROL_COMMIT, 9, 301);
    const kf_offset_value *x = find(f.r, "g", "payments", 0);
    assert_true(x && x->offset == 7 && x->transactional);
    assert_true(h.c[h.n - 1].at == 4); /* the change took effect at the marker (offset 4) */
    /* staged then aborted: nothing */
    tb_rec s3 = commit(k[3], v[3], "g", "payments", 0, 99, 400, 3);
    feed_batch(&f, &s3, 1, KF_ATTR_TRANSACTIONAL, 9, 400);
    feed_marker(&f, KF_CONTROL_ABORT, 9, 401);
    assert_true(find(f.r, "g", "payments", 0)->offset == 7);
    /* staged, then the key's tombstone drops it before the COMMIT */
    feed_batch(&f, &s3, 1, KF_ATTR_TRANSACTIONAL, 9, 500);
    tb_rec t = {k[3], commit_key(k[3], "g", "payments", 0), NULL, -1};
    feed_batch(&f, &t, 1, 0, -1, 501);
    feed_marker(&f, KF_CONTROL_COMMIT, 9, 502);
    assert_null(find(f.r, "g", "payments", 0));
    kf_replay_free(f.r);
}

static void test_unknown_types_are_skipped(void **state)
{
    (void)state;
    history h = {0};
    feed f = {new_replay(&h), {0}, 0};
    uint8_t k[8] = {0, 99, 0, 0}, val[4] = {0, 0, 1, 2};
    tb_rec r = {k, 4, val, 4};
    feed_batch(&f, &r, 1, 0, -1, 1);
    kf_replay_stats st = kf_replay_get_stats(f.r);
    assert_true(st.unknown == 1 && st.records == 1 && st.skipped == 0);
    assert_int_equal(h.n, 0);
    kf_replay_free(f.r);
}

/* v3 goes the tree-less way, v4 (flexible) through the generic decoder:
 * the same commits must give the same table. */
static void test_both_decoders_agree(void **state)
{
    (void)state;
    const kf_offset_value *rows[2][3];
    kf_replay *rs[2];
    history h[2];
    memset(h, 0, sizeof h);
    for (int d = 0; d < 2; d++) {
        feed f = {new_replay(&h[d]), {0}, 0};
        uint8_t k[3][64], v[3][64];
        tb_rec recs[3] = {commit(k[0], v[0], "grp", "t", 2, 42, 900, 3 + d),
                          commit(k[1], v[1], "grp", "t", 3, 43, 901, 3 + d),
                          commit(k[2], v[2], "other", "t", 2, 44, 902, 3 + d)};
        feed_batch(&f, recs, 3, 0, -1, 900);
        const kf_offset_value **out;
        assert_int_equal(kf_replay_offsets(f.r, &out), 3);
        for (int i = 0; i < 3; i++)
            rows[d][i] = out[i];
        rs[d] = f.r;
    }
    for (int i = 0; i < 3; i++) {
        assert_string_equal(rows[0][i]->group, rows[1][i]->group);
        assert_string_equal(rows[0][i]->topic, rows[1][i]->topic);
        assert_string_equal(rows[0][i]->metadata, rows[1][i]->metadata);
        assert_true(rows[0][i]->partition == rows[1][i]->partition && rows[0][i]->offset == rows[1][i]->offset &&
                    rows[0][i]->leader_epoch == rows[1][i]->leader_epoch &&
                    rows[0][i]->commit_timestamp == rows[1][i]->commit_timestamp);
        assert_true(rows[0][i]->value_version == 3 && rows[1][i]->value_version == 4);
    }
    kf_replay_free(rs[0]);
    kf_replay_free(rs[1]);
}

/* Many keys in many windows: every key keeps its last commit. */
static void test_many_keys(void **state)
{
    (void)state;
    history h = {0};
    kf_replay_opts o;
    kf_replay_opts_init(&o);
    kf_replay *r;
    assert_int_equal(kf_replay_new(&r, &o), KF_OK);
    kf_replay_partition(r, 0);
    uint8_t *buf = malloc(1 << 20);
    uint8_t (*k)[64] = malloc(200 * 64), (*v)[64] = malloc(200 * 64);
    tb_rec recs[200];
    int64_t next = 0;
    for (int round = 0; round < 5; round++) {
        for (int i = 0; i < 200; i++) {
            char g[16];
            snprintf(g, sizeof g, "g%d", i % 37);
            recs[i] = commit(k[i], v[i], g, "t", i, round * 1000 + i, round, 3);
        }
        uint32_t size = tb_batch(buf, next, recs, 200, 0, -1, -1, round);
        kf_batch b = tb_parse(buf, size);
        assert_int_equal(kf_replay_batch(r, &b), KF_OK);
        next += 200;
    }
    const kf_offset_value **rows;
    assert_int_equal(kf_replay_offsets(r, &rows), 200);
    for (size_t i = 0; i < 200; i++)
        assert_true(rows[i]->offset == 4000 + rows[i]->partition);
    (void)h;
    kf_replay_free(r);
    free(buf);
    free(k);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_last_write_wins_and_tombstones),
        cmocka_unit_test(test_transactions),
        cmocka_unit_test(test_unknown_types_are_skipped),
        cmocka_unit_test(test_both_decoders_agree),
        cmocka_unit_test(test_many_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
