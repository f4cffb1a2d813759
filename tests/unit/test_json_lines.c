/* test_json_lines.c: the JSON-lines writer (kfsck/sys/json_lines.h): what a
 * line looks like, how values are written (numbers, null, doubles, base64
 * by RFC 4648's test vectors, strings under both escaping rules), what the
 * sink is told (whole lines, summaries, pieces), and a line longer than the
 * writer's inline buffer. The expected text is written out by hand. */
#include "testutil.h"

/* A sink that keeps everything it is handed and what the last call said. */
typedef struct kept {
    char buf[8192];
    size_t n;
    unsigned calls, last_how;
} kept;

static void keep(void *ctx, const char *p, size_t n, unsigned how)
{
    kept *k = ctx;
    assert_true(k->n + n < sizeof k->buf);
    memcpy(k->buf + k->n, p, n);
    k->n += n;
    k->buf[k->n] = 0;
    k->calls++;
    k->last_how = how;
}

static void test_line(void **state)
{
    (void)state;
    kept k = {0};
    kf_jsonl j;
    kf_jsonl_init(&j, 0, keep, &k);
    kf_jsonl_begin(&j, "partition");
    kf_jsonl_str(&j, "topic", "orders");
    kf_jsonl_int(&j, "partition", -3);
    kf_jsonl_uint(&j, "bytes", UINT64_MAX);
    kf_jsonl_int(&j, "low", INT64_MIN);
    kf_jsonl_opt_int(&j, "hw", false, 7);
    kf_jsonl_opt_int(&j, "lso", true, 0);
    kf_jsonl_str(&j, "snapshot", NULL);
    kf_jsonl_bool(&j, "ok", true);
    kf_jsonl_double(&j, "ratio", 0.5);
    int32_t v[] = {1, 2};
    kf_jsonl_int32s(&j, "isr", true, v, 2);
    kf_jsonl_int32s(&j, "elr", false, v, 2);
    kf_jsonl_obj_open(&j, "pinned_by");
    kf_jsonl_arr_open(&j, "keys");
    kf_jsonl_str(&j, NULL, "a");
    kf_jsonl_obj_open(&j, NULL);
    kf_jsonl_obj_close(&j);
    kf_jsonl_arr_close(&j);
    kf_jsonl_null(&j, "age_ms");
    kf_jsonl_obj_close(&j);
    kf_jsonl_key(&j, "raw");
    kf_jsonl_raw(&j, "{\"x\":[1]}", 9);
    assert_int_equal(k.calls, 0); /* nothing goes out before the line ends */
    kf_jsonl_end(&j);
    assert_int_equal(k.calls, 1);
    assert_int_equal(k.last_how, KF_JSONL_LINE);
    assert_string_equal(k.buf, "{\"type\":\"partition\",\"topic\":\"orders\",\"partition\":-3,"
                               "\"bytes\":18446744073709551615,\"low\":-9223372036854775808,\"hw\":null,"
                               "\"lso\":0,\"snapshot\":null,\"ok\":true,\"ratio\":0.5,\"isr\":[1,2],\"elr\":null,"
                               "\"pinned_by\":{\"keys\":[\"a\",{}],\"age_ms\":null},\"raw\":{\"x\":[1]}}\n");
    k.n = 0;
    kf_jsonl_begin(&j, "summary");
    kf_jsonl_uint(&j, "partitions", 2);
    kf_jsonl_end_summary(&j);
    assert_int_equal(k.last_how, KF_JSONL_LINE | KF_JSONL_SUMMARY);
    assert_string_equal(k.buf, "{\"type\":\"summary\",\"partitions\":2}\n");
    kf_jsonl_free(&j);
}

/* kf_jsonl_fields writes each kind as its one-field function does, in the
 * order given, after what came before it on the line. */
static void test_fields(void **state)
{
    (void)state;
    kept k = {0};
    kf_jsonl j;
    kf_jsonl_init(&j, 0, keep, &k);
    kf_jsonl_begin(&j, "summary");
    kf_jsonl_str(&j, "first", "x");
    int32_t small = -2;
    kf_jsonl_fields(&j, KF_JI("lost", small), KF_JU("bytes", UINT64_MAX), KF_JOPT("hw", false, 9),
                    KF_JOPT("lso", true, -1), KF_JB("ok", false), KF_JD("ratio", 0.25), KF_JS("topic", "a\"b"),
                    KF_JS("none", NULL), KF_JNULL("age_ms"));
    kf_jsonl_fields(&j, KF_JU("last", 1));
    kf_jsonl_end(&j);
    assert_string_equal(k.buf, "{\"type\":\"summary\",\"first\":\"x\",\"lost\":-2,\"bytes\":18446744073709551615,"
                               "\"hw\":null,\"lso\":-1,\"ok\":false,\"ratio\":0.25,\"topic\":\"a\\\"b\","
                               "\"none\":null,\"age_ms\":null,\"last\":1}\n");
    kf_jsonl_free(&j);
}

static void test_b64(void **state)
{
    (void)state;
    /* RFC 4648 section 10 */
    static const char *const in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const want[] = {"\"\"", "\"Zg==\"", "\"Zm8=\"", "\"Zm9v\"", "\"Zm9vYg==\"", "\"Zm9vYmE=\"",
                                       "\"Zm9vYmFy\""};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        kept k = {0};
        kf_jsonl j;
        kf_jsonl_init(&j, 0, keep, &k);
        kf_jsonl_b64(&j, NULL, (const uint8_t *)in[i], strlen(in[i]));
        kf_jsonl_flush(&j);
        assert_string_equal(k.buf, want[i]);
        assert_int_equal(k.last_how, 0);
    }
    kept k = {0};
    kf_jsonl j;
    kf_jsonl_init(&j, 0, keep, &k);
    kf_jsonl_b64(&j, "v", NULL, 3);
    kf_jsonl_flush(&j);
    assert_string_equal(k.buf, "\"v\":null");
}

/* s written as one string value with flags, into out. */
static void string_as(unsigned flags, const char *s, size_t n, kept *k)
{
    kf_jsonl j;
    memset(k, 0, sizeof *k);
    kf_jsonl_init(&j, flags, keep, k);
    kf_jsonl_strn(&j, NULL, s, n);
    kf_jsonl_flush(&j);
}

static void test_strings(void **state)
{
    (void)state;
    kept k;
    /* --json: JSON's escapes, other controls as \u00NN, UTF-8 kept */
    string_as(0, "a\"b\\c\nd\re\tf\x01g\x7f", sizeof "a\"b\\c\nd\re\tf\x01g\x7f" - 1, &k);
    assert_string_equal(k.buf, "\"a\\\"b\\\\c\\nd\\re\\tf\\u0001g\\u007f\"");
    string_as(0, "caf\xc3\xa9 <b>&", sizeof "caf\xc3\xa9 <b>&" - 1, &k);
    assert_string_equal(k.buf, "\"caf\xc3\xa9 <b>&\"");
    string_as(0, "x\xe2\x80\xaey", sizeof "x\xe2\x80\xaey" - 1, &k); /* RLO kept as it is outside a script */
    assert_string_equal(k.buf, "\"x\xe2\x80\xaey\"");
    /* not UTF-8: every byte from 0x80 up replaced, and the controls as \u00NN */
    string_as(0, "\xc3\xa9\xff\n", sizeof "\xc3\xa9\xff\n" - 1, &k);
    assert_string_equal(k.buf, "\"\\ufffd\\ufffd\\ufffd\\u000a\"");
    /* inside a script: < > & and the characters that hide text escaped,
     * only the bytes that start no sequence replaced */
    string_as(KF_JSONL_SCRIPT, "</script><!--&", sizeof "</script><!--&" - 1, &k);
    assert_string_equal(k.buf, "\"\\u003c/script\\u003e\\u003c!--\\u0026\"");
    string_as(KF_JSONL_SCRIPT, "x\xe2\x80\xaey\xe2\x80\xa8\xc2\x85\xef\xbb\xbf", sizeof "x\xe2\x80\xaey\xe2\x80\xa8\xc2\x85\xef\xbb\xbf" - 1, &k);
    assert_string_equal(k.buf, "\"x\\u202ey\\u2028\\u0085\\ufeff\"");
    string_as(KF_JSONL_SCRIPT, "\xc3\xa9\xff\n", sizeof "\xc3\xa9\xff\n" - 1, &k);
    assert_string_equal(k.buf, "\"\xc3\xa9\\ufffd\\n\"");
    /* a key is a string too */
    memset(&k, 0, sizeof k);
    kf_jsonl j;
    kf_jsonl_init(&j, KF_JSONL_SCRIPT, keep, &k);
    kf_jsonl_int(&j, "<k>", 1);
    kf_jsonl_flush(&j);
    assert_string_equal(k.buf, "\"\\u003ck\\u003e\":1");
}

static void test_pieces(void **state)
{
    (void)state;
    kept k = {0};
    kf_jsonl j;
    kf_jsonl_init(&j, KF_JSONL_PIECES, keep, &k);
    kf_jsonl_obj_open(&j, NULL); /* outside a line: each value goes out as written */
    assert_string_equal(k.buf, "{");
    kf_jsonl_str(&j, "a", "b");
    assert_string_equal(k.buf, "{\"a\":\"b\"");
    kf_jsonl_obj_close(&j);
    assert_string_equal(k.buf, "{\"a\":\"b\"}");
    assert_int_equal(k.last_how, 0);
    k.n = 0;
    k.calls = 0;
    kf_jsonl_begin(&j, "t"); /* inside a line: the line goes out whole */
    kf_jsonl_int(&j, "n", 1);
    assert_int_equal(k.calls, 0);
    kf_jsonl_end(&j);
    assert_int_equal(k.calls, 1);
    assert_string_equal(k.buf, "{\"type\":\"t\",\"n\":1}\n");
}

static void test_long_line(void **state)
{
    (void)state;
    char s[3000];
    memset(s, 'x', sizeof s - 1);
    s[sizeof s - 1] = 0;
    kept k = {0};
    kf_jsonl j;
    kf_jsonl_init(&j, 0, keep, &k);
    for (int round = 0; round < 2; round++) { /* the memory a long line took is given back, and taken again */
        k.n = 0;
        kf_jsonl_begin(&j, "long");
        kf_jsonl_str(&j, "s", s);
        kf_jsonl_end(&j);
        assert_int_equal(k.n, strlen("{\"type\":\"long\",\"s\":\"\"}\n") + strlen(s));
        assert_int_equal(memcmp(k.buf, "{\"type\":\"long\",\"s\":\"xxx", 23), 0);
        assert_int_equal(memcmp(k.buf + k.n - 5, "xx\"}\n", 5), 0);
        assert_null(j.heap);
    }
    kf_jsonl_free(&j);
}

static void test_utf8(void **state)
{
    (void)state;
    uint32_t cp = 0;
    assert_int_equal(kf_utf8_seq((const uint8_t *)"\xe2\x82\xac", 3, &cp), 3);
    assert_int_equal(cp, 0x20ac);
    assert_int_equal(kf_utf8_seq((const uint8_t *)"\xe2\x82", 2, &cp), 0);          /* cut */
    assert_int_equal(kf_utf8_seq((const uint8_t *)"\xc0\xaf", 2, &cp), 0);          /* overlong */
    assert_int_equal(kf_utf8_seq((const uint8_t *)"\xed\xa0\x80", 3, &cp), 0);      /* surrogate */
    assert_int_equal(kf_utf8_seq((const uint8_t *)"\xf4\x90\x80\x80", 4, &cp), 0);  /* past U+10FFFF */
    assert_true(kf_utf8_valid((const uint8_t *)"a\xf0\x9f\x98\x80", 5));
    assert_false(kf_utf8_valid((const uint8_t *)"a\x80", 2));
    assert_true(kf_unicode_hides(0x202e));
    assert_true(kf_unicode_hides(0x85));
    assert_false(kf_unicode_hides(0xe9));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line),    cmocka_unit_test(test_b64),       cmocka_unit_test(test_strings),
        cmocka_unit_test(test_pieces),  cmocka_unit_test(test_long_line), cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
