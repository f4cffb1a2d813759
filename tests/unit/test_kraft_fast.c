/* test_kraft_fast.c: unit tests for the tree-less decoder of the hot KRaft
 * metadata records (src/records/kraft_fast.c) and the image changed from
 * its flat form: every type and version it reads (TopicRecord v0,
 * PartitionRecord v0-v2, ConfigRecord v0 with a value and a null one,
 * PartitionChangeRecord v0-v2, BrokerRegistrationChangeRecord v0-v3,
 * NoOpRecord v0) decoded to the values written, and to what the generic
 * decoder's tree gives; what it must leave to the generic decoder (another
 * type, an unknown version or frame version, a byte left over, a cut
 * record) declined; every prefix of every record agreed on by both; and a
 * topic, partition and partition changes applied (an ISR growing past the
 * room its list was given).
 *
 * The records' bytes are written by the independent Python encoder,
 * tools/gen/kraftfmt.py, through tools/gen/gen_kraft_fast.py (`hex`, whose
 * output is pasted below; U1..U4 are its uuids 10..1f, 20..2f, 30..3f and
 * 40..4f), not by the project's C code. */
#include "testutil.h"

#include "../fuzz/kraft_flat_eq.h"
#include "bytebuf.h"
#include "kraft/md_image.h"
#include "records/kraft_fast.h"

typedef struct named_hex {
    const char *name, *hex;
} named_hex;

/* read by the fast path */
static const named_hex GOOD[] = {
    {"topic_v0", "010200076f7264657273101112131415161718191a1b1c1d1e1f00"},
    {"partition_v0", "01030000000003101112131415161718191a1b1c1d1e1f0400000001000000020000000303000000010000000201020000000300000001000000070000000901000101"},
    {"partition_v1", "01030100000000101112131415161718191a1b1c1d1e1f040000000100000002000000030400000001000000020000000302000000020100000002000000000000000104202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f00"},
    {"partition_v2", "01030200000005101112131415161718191a1b1c1d1e1f0300000004000000050200000004010100000004000000020000000303202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f02010502000000050209030000000600000007"},
    {"config_v0", "01040002076f72646572730d726574656e74696f6e2e6d730a36303438303030303000"},
    {"config_v0_null", "0104000401146c6f672e636c65616e65722e746872656164730000"},
    {"partition_change_v0", "01050000000003101112131415161718191a1b1c1d1e1f0300050200000001010400000002050100"},
    {"partition_change_v0_grow", "01050000000003101112131415161718191a1b1c1d1e1f01001907000000010000000200000003000000040000000500000006"},
    {"partition_change_v1", "01050100000001101112131415161718191a1b1c1d1e1f0402090300000001000000020305020000000304050200000002082103202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"},
    {"partition_change_v2", "01050200000002101112131415161718191a1b1c1d1e1f03000903000000010000000206050200000003070101"},
    {"broker_change_v0", "011100000000010000000000000005010001ff"},
    {"broker_change_v1", "01110100000002000000000000000601010101"},
    {"broker_change_v2", "01110200000003000000000000000702000101021102202122232425262728292a2b2c2d2e2f"},
    {"broker_change_v3", "01110300000003000000000000000701032103303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f"},
    {"no_op_v0", "01140000"},
};

/* left to the generic decoder */
static const named_hex DECLINED[] = {
    {"feature_level", "010c00116d657461646174612e76657273696f6e001700"},
    {"partition_change_v3", "01050300000003101112131415161718191a1b1c1d1e1f0100050200000001"},
    {"trailing_byte", "01050000000003101112131415161718191a1b1c1d1e1f010005020000000100"},
    {"cut", "01050000000003101112131415161718191a1b1c1d1e1f010005020000"},
    {"frame_v0", "00050000000003101112131415161718191a1b1c1d1e1f0100050200000001"},
};

static bb rec(const named_hex *tab, size_t n, const char *name)
{
    bb b = {0};
    for (size_t i = 0; i < n; i++)
        if (!strcmp(tab[i].name, name)) {
            bb_hex(&b, tab[i].hex);
            return b;
        }
    fail_msg("no case %s", name);
    return b;
}

#define GOOD_REC(name) rec(GOOD, sizeof GOOD / sizeof GOOD[0], name)

static kf_kraft_flat fast_of(const bb *v)
{
    kf_kraft_flat f;
    memset(&f, 0, sizeof f);
    assert_true(kf_kraft_fast(v->b, (int32_t)v->n, &f));
    return f;
}

/* The case `name` read by the fast path as type key, version ver. The
 * flat form points into *v. */
static kf_kraft_flat fast_case(bb *v, const char *name, int16_t key, int16_t ver)
{
    *v = GOOD_REC(name);
    kf_kraft_flat f = fast_of(v);
    assert_int_equal(f.api_key, key);
    assert_int_equal(f.version, ver);
    return f;
}

static void assert_ints(const kf_kraft_array *a, uint32_t n, const int32_t *want)
{
    assert_true(a->present);
    assert_int_equal(a->n, n);
    int32_t got[16];
    assert_true(n <= 16);
    kf_kraft_ints_copy(a, got);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(got[i], want[i]);
}

/* uuids whose first bytes are first[i] (kraftfmt's U2 = 0x20.., ...) */
static void assert_uuids(const kf_kraft_array *a, uint32_t n, const uint8_t *first)
{
    assert_true(a->present);
    assert_int_equal(a->n, n);
    uint8_t got[8][16];
    assert_true(n <= 8);
    kf_kraft_uuids_copy(a, got);
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 16; k++)
            assert_int_equal(got[i][k], first[i] + k);
}

static void assert_u1(const uint8_t *id)
{
    assert_non_null(id);
    for (int k = 0; k < 16; k++)
        assert_int_equal(id[k], 0x10 + k);
}

static void assert_str(const kf_kraft_str *s, const char *want)
{
    assert_non_null(s->p);
    assert_int_equal(s->len, strlen(want));
    assert_memory_equal(s->p, want, s->len);
}

static void test_topic_and_config(void **state)
{
    (void)state;
    bb v;
    kf_kraft_flat f = fast_case(&v, "topic_v0", KF_MD_TOPIC, 0);
    assert_str(&f.u.topic.name, "orders");
    assert_u1(f.u.topic.topic_id);

    f = fast_case(&v, "config_v0", KF_MD_CONFIG, 0);
    assert_int_equal(f.u.config.resource_type, 2);
    assert_true(f.u.config.has_names && f.u.config.has_value);
    assert_str(&f.u.config.resource_name, "orders");
    assert_str(&f.u.config.name, "retention.ms");
    assert_str(&f.u.config.value, "604800000");

    f = fast_case(&v, "config_v0_null", KF_MD_CONFIG, 0);
    assert_int_equal(f.u.config.resource_type, 4);
    assert_str(&f.u.config.resource_name, "");
    assert_str(&f.u.config.name, "log.cleaner.threads");
    assert_true(f.u.config.has_value);
    assert_null(f.u.config.value.p); /* null: the key is deleted */

    f = fast_case(&v, "no_op_v0", KF_MD_NO_OP, 0);
}

/* A partition record's id, and its topic id kraftfmt's U1. */
static void assert_head(const kf_kraft_partition_fields *p, int32_t id)
{
    assert_int_equal(p->partition_id, id);
    assert_u1(p->topic_id);
}

static void test_partition_versions(void **state)
{
    (void)state;
    bb v;
    kf_kraft_flat f = fast_case(&v, "partition_v0", KF_MD_PARTITION, 0);
    const kf_kraft_partition_fields *p = &f.u.partition.part;
    assert_head(p, 3);
    assert_ints(&p->replicas, 3, (const int32_t[]){1, 2, 3});
    assert_ints(&p->isr, 2, (const int32_t[]){1, 2});
    assert_true(p->removing_replicas.present);
    assert_int_equal(p->removing_replicas.n, 0);
    assert_ints(&p->adding_replicas, 1, (const int32_t[]){3});
    assert_int_equal(p->leader, 1);
    assert_int_equal(p->leader_recovery_state, 1); /* tag 0 */
    assert_int_equal(f.u.partition.leader_epoch, 7);
    assert_int_equal(f.u.partition.partition_epoch, 9);
    assert_false(p->directories.present);
    assert_false(p->elr.present);

    f = fast_case(&v, "partition_v1", KF_MD_PARTITION, 1);
    assert_int_equal(p->partition_id, 0);
    assert_int_equal(p->leader_recovery_state, 0);
    assert_ints(&p->removing_replicas, 1, (const int32_t[]){2});
    assert_uuids(&p->directories, 3, (const uint8_t[]){0x20, 0x30, 0x40});

    f = fast_case(&v, "partition_v2", KF_MD_PARTITION, 2);
    assert_int_equal(p->partition_id, 5);
    assert_ints(&p->replicas, 2, (const int32_t[]){4, 5});
    assert_uuids(&p->directories, 2, (const uint8_t[]){0x20, 0x30});
    assert_ints(&p->elr, 1, (const int32_t[]){5});
    assert_ints(&p->last_known_elr, 2, (const int32_t[]){6, 7});
}

/* Only what a change names is present; leader -2 and leader recovery
 * state -1 stand for "unchanged". */
static void test_partition_change_versions(void **state)
{
    (void)state;
    bb v;
    kf_kraft_flat f = fast_case(&v, "partition_change_v0", KF_MD_PARTITION_CHANGE, 0);
    const kf_kraft_partition_fields *c = &f.u.partition_change.part;
    assert_int_equal(c->leader, 2);
    assert_head(c, 3);
    assert_int_equal(c->leader_recovery_state, 0);
    assert_ints(&c->isr, 1, (const int32_t[]){1});
    assert_false(c->replicas.present);
    assert_false(c->directories.present);

    f = fast_case(&v, "partition_change_v1", KF_MD_PARTITION_CHANGE, 1);
    assert_int_equal(c->leader, -2);               /* absent: unchanged */
    assert_int_equal(c->leader_recovery_state, -1);
    assert_false(c->isr.present);
    assert_ints(&c->replicas, 2, (const int32_t[]){1, 2});
    assert_ints(&c->removing_replicas, 1, (const int32_t[]){3});
    assert_ints(&c->adding_replicas, 1, (const int32_t[]){2});
    assert_uuids(&c->directories, 2, (const uint8_t[]){0x20, 0x30}); /* tag 8 */

    f = fast_case(&v, "partition_change_v2", KF_MD_PARTITION_CHANGE, 2);
    assert_ints(&c->isr, 2, (const int32_t[]){1, 2});
    assert_ints(&c->elr, 1, (const int32_t[]){3});
    assert_true(c->last_known_elr.present); /* an empty list, not null */
    assert_int_equal(c->last_known_elr.n, 0);
}

static void test_broker_change_versions(void **state)
{
    (void)state;
    bb v;
    kf_kraft_flat f = fast_case(&v, "broker_change_v0", KF_MD_BROKER_REGISTRATION_CHANGE, 0);
    const kf_kraft_broker_change *b = &f.u.broker_change;
    assert_int_equal(b->broker_id, 1);
    assert_int_equal(b->broker_epoch, 5);
    assert_int_equal(b->fenced, -1);
    assert_int_equal(b->in_controlled_shutdown, 0);
    assert_false(b->log_dirs.present);

    f = fast_case(&v, "broker_change_v1", KF_MD_BROKER_REGISTRATION_CHANGE, 1);
    assert_int_equal(b->broker_id, 2);
    assert_int_equal(b->fenced, 0);
    assert_int_equal(b->in_controlled_shutdown, 1);

    f = fast_case(&v, "broker_change_v2", KF_MD_BROKER_REGISTRATION_CHANGE, 2);
    assert_int_equal(b->fenced, 1);
    assert_uuids(&b->log_dirs, 1, (const uint8_t[]){0x20});
    assert_false(b->cordoned_log_dirs.present);

    f = fast_case(&v, "broker_change_v3", KF_MD_BROKER_REGISTRATION_CHANGE, 3);
    assert_uuids(&b->cordoned_log_dirs, 2, (const uint8_t[]){0x30, 0x40});
}

static void test_same_as_generic(void **state)
{
    (void)state;
    kf_dtree t = {0};
    for (size_t i = 0; i < sizeof GOOD / sizeof GOOD[0]; i++) {
        bb v = {0};
        bb_hex(&v, GOOD[i].hex);
        kf_kraft_flat f = fast_of(&v), g;
        kf_dtree_reset(&t);
        kf_kraft_record kr;
        assert_int_equal(kf_kraft_decode(KF_KRAFT_METADATA, NULL, -1, v.b, (int32_t)v.n, &t, &kr), KF_OK);
        assert_true(kf_kraft_flat_from_tree(&t, kr.root, kr.api_key, kr.version, &g));
        assert_int_equal(f.api_key, g.api_key);
        assert_int_equal(f.version, g.version);
        assert_string_equal(kf_kraft_record_type(f.api_key), kr.record_type);
        assert_true(kraft_flat_equal(&f, &g));
        /* every prefix: declined, or read by both alike */
        for (size_t cut = 0; cut < v.n; cut++) {
            kf_kraft_flat h;
            if (kf_kraft_fast(v.b, (int32_t)cut, &h)) {
                kf_dtree_reset(&t);
                assert_int_equal(kf_kraft_decode(KF_KRAFT_METADATA, NULL, -1, v.b, (int32_t)cut, &t, &kr), KF_OK);
            }
        }
    }
    kf_dtree_free(&t);
}

static void test_declined(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof DECLINED / sizeof DECLINED[0]; i++) {
        bb v = {0};
        bb_hex(&v, DECLINED[i].hex);
        kf_kraft_flat f;
        if (kf_kraft_fast(v.b, (int32_t)v.n, &f))
            fail_msg("%s: read by the fast path", DECLINED[i].name);
    }
    kf_kraft_flat f;
    assert_false(kf_kraft_fast(NULL, -1, &f));
}

/* Applied to an image: the partition's fields as the changes leave them. */
static void apply(md_image *im, const char *name)
{
    bb v = GOOD_REC(name);
    kf_kraft_flat f = fast_of(&v);
    md_why why;
    assert_int_equal(md_image_apply_flat(im, &f, &why), MD_APPLIED);
}

static void test_applied(void **state)
{
    (void)state;
    md_image im;
    md_image_init(&im);
    apply(&im, "topic_v0");
    apply(&im, "partition_v0");
    apply(&im, "config_v0");
    static const uint8_t u1[16] = {0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
                                   0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f};
    kf_md_topic *t = htab_get(&im.topics, u1, 16);
    assert_non_null(t);
    assert_string_equal(t->name, "orders");
    assert_int_equal(t->nparts, 1);
    kf_md_partition *p = &t->parts[0];
    assert_int_equal(p->id, 3);
    assert_int_equal(p->isr.n, 2);
    apply(&im, "partition_change_v0"); /* ISR [1], leader 2 */
    p = &t->parts[0];
    assert_int_equal(p->isr.n, 1);
    assert_int_equal(p->isr.v[0], 1);
    assert_int_equal(p->leader, 2);
    assert_int_equal(p->leader_epoch, 8);
    assert_int_equal(p->partition_epoch, 10);
    apply(&im, "partition_change_v0_grow"); /* ISR [1..6]: past the room of the first list */
    assert_int_equal(p->isr.n, 6);
    for (int i = 0; i < 6; i++)
        assert_int_equal(p->isr.v[i], i + 1);
    assert_int_equal(p->leader, 2); /* no leader in the record */
    assert_int_equal(p->leader_epoch, 8);
    assert_int_equal(p->partition_epoch, 11);
    md_image copy;
    md_image_init(&copy);
    assert_true(md_image_copy(&copy, &im)); /* a transaction's copy keeps the room too */
    apply(&copy, "partition_change_v0");
    apply(&copy, "partition_change_v0_grow");
    kf_md_topic *ct = htab_get(&copy.topics, u1, 16);
    assert_int_equal(ct->parts[0].isr.n, 6);
    assert_int_equal(p->isr.n, 6);
    apply(&im, "config_v0_null"); /* a key never set: nothing to delete */
    md_image_free(&copy);
    md_image_free(&im);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_topic_and_config),
        cmocka_unit_test(test_partition_versions),
        cmocka_unit_test(test_partition_change_versions),
        cmocka_unit_test(test_broker_change_versions),
        cmocka_unit_test(test_same_as_generic),
        cmocka_unit_test(test_declined),
        cmocka_unit_test(test_applied),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
