/* test_escape.c: the one escaping rule of human-facing output and the shell
 * quoting of suggested commands (src/cli/escape.c, compiled in here: it is
 * the command-line tool's, not the library's). */
#include <inttypes.h>

#include "testutil.h"

#include "../../src/cli/escape.c"

/* What tprintf writes, as a string (malloc'd). */
static char *printed(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *printed(const char *fmt, ...)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    va_list ap;
    va_start(ap, fmt);
    int n = tvprintf(f, fmt, ap);
    va_end(ap);
    fclose(f);
    assert_int_equal(n, (int)len);
    return buf;
}

static void test_rule(void **state)
{
    (void)state;
    char b[256];
    assert_string_equal(esc_str("orders-0", b, sizeof b), "orders-0");
    assert_string_equal(esc_str("\x1b[2J\x07\r\n\t\\", b, sizeof b), "\\x1b[2J\\x07\\r\\n\\t\\\\");
    assert_string_equal(esc_str("caf\xc3\xa9 \xe6\x97\xa5", b, sizeof b), "caf\xc3\xa9 \xe6\x97\xa5"); /* UTF-8 kept */
    assert_string_equal(esc_str("bad\xff\xfe", b, sizeof b), "bad\\xff\\xfe");
    assert_string_equal(esc_str("\xc2\x9b" "31m", b, sizeof b), "\\xc2\\x9b31m");  /* C1 CSI */
    assert_string_equal(esc_str("\xe2\x80\xae" "exe", b, sizeof b), "\\xe2\\x80\\xaeexe"); /* RLO */
    assert_string_equal(esc_str("\xe0\x80\xaf", b, sizeof b), "\\xe0\\x80\\xaf");  /* overlong */
    assert_string_equal(esc_str("\x7f", b, sizeof b), "\\x7f");
    /* cut at a whole escape */
    assert_string_equal(esc_str("ab\x1b", b, 6), "ab");
}

static void test_printf(void **state)
{
    (void)state;
    char *s = printed("[%s] %d %5s|%-5s| %.3s %c%% %" PRId64 " %zu %x %.2f", "a\nb", -3, "x\x1b", "y", "abcdef", '\a',
                      (int64_t)1 << 40, (size_t)7, 255u, 1.5);
    assert_string_equal(s, "[a\\nb] -3 x\\x1b|y    | abc \\x07% 1099511627776 7 ff 1.50");
    free(s);
    s = printed("%*s|%-*d|%.*s", 4, "\t", 3, 7, 2, "\x1bxyz");
    assert_string_equal(s, "  \\t|7  |\\x1bx");
    free(s);
}

static void test_shell_arg(void **state)
{
    (void)state;
    char b[256];
    assert_string_equal(shell_arg("orders", b, sizeof b), "orders");
    assert_string_equal(shell_arg("a.b_c-1:2/3@4%5+6=7,8", b, sizeof b), "a.b_c-1:2/3@4%5+6=7,8");
    assert_string_equal(shell_arg("", b, sizeof b), "''");
    assert_string_equal(shell_arg("a b", b, sizeof b), "'a b'");
    assert_string_equal(shell_arg("it's $(x) `y`", b, sizeof b), "'it'\\''s $(x) `y`'");
    assert_string_equal(shell_arg("caf\xc3\xa9", b, sizeof b), "'caf\xc3\xa9'");
    assert_string_equal(shell_arg("\x1b[2J it's\\", b, sizeof b), "$'\\x1b[2J it\\'s\\\\'");
    assert_string_equal(shell_arg("bad\xff", b, sizeof b), "$'bad\\xff'");
    /* cut short: still closed */
    char s[8];
    shell_arg("a long name", s, sizeof s);
    assert_int_equal(s[strlen(s) - 1], '\'');
}

/* A word of any length whole: a cut group name would name another group. */
static void test_shell_arg_whole(void **state)
{
    (void)state;
    char name[3001];
    for (int i = 0; i < 3000; i++)
        name[i] = i % 2 ? '\x1b' : '\'';
    name[3000] = 0;
    char *w = shell_arg_dup(name);
    assert_non_null(w);
    assert_int_equal(strlen(w), 3 + 1500 * 4 + 1500 * 2);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    tshell(f, "--group ", name);
    fclose(f);
    assert_int_equal(len, 8 + strlen(w));
    assert_string_equal(buf + 8, w);
    free(buf);
    free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule),
        cmocka_unit_test(test_printf),
        cmocka_unit_test(test_shell_arg),
        cmocka_unit_test(test_shell_arg_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
