/* test_checkpoint.c: unit tests for src/format/checkpoint.c — offset and
 * leader-epoch checkpoints, partition.metadata, meta.properties and the Kafka
 * Uuid base64 form. Inputs are small text files written out here as the
 * broker writes them (segment-format.md §4.8-4.10), including the real-world
 * shapes (Java Properties with the "#<date>" comment, a partition.metadata
 * without a final newline), plus each malformed variant the broker rejects,
 * with the problem positions checked. */
#include <sys/stat.h>
#include <unistd.h>

#include "format/epoch_stream.h"
#include "testutil.h"

typedef struct entries {
    int n;
    char topic[8][64];
    int is_epoch[8];
    int32_t partition[8];
    int32_t epoch[8];
    int64_t offset[8];
    uint64_t position[8];
} entries;

static void collect(void *ctx, const kf_checkpoint_entry *e)
{
    entries *es = ctx;
    if (es->n >= 8)
        return;
    int i = es->n++;
    es->is_epoch[i] = e->topic == NULL;
    snprintf(es->topic[i], sizeof es->topic[i], "%s", e->topic ? e->topic : "");
    es->partition[i] = e->partition;
    es->epoch[i] = e->epoch;
    es->offset[i] = e->offset;
    es->position[i] = e->position;
}

static int parse_ckpt(const char *text, int kind, int32_t *version, entries *es, problem_log *pl)
{
    memset(es, 0, sizeof *es);
    memset(pl, 0, sizeof *pl);
    return kf_checkpoint_parse((const uint8_t *)text, strlen(text), kind, version, collect, es, problem_log_fn, pl);
}

/* ---- offset checkpoints ------------------------------------------------------ */

static void test_ckpt_offsets_good(void **state)
{
    (void)state;
    const char *t = "0\n3\n_confluent-metrics 7 304\n__consumer_offsets 13 0\nmy.topic 2 9223372036854775807\n";
    entries es;
    problem_log pl;
    int32_t v = -5;
    assert_int_equal(parse_ckpt(t, KF_CHECKPOINT_OFFSETS, &v, &es, &pl), KF_OK);
    assert_int_equal(v, 0);
    assert_int_equal(pl.n, 0);
    assert_int_equal(es.n, 3);
    assert_string_equal(es.topic[0], "_confluent-metrics");
    assert_int_equal(es.partition[0], 7);
    assert_int_equal(es.offset[0], 304);
    assert_int_equal(es.position[0], 4);
    assert_string_equal(es.topic[1], "__consumer_offsets");
    assert_int_equal(es.partition[1], 13);
    assert_int_equal(es.position[1], 29);
    assert_int_equal(es.offset[2], INT64_MAX);
    assert_false(es.is_epoch[0]);
}

static void test_ckpt_empty_forms(void **state)
{
    (void)state;
    entries es;
    problem_log pl;
    int32_t v = -5;
    /* empty file: empty list, version untouched */
    assert_int_equal(parse_ckpt("", KF_CHECKPOINT_OFFSETS, &v, &es, &pl), KF_OK);
    assert_int_equal(v, -5);
    assert_int_equal(es.n + pl.n, 0);
    assert_int_equal(kf_checkpoint_parse(NULL, 0, KF_CHECKPOINT_OFFSETS, NULL, NULL, NULL, NULL, NULL), KF_OK);
    /* version only: the broker reads it as empty */
    assert_int_equal(parse_ckpt("0\n", KF_CHECKPOINT_OFFSETS, &v, &es, &pl), KF_OK);
    assert_int_equal(v, 0);
    assert_int_equal(parse_ckpt("0\n0\n", KF_CHECKPOINT_LEADER_EPOCH, &v, &es, &pl), KF_OK);
    assert_int_equal(es.n + pl.n, 0);
    /* no final newline, CRLF line ends, tabs and trailing blanks */
    assert_int_equal(parse_ckpt("0\r\n1\r\nt\t0  5", KF_CHECKPOINT_OFFSETS, &v, &es, &pl), KF_OK);
    assert_int_equal(es.n, 1);
    assert_int_equal(es.offset[0], 5);
    assert_int_equal(parse_ckpt("0\n1\nt 0 5 \n", KF_CHECKPOINT_OFFSETS, &v, &es, &pl), KF_OK);
    assert_int_equal(es.n, 1);
}

static void test_ckpt_bad_version(void **state)
{
    (void)state;
    entries es;
    problem_log pl;
    int32_t v = -5;
    assert_int_equal(parse_ckpt("1\n1\nt 0 5\n", KF_CHECKPOINT_OFFSETS, &v, &es, &pl), KF_ERR_CORRUPT);
    assert_int_equal(v, 1);
    assert_int_equal(pl.n, 1);
    assert_string_equal(pl.code[0], KF_P_CHECKPOINT_INVALID);
    assert_int_equal(pl.position[0], 0);
    assert_int_equal(es.n, 0);
    assert_int_equal(parse_ckpt("zero\n", KF_CHECKPOINT_OFFSETS, &v, &es, &pl), KF_ERR_CORRUPT);
    assert_int_equal(pl.n, 1);
    assert_int_equal(parse_ckpt(" 0\n0\n", KF_CHECKPOINT_OFFSETS, &v, &es, &pl), KF_ERR_CORRUPT);
    /* a checkpoint zero-filled by a crash */
    const uint8_t zeros[64] = {0};
    memset(&pl, 0, sizeof pl);
    assert_int_equal(kf_checkpoint_parse(zeros, sizeof zeros, KF_CHECKPOINT_LEADER_EPOCH, &v, NULL, NULL, problem_log_fn, &pl),
                     KF_ERR_CORRUPT);
    assert_int_equal(pl.n, 1);
    assert_int_equal(pl.position[0], 0);
}

static void test_ckpt_bad_count(void **state)
{
    (void)state;
    entries es;
    problem_log pl;
    int32_t v;
    assert_int_equal(parse_ckpt("0\nx\n", KF_CHECKPOINT_OFFSETS, &v, &es, &pl), KF_ERR_CORRUPT);
    assert_int_equal(pl.n, 1);
    assert_int_equal(pl.position[0], 2);
    assert_int_equal(parse_ckpt("0\n99999999999\n", KF_CHECKPOINT_OFFSETS, &v, &es, &pl), KF_ERR_CORRUPT);
    assert_int_equal(parse_ckpt("0\n-1\n", KF_CHECKPOINT_OFFSETS, &v, &es, &pl), KF_ERR_CORRUPT);
    assert_int_equal(pl.position[0], 2);
}

static void test_ckpt_count_mismatch(void **state)
{
    (void)state;
    entries es;
    problem_log pl;
    int32_t v;
    /* fewer lines than the count: reported at the count line */
    assert_int_equal(parse_ckpt("0\n3\na 0 1\nb 0 2\n", KF_CHECKPOINT_OFFSETS, &v, &es, &pl), KF_ERR_CORRUPT);
    assert_int_equal(es.n, 2);
    assert_int_equal(pl.n, 1);
    assert_int_equal(pl.position[0], 2);
    /* more lines: reported at the first extra line */
    assert_int_equal(parse_ckpt("0\n1\na 0 1\nb 0 2\n", KF_CHECKPOINT_OFFSETS, &v, &es, &pl), KF_ERR_CORRUPT);
    assert_int_equal(es.n, 2);
    assert_int_equal(pl.n, 1);
    assert_int_equal(pl.position[0], 10);
    /* an extra empty line is a malformed entry line to the broker */
    assert_int_equal(parse_ckpt("0\n1\na 0 1\n\n", KF_CHECKPOINT_OFFSETS, &v, &es, &pl), KF_ERR_CORRUPT);
    assert_true(problem_log_has(&pl, KF_P_CHECKPOINT_INVALID));
    assert_int_equal(pl.position[0], 10);
}

static void test_ckpt_bad_lines(void **state)
{
    (void)state;
    entries es;
    problem_log pl;
    int32_t v;
    const char *t = "0\n6\n"
                    "a 0\n"                         /* 4: two fields */
                    "b x 1\n"                       /* 8: partition not a number */
                    "c 1 9223372036854775808\n"     /* 14: offset overflows */
                    " d 1 2\n"                      /* 38: leading blank: 4 fields */
                    "e 1 -9223372036854775808\n"    /* 45: fine */
                    "f 2147483648 1\n";             /* 70: partition overflows */
    assert_int_equal(parse_ckpt(t, KF_CHECKPOINT_OFFSETS, &v, &es, &pl), KF_ERR_CORRUPT);
    assert_int_equal(es.n, 1);
    assert_string_equal(es.topic[0], "e");
    assert_int_equal(es.offset[0], INT64_MIN);
    assert_int_equal(es.position[0], 45);
    assert_int_equal(pl.n, 5);
    assert_int_equal(pl.position[0], 4);
    assert_int_equal(pl.position[1], 8);
    assert_int_equal(pl.position[2], 14);
    assert_int_equal(pl.position[3], 38);
    assert_int_equal(pl.position[4], 70);
}

static void test_ckpt_long_line(void **state)
{
    (void)state;
    char buf[2100];
    int n = snprintf(buf, sizeof buf, "0\n1\n");
    memset(buf + n, 'x', 2000);
    memcpy(buf + n + 2000, " 0 1\n", 6);
    entries es;
    problem_log pl;
    int32_t v;
    assert_int_equal(parse_ckpt(buf, KF_CHECKPOINT_OFFSETS, &v, &es, &pl), KF_ERR_CORRUPT);
    assert_int_equal(es.n, 0);
    assert_int_equal(pl.n, 1);
    assert_int_equal(pl.position[0], 4);
}

/* ---- leader-epoch-checkpoint --------------------------------------------------- */

static void test_leader_epoch_good(void **state)
{
    (void)state;
    entries es;
    problem_log pl;
    int32_t v;
    assert_int_equal(parse_ckpt("0\n3\n0 0\n2 45\n7 1000\n", KF_CHECKPOINT_LEADER_EPOCH, &v, &es, &pl), KF_OK);
    assert_int_equal(pl.n, 0);
    assert_int_equal(es.n, 3);
    assert_true(es.is_epoch[0]);
    assert_int_equal(es.epoch[1], 2);
    assert_int_equal(es.offset[1], 45);
    assert_int_equal(es.position[1], 8);
    assert_int_equal(es.epoch[2], 7);
    assert_int_equal(es.offset[2], 1000);
}

static void test_leader_epoch_bad(void **state)
{
    (void)state;
    entries es;
    problem_log pl;
    int32_t v;
    /* epoch repeats (line at 8), start offset goes back (line at 13) */
    assert_int_equal(parse_ckpt("0\n3\n1 0\n1 45\n2 40\n", KF_CHECKPOINT_LEADER_EPOCH, &v, &es, &pl), KF_ERR_CORRUPT);
    assert_int_equal(es.n, 3);
    assert_int_equal(pl.n, 2);
    assert_int_equal(pl.position[0], 8);
    assert_int_equal(pl.position[1], 13);
    /* equal start offsets: the cache would have dropped the older epoch */
    assert_int_equal(parse_ckpt("0\n2\n1 5\n2 5\n", KF_CHECKPOINT_LEADER_EPOCH, &v, &es, &pl), KF_ERR_CORRUPT);
    assert_int_equal(pl.n, 1);
    /* three fields are an offset-checkpoint line, not an epoch line */
    assert_int_equal(parse_ckpt("0\n1\nt 0 5\n", KF_CHECKPOINT_LEADER_EPOCH, &v, &es, &pl), KF_ERR_CORRUPT);
    assert_int_equal(pl.position[0], 4);
    assert_int_equal(parse_ckpt("0\n1\n1 x\n", KF_CHECKPOINT_LEADER_EPOCH, &v, &es, &pl), KF_ERR_CORRUPT);
}

/* ---- Uuid ------------------------------------------------------------------------ */

static void test_uuid_b64(void **state)
{
    (void)state;
    uint8_t u[16], v[16];
    char s[23];
    for (int i = 0; i < 16; i++)
        u[i] = (uint8_t)i;
    kf_uuid_to_b64(u, s);
    assert_string_equal(s, "AAECAwQFBgcICQoLDA0ODw");
    assert_int_equal(kf_uuid_from_b64(s, 22, v), 0);
    assert_memory_equal(u, v, 16);
    memset(u, 0xff, 16);
    kf_uuid_to_b64(u, s);
    assert_string_equal(s, "_____________________w");
    assert_int_equal(kf_uuid_from_b64("BrK9Yd6TS0uP8npeqgzItg", 22, v), 0);
    const uint8_t want[16] = {6, 178, 189, 97, 222, 147, 75, 75, 143, 242, 122, 94, 170, 12, 200, 182};
    assert_memory_equal(v, want, 16);
    assert_int_equal(kf_uuid_from_b64("BrK9Yd6TS0uP8npeqgzIt", 21, v), KF_ERR_CORRUPT);
    assert_int_equal(kf_uuid_from_b64("BrK9Yd6TS0uP8npeqgzItg=", 23, v), KF_ERR_CORRUPT);
    assert_int_equal(kf_uuid_from_b64("BrK9Yd6TS0uP8npeqgzI+g", 22, v), KF_ERR_CORRUPT); /* not URL-safe */
    assert_int_equal(kf_uuid_from_b64(NULL, 22, v), KF_ERR_CORRUPT);
}

/* ---- partition.metadata -------------------------------------------------------------- */

static int parse_pm(const char *t, kf_partition_metadata *pm, char *msg)
{
    int rc = kf_partition_metadata_parse((const uint8_t *)t, strlen(t), pm);
    snprintf(msg, 200, "%.199s", rc == KF_OK ? "ok" : kf_error_last()->message); /* the reason is the last error */
    return rc;
}

static void test_partition_metadata_good(void **state)
{
    (void)state;
    kf_partition_metadata pm;
    char msg[200];
    /* as the broker writes it: no final newline */
    assert_int_equal(parse_pm("version: 0\ntopic_id: BrK9Yd6TS0uP8npeqgzItg", &pm, msg), KF_OK);
    assert_int_equal(pm.version, 0);
    assert_string_equal(pm.topic_id_b64, "BrK9Yd6TS0uP8npeqgzItg");
    assert_int_equal(pm.topic_id[0], 6);
    assert_int_equal(pm.topic_id[15], 182);
    /* the metadata topic's fixed id, a newline, tab separator, a later version */
    assert_int_equal(parse_pm("version:\t1\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ\n", &pm, msg), KF_OK);
    assert_int_equal(pm.version, 1);
    assert_string_equal(pm.topic_id_b64, "AAAAAAAAAAAAAAAAAAAAAQ");
    /* Uuid.fromString takes base64 padding */
    assert_int_equal(parse_pm("version: 0\r\ntopic_id: BrK9Yd6TS0uP8npeqgzItg==", &pm, msg), KF_OK);
    assert_string_equal(pm.topic_id_b64, "BrK9Yd6TS0uP8npeqgzItg");
}

static void test_partition_metadata_bad(void **state)
{
    (void)state;
    kf_partition_metadata pm;
    char msg[200];
    const char *bad[] = {
        "",
        "version: 0",
        "version: 0\n",
        "version:0\ntopic_id: BrK9Yd6TS0uP8npeqgzItg",
        "Version: 0\ntopic_id: BrK9Yd6TS0uP8npeqgzItg",
        "version: -1\ntopic_id: BrK9Yd6TS0uP8npeqgzItg",
        "version: x\ntopic_id: BrK9Yd6TS0uP8npeqgzItg",
        "version: 0 \ntopic_id: BrK9Yd6TS0uP8npeqgzItg",
        "version: 0\ntopic-id: BrK9Yd6TS0uP8npeqgzItg",
        "version: 0\ntopic_id: BrK9Yd6TS0uP8npeqgzIt",
        "version: 0\ntopic_id: BrK9Yd6TS0uP8npeqgzItg ",
        "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA",
        "\nversion: 0\ntopic_id: BrK9Yd6TS0uP8npeqgzItg",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        msg[0] = 0;
        if (parse_pm(bad[i], &pm, msg) != KF_ERR_CORRUPT)
            fail_msg("accepted bad partition.metadata #%zu", i);
        assert_true(strlen(msg) > 0);
    }
    assert_int_equal(parse_pm("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA", &pm, msg), KF_ERR_CORRUPT);
    assert_non_null(strstr(msg, "all-zero"));
}

/* ---- meta.properties ------------------------------------------------------------------ */

static int parse_mp(const char *t, kf_meta_properties *mp, char *msg)
{
    int rc = kf_meta_properties_parse((const uint8_t *)t, strlen(t), mp);
    snprintf(msg, 200, "%.199s", rc == KF_OK ? "ok" : kf_error_last()->message);
    return rc;
}

static void test_meta_properties_v0(void **state)
{
    (void)state;
    kf_meta_properties mp;
    char msg[200];
    /* ZooKeeper mode, as Properties.store writes it */
    assert_int_equal(parse_mp("#\n#Thu Apr 25 18:52:26 UTC 2024\nversion=0\nbroker.id=1\n", &mp, msg), KF_OK);
    assert_int_equal(mp.version, 0);
    assert_true(mp.has_broker_id);
    assert_int_equal(mp.broker_id, 1);
    assert_false(mp.has_node_id);
    assert_string_equal(mp.cluster_id, "");
    assert_string_equal(mp.directory_id, "");
    assert_int_equal(
        parse_mp("#\n#Fri Sep 11 09:11:15 CEST 2020\ncluster.id=UAh5RmlKQJqK6xvZ2PrLjQ\nversion=0\nbroker.id=0\n", &mp,
                 msg),
        KF_OK);
    assert_int_equal(mp.broker_id, 0);
    assert_string_equal(mp.cluster_id, "UAh5RmlKQJqK6xvZ2PrLjQ");
    /* no version at all: 0; no broker.id: allowed in v0 */
    assert_int_equal(parse_mp("cluster.id=abc\n", &mp, msg), KF_OK);
    assert_int_equal(mp.version, 0);
    assert_false(mp.has_broker_id);
    /* empty file: a v0 with nothing */
    assert_int_equal(kf_meta_properties_parse(NULL, 0, &mp), KF_OK);
}

static void test_meta_properties_v1(void **state)
{
    (void)state;
    kf_meta_properties mp;
    char msg[200];
    const char *t = "#\n#Tue May 16 08:26:39 UTC 2023\nnode.id=1\ndirectory.id=BrK9Yd6TS0uP8npeqgzItg\n"
                    "version=1\ncluster.id=abcdefghijklmnopqrstuv\n";
    assert_int_equal(parse_mp(t, &mp, msg), KF_OK);
    assert_int_equal(mp.version, 1);
    assert_true(mp.has_node_id);
    assert_int_equal(mp.node_id, 1);
    assert_false(mp.has_broker_id);
    assert_string_equal(mp.cluster_id, "abcdefghijklmnopqrstuv");
    assert_string_equal(mp.directory_id, "BrK9Yd6TS0uP8npeqgzItg");
    /* required keys */
    assert_int_equal(parse_mp("version=1\ncluster.id=x\n", &mp, msg), KF_ERR_CORRUPT);
    assert_non_null(strstr(msg, "node.id"));
    assert_int_equal(parse_mp("version=1\nnode.id=3\n", &mp, msg), KF_ERR_CORRUPT);
    assert_non_null(strstr(msg, "cluster.id"));
    /* broker.id is not read in v1, so a bad one does not matter */
    assert_int_equal(parse_mp("version=1\nnode.id=3\ncluster.id=x\nbroker.id=zz\n", &mp, msg), KF_OK);
    assert_false(mp.has_broker_id);
}

static void test_meta_properties_syntax(void **state)
{
    (void)state;
    kf_meta_properties mp;
    char msg[200];
    /* ':' and blank separators, leading blanks, '!' comments, CRLF */
    assert_int_equal(parse_mp("! comment\r\n  version : 1\r\nnode.id 7\r\n\tcluster.id:   c1\r\n", &mp, msg), KF_OK);
    assert_int_equal(mp.version, 1);
    assert_int_equal(mp.node_id, 7);
    assert_string_equal(mp.cluster_id, "c1");
    /* escapes and a continuation line */
    assert_int_equal(parse_mp("cluster.id=a\\u0062c\\\n     de\nbroker.id=4\n", &mp, msg), KF_OK);
    assert_string_equal(mp.cluster_id, "abcde");
    /* an escaped separator belongs to the key */
    assert_int_equal(parse_mp("cluster\\=id=x\nbroker.id=4\n", &mp, msg), KF_OK);
    assert_string_equal(mp.cluster_id, "");
    /* the last of duplicate keys wins */
    assert_int_equal(parse_mp("broker.id=1\nbroker.id=2\n", &mp, msg), KF_OK);
    assert_int_equal(mp.broker_id, 2);
    /* a comment does not continue */
    assert_int_equal(parse_mp("#a\\\nbroker.id=5\n", &mp, msg), KF_OK);
    assert_int_equal(mp.broker_id, 5);
    /* no final newline */
    assert_int_equal(parse_mp("broker.id=6", &mp, msg), KF_OK);
    assert_int_equal(mp.broker_id, 6);
}

static void test_meta_properties_bad(void **state)
{
    (void)state;
    kf_meta_properties mp;
    char msg[200];
    const char *bad[] = {
        "version=2\n",
        "version=x\n",
        "version=\n",
        "version=0\nbroker.id=one\n",
        "version=0\nbroker.id=1 \n", /* Java keeps trailing blanks: parseInt fails */
        "version=1\nnode.id=\ncluster.id=x\n",
        "cluster.id=\\u00zz\n",
        "version=0\ndirectory.id=nope\n",
        "version=0\ndirectory.id=AAAAAAAAAAAAAAAAAAAAAA\n", /* reserved */
        "version=0\ncluster.id=0123456789012345678901234567890123456789012345678901234567890123456789\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        msg[0] = 0;
        if (parse_mp(bad[i], &mp, msg) != KF_ERR_CORRUPT)
            fail_msg("accepted bad meta.properties #%zu", i);
        assert_true(strlen(msg) > 0);
    }
}

/* ---- kf_leader_epochs_read: the file on disk --------------------------------- */

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

static void test_leader_epochs_read(void **state)
{
    (void)state;
    char dir[] = "/tmp/kfsck-unit-checkpoint-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/leader-epoch-checkpoint", dir);
    kf_leader_epochs l;
    problem_log pl;

    /* missing: absent, empty */
    memset(&pl, 0, sizeof pl);
    assert_int_equal(kf_leader_epochs_read(path, INT64_MAX, true, &l, problem_log_fn, &pl), KF_OK);
    assert_false(l.present);
    assert_false(l.read);
    assert_int_equal(l.n, 0);
    assert_int_equal(pl.n, 0);
    kf_leader_epochs_free(&l);

    /* good, with positions */
    write_text(path, "0\n2\n0 0\n3 1052\n");
    assert_int_equal(kf_leader_epochs_read(path, INT64_MAX, true, &l, problem_log_fn, &pl), KF_OK);
    assert_true(l.present && l.read && l.valid);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.entries[1].epoch, 3);
    assert_int_equal(l.entries[1].start_offset, 1052);
    assert_non_null(l.positions);
    assert_int_equal(l.positions[0], 4);
    assert_int_equal(l.positions[1], 8);
    kf_leader_epochs_free(&l);

    /* a bad line: the problem is reported, the good entries are kept */
    write_text(path, "0\n3\n0 0\nx y\n3 1052\n");
    memset(&pl, 0, sizeof pl);
    assert_int_equal(kf_leader_epochs_read(path, INT64_MAX, false, &l, problem_log_fn, &pl), KF_OK);
    assert_true(l.present && l.read);
    assert_false(l.valid);
    assert_int_equal(l.n, 2);
    assert_null(l.positions);
    assert_int_equal(pl.n, 1);
    assert_true(problem_log_has(&pl, KF_P_CHECKPOINT_INVALID));
    kf_leader_epochs_free(&l);

    /* cut: entries starting past 1052 counted, the first few kept with their positions */
    write_text(path, "0\n4\n0 0\n3 1052\n4 2000\n7 3000\n");
    memset(&pl, 0, sizeof pl);
    assert_int_equal(kf_leader_epochs_read(path, 1052, true, &l, problem_log_fn, &pl), KF_OK);
    assert_true(l.valid);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.n_beyond, 2);
    assert_int_equal(l.beyond[0].e.epoch, 4);
    assert_int_equal(l.beyond[0].e.start_offset, 2000);
    assert_int_equal(l.beyond[1].position, 22);
    kf_leader_epochs_free(&l);

    /* entry by entry: the same entries, in order, when the file parses whole */
    kf_epoch_stream st;
    kf_leader_epoch e;
    assert_int_equal(kf_epoch_stream_open(&st, path, NULL, NULL), KF_OK);
    assert_true(st.present && st.read && st.valid);
    int64_t want[4][2] = {{0, 0}, {3, 1052}, {4, 2000}, {7, 3000}};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(kf_epoch_stream_next(&st, &e), 1);
        assert_int_equal(e.epoch, want[i][0]);
        assert_int_equal(e.start_offset, want[i][1]);
    }
    assert_int_equal(kf_epoch_stream_next(&st, &e), 0);
    kf_epoch_stream_close(&st);
    /* and none when it does not: its problems go to the caller */
    write_text(path, "0\n3\n0 0\n2 5\n1 9\n");
    memset(&pl, 0, sizeof pl);
    assert_int_equal(kf_epoch_stream_open(&st, path, problem_log_fn, &pl), KF_OK);
    assert_true(st.present && st.read);
    assert_false(st.valid);
    assert_int_equal(kf_epoch_stream_next(&st, &e), 0);
    assert_true(problem_log_has(&pl, KF_P_CHECKPOINT_INVALID));
    kf_epoch_stream_close(&st);

    /* there but not readable (a directory) */
    assert_int_equal(remove(path), 0);
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(kf_leader_epochs_read(path, INT64_MAX, false, &l, NULL, NULL), KF_OK);
    assert_true(l.present);
    assert_false(l.read);
    assert_int_equal(l.n, 0);
    kf_leader_epochs_free(&l);
    assert_int_equal(kf_epoch_stream_open(&st, path, NULL, NULL), KF_OK);
    assert_true(st.present);
    assert_false(st.read || st.valid);
    kf_epoch_stream_close(&st);
    assert_int_equal(rmdir(path), 0);
    /* missing */
    assert_int_equal(kf_epoch_stream_open(&st, path, NULL, NULL), KF_OK);
    assert_false(st.present || st.read || st.valid);
    assert_int_equal(kf_epoch_stream_next(&st, &e), 0);
    kf_epoch_stream_close(&st);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ckpt_offsets_good),
        cmocka_unit_test(test_ckpt_empty_forms),
        cmocka_unit_test(test_ckpt_bad_version),
        cmocka_unit_test(test_ckpt_bad_count),
        cmocka_unit_test(test_ckpt_count_mismatch),
        cmocka_unit_test(test_ckpt_bad_lines),
        cmocka_unit_test(test_ckpt_long_line),
        cmocka_unit_test(test_leader_epoch_good),
        cmocka_unit_test(test_leader_epoch_bad),
        cmocka_unit_test(test_leader_epochs_read),
        cmocka_unit_test(test_uuid_b64),
        cmocka_unit_test(test_partition_metadata_good),
        cmocka_unit_test(test_partition_metadata_bad),
        cmocka_unit_test(test_meta_properties_v0),
        cmocka_unit_test(test_meta_properties_v1),
        cmocka_unit_test(test_meta_properties_syntax),
        cmocka_unit_test(test_meta_properties_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
