/* test_index_file.c: unit tests for an index read from a file in pieces
 * (kf_offset_index_open, kf_time_index_open, kf_index_open_path in
 * src/format/index.c) and for a producer snapshot read from a file in
 * pieces (kf_producer_snapshot_open, src/format/producer_snapshot.c): the same
 * entries and the same problems as the bytes in memory, across the reader's
 * window boundaries (8192 entries a window); the zero tail's holes skipped
 * but data after them still read; a file that shrinks while it is read told
 * by kf_index_read_status. Files are written to TMPDIR and removed. */
#include <unistd.h>

#include "testutil.h"

#define N_SLOTS 20000 /* more than two windows */

/* A temporary file holding size bytes of data (the rest up to total, when
 * larger, a hole); its path in path. */
static void write_file(char *path, size_t pathlen, const uint8_t *data, size_t size, uint64_t total)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, pathlen, "%s/kfsck-ixfile-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_true(write(fd, data, size) == (ssize_t)size);
    if (total > size)
        assert_int_equal(ftruncate(fd, (off_t)total), 0);
    close(fd);
}

/* Both logs hold the same problems in the same order. */
static void assert_same_problems(const problem_log *a, const problem_log *b)
{
    assert_int_equal(a->n, b->n);
    for (int i = 0; i < a->n; i++) {
        assert_string_equal(a->code[i], b->code[i]);
        assert_int_equal(a->position[i], b->position[i]);
        assert_int_equal(a->offset[i], b->offset[i]);
    }
}

/* Offsets increase by 3 from slot 1, with two going backwards: one at the
 * first window boundary, one in the third window. */
static uint8_t *offset_entries(void)
{
    uint8_t *buf = calloc(N_SLOTS, 8);
    assert_non_null(buf);
    for (int i = 0; i < N_SLOTS; i++) {
        tb_put32(buf + 8 * i, (uint32_t)(3 * i + 1));
        tb_put32(buf + 8 * i + 4, (uint32_t)(100 * i));
    }
    tb_put32(buf + 8 * 8192, 5);
    tb_put32(buf + 8 * 17000, 7);
    return buf;
}

static void test_offset_index_file_as_memory(void **state)
{
    (void)state;
    uint8_t *buf = offset_entries();
    char path[4096];
    write_file(path, sizeof path, buf, (size_t)N_SLOTS * 8, 0);
    kf_index mem, file;
    kf_offset_index_init(&mem, buf, (uint64_t)N_SLOTS * 8, 1000);
    kf_source *src;
    assert_int_equal(kf_source_open(&src, path, 0), KF_OK);
    assert_int_equal(kf_offset_index_open(&file, src, 1000), KF_OK);
    assert_int_equal(file.entries, mem.entries);
    assert_int_equal(file.entries, N_SLOTS);
    /* entries read out of order, across windows */
    uint64_t order[] = {19999, 0, 8191, 8192, 12345, 1};
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        int64_t o1, p1, o2, p2;
        kf_offset_index_get(&mem, order[k], &o1, &p1);
        kf_offset_index_get(&file, order[k], &o2, &p2);
        assert_int_equal(o1, o2);
        assert_int_equal(p1, p2);
    }
    problem_log a = {0}, b = {0};
    kf_offset_index_check(&mem, UINT64_MAX, problem_log_fn, &a);
    kf_offset_index_check(&file, UINT64_MAX, problem_log_fn, &b);
    assert_true(a.n >= 2);
    assert_int_equal(a.position[0], 8 * 8192);
    assert_same_problems(&a, &b);
    assert_int_equal(kf_index_read_status(&file), KF_OK);
    kf_index_close(&file);
    kf_source_close(src);
    unlink(path);
    free(buf);
}

static void test_time_index_file_as_memory(void **state)
{
    (void)state;
    /* timestamps going back at slot 8193, a partial entry at the end */
    size_t size = (size_t)N_SLOTS * 12 + 5;
    uint8_t *buf = calloc(1, size);
    assert_non_null(buf);
    for (int i = 0; i < N_SLOTS; i++) {
        tb_put32(buf + 12 * i + 4, (uint32_t)(10 * i + (i == 8193 ? -25 : 0)));
        tb_put32(buf + 12 * i + 8, (uint32_t)(i + 1));
    }
    char path[4096];
    write_file(path, sizeof path, buf, size, 0);
    kf_index mem, file;
    kf_time_index_init(&mem, buf, size, 50);
    kf_source *src;
    assert_int_equal(kf_source_open(&src, path, 0), KF_OK);
    assert_int_equal(kf_time_index_open(&file, src, 50), KF_OK);
    assert_int_equal(file.entries, mem.entries);
    problem_log a = {0}, b = {0};
    kf_time_index_check(&mem, problem_log_fn, &a);
    kf_time_index_check(&file, problem_log_fn, &b);
    assert_int_equal(a.n, 2);
    assert_string_equal(a.code[0], KF_P_TIMEINDEX_NOT_MONOTONIC);
    assert_string_equal(a.code[1], KF_P_INDEX_CORRUPT);
    assert_same_problems(&a, &b);
    kf_index_close(&file);
    kf_source_close(src);
    unlink(path);
    free(buf);
}

/* Ten entries, a 64 MiB hole, then one non-zero slot: the hole is zeros,
 * the slot after it garbage past the zero tail. */
static void test_hole_skipped_data_after_it_read(void **state)
{
    (void)state;
    uint8_t head[80] = {0};
    for (int i = 0; i < 10; i++) {
        tb_put32(head + 8 * i, (uint32_t)i);
        tb_put32(head + 8 * i + 4, (uint32_t)(100 * i + 1)); /* slot 0 is not all zero */
    }
    char path[4096];
    uint64_t total = (64u << 20) + 8;
    write_file(path, sizeof path, head, sizeof head, total);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, (long)(total - 8), SEEK_SET), 0);
    uint8_t last[8] = {0, 0, 0, 9, 0, 0, 0, 1};
    assert_int_equal(fwrite(last, 1, 8, f), 8);
    fclose(f);
    kf_source *src;
    kf_index file;
    assert_int_equal(kf_source_open(&src, path, 0), KF_OK);
    assert_int_equal(kf_offset_index_open(&file, src, 0), KF_OK);
    assert_int_equal(file.entries, 10);
    problem_log b = {0};
    kf_offset_index_check(&file, UINT64_MAX, problem_log_fn, &b);
    assert_int_equal(b.n, 1);
    assert_string_equal(b.code[0], KF_P_INDEX_CORRUPT);
    assert_int_equal(b.position[0], total - 8);
    kf_index_close(&file);
    kf_source_close(src);
    unlink(path);
}

static void test_file_that_shrinks_is_told(void **state)
{
    (void)state;
    uint8_t *buf = offset_entries();
    char path[4096];
    write_file(path, sizeof path, buf, (size_t)N_SLOTS * 8, 0);
    kf_source *src;
    kf_index file;
    assert_int_equal(kf_source_open(&src, path, 0), KF_OK);
    assert_int_equal(kf_offset_index_open(&file, src, 0), KF_OK);
    assert_int_equal(kf_index_read_status(&file), KF_OK);
    assert_int_equal(truncate(path, 8 * 100), 0);
    int64_t off, pos;
    kf_offset_index_get(&file, 10000, &off, &pos); /* past the first window: read now */
    assert_int_equal(off, 0);                    /* reads as a zero slot */
    assert_int_equal(kf_index_read_status(&file), KF_ERR_IO);
    assert_int_equal(kf_error_last()->err_no, 0);
    kf_index_close(&file);
    kf_source_close(src);
    unlink(path);
    free(buf);
}


/* A .txnindex of more than two windows, opened by path: the entries and
 * the problems of its bytes in memory (last offsets that go back at the
 * window boundary, a partial entry at the end). */
static void test_txn_index_file_as_memory(void **state)
{
    (void)state;
    size_t size = (size_t)N_SLOTS * KF_TXN_ENTRY_SIZE + 7;
    uint8_t *buf = calloc(1, size);
    assert_non_null(buf);
    for (int i = 0; i < N_SLOTS; i++) {
        uint8_t *p = buf + (size_t)KF_TXN_ENTRY_SIZE * i;
        tb_put64(p + 2, (uint64_t)(1000 + i));            /* producer id */
        tb_put64(p + 10, (uint64_t)(10 * i));             /* first offset */
        tb_put64(p + 18, (uint64_t)(10 * i + (i == 8192 ? -30 : 5))); /* last offset */
        tb_put64(p + 26, (uint64_t)(10 * i));
    }
    char path[4096];
    write_file(path, sizeof path, buf, size, 0);
    kf_index mem, file;
    kf_txn_index_init(&mem, buf, size, 0);
    assert_int_equal(kf_index_open_path(&file, path, KF_TXN_ENTRY_SIZE, 0), KF_OK);
    assert_int_equal(file.entries, N_SLOTS);
    assert_int_equal(file.entries, mem.entries);
    uint64_t order[] = {19999, 0, 8191, 8192, 12345};
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        kf_txn_entry a, b;
        kf_txn_index_entry(&mem, order[k], &a);
        kf_txn_index_entry(&file, order[k], &b);
        assert_int_equal(a.version, b.version);
        assert_int_equal(a.first_offset, b.first_offset);
        assert_int_equal(a.last_offset, b.last_offset);
        assert_int_equal(a.last_stable_offset, b.last_stable_offset);
        assert_int_equal(b.producer_id, 1000 + (int64_t)order[k]);
    }
    problem_log a = {0}, b = {0};
    kf_txn_index_check(&mem, problem_log_fn, &a);
    kf_txn_index_check(&file, problem_log_fn, &b);
    assert_int_equal(a.n, 3); /* first > last and not increasing at 8192, the partial entry */
    assert_int_equal(a.position[0], KF_TXN_ENTRY_SIZE * 8192);
    assert_same_problems(&a, &b);
    assert_int_equal(kf_index_read_status(&file), KF_OK);
    kf_index_close(&file);
    unlink(path);
    free(buf);
}

static void put_snapshot_entry(uint8_t *p, int64_t pid, int64_t last_offset)
{
    tb_put64(p, (uint64_t)pid);
    tb_put16(p + 8, 3);                   /* epoch */
    tb_put32(p + 10, 41);                 /* last sequence */
    tb_put64(p + 14, (uint64_t)last_offset);
    tb_put32(p + 22, 1);                  /* offset delta */
    tb_put64(p + 26, 1700000000000ull);   /* timestamp */
    tb_put32(p + 34, 7);                  /* coordinator epoch */
    tb_put64(p + 38, (uint64_t)-1);       /* no open transaction */
}

/* A snapshot of 3000 producers (three windows of entries, a CRC over
 * several blocks) read from its file: parse's header, CRC and entries;
 * one bit flipped: the same CRC mismatch; cut short: the same truncation. */
static void test_snapshot_file_as_memory(void **state)
{
    (void)state;
    const int n = 3000;
    size_t size = KF_PRODUCER_SNAPSHOT_HEADER_SIZE + (size_t)n * KF_PRODUCER_SNAPSHOT_ENTRY_SIZE;
    uint8_t *buf = calloc(1, size);
    assert_non_null(buf);
    tb_put16(buf, 1);
    tb_put32(buf + 6, (uint32_t)n);
    for (int i = 0; i < n; i++)
        put_snapshot_entry(buf + KF_PRODUCER_SNAPSHOT_HEADER_SIZE + (size_t)i * KF_PRODUCER_SNAPSHOT_ENTRY_SIZE, 500 + i,
                           2 * i);
    tb_put32(buf + 2, kf_crc32c(0, buf + 6, size - 6));
    for (int variant = 0; variant < 3; variant++) {
        size_t len = variant == 2 ? size - 20 : size;
        if (variant == 1)
            buf[size - 100] ^= 4;
        char path[4096];
        write_file(path, sizeof path, buf, len, 0);
        kf_producer_snapshot mem, file;
        int rm = kf_producer_snapshot_parse(buf, len, &mem);
        int rf = kf_producer_snapshot_open(&file, path);
        assert_int_equal(rm, variant == 0 ? KF_OK : variant == 1 ? KF_ERR_CORRUPT : KF_ERR_TRUNCATED);
        assert_int_equal(rf, rm);
        assert_int_equal(file.crc_computed, mem.crc_computed);
        assert_int_equal(file.crc_ok, mem.crc_ok);
        assert_int_equal(file.count, n);
        assert_int_equal(file.entries, mem.entries);
        uint64_t order[] = {2999, 0, 1023, 1024, 2047, 1500};
        for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
            if (order[k] >= file.entries)
                continue;
            kf_producer_snapshot_entry a, b;
            kf_producer_snapshot_get(&mem, order[k], &a);
            kf_producer_snapshot_get(&file, order[k], &b);
            assert_int_equal(a.last_offset, b.last_offset);
            assert_int_equal(a.producer_epoch, b.producer_epoch);
            assert_int_equal(a.last_sequence, b.last_sequence);
            assert_int_equal(a.timestamp, b.timestamp);
            assert_int_equal(a.current_txn_first_offset, b.current_txn_first_offset);
            assert_int_equal(b.producer_id, 500 + (int64_t)order[k]);
        }
        assert_int_equal(kf_producer_snapshot_read_status(&file), KF_OK);
        kf_producer_snapshot_close(&file);
        unlink(path);
    }
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offset_index_file_as_memory),
        cmocka_unit_test(test_time_index_file_as_memory),
        cmocka_unit_test(test_hole_skipped_data_after_it_read),
        cmocka_unit_test(test_file_that_shrinks_is_told),
        cmocka_unit_test(test_txn_index_file_as_memory),
        cmocka_unit_test(test_snapshot_file_as_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
