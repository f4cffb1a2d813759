/* test_error.c: unit tests for the one way a caller gets error detail, the
 * thread-local last error (kf_error_last, common.h): a failed open names the
 * code, the errno and the path; a call that succeeds leaves it; it is
 * cleared by kf_error_clear; each thread has its own. The paths are made
 * under a directory that does not exist, so nothing is created. */
#include "testutil.h"

#include <errno.h>
#include <pthread.h>

#include "bytes/error.h"
#include "format/out_file.h"

#define MISSING "/nonexistent-kfsck-test-dir/00000000000000000000.log"
#define MISSING_DIR "/nonexistent-kfsck-test-dir/other"

static void test_open_of_a_missing_file(void **state)
{
    (void)state;
    kf_error_clear();
    assert_int_equal(kf_error_last()->code, KF_OK);
    kf_source *s = (kf_source *)&s;
    assert_int_equal(kf_source_open(&s, MISSING, 0), KF_ERR_IO);
    assert_null(s);
    const kf_error *e = kf_error_last();
    assert_int_equal(e->code, KF_ERR_IO);
    assert_int_equal(e->err_no, ENOENT);
    assert_string_equal(e->path, MISSING);
    assert_non_null(strstr(e->message, strerror(ENOENT)));
}

static void test_success_leaves_it_and_clear_empties_it(void **state)
{
    (void)state;
    kf_source *s;
    assert_int_equal(kf_source_open(&s, MISSING, 0), KF_ERR_IO);
    static const uint8_t bytes[4] = {0};
    assert_int_equal(kf_source_memory(&s, bytes, sizeof bytes), KF_OK);
    kf_source_close(s);
    assert_int_equal(kf_error_last()->err_no, ENOENT);
    assert_string_equal(kf_error_last()->path, MISSING);
    kf_error_clear();
    assert_int_equal(kf_error_last()->code, KF_OK);
    assert_int_equal(kf_error_last()->err_no, 0);
    assert_string_equal(kf_error_last()->path, "");
}

static void test_every_convention_sets_it(void **state)
{
    (void)state;
    /* an int return, a classification (KF_PATH_UNREADABLE) and a small-file read */
    kf_name_list l;
    kf_error_clear();
    assert_int_equal(kf_list_dir(MISSING_DIR, &l), KF_ERR_IO);
    assert_int_equal(kf_error_last()->err_no, ENOENT);
    assert_string_equal(kf_error_last()->path, MISSING_DIR);
    kf_error_clear();
    kf_path_kind kind;
    assert_int_equal(kf_classify_path(MISSING, &kind), KF_ERR_IO);
    assert_int_equal(kind, KF_PATH_UNREADABLE);
    assert_int_equal(kf_error_last()->code, KF_ERR_IO);
    assert_int_equal(kf_error_last()->err_no, ENOENT);
    assert_string_equal(kf_error_last()->path, MISSING);
    uint8_t *data;
    uint64_t size;
    kf_error_clear();
    assert_int_equal(kf_file_read_all(MISSING, 1024, &data, &size), KF_ERR_IO);
    assert_int_equal(kf_error_last()->err_no, ENOENT);
    kf_error_clear();
    assert_int_equal(kf_mkdirs("/dev/null/sub"), KF_ERR_IO);
    assert_int_equal(kf_error_last()->err_no, ENOTDIR);
}

/* Out of memory the one way the library writes it: code, ENOMEM, no path
 * (a path an earlier error left is cleared), "out of memory"; it returns
 * the code. */
static void test_nomem_sets_it(void **state)
{
    (void)state;
    kf_source *s;
    assert_int_equal(kf_source_open(&s, MISSING, 0), KF_ERR_IO);
    assert_string_equal(kf_error_last()->path, MISSING);
    assert_int_equal(kf_error_nomem(), KF_ERR_NOMEM);
    const kf_error *e = kf_error_last();
    assert_int_equal(e->code, KF_ERR_NOMEM);
    assert_int_equal(e->err_no, ENOMEM);
    assert_string_equal(e->path, "");
    assert_string_equal(e->message, "out of memory");
    /* the sticky form says the same; another code passes through untouched */
    kf_error_clear();
    assert_int_equal(kf_error_sticky(KF_ERR_NOMEM), KF_ERR_NOMEM);
    assert_int_equal(kf_error_last()->err_no, ENOMEM);
    assert_string_equal(kf_error_last()->message, "out of memory");
    kf_error_clear();
    assert_int_equal(kf_error_sticky(KF_ERR_CORRUPT), KF_ERR_CORRUPT);
    assert_int_equal(kf_error_last()->code, KF_OK);
}

/* A thread's own error: it sees none of the main thread's, makes its own,
 * and leaves the main thread's as it was. */
static void *other_thread(void *arg)
{
    int *ok = arg;
    *ok = kf_error_last()->code == KF_OK && kf_error_last()->path[0] == 0;
    kf_name_list l;
    *ok = *ok && kf_list_dir(MISSING_DIR, &l) == KF_ERR_IO && !strcmp(kf_error_last()->path, MISSING_DIR);
    return NULL;
}

static void test_the_last_error_is_per_thread(void **state)
{
    (void)state;
    kf_source *s;
    assert_int_equal(kf_source_open(&s, MISSING, 0), KF_ERR_IO);
    int ok = 0;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, other_thread, &ok), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_true(ok);
    assert_string_equal(kf_error_last()->path, MISSING);
    assert_int_equal(kf_error_last()->err_no, ENOENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_of_a_missing_file),
        cmocka_unit_test(test_success_leaves_it_and_clear_empties_it),
        cmocka_unit_test(test_every_convention_sets_it),
        cmocka_unit_test(test_nomem_sets_it),
        cmocka_unit_test(test_the_last_error_is_per_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
