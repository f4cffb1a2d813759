/* test_metadata.c: unit tests for the metadata image (md_image.c), the
 * metadata job (metadata.c: snapshot choice, --as-of-offset, metadata
 * transactions, damaged snapshots) and the KRaft checks (kraft_check.c,
 * quorum_state.c). Records are built by hand from kraft-metadata.md's
 * layouts; the job tests write small snapshot and log files of hand-built
 * v2 batches (CRC-32C from the library) into a temporary directory. The
 * expected states follow the replay rules of kraft-metadata.md §5. */
#include "testutil.h"

#include <sys/stat.h>
#include <unistd.h>

#include "bytebuf.h"
#include "kraft/md_image.h"

static const uint8_t T1[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
static const uint8_t T2[16] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
static const uint8_t T3[16] = {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3};

static void header(bb *b, int key, int version)
{
    bb_uvar(b, 1);
    bb_uvar(b, (uint32_t)key);
    bb_uvar(b, (uint32_t)version);
}

/* ---- records ----------------------------------------------------------------------------- */

static bb topic_rec(const char *name, const uint8_t id[16])
{
    bb v = {0};
    header(&v, 2, 0);
    bb_cstr(&v, name);
    bb_uuid(&v, id);
    bb_uvar(&v, 0);
    return v;
}

static bb partition_rec(const uint8_t id[16], int32_t p, int nrep, const int32_t *reps, int32_t leader, int version)
{
    bb v = {0};
    header(&v, 3, version);
    bb_i32(&v, p);
    bb_uuid(&v, id);
    bb_cints(&v, nrep, reps);
    bb_cints(&v, nrep, reps);
    bb_cints(&v, 0, NULL);
    bb_cints(&v, 0, NULL);
    bb_i32(&v, leader);
    bb_i32(&v, 0);
    bb_i32(&v, 0);
    if (version >= 1) {
        bb_uvar(&v, (uint32_t)nrep + 1);
        for (int i = 0; i < nrep; i++)
            bb_uuid(&v, T3);
    }
    if (version >= 2) { /* ELR [9] */
        bb_uvar(&v, 1);
        bb_uvar(&v, 1);
        bb_uvar(&v, 5);
        int32_t e = 9;
        bb_cints(&v, 1, &e);
    } else {
        bb_uvar(&v, 0);
    }
    return v;
}

/* PartitionChangeRecord v0 with a leader (INT32_MIN: no leader tag) and an ISR (n < 0: none) */
static bb change_rec(const uint8_t id[16], int32_t p, int32_t leader, int nisr, const int32_t *isr)
{
    bb v = {0};
    header(&v, 5, 0);
    bb_i32(&v, p);
    bb_uuid(&v, id);
    int ntags = (leader != INT32_MIN) + (nisr >= 0);
    bb_uvar(&v, (uint32_t)ntags);
    if (nisr >= 0) {
        bb_uvar(&v, 0);
        bb_uvar(&v, 1 + 4 * (uint32_t)nisr);
        bb_cints(&v, nisr, isr);
    }
    if (leader != INT32_MIN) {
        bb_uvar(&v, 1);
        bb_uvar(&v, 4);
        bb_i32(&v, leader);
    }
    return v;
}

static bb config_rec(int8_t type, const char *res, const char *name, const char *value)
{
    bb v = {0};
    header(&v, 4, 0);
    bb_u8(&v, (uint8_t)type);
    bb_cstr(&v, res);
    bb_cstr(&v, name);
    if (value)
        bb_cstr(&v, value);
    else
        bb_cnull(&v);
    bb_uvar(&v, 0);
    return v;
}

static bb feature_rec(const char *name, int16_t level)
{
    bb v = {0};
    header(&v, 12, 0);
    bb_cstr(&v, name);
    bb_i16(&v, level);
    bb_uvar(&v, 0);
    return v;
}

static bb broker_rec(int32_t id, int64_t epoch)
{
    bb v = {0};
    header(&v, 0, 1);
    bb_i32(&v, id);
    bb_uuid(&v, T1);
    bb_i64(&v, epoch);
    bb_uvar(&v, 1);
    bb_uvar(&v, 1);
    bb_cnull(&v);
    bb_u8(&v, 1);
    bb_u8(&v, 0);
    bb_uvar(&v, 0);
    return v;
}

static bb brc_rec(int32_t id, int64_t epoch, int8_t fenced, int8_t cs)
{
    bb v = {0};
    header(&v, 17, 1);
    bb_i32(&v, id);
    bb_i64(&v, epoch);
    bb_uvar(&v, (uint32_t)((fenced != 0) + (cs != 0)));
    if (fenced) {
        bb_uvar(&v, 0);
        bb_uvar(&v, 1);
        bb_u8(&v, (uint8_t)fenced);
    }
    if (cs) {
        bb_uvar(&v, 1);
        bb_uvar(&v, 1);
        bb_u8(&v, (uint8_t)cs);
    }
    return v;
}

static bb simple_rec(int key, bool with_uuid, const uint8_t id[16])
{
    bb v = {0};
    header(&v, key, 0);
    if (with_uuid)
        bb_uuid(&v, id);
    bb_uvar(&v, 0);
    return v;
}

static bb clear_elr_rec(const char *topic)
{
    bb v = {0};
    header(&v, 28, 0);
    bb_cstr(&v, topic);
    bb_uvar(&v, 0);
    return v;
}

static bb producer_ids_rec(int32_t broker, int64_t epoch, int64_t next)
{
    bb v = {0};
    header(&v, 15, 0);
    bb_i32(&v, broker);
    bb_i64(&v, epoch);
    bb_i64(&v, next);
    bb_uvar(&v, 0);
    return v;
}

/* ---- applying to an image ------------------------------------------------------------------- */

/* why the last record applied changed nothing */
static md_why last_why;

/* what Kafka's TopicDelta of no image throws (a record of a topic the image lacks) */
#define NPE_NO_TOPIC \
    "java.lang.NullPointerException: Cannot invoke \"org.apache.kafka.image.TopicImage.partitions()\" because " \
    "\"this.image\" is null"

static md_apply apply(md_image *im, const bb *v, bool from_snapshot)
{
    kf_dtree t = {0};
    kf_kraft_record kr;
    int rc = kf_kraft_decode(KF_KRAFT_METADATA, NULL, -1, v->b, (int32_t)v->n, &t, &kr);
    if (rc != KF_OK)
        fail_msg("decode: %s", kr.err);
    md_apply a = md_image_apply(im, kr.api_key, kr.version, &t, kr.root, from_snapshot, &last_why);
    kf_dtree_free(&t);
    return a;
}

static const kf_md_partition *part(const md_image *im, const uint8_t id[16], int32_t p)
{
    const kf_md_topic *t = htab_get(&im->topics, id, 16);
    assert_non_null(t);
    for (uint32_t i = 0; i < t->nparts; i++)
        if (t->parts[i].id == p)
            return &t->parts[i];
    fail_msg("no partition %d", p);
    return NULL;
}

static void test_partition_rules(void **state)
{
    (void)state;
    md_image im;
    md_image_init(&im);
    int32_t reps[] = {1, 2, 3}, isr2[] = {1, 2};
    bb r = topic_rec("orders", T1);
    assert_int_equal(apply(&im, &r, false), MD_APPLIED);
    r = partition_rec(T1, 1, 3, reps, 2, 0);
    assert_int_equal(apply(&im, &r, false), MD_APPLIED);
    r = partition_rec(T1, 0, 3, reps, 1, 0);
    assert_int_equal(apply(&im, &r, false), MD_APPLIED);
    const kf_md_topic *t = htab_get(&im.topics, T1, 16);
    assert_int_equal(t->nparts, 2);
    assert_int_equal(t->parts[0].id, 0); /* kept sorted */
    const kf_md_partition *p = part(&im, T1, 0);
    assert_false(p->has_directories); /* v0: never set */
    assert_int_equal(p->directories.n, 3); /* but kept as MIGRATING per replica, as Kafka does */
    /* an ISR change: partition epoch +1, leader and its epoch unchanged */
    r = change_rec(T1, 0, INT32_MIN, 2, isr2);
    assert_int_equal(apply(&im, &r, false), MD_APPLIED);
    p = part(&im, T1, 0);
    assert_int_equal(p->isr.n, 2);
    assert_int_equal(p->leader, 1);
    assert_int_equal(p->leader_epoch, 0);
    assert_int_equal(p->partition_epoch, 1);
    /* leader -> none: leader -1, leader epoch +1 */
    r = change_rec(T1, 0, -1, -1, NULL);
    assert_int_equal(apply(&im, &r, false), MD_APPLIED);
    p = part(&im, T1, 0);
    assert_int_equal(p->leader, -1);
    assert_int_equal(p->leader_epoch, 1);
    assert_int_equal(p->partition_epoch, 2);
    assert_int_equal(p->isr.n, 2);
    /* a change to a partition or topic that does not exist is not applied:
     * Kafka's TopicDelta throws on it (a topic it lacks: on its null image) */
    r = change_rec(T1, 7, 1, -1, NULL);
    assert_int_equal(apply(&im, &r, false), MD_NOT_APPLIED);
    assert_string_equal(last_why.thrown,
                        "java.lang.RuntimeException: Unable to find partition AQEBAQEBAQEBAQEBAQEBAQ:7");
    r = change_rec(T2, 0, 1, -1, NULL);
    assert_int_equal(apply(&im, &r, false), MD_NOT_APPLIED);
    assert_string_equal(last_why.msg, "no topic with id AgICAgICAgICAgICAgICAg");
    assert_string_equal(last_why.thrown, NPE_NO_TOPIC);
    r = partition_rec(T2, 0, 3, reps, 1, 0);
    assert_int_equal(apply(&im, &r, false), MD_NOT_APPLIED);
    assert_string_equal(last_why.thrown, NPE_NO_TOPIC);
    /* a v1 PartitionRecord sets directories; v2 carries ELR, which ClearElr empties */
    r = topic_rec("clicks", T2);
    apply(&im, &r, false);
    r = partition_rec(T2, 0, 2, reps, 1, 2);
    assert_int_equal(apply(&im, &r, false), MD_APPLIED);
    p = part(&im, T2, 0);
    assert_true(p->has_directories);
    assert_int_equal(p->elr.n, 1);
    r = clear_elr_rec("nope");
    assert_int_equal(apply(&im, &r, false), MD_NOT_APPLIED);
    assert_string_equal(last_why.thrown,
                        "java.lang.RuntimeException: Unable to clear elr for topic with name nope: no such topic "
                        "found.");
    r = clear_elr_rec("");
    assert_int_equal(apply(&im, &r, false), MD_APPLIED);
    assert_string_equal(last_why.thrown, "");
    p = part(&im, T2, 0);
    assert_int_equal(p->elr.n, 0);
    assert_int_equal(p->partition_epoch, 1);
    assert_int_equal(part(&im, T1, 1)->partition_epoch, 0); /* no ELR there: untouched */
    /* a second TopicRecord for an id starts it over with no partitions */
    r = topic_rec("clicks", T2);
    apply(&im, &r, false);
    assert_int_equal(((const kf_md_topic *)htab_get(&im.topics, T2, 16))->nparts, 0);
    md_image_free(&im);
}

static void test_topic_removal_and_configs(void **state)
{
    (void)state;
    md_image im;
    md_image_init(&im);
    bb r = topic_rec("orders", T1);
    apply(&im, &r, false);
    r = config_rec(2, "orders", "retention.ms", "1000");
    apply(&im, &r, false);
    r = config_rec(2, "orders", "cleanup.policy", "delete");
    apply(&im, &r, false);
    r = config_rec(4, "", "log.retention.ms", "5");
    apply(&im, &r, false);
    r = config_rec(4, "", "log.retention.ms", "6"); /* replaces */
    apply(&im, &r, false);
    md_views v;
    assert_true(md_views_build(&v, &im));
    assert_int_equal(v.configs.n, 3);
    const kf_md_config *first = v.configs.v[0], *last = v.configs.v[2];
    assert_int_equal(first->resource_type, 2); /* topic before broker */
    assert_string_equal(first->name, "cleanup.policy");
    assert_string_equal(last->value, "6");
    md_views_free(&v);
    /* a null value deletes the key */
    r = config_rec(2, "orders", "retention.ms", NULL);
    apply(&im, &r, false);
    assert_true(md_views_build(&v, &im));
    assert_int_equal(v.configs.n, 2);
    md_views_free(&v);
    /* removing the topic drops it and its configs */
    r = simple_rec(9, true, T1);
    assert_int_equal(apply(&im, &r, false), MD_APPLIED);
    assert_int_equal(apply(&im, &r, false), MD_NOT_APPLIED);
    assert_string_equal(last_why.thrown, "java.lang.RuntimeException: Unable to delete topic with id "
                                         "AQEBAQEBAQEBAQEBAQEBAQ: no such topic found.");
    assert_true(md_views_build(&v, &im));
    assert_int_equal(v.topics.n, 0);
    assert_int_equal(v.configs.n, 1);
    first = v.configs.v[0];
    assert_int_equal(first->resource_type, 4);
    md_views_free(&v);
    assert_null(htab_get(&im.topic_names, "orders", 6));
    md_image_free(&im);
}

static void test_brokers_features_pids(void **state)
{
    (void)state;
    md_image im;
    md_image_init(&im);
    bb r = broker_rec(1, 10);
    assert_int_equal(apply(&im, &r, false), MD_APPLIED);
    uint8_t k[4];
    int32_t id = 1;
    memcpy(k, &id, 4);
    kf_md_broker *b = htab_get(&im.brokers, k, 4);
    assert_true(b->fenced);
    r = brc_rec(1, 10, -1, 0); /* unfence */
    assert_int_equal(apply(&im, &r, false), MD_APPLIED);
    assert_false(b->fenced);
    r = brc_rec(1, 11, 1, 0); /* wrong epoch */
    assert_int_equal(apply(&im, &r, false), MD_NOT_APPLIED);
    assert_string_equal(last_why.thrown, "java.lang.IllegalStateException: Tried to change broker 1, but the given "
                                         "epoch, 11, did not match the current broker epoch, 10");
    assert_false(b->fenced);
    r = brc_rec(1, 10, 0, 1); /* controlled shutdown only */
    assert_int_equal(apply(&im, &r, false), MD_APPLIED);
    assert_true(b->in_controlled_shutdown);
    assert_false(b->fenced);
    r = brc_rec(1, 10, 3, 0); /* no such fencing value */
    assert_int_equal(apply(&im, &r, false), MD_NOT_APPLIED);
    assert_non_null(strstr(last_why.thrown, "unknown value for fenced field: 3"));
    r = brc_rec(2, 10, 1, 0);
    assert_int_equal(apply(&im, &r, false), MD_NOT_APPLIED);
    assert_string_equal(last_why.msg, "cannot change broker 2: it is not registered");
    assert_string_equal(last_why.thrown,
                        "java.lang.IllegalStateException: Tried to change broker 2, but that broker was not "
                        "registered.");
    /* features: metadata.version apart, kraft.version ignored, level 0 removes */
    r = feature_rec("metadata.version", 14);
    apply(&im, &r, false);
    r = feature_rec("kraft.version", 1);
    apply(&im, &r, false);
    r = feature_rec("group.version", 1);
    apply(&im, &r, false);
    r = feature_rec("streams.version", 1);
    apply(&im, &r, false);
    r = feature_rec("streams.version", 0);
    apply(&im, &r, false);
    assert_true(im.has_mv);
    assert_int_equal(im.mv, 14);
    md_views v;
    assert_true(md_views_build(&v, &im));
    assert_int_equal(v.features.n, 1);
    const kf_md_feature *f = v.features.v[0];
    assert_string_equal(f->name, "group.version");
    md_views_free(&v);
    /* producer ids: the last record's broker, -1/-1 from a snapshot */
    r = producer_ids_rec(3, 7, 2000);
    apply(&im, &r, false);
    assert_int_equal(im.next_producer_id, 2000);
    assert_int_equal(im.pid_broker_id, 3);
    apply(&im, &r, true);
    assert_int_equal(im.pid_broker_id, -1);
    assert_int_equal(im.pid_broker_epoch, -1);
    /* unregistering */
    r = simple_rec(1, false, NULL);
    bb u = {0};
    header(&u, 1, 0);
    bb_i32(&u, 1);
    bb_i64(&u, 10);
    bb_uvar(&u, 0);
    assert_int_equal(apply(&im, &u, false), MD_APPLIED);
    assert_null(htab_get(&im.brokers, k, 4));
    md_image_free(&im);
}

/* Every kind of object the image holds, copied deeply (md_image.c's lists
 * of what each owns): the copy outlives the original, owns its own memory
 * (ASan: no leak, no double free) and keeps every value. */
static void test_image_copy_every_kind(void **state)
{
    (void)state;
    md_image im, cp;
    md_image_init(&im);
    kf_md_broker *b = calloc(1, sizeof *b);
    b->id = 3;
    b->rack = md_dups("rack-a");
    b->nlisteners = 2;
    b->listeners = calloc(2, sizeof *b->listeners);
    b->listeners[0] = (kf_md_listener){md_dups("PLAINTEXT"), md_dups("h1"), 9092, 0};
    b->listeners[1] = (kf_md_listener){md_dups("SSL"), NULL, 9093, 1};
    b->nfeatures = 1;
    b->features = calloc(1, sizeof *b->features);
    b->features[0] = (kf_md_version_range){md_dups("metadata.version"), 1, 20};
    b->log_dirs.n = 1;
    b->log_dirs.v = calloc(1, 16);
    memcpy(b->log_dirs.v[0], T1, 16);
    assert_true(md_put(&im.brokers, "b3", 2, b, (void (*)(void *))md_broker_free));
    kf_md_controller *c = calloc(1, sizeof *c);
    c->nlisteners = 1;
    c->listeners = calloc(1, sizeof *c->listeners);
    c->listeners[0] = (kf_md_listener){md_dups("CONTROLLER"), md_dups("h2"), 9094, -1};
    assert_true(md_put(&im.controllers, "c1", 2, c, (void (*)(void *))md_controller_free));
    md_quota_entity *qe = calloc(1, sizeof *qe);
    qe->nentity = 1;
    qe->entity = calloc(1, sizeof *qe->entity);
    qe->entity[0] = (kf_md_quota_entity){md_dups("user"), NULL};
    qe->n = qe->cap = 2;
    qe->q = calloc(2, sizeof *qe->q);
    for (int i = 0; i < 2; i++) {
        qe->q[i] = calloc(1, sizeof *qe->q[i]);
        *qe->q[i] = (kf_md_quota){qe->entity, 1, md_dups(i ? "producer_byte_rate" : "consumer_byte_rate"), i + 0.5};
    }
    assert_true(md_put(&im.quotas, "q", 1, qe, (void (*)(void *))md_quota_entity_free));
    kf_md_scram *sc = calloc(1, sizeof *sc);
    sc->name = md_dups("alice");
    sc->salt = md_dupmem("salt", 4);
    sc->salt_len = 4;
    assert_true(md_put(&im.scram, "s", 1, sc, (void (*)(void *))md_scram_free));
    kf_md_token *tk = calloc(1, sizeof *tk);
    tk->token_id = md_dups("tok");
    tk->owner = md_dups("User:alice");
    tk->nrenewers = 2;
    tk->renewers = calloc(2, sizeof *tk->renewers);
    tk->renewers[0] = md_dups("User:bob");
    tk->renewers[1] = md_dups("User:carol");
    assert_true(md_put(&im.tokens, "t", 1, tk, (void (*)(void *))md_token_free));
    kf_md_acl *a = calloc(1, sizeof *a);
    a->resource_name = md_dups("orders");
    a->principal = md_dups("User:alice");
    a->host = md_dups("*");
    assert_true(md_put(&im.acls, "a", 1, a, (void (*)(void *))md_acl_free));
    kf_md_feature *f = calloc(1, sizeof *f);
    f->name = md_dups("group.version");
    f->level = 1;
    assert_true(md_put(&im.features, "f", 1, f, (void (*)(void *))md_feature_free));

    assert_true(md_image_copy(&cp, &im));
    md_image_free(&im);

    const kf_md_broker *cb = htab_get(&cp.brokers, "b3", 2);
    assert_non_null(cb);
    assert_int_equal(cb->id, 3);
    assert_string_equal(cb->rack, "rack-a");
    assert_int_equal(cb->nlisteners, 2);
    assert_string_equal(cb->listeners[0].host, "h1");
    assert_null(cb->listeners[1].host);
    assert_int_equal(cb->listeners[1].port, 9093);
    assert_string_equal(cb->features[0].name, "metadata.version");
    assert_int_equal(cb->features[0].max, 20);
    assert_int_equal(cb->log_dirs.n, 1);
    assert_memory_equal(cb->log_dirs.v[0], T1, 16);
    assert_int_equal(cb->cordoned_log_dirs.n, 0);
    const kf_md_controller *cc = htab_get(&cp.controllers, "c1", 2);
    assert_string_equal(cc->listeners[0].name, "CONTROLLER");
    assert_int_equal(cc->nfeatures, 0);
    const md_quota_entity *cq = htab_get(&cp.quotas, "q", 1);
    assert_int_equal(cq->n, 2);
    assert_int_equal(cq->cap, 2);
    assert_string_equal(cq->entity[0].type, "user");
    assert_null(cq->entity[0].name);
    for (int i = 0; i < 2; i++) {
        assert_ptr_equal(cq->q[i]->entity, cq->entity);
        assert_int_equal(cq->q[i]->nentity, 1);
    }
    assert_string_equal(cq->q[1]->key, "producer_byte_rate");
    assert_true(cq->q[1]->value == 1.5);
    const kf_md_scram *cs = htab_get(&cp.scram, "s", 1);
    assert_string_equal(cs->name, "alice");
    assert_int_equal(cs->salt_len, 4);
    assert_memory_equal(cs->salt, "salt", 4);
    assert_null(cs->stored_key);
    const kf_md_token *ct = htab_get(&cp.tokens, "t", 1);
    assert_int_equal(ct->nrenewers, 2);
    assert_string_equal(ct->renewers[1], "User:carol");
    assert_null(ct->requester);
    const kf_md_acl *ca = htab_get(&cp.acls, "a", 1);
    assert_string_equal(ca->host, "*");
    const kf_md_feature *cf = htab_get(&cp.features, "f", 1);
    assert_string_equal(cf->name, "group.version");
    assert_int_equal(cf->level, 1);
    md_image_free(&cp);
}

static void test_image_copy(void **state)
{
    (void)state;
    md_image im, cp;
    md_image_init(&im);
    int32_t reps[] = {1, 2};
    bb r = topic_rec("orders", T1);
    apply(&im, &r, false);
    r = partition_rec(T1, 0, 2, reps, 1, 1);
    apply(&im, &r, false);
    r = config_rec(2, "orders", "retention.ms", "1");
    apply(&im, &r, false);
    r = broker_rec(1, 1);
    apply(&im, &r, false);
    assert_true(md_image_copy(&cp, &im));
    /* change the original: the copy keeps the old state */
    r = change_rec(T1, 0, 2, -1, NULL);
    apply(&im, &r, false);
    r = simple_rec(9, true, T1);
    apply(&im, &r, false);
    assert_null(htab_get(&im.topics, T1, 16));
    assert_int_equal(part(&cp, T1, 0)->leader, 1);
    const kf_md_topic *t = htab_get(&cp.topic_names, "orders", 6);
    assert_non_null(t);
    assert_ptr_equal(t, htab_get(&cp.topics, T1, 16));
    md_views v;
    assert_true(md_views_build(&v, &cp));
    assert_int_equal(v.configs.n, 1);
    assert_int_equal(v.brokers.n, 1);
    md_views_free(&v);
    md_image_free(&cp);
    md_image_free(&im);
}

/* ---- files: batches, snapshots, logs ---------------------------------------------------------- */

typedef struct rec_in {
    bool control;
    int16_t ctl_type;
    bb value;
} rec_in;

/* One magic-2 batch of records at base offset base, leader epoch epoch
 * (testutil.h's tb_batch_of; a control record's key is version 0 and its
 * type), appended to out. */
static void batch(bb *out, int64_t base, int32_t epoch, const rec_in *recs, int n)
{
    uint8_t keys[4][4] = {{0}};
    tb_rec rs[4];
    size_t need = 61;
    assert_true(n <= 4);
    for (int i = 0; i < n; i++) {
        rs[i] = (tb_rec){NULL, -1, recs[i].value.b, (int32_t)recs[i].value.n};
        if (recs[i].control) {
            tb_put16(keys[i] + 2, (uint16_t)recs[i].ctl_type);
            rs[i].key = keys[i];
            rs[i].klen = 4;
        }
        need += recs[i].value.n + 4 + 20;
    }
    assert_true(out->n + need <= sizeof out->b);
    tb_head h = {base, epoch, recs[0].control ? KF_ATTR_CONTROL : 0, 1700000000000, -1, -1, -1};
    out->n += tb_batch_of(out->b + out->n, &h, rs, n);
}

static bb ctl_value(int type)
{
    bb v = {0};
    bb_i16(&v, 0);
    if (type == KF_CONTROL_SNAPSHOT_HEADER)
        bb_i64(&v, 0);
    bb_uvar(&v, 0);
    return v;
}

static void write_file(const char *path, const bb *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b->b, 1, n, f), n);
    fclose(f);
}

static char tmpdir[256];
static char mdir[300];

static void path_of(char *out, size_t cap, const char *name) { snprintf(out, cap, "%s/%s", mdir, name); }

/* A snapshot ending at offset 5 (state: MV 14, topic orders with one
 * partition led by 1), and a log 0..11:
 *   0..4  what the snapshot covers (topic orders, partition, MV, no-ops)
 *   5     leader of orders-0 -> none
 *   6     begin_transaction, 7 topic t2, 8 abort_transaction
 *   9     a no-op
 *   10    begin_transaction, 11 topic t3 (open at the end) */
static bb snapshot_bytes(size_t *footer_at)
{
    bb s = {0};
    rec_in h = {true, KF_CONTROL_SNAPSHOT_HEADER, ctl_value(KF_CONTROL_SNAPSHOT_HEADER)};
    batch(&s, 0, 1, &h, 1);
    int32_t reps[] = {1};
    rec_in d[3] = {{false, 0, feature_rec("metadata.version", 14)},
                   {false, 0, topic_rec("orders", T1)},
                   {false, 0, partition_rec(T1, 0, 1, reps, 1, 0)}};
    batch(&s, 1, 1, d, 3);
    *footer_at = s.n;
    rec_in f = {true, KF_CONTROL_SNAPSHOT_FOOTER, ctl_value(KF_CONTROL_SNAPSHOT_FOOTER)};
    batch(&s, 4, 1, &f, 1);
    return s;
}

/* snapshot_bytes, and the path of its file in p (cap bytes). */
static bb the_snapshot(size_t *footer_at, char *p, size_t cap)
{
    path_of(p, cap, "00000000000000000005-0000000001.checkpoint");
    return snapshot_bytes(footer_at);
}

static void write_log(void)
{
    bb log = {0};
    int32_t reps[] = {1};
    rec_in a[2] = {{false, 0, feature_rec("metadata.version", 14)}, {false, 0, topic_rec("orders", T1)}};
    batch(&log, 0, 1, a, 2);
    rec_in b[3] = {{false, 0, partition_rec(T1, 0, 1, reps, 1, 0)},
                   {false, 0, simple_rec(20, false, NULL)},
                   {false, 0, simple_rec(20, false, NULL)}};
    batch(&log, 2, 1, b, 3);
    rec_in c[1] = {{false, 0, change_rec(T1, 0, -1, -1, NULL)}};
    batch(&log, 5, 2, c, 1);
    rec_in d[3] = {{false, 0, simple_rec(23, false, NULL)},
                   {false, 0, topic_rec("t2", T2)},
                   {false, 0, simple_rec(25, false, NULL)}};
    batch(&log, 6, 2, d, 3);
    rec_in e[1] = {{false, 0, simple_rec(20, false, NULL)}};
    batch(&log, 9, 2, e, 1);
    rec_in f[2] = {{false, 0, simple_rec(23, false, NULL)}, {false, 0, topic_rec("t3", T3)}};
    batch(&log, 10, 3, f, 2);
    char p[400];
    path_of(p, sizeof p, "00000000000000000000.log");
    write_file(p, &log, log.n);
}

static int setup_dir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/kfsck-test-metadata-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    snprintf(mdir, sizeof mdir, "%s/__cluster_metadata-0", tmpdir);
    assert_int_equal(mkdir(mdir, 0755), 0);
    write_log();
    size_t footer;
    char p[400];
    bb s = the_snapshot(&footer, p, sizeof p);
    write_file(p, &s, s.n);
    return 0;
}

static int teardown_dir(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    assert_int_equal(system(cmd), 0);
    return 0;
}

typedef struct built {
    kf_kraft_inputs ki;
    kf_metadata *m;
    problem_log log;
} built;

/* The image of mdir; as_the_node with options of that version. */
static void build_as(built *b, bool has_as_of, int64_t as_of, bool as_the_node, unsigned version)
{
    memset(b, 0, sizeof *b);
    char *paths[1] = {mdir};
    assert_int_equal(kf_kraft_inputs_collect(&b->ki, paths, 1, NULL, NULL), KF_OK);
    assert_true(kf_kraft_inputs_found(&b->ki));
    kf_metadata_opts o;
    kf_metadata_opts_init(&o);
    o.version = version;
    o.has_as_of = has_as_of;
    o.as_of_offset = as_of;
    o.problem_fn = problem_log_fn;
    o.problem_ctx = &b->log;
    o.as_the_node = as_the_node;
    assert_int_equal(kf_metadata_build(&b->m, &b->ki, &o), KF_OK);
}

static void build(built *b, bool has_as_of, int64_t as_of)
{
    build_as(b, has_as_of, as_of, false, KF_METADATA_OPTIONS_VERSION);
}

static void unbuild(built *b)
{
    kf_metadata_free(b->m);
    kf_kraft_inputs_free(&b->ki);
}

static void test_job_snapshot_then_log(void **state)
{
    (void)state;
    built b;
    build(&b, false, 0);
    const kf_metadata_info *in = kf_metadata_get_info(b.m);
    assert_non_null(in->snapshot);
    assert_non_null(strstr(in->snapshot, "00000000000000000005-0000000001.checkpoint"));
    assert_int_equal(in->snapshot_offset, 5);
    assert_true(in->has_last_offset);
    assert_int_equal(in->last_offset, 11);
    assert_int_equal(in->leader_epoch, 3);
    assert_true(in->open_transaction); /* 10..11 not applied */
    assert_true(in->has_metadata_version);
    assert_int_equal(in->metadata_version, 14);
    assert_int_equal(in->log_start_offset, 0);
    /* snapshot (3 records) + offsets 5..11 (7 records) */
    assert_int_equal(in->records, 10);
    const kf_md_topic *const *t;
    assert_int_equal(kf_metadata_topics(b.m, &t), 1); /* t2 aborted, t3 open */
    assert_string_equal(t[0]->name, "orders");
    assert_int_equal(t[0]->parts[0].leader, -1);
    assert_int_equal(t[0]->parts[0].leader_epoch, 1);
    assert_true(problem_log_has(&b.log, KF_P_OPEN_METADATA_TRANSACTION));
    assert_false(problem_log_has(&b.log, KF_P_SNAPSHOT_INCOMPLETE));
    unbuild(&b);
}

static void test_job_as_of(void **state)
{
    (void)state;
    built b;
    /* at 4: the snapshot (end 5) holds exactly that state */
    build(&b, true, 4);
    const kf_metadata_info *in = kf_metadata_get_info(b.m);
    assert_int_equal(in->snapshot_offset, 5);
    assert_int_equal(in->last_offset, 4);
    assert_int_equal(in->records, 3);
    const kf_md_topic *const *t;
    kf_metadata_topics(b.m, &t);
    assert_int_equal(t[0]->parts[0].leader, 1);
    unbuild(&b);
    /* at 3: the snapshot is after the target, so the log from 0 */
    build(&b, true, 3);
    in = kf_metadata_get_info(b.m);
    assert_null(in->snapshot);
    assert_int_equal(in->last_offset, 3);
    assert_int_equal(in->records, 4);
    assert_int_equal(kf_metadata_topics(b.m, &t), 1);
    unbuild(&b);
    /* at 7: inside the aborted transaction: the state before its Begin */
    build(&b, true, 7);
    in = kf_metadata_get_info(b.m);
    assert_true(in->open_transaction);
    assert_int_equal(kf_metadata_topics(b.m, &t), 1);
    unbuild(&b);
    /* at 9: after the abort */
    build(&b, true, 9);
    in = kf_metadata_get_info(b.m);
    assert_false(in->open_transaction);
    assert_int_equal(kf_metadata_topics(b.m, &t), 1);
    assert_int_equal(in->leader_epoch, 2);
    unbuild(&b);
}

static void test_job_damaged_snapshot(void **state)
{
    (void)state;
    /* cut the snapshot's footer: it is incomplete, the log from 0 is used */
    size_t footer;
    char p[400];
    bb s = the_snapshot(&footer, p, sizeof p);
    write_file(p, &s, footer);
    built b;
    build(&b, false, 0);
    const kf_metadata_info *in = kf_metadata_get_info(b.m);
    assert_null(in->snapshot);
    assert_true(problem_log_has(&b.log, KF_P_SNAPSHOT_INCOMPLETE));
    const kf_md_topic *const *t;
    assert_int_equal(kf_metadata_topics(b.m, &t), 1);
    assert_int_equal(t[0]->parts[0].leader, -1);
    assert_int_equal(in->records, 12);
    unbuild(&b);
    /* the check alone */
    kf_kraft_snapshot_status st;
    problem_log log = {0};
    assert_int_equal(kf_kraft_check_snapshot(p, 0, problem_log_fn, &log, &st), KF_OK);
    assert_true(st.has_header);
    assert_false(st.has_footer);
    assert_true(problem_log_has(&log, KF_P_SNAPSHOT_INCOMPLETE));
    /* a flipped byte in the data batch: damaged, so not used either */
    s.b[100] ^= 0x40;
    write_file(p, &s, s.n);
    build(&b, false, 0);
    in = kf_metadata_get_info(b.m);
    assert_null(in->snapshot);
    assert_true(problem_log_has(&b.log, KF_P_CRC_MISMATCH));
    unbuild(&b);
    s.b[100] ^= 0x40;
    write_file(p, &s, s.n);
}

static void test_job_as_the_node(void **state)
{
    (void)state;
    size_t footer;
    char p[400];
    bb s = the_snapshot(&footer, p, sizeof p);
    /* whole: the node's image is the newest intact snapshot's, and the log replays onto it */
    built b;
    build_as(&b, false, 0, true, KF_METADATA_OPTIONS_VERSION);
    const kf_metadata_info *in = kf_metadata_get_info(b.m);
    assert_int_equal(in->snapshot_offset, 5);
    assert_null(in->load_fault);
    assert_int_equal(in->load_fault_offset, -1);
    unbuild(&b);
    /* only the footer gone: the node reads every record of it */
    write_file(p, &s, footer);
    build_as(&b, false, 0, true, KF_METADATA_OPTIONS_VERSION);
    in = kf_metadata_get_info(b.m);
    assert_int_equal(in->snapshot_offset, 5);
    assert_int_equal(in->records, 10);
    assert_null(in->load_fault);
    unbuild(&b);
    /* its data batch torn: the node's image has no record of it, and the
     * change at offset 5 names a topic it lacks */
    write_file(p, &s, footer - 10);
    build_as(&b, false, 0, true, KF_METADATA_OPTIONS_VERSION);
    in = kf_metadata_get_info(b.m);
    assert_non_null(in->snapshot);
    assert_int_equal(in->snapshot_offset, 5);
    assert_int_equal(in->records, 7); /* offsets 5..11 */
    assert_int_equal(in->load_fault_offset, 5);
    assert_string_equal(in->load_fault, "Error loading metadata log record from offset 5: " NPE_NO_TOPIC);
    const kf_md_topic *const *t;
    assert_int_equal(kf_metadata_topics(b.m, &t), 0);
    unbuild(&b);
    /* the image kfsck metadata shows stays the newest intact snapshot's
     * (none: the log from 0), and a version 1 caller has no as_the_node */
    for (unsigned v = 1; v <= KF_METADATA_OPTIONS_VERSION; v++) {
        build_as(&b, false, 0, v == 1, v);
        in = kf_metadata_get_info(b.m);
        assert_null(in->snapshot);
        assert_null(in->load_fault);
        assert_int_equal(kf_metadata_topics(b.m, &t), 1);
        unbuild(&b);
    }
    write_file(p, &s, s.n);
}

/* A VotersRecord naming the one voter id. */
static bb voters_value(int32_t id)
{
    bb v = {0};
    bb_i16(&v, 0);
    bb_uvar(&v, 2); /* one voter */
    bb_i32(&v, id);
    bb_uuid(&v, T1);
    bb_uvar(&v, 1); /* no endpoints */
    bb_i16(&v, 0);  /* KRaftVersionFeature inline */
    bb_i16(&v, 1);
    bb_uvar(&v, 0); /* its tags */
    bb_uvar(&v, 0); /* voter tags */
    bb_uvar(&v, 0);
    return v;
}

static void test_job_damaged_snapshot_voters(void **state)
{
    (void)state;
    /* a snapshot naming voter 3, without its footer: not used, and neither
     * are its voters: they come from the quorum-state (voter 7) */
    bb s = {0};
    rec_in h[2] = {{true, KF_CONTROL_SNAPSHOT_HEADER, ctl_value(KF_CONTROL_SNAPSHOT_HEADER)},
                   {true, KF_CONTROL_KRAFT_VOTERS, voters_value(3)}};
    batch(&s, 0, 1, h, 2);
    rec_in d[1] = {{false, 0, feature_rec("metadata.version", 14)}};
    batch(&s, 2, 1, d, 1);
    char p[400];
    path_of(p, sizeof p, "00000000000000000005-0000000001.checkpoint");
    write_file(p, &s, s.n);
    const char *q = "{\"clusterId\":\"\",\"leaderId\":7,\"leaderEpoch\":3,\"votedId\":-1,\"appliedOffset\":0,"
                    "\"currentVoters\":[{\"voterId\":7}],\"data_version\":0}";
    bb qb = {0};
    bb_put(&qb, q, strlen(q));
    path_of(p, sizeof p, "quorum-state");
    write_file(p, &qb, qb.n);
    built b;
    build(&b, false, 0);
    const kf_metadata_info *in = kf_metadata_get_info(b.m);
    assert_null(in->snapshot);
    assert_true(problem_log_has(&b.log, KF_P_SNAPSHOT_INCOMPLETE));
    assert_true(in->has_voters);
    assert_int_equal(in->nvoters, 1);
    assert_int_equal(in->voters[0], 7);
    unbuild(&b);
}

/* A quorum-state naming 100 voters (kraft.version 0, no voters record in
 * the log): the first KF_QUORUM_MAX_VOTERS are kept, the rest counted. */
static void test_job_quorum_voters_past_those_kept(void **state)
{
    (void)state;
    char q[4096] = "{\"clusterId\":\"\",\"leaderId\":1,\"leaderEpoch\":3,\"votedId\":-1,\"appliedOffset\":0,"
                   "\"data_version\":0,\"currentVoters\":[";
    for (int i = 1; i <= 100; i++)
        snprintf(q + strlen(q), sizeof q - strlen(q), "%s{\"voterId\":%d}", i > 1 ? "," : "", i);
    snprintf(q + strlen(q), sizeof q - strlen(q), "]}");
    bb qb = {0};
    bb_put(&qb, q, strlen(q));
    char p[400];
    path_of(p, sizeof p, "quorum-state");
    write_file(p, &qb, qb.n);
    built b;
    build(&b, false, 0);
    const kf_metadata_info *in = kf_metadata_get_info(b.m);
    assert_true(in->has_voters);
    assert_int_equal(in->nvoters, KF_QUORUM_MAX_VOTERS);
    assert_int_equal(in->voters_not_listed, 100 - KF_QUORUM_MAX_VOTERS);
    assert_int_equal(in->voters[KF_QUORUM_MAX_VOTERS - 1], KF_QUORUM_MAX_VOTERS);
    unbuild(&b);
}

static void test_job_log_start(void **state)
{
    (void)state;
    /* the log renamed to start at 6 (its batches are then below the name, but
     * the point is the name): the snapshot ends at 5, so offset 5 is lost */
    char a[400], c[400];
    path_of(a, sizeof a, "00000000000000000000.log");
    path_of(c, sizeof c, "00000000000000000006.log");
    assert_int_equal(rename(a, c), 0);
    problem_log log = {0};
    assert_int_equal(kf_kraft_check_dir(mdir, 0, KF_KCHECK_LOG_START, problem_log_fn, &log), KF_OK);
    assert_true(problem_log_has(&log, KF_P_SNAPSHOT_MISSING));
    built b;
    build(&b, false, 0);
    assert_true(problem_log_has(&b.log, KF_P_SNAPSHOT_MISSING));
    unbuild(&b);
    assert_int_equal(rename(c, a), 0);
    /* starting at 5 is covered */
    path_of(c, sizeof c, "00000000000000000005.log");
    assert_int_equal(rename(a, c), 0);
    memset(&log, 0, sizeof log);
    assert_int_equal(kf_kraft_check_dir(mdir, 0, KF_KCHECK_ALL, problem_log_fn, &log), KF_OK);
    assert_int_equal(log.n, 0);
    assert_int_equal(rename(c, a), 0);
}

/* A KRaft control batch may hold several control records (snapshot header,
 * kraft version, voters); a transaction marker batch holds one. Both the
 * records walk and the batch check of the segment scan. */
static void test_multi_record_control_batches(void **state)
{
    (void)state;
    bb kv = {0};
    bb_i16(&kv, 0);
    bb_i16(&kv, 1);
    bb_uvar(&kv, 0);
    rec_in kraft[2] = {{true, KF_CONTROL_SNAPSHOT_HEADER, ctl_value(KF_CONTROL_SNAPSHOT_HEADER)},
                       {true, KF_CONTROL_KRAFT_VERSION, kv}};
    bb marker = {0}; /* COMMIT value: version 0, coordinator epoch */
    bb_i16(&marker, 0);
    bb_i32(&marker, 5);
    rec_in markers[2] = {{true, KF_CONTROL_COMMIT, marker}, {true, KF_CONTROL_COMMIT, marker}};
    for (int records = 0; records < 2; records++) {
        for (int k = 0; k < 2; k++) {
            bb seg = {0};
            batch(&seg, 0, 1, k ? markers : kraft, 2);
            kf_source *src;
            assert_int_equal(kf_source_memory(&src, seg.b, seg.n), KF_OK);
            problem_log log = {0};
            kf_segment_scan_opts o;
            kf_segment_scan_opts_init(&o);
            o.deep = true;
            o.records = records;
            o.has_base_offset = true;
            o.base_offset = 0;
            o.problem_fn = problem_log_fn;
            o.problem_ctx = &log;
            kf_segment_summary sum;
            assert_int_equal(kf_segment_scan(src, &o, &sum), KF_OK);
            kf_source_close(src);
            assert_int_equal(sum.records, 2);
            if (k)
                assert_true(problem_log_has(&log, KF_P_BAD_RECORD));
            else
                assert_int_equal(log.n, 0);
        }
    }
}

/* ---- quorum-state ------------------------------------------------------------------------ */

static int qs(const char *s, kf_quorum_state *q)
{
    return kf_quorum_state_parse((const uint8_t *)s, strlen(s), q);
}

static void test_quorum_state(void **state)
{
    (void)state;
    kf_quorum_state q;
    assert_int_equal(qs("{\"clusterId\":\"\",\"leaderId\":1,\"leaderEpoch\":10,\"votedId\":-1,\"appliedOffset\":0,"
                        "\"currentVoters\":[{\"voterId\":1}],\"data_version\":0}",
                        &q),
                     KF_OK);
    assert_int_equal(q.data_version, 0);
    assert_int_equal(q.leader_id, 1);
    assert_int_equal(q.leader_epoch, 10);
    assert_int_equal(q.voted_id, -1);
    assert_true(q.has_voters);
    assert_int_equal(q.nvoters, 1);
    assert_int_equal(q.voters[0], 1);
    assert_int_equal(qs("{\"leaderId\":2,\"leaderEpoch\":3,\"votedId\":2,\"votedDirectoryId\":"
                        "\"AAAAAAAAAAAAAAAAAAAAAA\",\"data_version\":1}\nsecond line ignored",
                        &q),
                     KF_OK);
    assert_int_equal(q.data_version, 1);
    assert_false(q.has_voters);
    assert_true(q.has_voted_directory_id);
    assert_int_equal(qs("{\"clusterId\":\"\",\"leaderId\":1,\"leaderEpoch\":1,\"votedId\":-1,\"appliedOffset\":0,"
                        "\"currentVoters\":null,\"data_version\":0}",
                        &q),
                     KF_OK);
    assert_false(q.has_voters);
    const char *bad[] = {
        "",
        "[1]",
        "{\"leaderId\":1}",
        "{\"data_version\":2,\"leaderId\":1,\"leaderEpoch\":1,\"votedId\":1,\"votedDirectoryId\":\"AAAAAAAAAAAAAAAAAAAAAA\"}",
        "{\"data_version\":1,\"leaderId\":1,\"leaderEpoch\":1,\"votedId\":1}",
        "{\"data_version\":0,\"clusterId\":\"\",\"leaderId\":\"x\",\"leaderEpoch\":1,\"votedId\":1,"
        "\"appliedOffset\":0,\"currentVoters\":null}",
        "{\"data_version\":0,\"clusterId\":\"\",\"leaderId\":1,\"leaderEpoch\":1,\"votedId\":1,"
        "\"appliedOffset\":0,\"currentVoters\":[{\"id\":1}]}",
        "{\"data_version\":0,\"clusterId\":\"\",\"leaderId\":1,\"leaderEpoch\":1,\"votedId\":1,\"appliedOffset\":0,",
        "{\"data_version\":1,\"leaderId\":1,\"leaderEpoch\":1,\"votedId\":1,\"votedDirectoryId\":\"short\"}",
        "\n{\"data_version\":0}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (qs(bad[i], &q) != KF_ERR_CORRUPT)
            fail_msg("accepted: %s", bad[i]);
    /* deep nesting is refused, not recursed into without limit */
    char deep[400];
    size_t n = 0;
    n += (size_t)snprintf(deep, sizeof deep, "{\"x\":");
    for (int i = 0; i < 100; i++)
        deep[n++] = '[';
    deep[n] = 0;
    assert_int_equal(qs(deep, &q), KF_ERR_CORRUPT);
    /* more voters than are kept: counted */
    char many[4096];
    n = (size_t)snprintf(many, sizeof many, "{\"clusterId\":\"\",\"leaderId\":1,\"leaderEpoch\":1,\"votedId\":-1,"
                                          "\"appliedOffset\":0,\"data_version\":0,\"currentVoters\":[");
    for (int i = 0; i < 100; i++)
        n += (size_t)snprintf(many + n, sizeof many - n, "%s{\"voterId\":%d}", i ? "," : "", i);
    snprintf(many + n, sizeof many - n, "]}");
    assert_int_equal(qs(many, &q), KF_OK);
    assert_int_equal(q.nvoters, 100);
    assert_int_equal(q.voters[KF_QUORUM_MAX_VOTERS - 1], KF_QUORUM_MAX_VOTERS - 1);
    /* a first line longer than any node writes is refused, whatever it holds */
    size_t big = KF_QUORUM_LINE_MAX + 16;
    char *line = malloc(big + 1);
    assert_non_null(line);
    memset(line, ' ', big);
    memcpy(line, "{\"data_version\":1", 16);
    line[big - 1] = '}';
    line[big] = 0;
    assert_int_equal(qs(line, &q), KF_ERR_CORRUPT);
    assert_non_null(strstr(kf_error_last()->message, "longer than any a node writes"));
    free(line);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partition_rules),
        cmocka_unit_test(test_topic_removal_and_configs),
        cmocka_unit_test(test_brokers_features_pids),
        cmocka_unit_test(test_image_copy),
        cmocka_unit_test(test_image_copy_every_kind),
        cmocka_unit_test_setup_teardown(test_job_snapshot_then_log, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_job_as_of, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_job_damaged_snapshot, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_job_as_the_node, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_job_damaged_snapshot_voters, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_job_quorum_voters_past_those_kept, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_job_log_start, setup_dir, teardown_dir),
        cmocka_unit_test(test_multi_record_control_batches),
        cmocka_unit_test(test_quorum_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
