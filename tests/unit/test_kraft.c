/* test_kraft.c: unit tests for the KRaft record decoders (kraft_schema.c,
 * remote_schema.c, share_schema.c, kraft_decode.c over the generic decoder):
 * the real byte examples of kraft-metadata.md §1-§3 (TopicRecord,
 * RegisterBrokerRecord v2, PartitionRecord v0, ConfigRecord,
 * PartitionChangeRecord v0, BrokerRegistrationChangeRecord v0/v1,
 * FeatureLevelRecord, LeaderChangeMessage, snapshot header/footer), records
 * built by hand from the spec's layouts at their lowest and highest versions
 * (tagged fields in and out of declaration order, inline structs, nullable
 * tagged arrays), the 3.0-3.2 FeatureLevelRecord layout, the 4.0 and 4.1
 * share-state layouts, the remote-log-metadata records, secrets marked,
 * config names judged, and bad input: unknown frame versions, types and
 * versions, header numbers above 32767, values cut at every length,
 * trailing bytes, lengths running past the record; and the tables' own
 * consistency against the spec's catalogue. */
#include "testutil.h"

#include "bytebuf.h"
#include "records/coord_internal.h"

static const uint8_t U1[16] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
                               0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
static const uint8_t U2[16] = {0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
                               0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78};

/* Decode a metadata record value; returns the root node (or NULL). */
static const kf_dnode *md(kf_dtree *t, const bb *v, kf_kraft_record *kr, int want_rc)
{
    kf_dtree_reset(t);
    int rc = kf_kraft_decode(KF_KRAFT_METADATA, NULL, -1, v->b, (int32_t)v->n, t, kr);
    if (rc != want_rc)
        fail_msg("rc %d, wanted %d (%s)", rc, want_rc, kr->err);
    return kr->root == KF_DNODE_NONE ? NULL : tnode(t, kr->root);
}

static void header(bb *b, int key, int version)
{
    bb_uvar(b, 1);
    bb_uvar(b, (uint32_t)key);
    bb_uvar(b, (uint32_t)version);
}

/* ---- the spec's real examples ----------------------------------------------------- */

static void test_real_topic_record(void **state)
{
    (void)state;
    kf_dtree t = {0};
    kf_kraft_record kr;
    bb v = {0};
    bb_hex(&v, "01 02 00 | 09 6d792d746f706963 | a5c80182e3804a2ab7ba3913ac6bbf43 | 00");
    const kf_dnode *r = md(&t, &v, &kr, KF_OK);
    assert_true(kr.ok && kr.known);
    assert_int_equal(kr.frame_version, 1);
    assert_int_equal(kr.api_key, 2);
    assert_int_equal(kr.version, 0);
    assert_string_equal(kr.record_type, "topic");
    assert_tstr(&t, r, "name", "my-topic");
    assert_tuuid(&t, r, "topic_id", "pcgBguOASiq3ujkTrGu_Qw");
    assert_int_equal(r->n_children, 2);
    kf_dtree_free(&t);
}

static void test_real_register_broker_v2(void **state)
{
    (void)state;
    kf_dtree t = {0};
    kf_kraft_record kr;
    bb v = {0};
    bb_hex(&v, "01 00 02 | 00000001 | 00 | ad17addebaf54b91baf887e81e8d84a3 | 0000000000000002 |"
               " 02 0a 504c41494e54455854 0a 6c6f63616c686f7374 2384 0000 00 |"
               " 02 11 6d657461646174612e76657273696f6e 0001 0008 00 | 00 | 00 | 00 | 00");
    const kf_dnode *r = md(&t, &v, &kr, KF_OK);
    assert_string_equal(kr.record_type, "register_broker");
    assert_int_equal(kr.version, 2);
    assert_tint(&t, r, "broker_id", 1);
    assert_tint(&t, r, "is_migrating_zk_broker", 0);
    assert_tint(&t, r, "broker_epoch", 2);
    const kf_dnode *eps = tfld(&t, r, "end_points");
    assert_int_equal(eps->n_children, 1);
    const kf_dnode *ep = kf_dnode_child(&t, eps, 0);
    assert_tstr(&t, ep, "name", "PLAINTEXT");
    assert_tstr(&t, ep, "host", "localhost");
    assert_tint(&t, ep, "port", 9092);
    assert_tint(&t, ep, "security_protocol", 0);
    const kf_dnode *fe = kf_dnode_child(&t, tfld(&t, r, "features"), 0);
    assert_tstr(&t, fe, "name", "metadata.version");
    assert_tint(&t, fe, "min_supported_version", 1);
    assert_tint(&t, fe, "max_supported_version", 8);
    assert_int_equal(tfld(&t, r, "rack")->kind, KF_V_NULL);
    assert_tint(&t, r, "fenced", 0);
    assert_tint(&t, r, "in_controlled_shutdown", 0);
    assert_tabsent(&t, r, "log_dirs");
    /* the same bytes read as v1 would put the 00 of IsMigratingZkBroker into
     * the incarnation id and fail at the end: v2 must never be read as v1 */
    v.b[2] = 1;
    kf_dtree_reset(&t);
    assert_int_not_equal(kf_kraft_decode(KF_KRAFT_METADATA, NULL, -1, v.b, (int32_t)v.n, &t, &kr), KF_OK);
    kf_dtree_free(&t);
}

static void test_real_partition_and_config(void **state)
{
    (void)state;
    kf_dtree t = {0};
    kf_kraft_record kr;
    bb v = {0};
    bb_hex(&v, "01 03 00 | 00000000 | 123456789abcdef00123456789abcdef | 02 00000001 | 02 00000001 | 01 | 01 |"
               " 00000001 | 00000000 | 00000000 | 00");
    const kf_dnode *r = md(&t, &v, &kr, KF_OK);
    assert_string_equal(kr.record_type, "partition");
    int32_t one[] = {1};
    assert_tint(&t, r, "partition_id", 0);
    assert_tints(&t, r, "replicas", 1, one);
    assert_tints(&t, r, "isr", 1, one);
    assert_tints(&t, r, "removing_replicas", 0, NULL);
    assert_tints(&t, r, "adding_replicas", 0, NULL);
    assert_tint(&t, r, "leader", 1);
    assert_tint(&t, r, "leader_epoch", 0);
    assert_tint(&t, r, "partition_epoch", 0);
    assert_tabsent(&t, r, "leader_recovery_state"); /* tagged, not written */
    assert_tabsent(&t, r, "directories");           /* v1+ */

    bb c = {0};
    bb_hex(&c, "01 04 00 | 02 | 13 5f5f636f6e73756d65725f6f666673657473 | 11 636f6d7072657373696f6e2e74797065 |"
               " 09 70726f6475636572 | 00");
    r = md(&t, &c, &kr, KF_OK);
    assert_string_equal(kr.record_type, "config");
    assert_tint(&t, r, "resource_type", 2);
    assert_tstr(&t, r, "resource_name", "__consumer_offsets");
    assert_tstr(&t, r, "name", "compression.type");
    assert_tstr(&t, r, "value", "producer");
    assert_false(tfld(&t, r, "value")->flags & KF_DNODE_SECRET);
    kf_dtree_free(&t);
}

static void test_real_change_records(void **state)
{
    (void)state;
    kf_dtree t = {0};
    kf_kraft_record kr;
    bb v = {0};
    /* PartitionChangeRecord v0, leader -> none */
    bb_hex(&v, "01 05 00 | 00000000 | 123456789abcdef00123456789abcdef | 01 | 01 04 ffffffff");
    const kf_dnode *r = md(&t, &v, &kr, KF_OK);
    assert_string_equal(kr.record_type, "partition_change");
    assert_tint(&t, r, "leader", -1);
    assert_tabsent(&t, r, "isr");
    assert_tabsent(&t, r, "leader_recovery_state");
    /* BrokerRegistrationChangeRecord v0 unfence, v1 controlled shutdown */
    bb u = {0};
    bb_hex(&u, "01 11 00 | 00000001 | 0000000000000003 | 01 | 00 01 ff");
    r = md(&t, &u, &kr, KF_OK);
    assert_string_equal(kr.record_type, "broker_registration_change");
    assert_tint(&t, r, "broker_id", 1);
    assert_tint(&t, r, "broker_epoch", 3);
    assert_tint(&t, r, "fenced", -1);
    assert_tabsent(&t, r, "in_controlled_shutdown");
    bb s = {0};
    bb_hex(&s, "01 11 01 | 00000001 | 0000000000000003 | 01 | 01 01 01");
    r = md(&t, &s, &kr, KF_OK);
    assert_int_equal(kr.version, 1);
    assert_tint(&t, r, "in_controlled_shutdown", 1);
    assert_tabsent(&t, r, "fenced");
    /* tag 1 in a v0 record is unknown there: skipped by its size */
    s.b[2] = 0;
    r = md(&t, &s, &kr, KF_OK);
    assert_tabsent(&t, r, "in_controlled_shutdown");
    /* FeatureLevelRecord of the real bootstrap.checkpoint */
    bb f = {0};
    bb_hex(&f, "01 0c 00 11 6d657461646174612e76657273696f6e 000e 00");
    r = md(&t, &f, &kr, KF_OK);
    assert_string_equal(kr.record_type, "feature_level");
    assert_tstr(&t, r, "name", "metadata.version");
    assert_tint(&t, r, "feature_level", 14);
    assert_null(kr.layout);
    kf_dtree_free(&t);
}

static void test_real_control_records(void **state)
{
    (void)state;
    kf_dtree t = {0};
    kf_kraft_record kr;
    bb v = {0};
    bb_hex(&v, "0000 | 00000001 | 02 00000001 00 | 02 00000001 00 | 00");
    assert_int_equal(kf_kraft_control_decode(KF_CONTROL_LEADER_CHANGE, v.b, (int32_t)v.n, &t, &kr), KF_OK);
    assert_string_equal(kr.record_type, "leader_change");
    assert_int_equal(kr.version, 0);
    const kf_dnode *r = tnode(&t, kr.root);
    assert_tint(&t, r, "version", 0);
    assert_tint(&t, r, "leader_id", 1);
    const kf_dnode *voter = kf_dnode_child(&t, tfld(&t, r, "voters"), 0);
    assert_tint(&t, voter, "voter_id", 1);
    assert_tabsent(&t, voter, "voter_directory_id"); /* v1 only, never on disk */
    assert_int_equal(tfld(&t, r, "granting_voters")->n_children, 1);

    bb h = {0};
    bb_hex(&h, "0000 | 0000019a132121ec | 00");
    kf_dtree_reset(&t);
    assert_int_equal(kf_kraft_control_decode(KF_CONTROL_SNAPSHOT_HEADER, h.b, (int32_t)h.n, &t, &kr), KF_OK);
    assert_string_equal(kr.record_type, "snapshot_header");
    assert_tint(&t, tnode(&t, kr.root), "last_contained_log_timestamp", 1761257529836LL);

    bb f = {0};
    bb_hex(&f, "0000 00");
    kf_dtree_reset(&t);
    assert_int_equal(kf_kraft_control_decode(KF_CONTROL_SNAPSHOT_FOOTER, f.b, (int32_t)f.n, &t, &kr), KF_OK);
    assert_string_equal(kr.record_type, "snapshot_footer");

    /* bytes after a control record's body are ignored, as Kafka ignores
     * them; one cut short is malformed; transaction markers are not KRaft
     * control records */
    bb_u8(&f, 0);
    kf_dtree_reset(&t);
    assert_int_equal(kf_kraft_control_decode(KF_CONTROL_SNAPSHOT_FOOTER, f.b, (int32_t)f.n, &t, &kr), KF_OK);
    kf_dtree_reset(&t);
    assert_int_equal(kf_kraft_control_decode(KF_CONTROL_SNAPSHOT_HEADER, h.b, 5, &t, &kr), KF_ERR_TRUNCATED);
    kf_dtree_reset(&t);
    assert_int_equal(kf_kraft_control_decode(KF_CONTROL_COMMIT, f.b, (int32_t)f.n, &t, &kr), KF_ERR_UNSUPPORTED);
    assert_null(kr.record_type);
    kf_dtree_free(&t);
}

/* ---- lowest and highest versions, by hand --------------------------------------------- */

static void test_register_broker_v0_and_v4(void **state)
{
    (void)state;
    kf_dtree t = {0};
    kf_kraft_record kr;
    bb v = {0};
    header(&v, 0, 0);
    bb_i32(&v, 7);
    bb_uuid(&v, U1);
    bb_i64(&v, 42);
    bb_uvar(&v, 1); /* no endpoints */
    bb_uvar(&v, 1); /* no features */
    bb_cstr(&v, "rack-a");
    bb_u8(&v, 1); /* fenced */
    bb_uvar(&v, 0);
    const kf_dnode *r = md(&t, &v, &kr, KF_OK);
    assert_tint(&t, r, "broker_id", 7);
    assert_tabsent(&t, r, "is_migrating_zk_broker");
    assert_tabsent(&t, r, "in_controlled_shutdown");
    assert_tstr(&t, r, "rack", "rack-a");
    assert_tint(&t, r, "fenced", 1);

    bb w = {0};
    header(&w, 0, 4);
    bb_i32(&w, 7);
    bb_u8(&w, 1); /* migrating */
    bb_uuid(&w, U1);
    bb_i64(&w, 42);
    bb_uvar(&w, 2);
    bb_cstr(&w, "SSL");
    bb_cstr(&w, "h");
    bb_i16(&w, (int16_t)65000); /* uint16 */
    bb_i16(&w, 1);
    bb_uvar(&w, 0);
    bb_uvar(&w, 1);
    bb_cnull(&w);
    bb_u8(&w, 0);
    bb_u8(&w, 1); /* in controlled shutdown */
    bb_uvar(&w, 2); /* tags 0 and 1 */
    bb_uvar(&w, 0);
    bb_uvar(&w, 1 + 16);
    bb_uvar(&w, 2);
    bb_uuid(&w, U2);
    bb_uvar(&w, 1);
    bb_uvar(&w, 1);
    bb_uvar(&w, 1); /* cordoned: empty list */
    r = md(&t, &w, &kr, KF_OK);
    assert_int_equal(kr.version, 4);
    assert_tint(&t, r, "is_migrating_zk_broker", 1);
    assert_tint(&t, kf_dnode_child(&t, tfld(&t, r, "end_points"), 0), "port", 65000);
    assert_tint(&t, r, "in_controlled_shutdown", 1);
    assert_tuuid(&t, r, "incarnation_id", "EjRWeJq83vABI0VniavN7w");
    const kf_dnode *ld = tfld(&t, r, "log_dirs");
    assert_int_equal(ld->n_children, 1);
    assert_memory_equal(kf_dnode_child(&t, ld, 0)->p, U2, 16);
    const kf_dnode *cd = tfld(&t, r, "cordoned_log_dirs");
    assert_int_equal(cd->kind, KF_V_ARRAY);
    assert_int_equal(cd->n_children, 0);
    /* version 5 is unknown: not decoded */
    w.b[2] = 5;
    assert_null(md(&t, &w, &kr, KF_ERR_UNSUPPORTED));
    assert_false(kr.known);
    assert_string_equal(kr.record_type, "register_broker");
    kf_dtree_free(&t);
}

static void test_partition_v2_and_change_v2(void **state)
{
    (void)state;
    kf_dtree t = {0};
    kf_kraft_record kr;
    bb v = {0};
    int32_t reps[] = {1, 2, 3}, isr[] = {1, 2}, elr[] = {3};
    header(&v, 3, 2);
    bb_i32(&v, 4);
    bb_uuid(&v, U1);
    bb_cints(&v, 3, reps);
    bb_cints(&v, 2, isr);
    bb_cints(&v, 0, NULL);
    bb_cints(&v, 0, NULL);
    bb_i32(&v, 1);
    bb_i32(&v, 5);
    bb_i32(&v, 9);
    bb_uvar(&v, 4); /* directories */
    bb_uuid(&v, U1);
    bb_uuid(&v, U2);
    bb_uuid(&v, U1);
    bb_uvar(&v, 3); /* tags 0 (leader recovery), 1 (ELR), 2 (last known ELR, empty) */
    bb_uvar(&v, 0);
    bb_uvar(&v, 1);
    bb_u8(&v, 1);
    bb_uvar(&v, 1);
    bb_uvar(&v, 5);
    bb_cints(&v, 1, elr);
    bb_uvar(&v, 2);
    bb_uvar(&v, 1);
    bb_cints(&v, 0, NULL);
    const kf_dnode *r = md(&t, &v, &kr, KF_OK);
    assert_tint(&t, r, "leader_recovery_state", 1);
    assert_tint(&t, r, "leader_epoch", 5);
    assert_tint(&t, r, "partition_epoch", 9);
    assert_int_equal(tfld(&t, r, "directories")->n_children, 3);
    assert_tints(&t, r, "eligible_leader_replicas", 1, elr);
    assert_tints(&t, r, "last_known_elr", 0, NULL);

    /* PartitionChangeRecord v2: tags written in tag order 0, 6, 7, 8 although
     * Directories (8) is declared before 6 and 7; ELR null, LastKnownElr set */
    bb c = {0};
    header(&c, 5, 2);
    bb_i32(&c, 4);
    bb_uuid(&c, U1);
    bb_uvar(&c, 4);
    bb_uvar(&c, 0);
    bb_uvar(&c, 9);
    bb_cints(&c, 2, isr);
    bb_uvar(&c, 6);
    bb_uvar(&c, 1);
    bb_cnull(&c);
    bb_uvar(&c, 7);
    bb_uvar(&c, 5);
    bb_cints(&c, 1, elr);
    bb_uvar(&c, 8);
    bb_uvar(&c, 1 + 16);
    bb_uvar(&c, 2);
    bb_uuid(&c, U2);
    r = md(&t, &c, &kr, KF_OK);
    assert_tints(&t, r, "isr", 2, isr);
    assert_int_equal(tfld(&t, r, "eligible_leader_replicas")->kind, KF_V_NULL);
    assert_tints(&t, r, "last_known_elr", 1, elr);
    assert_int_equal(tfld(&t, r, "directories")->n_children, 1);
    assert_tabsent(&t, r, "leader");
    /* a tagged field whose value runs past its size is malformed */
    c.b[c.n - 16 - 2] = 1 + 15; /* the directories size byte */
    assert_non_null(md(&t, &c, &kr, KF_ERR_CORRUPT));
    kf_dtree_free(&t);
}

static void test_misc_records(void **state)
{
    (void)state;
    kf_dtree t = {0};
    kf_kraft_record kr;
    /* ClientQuotaRecord: entity with a null name, float64 value */
    bb q = {0};
    header(&q, 14, 0);
    bb_uvar(&q, 2);
    bb_cstr(&q, "user");
    bb_cnull(&q);
    bb_uvar(&q, 0);
    bb_cstr(&q, "producer_byte_rate");
    bb_f64(&q, 1048576.0);
    bb_u8(&q, 0);
    bb_uvar(&q, 0);
    const kf_dnode *r = md(&t, &q, &kr, KF_OK);
    assert_string_equal(kr.record_type, "client_quota");
    assert_true(tfld(&t, r, "value")->f == 1048576.0);
    assert_int_equal(tfld(&t, kf_dnode_child(&t, tfld(&t, r, "entity"), 0), "entity_name")->kind, KF_V_NULL);
    /* NoOpRecord and EndTransactionRecord: no fields */
    bb n = {0};
    header(&n, 20, 0);
    bb_uvar(&n, 0);
    r = md(&t, &n, &kr, KF_OK);
    assert_string_equal(kr.record_type, "no_op");
    assert_int_equal(r->n_children, 0);
    /* BeginTransactionRecord with and without its tagged name */
    bb b = {0};
    header(&b, 23, 0);
    bb_uvar(&b, 1);
    bb_uvar(&b, 0);
    bb_uvar(&b, 18);
    bb_cstr(&b, "Bootstrap records");
    r = md(&t, &b, &kr, KF_OK);
    assert_tstr(&t, r, "name", "Bootstrap records");
    bb a = {0};
    header(&a, 25, 0);
    bb_uvar(&a, 0);
    r = md(&t, &a, &kr, KF_OK);
    assert_string_equal(kr.record_type, "abort_transaction");
    assert_tabsent(&t, r, "reason");
    /* ProducerIdsRecord, ClearElrRecord, UnregisterControllerRecord, ZkMigrationState */
    bb p = {0};
    header(&p, 15, 0);
    bb_i32(&p, 1);
    bb_i64(&p, 5);
    bb_i64(&p, 2000);
    bb_uvar(&p, 0);
    r = md(&t, &p, &kr, KF_OK);
    assert_tint(&t, r, "next_producer_id", 2000);
    bb e = {0};
    header(&e, 28, 0);
    bb_cstr(&e, "");
    bb_uvar(&e, 0);
    r = md(&t, &e, &kr, KF_OK);
    assert_string_equal(kr.record_type, "clear_elr");
    assert_tstr(&t, r, "topic_name", "");
    bb u = {0};
    header(&u, 29, 0);
    bb_i32(&u, 3000);
    bb_uvar(&u, 0);
    r = md(&t, &u, &kr, KF_OK);
    assert_string_equal(kr.record_type, "unregister_controller");
    assert_tint(&t, r, "controller_id", 3000);
    kf_dtree_free(&t);
}

static void test_feature_level_old_layout(void **state)
{
    (void)state;
    kf_dtree t = {0};
    kf_kraft_record kr;
    bb v = {0};
    header(&v, 12, 0);
    bb_cstr(&v, "metadata.version");
    bb_i16(&v, 1);
    bb_i16(&v, 3);
    bb_uvar(&v, 0);
    const kf_dnode *r = md(&t, &v, &kr, KF_OK);
    assert_non_null(kr.layout);
    assert_string_equal(kr.layout, "FeatureLevelRecord (3.2)");
    assert_tint(&t, r, "min_feature_level", 1);
    assert_tint(&t, r, "max_feature_level", 3);
    assert_tabsent(&t, r, "feature_level");
    kf_dtree_free(&t);
}

static void test_voters_and_kraft_version(void **state)
{
    (void)state;
    kf_dtree t = {0};
    kf_kraft_record kr;
    bb v = {0};
    bb_i16(&v, 0);
    bb_uvar(&v, 3); /* two voters */
    for (int i = 0; i < 2; i++) {
        bb_i32(&v, i + 1);
        bb_uuid(&v, i ? U2 : U1);
        bb_uvar(&v, 2);
        bb_cstr(&v, "CONTROLLER");
        bb_cstr(&v, "c1");
        bb_i16(&v, 9093);
        bb_uvar(&v, 0); /* endpoint tags */
        bb_i16(&v, 0);  /* KRaftVersionFeature inline */
        bb_i16(&v, 1);
        bb_uvar(&v, 0); /* its tags */
        bb_uvar(&v, 0); /* voter tags */
    }
    bb_uvar(&v, 0);
    assert_int_equal(kf_kraft_control_decode(KF_CONTROL_KRAFT_VOTERS, v.b, (int32_t)v.n, &t, &kr), KF_OK);
    assert_string_equal(kr.record_type, "kraft_voters");
    const kf_dnode *vs = tfld(&t, tnode(&t, kr.root), "voters");
    assert_int_equal(vs->n_children, 2);
    const kf_dnode *v2 = kf_dnode_child(&t, vs, 1);
    assert_tint(&t, v2, "voter_id", 2);
    assert_tint(&t, tfld(&t, v2, "kraft_version_feature"), "max_supported_version", 1);
    assert_tint(&t, kf_dnode_child(&t, tfld(&t, v2, "endpoints"), 0), "port", 9093);

    bb k = {0};
    bb_i16(&k, 0);
    bb_i16(&k, 1);
    bb_uvar(&k, 0);
    kf_dtree_reset(&t);
    assert_int_equal(kf_kraft_control_decode(KF_CONTROL_KRAFT_VERSION, k.b, (int32_t)k.n, &t, &kr), KF_OK);
    assert_tint(&t, tnode(&t, kr.root), "kraft_version", 1);
    kf_dtree_free(&t);
}

/* ---- secrets -------------------------------------------------------------------------- */

static void test_secrets_marked(void **state)
{
    (void)state;
    kf_dtree t = {0};
    kf_kraft_record kr;
    bb s = {0};
    header(&s, 11, 0);
    bb_cstr(&s, "alice");
    bb_u8(&s, 1);
    bb_cbytes(&s, "SALT", 4);
    bb_cbytes(&s, "STORED", 6);
    bb_cbytes(&s, "SERVER", 6);
    bb_i32(&s, 4096);
    bb_uvar(&s, 0);
    const kf_dnode *r = md(&t, &s, &kr, KF_OK);
    assert_true(tfld(&t, r, "salt")->flags & KF_DNODE_SECRET);
    assert_true(tfld(&t, r, "stored_key")->flags & KF_DNODE_SECRET);
    assert_true(tfld(&t, r, "server_key")->flags & KF_DNODE_SECRET);
    assert_false(tfld(&t, r, "name")->flags & KF_DNODE_SECRET);
    assert_false(tfld(&t, r, "iterations")->flags & KF_DNODE_SECRET);

    bb d = {0};
    header(&d, 10, 0);
    bb_cstr(&d, "User:alice");
    bb_cstr(&d, "User:alice");
    bb_uvar(&d, 2);
    bb_cstr(&d, "User:bob");
    bb_i64(&d, 1);
    bb_i64(&d, 2);
    bb_i64(&d, 3);
    bb_cstr(&d, "TOKENID");
    bb_uvar(&d, 0);
    r = md(&t, &d, &kr, KF_OK);
    assert_true(tfld(&t, r, "token_id")->flags & KF_DNODE_SECRET);
    assert_false(tfld(&t, r, "owner")->flags & KF_DNODE_SECRET);
    /* the never-written <= 3.5 layout (no Requester) also marks the id */
    bb o = {0};
    header(&o, 10, 0);
    bb_cstr(&o, "User:alice");
    bb_uvar(&o, 1);
    bb_i64(&o, 1);
    bb_i64(&o, 2);
    bb_i64(&o, 3);
    bb_cstr(&o, "TOKENID");
    bb_uvar(&o, 0);
    r = md(&t, &o, &kr, KF_OK);
    assert_string_equal(kr.layout, "DelegationTokenRecord (3.5)");
    assert_true(tfld(&t, r, "token_id")->flags & KF_DNODE_SECRET);

    const char *cfg[][2] = {{"ssl.keystore.password", "1"},
                            {"listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config", "1"},
                            {"delegation.token.secret.key", "1"},
                            {"SSL.TRUSTSTORE.PASSWORD", "1"},
                            {"SASL.JAAS.Config", "1"},
                            {"x.SeCrEt", "1"},
                            {"sjaas.configs", "1"},
                            {"secre", "0"},
                            {"password.encoder.cipher.algorithm", "0"},
                            {"retention.ms", "0"},
                            {"ssl.key.password.x", "0"}};
    for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
        bb c = {0};
        header(&c, 4, 0);
        bb_u8(&c, 4);
        bb_cstr(&c, "1");
        bb_cstr(&c, cfg[i][0]);
        bb_cstr(&c, "hunter2");
        bb_uvar(&c, 0);
        r = md(&t, &c, &kr, KF_OK);
        bool secret = cfg[i][1][0] == '1';
        assert_int_equal(kf_config_is_secret(cfg[i][0], strlen(cfg[i][0])), secret);
        assert_int_equal((tfld(&t, r, "value")->flags & KF_DNODE_SECRET) != 0, secret);
    }
    kf_dtree_free(&t);
}

/* ---- share and remote ---------------------------------------------------------------------- */

static void share_key(bb *k, int type)
{
    bb_i16(k, (int16_t)type);
    bb_str(k, "g1");
    bb_uuid(k, U1);
    bb_i32(k, 3);
}

static void test_share_layouts(void **state)
{
    (void)state;
    kf_dtree t = {0};
    kf_coord_record cr;
    bb k = {0};
    share_key(&k, 0);
    /* 4.1+ snapshot value with the 4.2 tag */
    bb v = {0};
    bb_i16(&v, 0);
    bb_i32(&v, 70000);
    bb_i32(&v, 2);
    bb_i32(&v, 5);
    bb_i64(&v, 100);
    bb_i64(&v, 1700000000000);
    bb_i64(&v, 1700000000001);
    bb_uvar(&v, 2);
    bb_i64(&v, 100);
    bb_i64(&v, 109);
    bb_u8(&v, 2);
    bb_i16(&v, 1);
    bb_uvar(&v, 0);
    bb_uvar(&v, 1);
    bb_uvar(&v, 0);
    bb_uvar(&v, 4);
    bb_i32(&v, 10);
    assert_int_equal(kf_coord_decode(KF_COORD_SHARE, k.b, (int32_t)k.n, v.b, (int32_t)v.n, &t, &cr), KF_OK);
    assert_string_equal(cr.record_type, "share_snapshot");
    assert_null(cr.value_layout);
    const kf_dnode *key = tnode(&t, cr.key_root);
    assert_tstr(&t, key, "group_id", "g1");
    assert_tint(&t, key, "partition", 3);
    const kf_dnode *r = tnode(&t, cr.value_root);
    assert_tint(&t, r, "snapshot_epoch", 70000);
    assert_tint(&t, r, "delivery_complete_count", 10);
    assert_tint(&t, r, "write_timestamp", 1700000000001LL);
    assert_tint(&t, kf_dnode_child(&t, tfld(&t, r, "state_batches"), 0), "last_offset", 109);

    /* the 4.0 layout: uint16 epoch, no timestamps */
    bb o = {0};
    bb_i16(&o, 0);
    bb_i16(&o, (int16_t)0xfffe);
    bb_i32(&o, 2);
    bb_i32(&o, 5);
    bb_i64(&o, 100);
    bb_uvar(&o, 1);
    bb_uvar(&o, 0);
    kf_dtree_reset(&t);
    assert_int_equal(kf_coord_decode(KF_COORD_SHARE, k.b, (int32_t)k.n, o.b, (int32_t)o.n, &t, &cr), KF_OK);
    assert_string_equal(cr.value_layout, "ShareSnapshotValue (4.0)");
    r = tnode(&t, cr.value_root);
    assert_tint(&t, r, "snapshot_epoch", 0xfffe);
    assert_tabsent(&t, r, "create_timestamp");

    /* an update; and a tombstone of a snapshot key */
    bb uk = {0};
    share_key(&uk, 1);
    bb u = {0};
    bb_i16(&u, 0);
    bb_i32(&u, 1);
    bb_i32(&u, -1);
    bb_i64(&u, -1);
    bb_uvar(&u, 1);
    bb_uvar(&u, 0);
    kf_dtree_reset(&t);
    assert_int_equal(kf_coord_decode(KF_COORD_SHARE, uk.b, (int32_t)uk.n, u.b, (int32_t)u.n, &t, &cr), KF_OK);
    assert_string_equal(cr.record_type, "share_update");
    kf_dtree_reset(&t);
    assert_int_equal(kf_coord_decode(KF_COORD_SHARE, k.b, (int32_t)k.n, NULL, -1, &t, &cr), KF_OK);
    assert_true(cr.tombstone);
    /* key type 2 is unknown */
    k.b[1] = 2;
    kf_dtree_reset(&t);
    assert_int_equal(kf_coord_decode(KF_COORD_SHARE, k.b, (int32_t)k.n, v.b, (int32_t)v.n, &t, &cr),
                     KF_ERR_UNSUPPORTED);
    kf_dtree_free(&t);
}

static void test_remote_records(void **state)
{
    (void)state;
    kf_dtree t = {0};
    kf_kraft_record kr;
    bb v = {0};
    header(&v, 0, 0);
    bb_cstr(&v, "orders"); /* TopicIdPartition inline */
    bb_uuid(&v, U1);
    bb_i32(&v, 2);
    bb_uvar(&v, 0);
    bb_uuid(&v, U2); /* segment id */
    bb_uvar(&v, 0);
    bb_i64(&v, 0);
    bb_i64(&v, 99);
    bb_i32(&v, 1);
    bb_i64(&v, 5);
    bb_i64(&v, 6);
    bb_uvar(&v, 2);
    bb_i32(&v, 3);
    bb_i64(&v, 0);
    bb_uvar(&v, 0);
    bb_i32(&v, 4096);
    bb_cnull(&v);
    bb_u8(&v, 0);
    bb_uvar(&v, 1);
    bb_uvar(&v, 0);
    bb_uvar(&v, 1);
    bb_u8(&v, 1);
    kf_dtree_reset(&t);
    assert_int_equal(kf_kraft_decode(KF_KRAFT_REMOTE, NULL, -1, v.b, (int32_t)v.n, &t, &kr), KF_OK);
    assert_string_equal(kr.record_type, "remote_log_segment_metadata");
    const kf_dnode *r = tnode(&t, kr.root);
    const kf_dnode *sid = tfld(&t, r, "remote_log_segment_id");
    assert_tstr(&t, tfld(&t, sid, "topic_id_partition"), "name", "orders");
    assert_memory_equal(tfld(&t, sid, "id")->p, U2, 16);
    assert_tint(&t, r, "end_offset", 99);
    assert_int_equal(tfld(&t, r, "custom_metadata")->kind, KF_V_NULL);
    assert_tint(&t, r, "txn_index_empty", 1);

    bb d = {0};
    header(&d, 2, 0);
    bb_cstr(&d, "orders");
    bb_uuid(&d, U1);
    bb_i32(&d, 2);
    bb_uvar(&d, 0);
    bb_i32(&d, 1);
    bb_i64(&d, 7);
    bb_u8(&d, 1);
    bb_uvar(&d, 0);
    kf_dtree_reset(&t);
    assert_int_equal(kf_kraft_decode(KF_KRAFT_REMOTE, NULL, -1, d.b, (int32_t)d.n, &t, &kr), KF_OK);
    assert_string_equal(kr.record_type, "remote_partition_delete_metadata");
    assert_tint(&t, tnode(&t, kr.root), "remote_partition_delete_state", 1);
    /* apiKey 4 is not a remote-log-metadata record */
    d.b[1] = 4;
    kf_dtree_reset(&t);
    assert_int_equal(kf_kraft_decode(KF_KRAFT_REMOTE, NULL, -1, d.b, (int32_t)d.n, &t, &kr), KF_ERR_UNSUPPORTED);
    kf_dtree_free(&t);
}

/* ---- bad input -------------------------------------------------------------------------- */

static void test_envelope_errors(void **state)
{
    (void)state;
    kf_dtree t = {0};
    kf_kraft_record kr;
    bb v = {0};
    bb_hex(&v, "00 02 00 | 09 6d792d746f706963 | a5c80182e3804a2ab7ba3913ac6bbf43 | 00");
    assert_null(md(&t, &v, &kr, KF_ERR_UNSUPPORTED)); /* frame version 0 */
    v.b[0] = 2;
    assert_null(md(&t, &v, &kr, KF_ERR_UNSUPPORTED));
    v.b[0] = 1;
    v.b[1] = 13; /* never assigned */
    assert_null(md(&t, &v, &kr, KF_ERR_UNSUPPORTED));
    assert_null(kr.record_type);
    v.b[1] = 2;
    v.b[2] = 1; /* TopicRecord v1 does not exist */
    assert_null(md(&t, &v, &kr, KF_ERR_UNSUPPORTED));
    /* header numbers above 32767, a varint of 6 bytes, a value ending inside the header */
    bb big = {0};
    bb_uvar(&big, 1);
    bb_uvar(&big, 40000);
    bb_uvar(&big, 0);
    assert_null(md(&t, &big, &kr, KF_ERR_CORRUPT));
    bb bad = {0};
    bb_hex(&bad, "01 ff ff ff ff 7f 00");
    assert_null(md(&t, &bad, &kr, KF_ERR_CORRUPT));
    bb cut = {0};
    bb_hex(&cut, "01 82");
    assert_null(md(&t, &cut, &kr, KF_ERR_TRUNCATED));
    /* a null value; a key where none belongs (decoded, flagged) */
    kf_dtree_reset(&t);
    assert_int_equal(kf_kraft_decode(KF_KRAFT_METADATA, NULL, -1, NULL, -1, &t, &kr), KF_ERR_CORRUPT);
    v.b[2] = 0;
    kf_dtree_reset(&t);
    assert_int_equal(kf_kraft_decode(KF_KRAFT_METADATA, v.b, 1, v.b, (int32_t)v.n, &t, &kr), KF_OK);
    assert_true(kr.key_present);
    /* trailing bytes */
    bb_u8(&v, 0);
    assert_non_null(md(&t, &v, &kr, KF_ERR_CORRUPT));
    assert_false(kr.ok);
    assert_non_null(strstr(kr.err, "trailing"));
    kf_dtree_free(&t);
}

/* Every prefix of a record is an error, never a crash or a clean decode;
 * every length byte blown up is an error. */
static void test_cut_everywhere(void **state)
{
    (void)state;
    kf_dtree t = {0};
    kf_kraft_record kr;
    bb v = {0};
    bb_hex(&v, "01 00 02 | 00000001 | 00 | ad17addebaf54b91baf887e81e8d84a3 | 0000000000000002 |"
               " 02 0a 504c41494e54455854 0a 6c6f63616c686f7374 2384 0000 00 |"
               " 02 11 6d657461646174612e76657273696f6e 0001 0008 00 | 00 | 00 | 00 | 00");
    for (size_t n = 0; n < v.n; n++) {
        kf_dtree_reset(&t);
        int rc = kf_kraft_decode(KF_KRAFT_METADATA, NULL, -1, v.b, (int32_t)n, &t, &kr);
        assert_true(rc == KF_ERR_TRUNCATED || rc == KF_ERR_CORRUPT);
        assert_false(kr.ok);
    }
    for (size_t i = 3; i < v.n; i++) {
        bb w = v;
        w.b[i] = 0xfe;
        kf_dtree_reset(&t);
        int rc = kf_kraft_decode(KF_KRAFT_METADATA, NULL, -1, w.b, (int32_t)w.n, &t, &kr);
        (void)rc; /* some bytes are plain values; the walk must stay inside the value */
        for (uint32_t k = 0; k < t.n; k++)
            if (t.nodes[k].p)
                assert_true(t.nodes[k].p >= w.b && t.nodes[k].p + t.nodes[k].len <= w.b + w.n);
    }
    kf_dtree_free(&t);
}

/* ---- the tables against the spec's catalogue (kraft-metadata.md §2.1, §3, §7) --------------- */

static void snake_of(const char *camel, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; camel[i] && o + 2 < cap; i++) {
        char c = camel[i];
        bool upper = c >= 'A' && c <= 'Z';
        if (upper && i > 0 && !(camel[i - 1] >= 'A' && camel[i - 1] <= 'Z'))
            out[o++] = '_';
        out[o++] = upper ? (char)(c - 'A' + 'a') : c;
    }
    out[o] = 0;
}

static void test_tables(void **state)
{
    (void)state;
    static const struct {
        int key;
        int vmax;
    } versions[] = {{0, 4}, {1, 0}, {2, 0}, {3, 2}, {4, 0}, {5, 2}, {6, 0}, {7, 0}, {8, 0}, {9, 0},
                    {10, 0}, {11, 0}, {12, 0}, {14, 0}, {15, 0}, {16, 0}, {17, 3}, {18, 0}, {19, 0},
                    {20, 0}, {21, 0}, {22, 0}, {23, 0}, {24, 0}, {25, 0}, {26, 0}, {27, 0}, {28, 0}, {29, 0}};
    uint32_t n;
    const cs_record *recs = kf_cs_metadata_records(&n);
    assert_int_equal(n, sizeof versions / sizeof versions[0]);
    for (size_t i = 0; i < n; i++) {
        const cs_record *r = kf_cs_find(recs, n, (int16_t)versions[i].key);
        assert_non_null(r);
        assert_int_equal(r->value->v_min, 0);
        assert_int_equal(r->value->v_max, versions[i].vmax);
        assert_int_equal(r->value->flex_min, 0);
        /* record_type: the snake_case schema name without "Record" */
        char name[96], snake[96];
        snprintf(name, sizeof name, "%s", r->value->name);
        char *rec = strstr(name, "Record");
        assert_non_null(rec);
        *rec = 0;
        snake_of(name, snake, sizeof snake);
        if (versions[i].key == 21)
            assert_string_equal(r->record_type, "zk_migration_state");
        else
            assert_string_equal(r->record_type, snake);
    }
    assert_null(kf_cs_find(recs, n, 13));
    const cs_record *c = kf_cs_control_records(&n);
    assert_int_equal(n, 5);
    assert_string_equal(kf_cs_find(c, n, 6)->record_type, "kraft_voters");
    const cs_record *rm = kf_cs_remote_records(&n);
    assert_int_equal(n, 4);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(rm[i].type, (int16_t)i);
    /* tags unique within each struct of the metadata tables */
    recs = kf_cs_metadata_records(&n);
    for (uint32_t i = 0; i < n; i++) {
        const cs_struct *st = recs[i].value->root;
        assert_true(st->n_fields <= CS_MAX_FIELDS);
        for (uint16_t a = 0; a < st->n_fields; a++)
            for (uint16_t b = a + 1; b < st->n_fields; b++)
                if (st->fields[a].tag >= 0)
                    assert_int_not_equal(st->fields[a].tag, st->fields[b].tag);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_topic_record),
        cmocka_unit_test(test_real_register_broker_v2),
        cmocka_unit_test(test_real_partition_and_config),
        cmocka_unit_test(test_real_change_records),
        cmocka_unit_test(test_real_control_records),
        cmocka_unit_test(test_register_broker_v0_and_v4),
        cmocka_unit_test(test_partition_v2_and_change_v2),
        cmocka_unit_test(test_misc_records),
        cmocka_unit_test(test_feature_level_old_layout),
        cmocka_unit_test(test_voters_and_kraft_version),
        cmocka_unit_test(test_secrets_marked),
        cmocka_unit_test(test_share_layouts),
        cmocka_unit_test(test_remote_records),
        cmocka_unit_test(test_envelope_errors),
        cmocka_unit_test(test_cut_everywhere),
        cmocka_unit_test(test_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
