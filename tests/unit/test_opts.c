/* test_opts.c: unit tests for KF_OPTS_NEW (bytes/opts.h), the start of
 * every constructor whose object keeps its caller's options: the defaults
 * for NULL, the caller's fields taken, a version the library does not know
 * refused, a shorter (older) caller's struct read only as far as it goes,
 * out of memory; each failure with *obj NULL and the last error set; and
 * an entry point's refusal of options beyond their version. The
 * options here are a made-up struct of two versions, laid out as the
 * library's are (the version first, fields appended). */
#include "testutil.h"

#include <errno.h>

#include "bytes/opts.h"
#include "kfsck/connect.h"
#include "kfsck/report.h"

#define THING_OPTIONS_VERSION 2

typedef struct thing_opts {
    unsigned version;
    int level;
    size_t max_batch_bytes;
    const char *label; /* version 2 */
} thing_opts;

typedef struct thing {
    int before;
    thing_opts o;
    int after;
} thing;

/* A version 1 caller's struct: the fields before label, and no byte more. */
#define THING_V1_SIZE offsetof(thing_opts, label)

static void test_null_is_the_defaults(void **state)
{
    (void)state;
    thing *t = NULL;
    assert_int_equal(KF_OPTS_NEW(&t, thing, NULL, THING_OPTIONS_VERSION, max_batch_bytes), KF_OK);
    assert_non_null(t);
    assert_int_equal(t->o.version, THING_OPTIONS_VERSION);
    assert_int_equal(t->o.level, 0);
    assert_int_equal(t->o.max_batch_bytes, KF_DEFAULT_MAX_BATCH_BYTES);
    assert_null(t->o.label);
    assert_int_equal(t->before, 0);
    assert_int_equal(t->after, 0);
    free(t);
}

static void test_the_callers_fields_are_taken(void **state)
{
    (void)state;
    thing_opts given = {.version = THING_OPTIONS_VERSION, .level = 7, .max_batch_bytes = 4096, .label = "x"};
    thing *t = NULL;
    assert_int_equal(KF_OPTS_NEW(&t, thing, &given, THING_OPTIONS_VERSION, max_batch_bytes), KF_OK);
    assert_int_equal(t->o.version, THING_OPTIONS_VERSION);
    assert_int_equal(t->o.level, 7);
    assert_int_equal(t->o.max_batch_bytes, 4096);
    assert_string_equal(t->o.label, "x");
    assert_int_equal(t->after, 0);
    free(t);
}

/* Version 0 (a struct not started from its INIT) and one past the newest
 * are refused: KF_ERR_UNSUPPORTED, *obj NULL whatever it held, and the last
 * error says which version. */
static void test_an_unknown_version_is_refused(void **state)
{
    (void)state;
    static const unsigned refused[] = {0, THING_OPTIONS_VERSION + 1};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        thing_opts given = {.version = refused[i], .level = 7};
        thing *t = (thing *)&given; /* not NULL: the call must clear it */
        kf_error_clear();
        assert_int_equal(KF_OPTS_NEW(&t, thing, &given, THING_OPTIONS_VERSION, max_batch_bytes), KF_ERR_UNSUPPORTED);
        assert_null(t);
        assert_int_equal(kf_error_last()->code, KF_ERR_UNSUPPORTED);
        char version[32];
        snprintf(version, sizeof version, "version %u ", refused[i]);
        assert_non_null(strstr(kf_error_last()->message, version));
    }
}

/* A version 1 caller's struct, smaller than the library's: only its bytes
 * are read (it is allocated at exactly that size, so a sanitizer build
 * catches a read past it), and label, which version 1 lacks, keeps its
 * default. */
static void test_an_older_callers_shorter_struct(void **state)
{
    (void)state;
    thing_opts v1 = {.version = 1, .level = 3, .max_batch_bytes = 0};
    void *given = malloc(THING_V1_SIZE);
    assert_non_null(given);
    memcpy(given, &v1, THING_V1_SIZE);
    thing *t = NULL;
    assert_int_equal(KF_OPTS_NEW_GROWN(&t, thing, given, THING_V1_SIZE, THING_OPTIONS_VERSION, max_batch_bytes), KF_OK);
    assert_int_equal(t->o.version, 1);
    assert_int_equal(t->o.level, 3);
    assert_int_equal(t->o.max_batch_bytes, KF_DEFAULT_MAX_BATCH_BYTES);
    assert_null(t->o.label);
    assert_int_equal(t->after, 0);
    free(t);
    free(given);
}

/* The cap may sit in options nested inside the kept ones (o.read). */
typedef struct outer_opts {
    unsigned version;
    thing_opts read;
} outer_opts;

typedef struct outer {
    outer_opts o;
} outer;

static void test_a_nested_cap(void **state)
{
    (void)state;
    outer_opts given = {.version = 1, .read = {.level = 5}};
    outer *x = NULL;
    assert_int_equal(KF_OPTS_NEW(&x, outer, &given, 1, read.max_batch_bytes), KF_OK);
    assert_int_equal(x->o.read.level, 5);
    assert_int_equal(x->o.read.max_batch_bytes, KF_DEFAULT_MAX_BATCH_BYTES);
    free(x);
}

static void test_out_of_memory(void **state)
{
    (void)state;
#if !defined(__SANITIZE_ADDRESS__)
    /* an object too large to allocate (ASan aborts on such a request
     * rather than returning NULL) */
    thing *t = (thing *)&t;
    kf_error_clear();
    assert_int_equal(kf_opts_new_(&t, SIZE_MAX / 2, offsetof(thing, o), NULL, sizeof(thing_opts),
                                  THING_OPTIONS_VERSION, offsetof(thing, o.max_batch_bytes)),
                     KF_ERR_NOMEM);
    assert_null(t);
    assert_int_equal(kf_error_last()->code, KF_ERR_NOMEM);
    assert_int_equal(kf_error_last()->err_no, ENOMEM);
#endif
}

/* One of the library's constructors built on it: the same refusal, with
 * its out pointer NULL. */
static void test_a_constructor_refuses_as_it_does(void **state)
{
    (void)state;
    kf_connect_opts o = KF_CONNECT_OPTIONS_INIT;
    o.version = 0;
    kf_connect *c = (kf_connect *)&c;
    kf_error_clear();
    assert_int_equal(kf_connect_new(&c, &o), KF_ERR_UNSUPPORTED);
    assert_null(c);
    assert_int_equal(kf_error_last()->code, KF_ERR_UNSUPPORTED);
    assert_int_equal(kf_connect_new(&c, NULL), KF_OK);
    assert_non_null(c);
    kf_connect_free(c);
}

/* An entry point that refuses options the version rule lets through (the
 * report without its write_fn) sets the last error as well: it used to
 * return KF_ERR_UNSUPPORTED leaving the last error as it was. */
static void test_a_refusal_past_the_version_sets_the_last_error(void **state)
{
    (void)state;
    kf_report_opts o = KF_REPORT_OPTIONS_INIT;
    char *paths[] = {"/nonexistent-kfsck-test-dir"};
    kf_error_clear();
    assert_int_equal(kf_report_run(paths, 1, &o, NULL), KF_ERR_UNSUPPORTED);
    assert_int_equal(kf_error_last()->code, KF_ERR_UNSUPPORTED);
    assert_non_null(strstr(kf_error_last()->message, "write_fn"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_is_the_defaults),
        cmocka_unit_test(test_the_callers_fields_are_taken),
        cmocka_unit_test(test_an_unknown_version_is_refused),
        cmocka_unit_test(test_an_older_callers_shorter_struct),
        cmocka_unit_test(test_a_nested_cap),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_a_constructor_refuses_as_it_does),
        cmocka_unit_test(test_a_refusal_past_the_version_sets_the_last_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
