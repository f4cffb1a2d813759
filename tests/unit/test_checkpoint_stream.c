/* test_checkpoint_stream.c: kf_checkpoint_read, the checkpoint parser over a
 * file read in 64 KiB pieces, gives exactly what kf_checkpoint_parse gives
 * over the same bytes in memory: the same entries and the same problems at
 * the same positions, for lines that straddle the pieces, \r\n split across
 * them, and lines longer than a piece (a version line of 100,000 zeros is
 * version 0, as Integer.parseInt reads it). */
#include <errno.h>
#include <stdbool.h>
#include <unistd.h>

#include "testutil.h"

/* Everything a parse reported, folded into one text to compare. */
typedef struct transcript {
    char *text;
    size_t len, cap;
    int entries, problems;
} transcript;

static void add(transcript *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(transcript *t, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < sizeof line);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        t->text = realloc(t->text, t->cap);
        assert_non_null(t->text);
    }
    memcpy(t->text + t->len, line, (size_t)n + 1);
    t->len += (size_t)n;
}

static void on_entry(void *ctx, const kf_checkpoint_entry *e)
{
    transcript *t = ctx;
    t->entries++;
    add(t, "entry %s %d %d %lld @%llu\n", e->topic ? e->topic : "-", e->partition, e->epoch, (long long)e->offset,
        (unsigned long long)e->position);
}

static void on_problem(void *ctx, const kf_problem *p)
{
    transcript *t = ctx;
    t->problems++;
    add(t, "problem %s %d @%llu %s\n", p->code, p->severity, (unsigned long long)p->position, p->message);
}

/* Both parses of data[0, n) as kind; checks they agree and returns the
 * file's (caller frees text). */
static transcript both(const uint8_t *data, size_t n, int kind)
{
    transcript mem = {0}, file = {0};
    int32_t vm = -7, vf = -7;
    int rm = kf_checkpoint_parse(data, n, kind, &vm, on_entry, &mem, on_problem, &mem);
    char path[] = "/tmp/kfsck-test-ckpt-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_true(write(fd, data, n) == (ssize_t)n);
    close(fd);
    int rf = kf_checkpoint_read(path, kind, &vf, on_entry, &file, on_problem, &file);
    unlink(path);
    assert_int_equal(rm, rf);
    assert_int_equal(vm, vf);
    assert_int_equal(mem.entries, file.entries);
    assert_int_equal(mem.problems, file.problems);
    assert_string_equal(mem.text ? mem.text : "", file.text ? file.text : "");
    free(mem.text);
    return file;
}

typedef struct text {
    uint8_t *d;
    size_t n, cap;
} text;

static void put(text *t, const void *p, size_t n)
{
    if (t->n + n > t->cap) {
        t->cap = (t->n + n) * 2;
        t->d = realloc(t->d, t->cap);
        assert_non_null(t->d);
    }
    memcpy(t->d + t->n, p, n);
    t->n += n;
}

static void puts_(text *t, const char *s) { put(t, s, strlen(s)); }

static void put_repeat(text *t, char c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put(t, &c, 1);
}

/* 30,000 entry lines (about 5 pieces), each line ended by \n, \r\n or \r in
 * turn, so terminators and lines fall across every piece boundary. */
static void test_many_lines_across_pieces(void **state)
{
    (void)state;
    text t = {0};
    puts_(&t, "0\r\n30000\n");
    static const char *const ends[] = {"\n", "\r\n", "\r"};
    for (int i = 0; i < 30000; i++) {
        char line[64];
        snprintf(line, sizeof line, "topic-%d %d %d%s", i % 977, i % 13, i * 7, ends[i % 3]);
        puts_(&t, line);
    }
    transcript r = both(t.d, t.n, KF_CHECKPOINT_OFFSETS);
    assert_int_equal(r.entries, 30000);
    assert_int_equal(r.problems, 0);
    free(r.text);
    free(t.d);
}

/* A \r right at a piece's end and its \n at the next piece's start: one
 * terminator, not an empty line between. */
static void test_crlf_split_at_a_piece_boundary(void **state)
{
    (void)state;
    for (size_t shift = 0; shift < 4; shift++) {
        text t = {0};
        puts_(&t, "0\n3\n");
        /* a first entry whose \r is byte 65535 - shift of the file */
        size_t pad = 65536 - 1 - shift - t.n - strlen(" 0 1");
        put_repeat(&t, 'a', pad > 249 ? 249 : pad);
        puts_(&t, " 0 1");
        while (t.n < 65535 - shift) /* the rest as a malformed long line */
            put_repeat(&t, 'b', 1);
        puts_(&t, "\r\nx 1 2\r\ny 2 3\n");
        transcript r = both(t.d, t.n, KF_CHECKPOINT_OFFSETS);
        assert_true(r.problems >= 1); /* the overlong first line */
        free(r.text);
        free(t.d);
    }
}

/* Lines longer than a piece: an entry line (an error with its length), and
 * version and count lines of 100,000 leading zeros (valid: 0 and 1), or
 * with a non-digit far in (malformed, the excerpt cut). */
static void test_lines_longer_than_a_piece(void **state)
{
    (void)state;
    text t = {0};
    put_repeat(&t, '0', 100000);
    puts_(&t, "\n+");
    put_repeat(&t, '0', 100000);
    puts_(&t, "2\nt 0 5\n");
    put_repeat(&t, 'z', 200000);
    puts_(&t, " 1 2\n");
    transcript r = both(t.d, t.n, KF_CHECKPOINT_OFFSETS);
    assert_int_equal(r.entries, 1);
    assert_int_equal(r.problems, 1);
    assert_non_null(strstr(r.text, "line of 200004 bytes is too long"));
    free(r.text);

    t.n = 0;
    put_repeat(&t, '0', 100000);
    puts_(&t, "x\n0\n");
    r = both(t.d, t.n, KF_CHECKPOINT_OFFSETS);
    assert_non_null(strstr(r.text, "malformed version line \"0000"));
    free(r.text);

    t.n = 0;
    puts_(&t, "0\n-");
    put_repeat(&t, '0', 70000);
    puts_(&t, "99999999999999999999\n"); /* beyond an int */
    r = both(t.d, t.n, KF_CHECKPOINT_OFFSETS);
    assert_non_null(strstr(r.text, "malformed entry count line"));
    free(r.text);

    t.n = 0;
    puts_(&t, "0\n");
    put_repeat(&t, '0', 70000); /* only zeros: 0 entries, nothing after */
    r = both(t.d, t.n, KF_CHECKPOINT_OFFSETS);
    assert_int_equal(r.problems, 0);
    free(r.text);
    free(t.d);
}

/* Leader epochs, an empty file, a file with no final terminator. */
static void test_other_shapes(void **state)
{
    (void)state;
    static const char *const inputs[] = {
        "", "0", "0\n", "0\n2\n0 0\n3 40", "0\n2\n3 40\n2 10\n", "1\n0\n", "0\n-1\n", "0\n1\n\n",
    };
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        transcript r = both((const uint8_t *)inputs[i], strlen(inputs[i]), KF_CHECKPOINT_LEADER_EPOCH);
        free(r.text);
        r = both((const uint8_t *)inputs[i], strlen(inputs[i]), KF_CHECKPOINT_OFFSETS);
        free(r.text);
    }
}

static void test_missing_file(void **state)
{
    (void)state;
    int32_t v;
    assert_int_equal(kf_checkpoint_read("/nonexistent/kfsck-checkpoint", KF_CHECKPOINT_OFFSETS, &v, NULL, NULL, NULL,
                                        NULL),
                     KF_ERR_IO);
    assert_int_equal(kf_error_last()->err_no, ENOENT);
    assert_string_equal(kf_error_last()->path, "/nonexistent/kfsck-checkpoint");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_lines_across_pieces),
        cmocka_unit_test(test_crlf_split_at_a_piece_boundary),
        cmocka_unit_test(test_lines_longer_than_a_piece),
        cmocka_unit_test(test_other_shapes),
        cmocka_unit_test(test_missing_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
