/* test_schema_ids.c: kf_schema_frame_read (Confluent Schema Registry
 * framing) and the id tally. The GUID vector is the one of Confluent's own
 * serde test (@confluentinc/schemaregistry, serde.spec.js: "schema guid"),
 * not computed with this code. */
#include "testutil.h"

static void test_framing(void **state)
{
    (void)state;
    kf_schema_frame f;
    static const uint8_t id1[] = {0x00, 0x00, 0x00, 0x00, 0x01};
    assert_int_equal(kf_schema_frame_read(id1, 5, &f), KF_SCHEMA_ID);
    assert_int_equal(f.id, 1);
    static const uint8_t big[] = {0x00, 0x00, 0x01, 0x86, 0xa0, 'a', 'b'}; /* 100000, then data */
    assert_int_equal(kf_schema_frame_read(big, 7, &f), KF_SCHEMA_ID);
    assert_int_equal(f.id, 100000);
    static const uint8_t neg[] = {0x00, 0xff, 0xff, 0xff, 0xfe};
    assert_int_equal(kf_schema_frame_read(neg, 5, &f), KF_SCHEMA_ID);
    assert_int_equal(f.id, -2); /* Java's signed int */
    static const uint8_t guid[] = {0x01, 0x89, 0x79, 0x17, 0x62, 0x23, 0x36, 0x41, 0x86, 0x96,
                                   0x74, 0x29, 0x9b, 0x90, 0xa8, 0x02, 0xe2};
    assert_int_equal(kf_schema_frame_read(guid, 17, &f), KF_SCHEMA_GUID);
    char s[37];
    kf_schema_guid_str(f.guid, s);
    assert_string_equal(s, "89791762-2336-4186-9674-299b90a802e2");
    /* too short for its magic, another first byte, empty, null */
    assert_int_equal(kf_schema_frame_read(id1, 4, &f), KF_SCHEMA_UNFRAMED);
    assert_int_equal(kf_schema_frame_read(guid, 16, &f), KF_SCHEMA_UNFRAMED);
    static const uint8_t json[] = "{\"a\":1}";
    assert_int_equal(kf_schema_frame_read(json, 7, &f), KF_SCHEMA_UNFRAMED);
    static const uint8_t two[] = {0x02, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    assert_int_equal(kf_schema_frame_read(two, 17, &f), KF_SCHEMA_UNFRAMED);
    assert_int_equal(kf_schema_frame_read(json, 0, &f), KF_SCHEMA_UNFRAMED);
    assert_int_equal(kf_schema_frame_read(NULL, -1, &f), KF_SCHEMA_NULL);
}

static void test_tally(void **state)
{
    (void)state;
    kf_schema_tally *t;
    assert_int_equal(kf_schema_tally_new(&t), KF_OK);
    assert_non_null(t);
    kf_schema_frame a = {.kind = KF_SCHEMA_ID, .id = 7}, b = {.kind = KF_SCHEMA_ID, .id = -3},
                    g = {.kind = KF_SCHEMA_GUID}, u = {.kind = KF_SCHEMA_UNFRAMED};
    g.guid[0] = 0xab;
    assert_int_equal(kf_schema_tally_add(t, &g), KF_OK);
    assert_int_equal(kf_schema_tally_add(t, &a), KF_OK);
    assert_int_equal(kf_schema_tally_add(t, &a), KF_OK);
    assert_int_equal(kf_schema_tally_add(t, &b), KF_OK);
    assert_int_equal(kf_schema_tally_add(t, &u), KF_OK);
    assert_int_equal(kf_schema_tally_count(t), 3);
    kf_schema_frame f;
    uint64_t n;
    kf_schema_tally_get(t, 0, &f, &n);
    assert_int_equal(f.id, -3);
    assert_int_equal(n, 1);
    kf_schema_tally_get(t, 1, &f, &n);
    assert_int_equal(f.id, 7);
    assert_int_equal(n, 2);
    kf_schema_tally_get(t, 2, &f, &n);
    assert_int_equal(f.kind, KF_SCHEMA_GUID);
    /* bounded: past the cap, ids are only counted as omitted */
    kf_schema_tally_reset(t);
    for (int32_t i = 0; i < KF_SCHEMA_TALLY_MAX + 5; i++) {
        kf_schema_frame x = {.kind = KF_SCHEMA_ID, .id = i};
        assert_int_equal(kf_schema_tally_add(t, &x), KF_OK);
    }
    assert_int_equal(kf_schema_tally_count(t), KF_SCHEMA_TALLY_MAX);
    assert_int_equal(kf_schema_tally_omitted(t), 5);
    kf_schema_tally_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_framing),
        cmocka_unit_test(test_tally),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
