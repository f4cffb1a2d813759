/* test_seek.c: kf_segment_seek (an offset index entry is taken only when
 * the batch at its position holds up), a scan that begins at a position
 * (kf_segment_scan_opts version 2's start_position; a version-1 caller's
 * struct ends before it), and kf_damaged_header. Batches from mkbatch.h;
 * the expected positions are the builder's, not the reader's. */
#include "mkbatch.h"

#define NB 6

typedef struct seg {
    uint8_t data[NB * 512];
    size_t len;
    uint64_t pos[NB];  /* batch i: offsets 10*i .. 10*i+4 */
} seg;

static void build(seg *s)
{
    s->len = 0;
    for (int i = 0; i < NB; i++) {
        mk_spec sp = mk_data(10 * i, 5, 0);
        s->pos[i] = s->len;
        s->len += mk_batch(s->data + s->len, sizeof s->data - s->len, &sp);
    }
}

static void put_entry(uint8_t *e, int32_t rel, int32_t pos)
{
    for (int k = 0; k < 4; k++) {
        e[k] = (uint8_t)((uint32_t)rel >> (24 - 8 * k));
        e[4 + k] = (uint8_t)((uint32_t)pos >> (24 - 8 * k));
    }
}

static uint64_t seek_with(const seg *s, const uint8_t *ix, size_t n, int64_t target, bool *from_index)
{
    kf_source *src;
    assert_int_equal(kf_source_memory(&src, s->data, s->len), KF_OK);
    kf_index idx;
    kf_offset_index_init(&idx, ix, n, 0);
    uint64_t pos = 99;
    assert_int_equal(kf_segment_seek(src, &idx, target, 0, &pos, from_index), KF_OK);
    kf_source_close(src);
    return pos;
}

static void test_seek_takes_a_sound_entry(void **state)
{
    (void)state;
    static seg s;
    build(&s);
    uint8_t ix[16];
    put_entry(ix, 14, (int32_t)s.pos[1]);     /* batch 1 ends at 14 */
    put_entry(ix + 8, 34, (int32_t)s.pos[3]); /* batch 3 ends at 34 */
    bool from;
    assert_int_equal(seek_with(&s, ix, 16, 42, &from), s.pos[3]);
    assert_true(from);
    assert_int_equal(seek_with(&s, ix, 16, 20, &from), s.pos[1]);
    assert_int_equal(seek_with(&s, ix, 16, 12, &from), 0); /* no entry at or below 12 */
    assert_false(from);
    /* an append of several batches is indexed by its largest offset and its
     * first batch's position: an entry above the batch's last offset is sound */
    put_entry(ix, 24, (int32_t)s.pos[1]);
    assert_int_equal(seek_with(&s, ix, 8, 30, &from), s.pos[1]);
    assert_true(from);
}

static void test_seek_refuses_a_wrong_entry(void **state)
{
    (void)state;
    static seg s;
    build(&s);
    uint8_t ix[8];
    bool from;
    put_entry(ix, 34, (int32_t)s.len + 100); /* past the end */
    assert_int_equal(seek_with(&s, ix, 8, 40, &from), 0);
    assert_false(from);
    put_entry(ix, 14, (int32_t)s.pos[4]); /* the batch there (40..44) ends above 14 */
    assert_int_equal(seek_with(&s, ix, 8, 20, &from), 0);
    put_entry(ix, 34, (int32_t)s.pos[3] + 5); /* not a batch's start */
    assert_int_equal(seek_with(&s, ix, 8, 40, &from), 0);
    static seg bad;
    bad = s;
    bad.data[s.pos[3] + 70] ^= 0xff; /* the batch there fails its CRC */
    put_entry(ix, 34, (int32_t)s.pos[3]);
    assert_int_equal(seek_with(&bad, ix, 8, 40, &from), 0);
    /* no index */
    kf_source *src;
    assert_int_equal(kf_source_memory(&src, s.data, s.len), KF_OK);
    uint64_t pos = 99;
    assert_int_equal(kf_segment_seek(src, NULL, 40, 0, &pos, NULL), KF_OK);
    assert_int_equal(pos, 0);
    kf_source_close(src);
}

typedef struct firsts {
    int n;
    int64_t first;
} firsts;

static int first_batch(void *ctx, const kf_batch *b)
{
    firsts *f = ctx;
    if (!f->n++)
        f->first = b->base_offset;
    return 0;
}

static void test_scan_from_a_position(void **state)
{
    (void)state;
    static seg s;
    build(&s);
    kf_source *src;
    assert_int_equal(kf_source_memory(&src, s.data, s.len), KF_OK);
    kf_segment_scan_opts o;
    kf_segment_scan_opts_init(&o);
    o.start_position = s.pos[2];
    o.batch_fn = first_batch;
    firsts f = {0, -1};
    o.ctx = &f;
    kf_segment_summary sum;
    assert_int_equal(kf_segment_scan(src, &o, &sum), KF_OK);
    assert_int_equal(f.n, NB - 2);
    assert_int_equal(f.first, 20);
    /* a version-1 caller's struct has no start_position: it is not read */
    o.version = 1;
    f = (firsts){0, -1};
    assert_int_equal(kf_segment_scan(src, &o, &sum), KF_OK);
    assert_int_equal(f.n, NB);
    assert_int_equal(f.first, 0);
    kf_source_close(src);
}

static void test_damaged_header(void **state)
{
    (void)state;
    static seg s;
    build(&s);
    kf_damaged d;
    memset(&d, 0, sizeof d);
    kf_damaged_header(s.data + s.pos[2], 30, &d); /* cut inside the base timestamp */
    assert_true(d.has_base_offset && d.has_batch_length && d.has_magic && d.has_crc && d.has_attributes);
    assert_int_equal(d.base_offset, 20);
    assert_int_equal(d.magic, 2);
    assert_int_equal(d.batch_length, (int32_t)(s.pos[3] - s.pos[2] - 12));
    assert_true(d.has_last_offset_delta);
    assert_int_equal(d.last_offset_delta, 4);
    assert_false(d.has_base_timestamp || d.has_max_timestamp || d.has_producer_id || d.has_count);
    memset(&d, 0, sizeof d);
    kf_damaged_header(s.data + s.pos[2], 61, &d);
    assert_true(d.has_count && d.has_producer_id);
    assert_int_equal(d.count, 5);
    assert_int_equal(d.producer_id, -1);
    /* another magic byte: nothing past it */
    static uint8_t odd[61];
    memcpy(odd, s.data, 61);
    odd[16] = 7;
    memset(&d, 0, sizeof d);
    kf_damaged_header(odd, 61, &d);
    assert_true(d.has_magic && d.has_base_offset);
    assert_false(d.has_crc || d.has_count || d.has_leader_epoch);
    memset(&d, 0, sizeof d);
    kf_damaged_header(odd, 5, &d);
    assert_false(d.has_base_offset || d.has_magic);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seek_takes_a_sound_entry),
        cmocka_unit_test(test_seek_refuses_a_wrong_entry),
        cmocka_unit_test(test_scan_from_a_position),
        cmocka_unit_test(test_damaged_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
