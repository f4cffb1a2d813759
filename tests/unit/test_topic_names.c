/* test_topic_names.c: unit tests for the topic id <-> name table
 * (src/kraft/topic_names.c, include/kfsck/topic_names.h): the first source
 * to name an id wins, a name keeps the first id given it, a table lying over another
 * is asked first, and a built table takes the partition.metadata files of
 * the inputs' partition directories. Ids are written by hand here; the
 * partition.metadata text follows Kafka's (version: 0, topic_id: ...). */
#include <string.h>

#include "testutil.h"

static const uint8_t ID_A[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const uint8_t ID_B[16] = {16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1};

static void test_first_wins(void **state)
{
    (void)state;
    kf_topic_names *t;
    assert_int_equal(kf_topic_names_new(&t, NULL), KF_OK);
    assert_null(kf_topic_names_name(t, ID_A));
    assert_int_equal(kf_topic_names_add(t, ID_A, "orders-and-more", 6), KF_OK); /* len: "orders" */
    assert_int_equal(kf_topic_names_add(t, ID_A, "payments", 8), KF_OK);        /* the id is named already */
    assert_string_equal(kf_topic_names_name(t, ID_A), "orders");
    /* a recreated topic: a new id for the same name; the name keeps its first */
    assert_int_equal(kf_topic_names_add(t, ID_B, "orders", 6), KF_OK);
    assert_string_equal(kf_topic_names_name(t, ID_B), "orders");
    uint8_t id[16];
    assert_true(kf_topic_names_id(t, "orders", id));
    assert_memory_equal(id, ID_A, 16);
    /* but "payments" had no id yet: it gets this one */
    assert_true(kf_topic_names_id(t, "payments", id));
    assert_memory_equal(id, ID_A, 16);
    assert_false(kf_topic_names_id(t, "clicks", id));
    kf_topic_names_free(t);
}

static void test_layers(void **state)
{
    (void)state;
    kf_topic_names *cluster, *group;
    assert_int_equal(kf_topic_names_new(&cluster, NULL), KF_OK);
    assert_int_equal(kf_topic_names_add(cluster, ID_A, "orders", 6), KF_OK);
    assert_int_equal(kf_topic_names_add(cluster, ID_B, "clicks", 6), KF_OK);
    assert_int_equal(kf_topic_names_new(&group, cluster), KF_OK);
    assert_int_equal(kf_topic_names_add(group, ID_B, "clicks-v2", 9), KF_OK); /* its own record first */
    assert_string_equal(kf_topic_names_name(group, ID_B), "clicks-v2");
    assert_string_equal(kf_topic_names_name(group, ID_A), "orders"); /* then the cluster's */
    assert_string_equal(kf_topic_names_name(cluster, ID_B), "clicks"); /* the table under is untouched */
    uint8_t id[16];
    assert_true(kf_topic_names_id(group, "orders", id));
    assert_memory_equal(id, ID_A, 16);
    kf_topic_names_free(group);
    kf_topic_names_free(cluster);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_built_from_partition_metadata(void **state)
{
    (void)state;
    assert_int_equal(tu_tmpdir_make("topic_names"), 0);
    char dir[512], path[600], b64[23];
    snprintf(dir, sizeof dir, "%s/dd/orders-0", tu_tmpdir);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/00000000000000000000.log", dir);
    put(path, "");
    kf_uuid_to_b64(ID_A, b64);
    char text[100];
    snprintf(text, sizeof text, "version: 0\ntopic_id: %s\n", b64);
    snprintf(path, sizeof path, "%s/partition.metadata", dir);
    put(path, text);
    snprintf(path, sizeof path, "%s/dd", tu_tmpdir);
    char *paths[] = {path};
    kf_inputs in;
    assert_int_equal(kf_inputs_collect(&in, paths, 1, NULL, NULL), KF_OK);
    kf_topic_names *t;
    assert_int_equal(kf_topic_names_build(&t, paths, 1, &in, 0), KF_OK);
    assert_string_equal(kf_topic_names_name(t, ID_A), "orders");
    assert_null(kf_topic_names_name(t, ID_B));
    kf_topic_names_free(t);
    kf_inputs_free(&in);
    assert_int_equal(tu_tmpdir_remove(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_wins),
        cmocka_unit_test(test_layers),
        cmocka_unit_test(test_built_from_partition_metadata),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
