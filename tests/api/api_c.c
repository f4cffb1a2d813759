/* api_c.c: a third party's C program using libkfsck as installed, built
 * with nothing but `pkg-config --cflags --libs kfsck` (tests/api/run.sh):
 * verifies a healthy and a damaged fixture segment and a partition through
 * the public API; replays the consumer offsets of a data dir with the
 * offsets job (the stable header) and again batch by batch through the
 * partition reader and the replay (the sys/ headers), and holds the two
 * tables against each other; runs predict on a data dir and holds its
 * forecast against the streaming reader's own answers (where recovery
 * cuts a segment, each partition's log end); checks the error detail of a
 * failed open and of failed parses (kf_error_last: the parsers report
 * through it too), the version functions and the options conventions
 * (KF_*_OPTIONS_INIT, NULL options, a version the library does not know).
 * Exit 0 when every answer is right. Usage: api_c FIXTURES_DIR */
#include <errno.h>
#include <kfsck/kfsck.h>
#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "api_c: check failed at line %d: %s\n", __LINE__, #cond);                                 \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

typedef struct seen {
    unsigned problems, crc;
} seen;

static void on_problem(void *ctx, const kf_problem *p)
{
    seen *s = ctx;
    s->problems++;
    if (!strcmp(p->code, KF_P_CRC_MISMATCH))
        s->crc++;
}

static void verify_one(const char *path, kf_verify_result *res, seen *s, kf_segment_summary *sum)
{
    kf_verify_opts o = KF_VERIFY_OPTIONS_INIT;
    o.problem_fn = on_problem;
    o.problem_ctx = s;
    kf_name_info ni = kf_classify_name("00000000000000000000.log");
    int rc = kf_verify_file(path, ni.kind, ni.base_offset, &o, res, sum);
    CHECK(rc == KF_OK);
}

/* The parsers of the small files, of batches and of codec payloads say why
 * they failed the one way every function does: the last error (its code
 * the one returned, no errno or path, the reason in words); a parse that
 * succeeds leaves it as it was. */
static void check_parse_errors(void)
{
    static const uint8_t bad_pm[] = "version: 0\ntopic_id: not-a-uuid\n";
    kf_partition_metadata pm;
    kf_error_clear();
    CHECK(kf_partition_metadata_parse(bad_pm, sizeof bad_pm - 1, &pm) == KF_ERR_CORRUPT);
    CHECK(kf_error_last()->code == KF_ERR_CORRUPT && kf_error_last()->err_no == 0 && !kf_error_last()->path[0]);
    CHECK(strstr(kf_error_last()->message, "topic id") != NULL);

    static const uint8_t good_mp[] = "version=1\nnode.id=3\ncluster.id=abc\n";
    kf_meta_properties mp;
    CHECK(kf_meta_properties_parse(good_mp, sizeof good_mp - 1, &mp) == KF_OK && mp.node_id == 3);
    CHECK(kf_error_last()->code == KF_ERR_CORRUPT); /* unchanged by a success */
    static const uint8_t bad_mp[] = "version=1\ncluster.id=abc\n";
    CHECK(kf_meta_properties_parse(bad_mp, sizeof bad_mp - 1, &mp) == KF_ERR_CORRUPT);
    CHECK(strstr(kf_error_last()->message, "node.id") != NULL);

    kf_producer_snapshot sn;
    static const uint8_t short_snap[4] = {0, 1, 0, 0};
    CHECK(kf_producer_snapshot_parse(short_snap, sizeof short_snap, &sn) == KF_ERR_TRUNCATED);
    CHECK(kf_error_last()->code == KF_ERR_TRUNCATED && strstr(kf_error_last()->message, "header") != NULL);

    static const uint8_t bad_qs[] = "{\"data_version\": 7}\n";
    kf_quorum_state qs;
    CHECK(kf_quorum_state_parse(bad_qs, sizeof bad_qs - 1, &qs) == KF_ERR_CORRUPT);
    CHECK(strstr(kf_error_last()->message, "data_version") != NULL);

    static const uint8_t bad_ckpt[] = "0\n2\nt 0 5\n";
    CHECK(kf_checkpoint_parse(bad_ckpt, sizeof bad_ckpt - 1, KF_CHECKPOINT_OFFSETS, NULL, NULL, NULL, NULL, NULL) ==
          KF_ERR_CORRUPT);
    CHECK(kf_error_last()->code == KF_ERR_CORRUPT && strstr(kf_error_last()->message, "expected 2") != NULL);

    /* a magic byte of 5 in a 61-byte entry, and a v2 header cut short */
    uint8_t entry[61] = {0};
    entry[11] = 61 - 12;
    entry[16] = 5;
    kf_batch b;
    CHECK(kf_batch_parse(entry, sizeof entry, 0, &b) == KF_ERR_UNSUPPORTED);
    CHECK(kf_error_last()->code == KF_ERR_UNSUPPORTED && strstr(kf_error_last()->message, "magic") != NULL);
    entry[16] = 2;
    CHECK(kf_batch_parse(entry, 40, 0, &b) == KF_ERR_CORRUPT && kf_error_last()->code == KF_ERR_CORRUPT);

    /* a record decoder: the result struct says it, and so does the last error */
    kf_dtree t = {0};
    kf_kraft_record kr;
    CHECK(kf_kraft_decode(KF_KRAFT_METADATA, NULL, -1, NULL, -1, &t, &kr) == KF_ERR_CORRUPT);
    CHECK(kf_error_last()->code == KF_ERR_CORRUPT && !strcmp(kf_error_last()->message, kr.err));
    kf_dtree_free(&t);

    static const uint8_t junk[] = {1, 2, 3, 4, 5, 6, 7, 8};
    kf_buf out = {0};
    CHECK(kf_decompress(KF_CODEC_GZIP, 2, junk, sizeof junk, &out, 1024) != KF_OK);
    CHECK(strstr(kf_error_last()->message, "gzip") != NULL);
    kf_buf_free(&out);

    /* no message buffers, no error inside a result: the clean-shutdown
     * file's parser, a path that cannot be classified, a new object */
    static const uint8_t no_epoch[] = "{\"version\":0}";
    kf_clean_shutdown cs;
    CHECK(kf_clean_shutdown_parse(no_epoch, sizeof no_epoch - 1, &cs) == KF_ERR_CORRUPT);
    CHECK(cs.has_version && !cs.has_broker_epoch && strstr(kf_error_last()->message, "brokerEpoch") != NULL);
    kf_path_kind kind;
    CHECK(kf_classify_path("/nonexistent/kfsck-api", &kind) == KF_ERR_IO && kind == KF_PATH_UNREADABLE);
    CHECK(kf_error_last()->err_no == ENOENT && !strcmp(kf_error_last()->path, "/nonexistent/kfsck-api"));
    kf_schema_tally *tally = NULL;
    CHECK(kf_schema_tally_new(&tally) == KF_OK && tally && kf_schema_tally_count(tally) == 0);
    kf_schema_tally_free(tally);
}

/* The committed offsets of the data dir at path, twice: the offsets job's
 * table (offsets_job.h), and a replay fed by hand, partition by partition,
 * with the partition reader (sys/part_reader.h, replay.h). The same rows. */
static void replay_offsets(const char *path)
{
    char *paths[] = {(char *)path};
    kf_inputs in;
    CHECK(kf_inputs_collect(&in, paths, 1, NULL, NULL) == KF_OK);
    kf_offsets_job *job = NULL;
    CHECK(kf_offsets_job_run(&job, &in, NULL) == KF_OK && job);
    const kf_offsets_row *rows = NULL;
    size_t nrows = 0;
    CHECK(job && kf_offsets_job_table(job, &rows, &nrows) == KF_OK);
    CHECK(nrows > 0);
    CHECK(job && kf_offsets_job_get_result(job).partitions > 0);

    kf_replay *r = NULL;
    CHECK(kf_replay_new(&r, NULL) == KF_OK && r);
    size_t fed = 0;
    for (size_t i = 0; r && i < in.n; i++) {
        const kf_partition *p = &in.parts[i];
        if (strcmp(p->topic, "__consumer_offsets"))
            continue;
        kf_part_reader *rd;
        CHECK(kf_part_reader_open(&rd, p, NULL) == KF_OK);
        kf_replay_partition(r, p->partition);
        kf_batch b;
        while (kf_part_reader_next(rd, &b) == 1) {
            kf_replay_file(r, kf_part_reader_file(rd));
            CHECK(kf_replay_batch(r, &b) == KF_OK);
            fed++;
        }
        kf_part_reader_close(rd, NULL);
    }
    kf_replay_finish(r);
    const kf_offset_value **vals = NULL;
    size_t nvals = r ? kf_replay_offsets(r, &vals) : 0;
    CHECK(fed > 0 && nvals == nrows);
    for (size_t i = 0; i < nvals && i < nrows; i++) {
        const kf_offset_value *a = rows[i].value, *b = vals[i];
        CHECK(!strcmp(a->group, b->group) && !strcmp(a->topic, b->topic) && a->partition == b->partition);
        CHECK(a->offset == b->offset && a->source_partition == b->source_partition &&
              a->source_offset == b->source_offset);
        if (i)
            CHECK(strcmp(vals[i - 1]->group, b->group) <= 0);
    }
    kf_replay_free(r);
    kf_offsets_job_free(job);
    kf_inputs_free(&in);
}

typedef struct forecast {
    unsigned datadirs, partitions, cuts;
    int64_t offsets_lost;
    bool partition_before_datadir, bad;
} forecast;

static void on_datadir(void *ctx, const kf_predict_datadir *d)
{
    forecast *f = ctx;
    f->datadirs++;
    f->bad |= d->partitions == 0;
}

/* A segment's cut is where the streaming reader finds broker recovery
 * stops (kf_recovery_point, sys/segment.h). */
static void on_action(void *ctx, const kf_predict_action *a)
{
    forecast *f = ctx;
    if (a->action != KF_ACT_TRUNCATE_SEGMENT)
        return;
    f->cuts++;
    kf_source *src;
    if (kf_source_open(&src, a->file, 0) != KF_OK) {
        f->bad = true;
        return;
    }
    kf_name_info ni = kf_classify_name(kf_path_base(a->file));
    uint64_t valid = 0;
    f->bad |= kf_recovery_point(src, ni.base_offset, &valid) != KF_OK || valid != a->position;
    kf_source_close(src);
}

/* Each partition's log end as the files are now is the one verify finds,
 * and what recovery loses is the difference to the log end after it. */
static void on_partition(void *ctx, const kf_predict_partition *p)
{
    forecast *f = ctx;
    f->partition_before_datadir |= f->datadirs == 0;
    f->partitions++;
    f->offsets_lost += p->offsets_lost;
    f->bad |= p->log_end_offset_after > p->log_end_offset_before ||
              p->offsets_lost != p->log_end_offset_before - p->log_end_offset_after;
    kf_verify_result res = {0};
    kf_partition_summary ps;
    f->bad |= kf_verify_partition(p->id.dir, NULL, &res, &ps) != KF_OK || !ps.has_log_end ||
              ps.log_end_offset != p->log_end_offset_before;
}

static void predict_datadir(const char *path)
{
    char *paths[] = {(char *)path};
    kf_predict_opts o = KF_PREDICT_OPTIONS_INIT;
    forecast f = {0};
    o.datadir_fn = on_datadir;
    o.action_fn = on_action;
    o.partition_fn = on_partition;
    o.ctx = &f;
    o.has_now = true;
    o.now_ms = 1700000000000;
    kf_predict_summary sum;
    CHECK(kf_predict_run(paths, 1, &o, &sum) == KF_OK);
    CHECK(!f.bad && !f.partition_before_datadir);
    CHECK(f.datadirs == 1 && sum.datadirs == 1 && f.partitions > 0 && sum.partitions == f.partitions);
    CHECK(sum.offsets_lost == f.offsets_lost && f.cuts > 0 && sum.offsets_lost > 0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: api_c FIXTURES_DIR\n");
        return 2;
    }
    char path[4096];
    CHECK(!strcmp(kf_version(), KFSCK_VERSION));
    CHECK(kf_version_number() == KFSCK_VERSION_NUMBER);
    CHECK(!strcmp(kf_err_str(KF_ERR_NOMEM), kf_err_str(-KF_ERR_NOMEM)));

    /* a healthy segment: every batch, no problem */
    snprintf(path, sizeof path, "%s/segments/v2-zstd/00000000000000000000.log", argv[1]);
    kf_verify_result res = {0};
    seen s = {0};
    kf_segment_summary sum;
    verify_one(path, &res, &s, &sum);
    CHECK(res.errors == 0 && res.warnings == 0 && !res.unreadable && s.problems == 0);
    CHECK(sum.batches > 0 && sum.valid_bytes == sum.size);

    /* a bit flip: a crc_mismatch, and broker recovery stops before the end */
    snprintf(path, sizeof path, "%s/damaged/bitflip/00000000000000000000.log", argv[1]);
    memset(&res, 0, sizeof res);
    memset(&s, 0, sizeof s);
    verify_one(path, &res, &s, &sum);
    CHECK(res.errors > 0 && s.crc == 1);
    CHECK(sum.valid_bytes < sum.size);

    /* the streaming reader, pull-style, on the same file, with NULL options
     * (the defaults) */
    kf_source *src;
    CHECK(kf_source_open(&src, path, 0) == KF_OK);
    /* a failed call's detail is the last error: code, errno, path */
    char missing[4096];
    snprintf(missing, sizeof missing, "%s/no-such-segment.log", argv[1]);
    kf_source *none;
    CHECK(kf_source_open(&none, missing, 0) == KF_ERR_IO);
    CHECK(kf_error_last()->code == KF_ERR_IO && kf_error_last()->err_no == ENOENT);
    CHECK(!strcmp(kf_error_last()->path, missing));
    kf_segment_iter *it;
    CHECK(kf_segment_iter_open(&it, src, NULL) == KF_OK);
    kf_batch b;
    bool damaged, saw_damage = false;
    unsigned n = 0;
    while (kf_segment_iter_next(it, &b, &damaged) == 1) {
        n++;
        saw_damage |= damaged;
    }
    CHECK(n + 1 == kf_segment_iter_summary(it)->batches + 1 && saw_damage);
    kf_segment_iter_close(it);
    kf_source_close(src);

    /* a partition directory */
    snprintf(path, sizeof path, "%s/partition/orders-0", argv[1]);
    memset(&res, 0, sizeof res);
    kf_verify_opts o;
    kf_verify_opts_init(&o);
    CHECK(o.version == KF_VERIFY_OPTIONS_VERSION && o.max_batch_bytes == 0 && !o.problem_fn);
    kf_partition_summary ps;
    CHECK(kf_verify_partition(path, &o, &res, &ps) == KF_OK);
    CHECK(res.errors == 0 && ps.segments == 3 && ps.has_log_end && ps.log_end_offset > 0);

    /* options of a version the library does not know, or of none (not
     * started from KF_*_OPTIONS_INIT): refused, nothing read */
    memset(&res, 0, sizeof res);
    o.version = 99;
    CHECK(kf_verify_partition(path, &o, &res, &ps) == KF_ERR_UNSUPPORTED);
    o.version = 0;
    CHECK(kf_verify_partition(path, &o, &res, &ps) == KF_ERR_UNSUPPORTED);
    CHECK(res.errors == 0 && res.warnings == 0);
    kf_connect_opts co = KF_CONNECT_OPTIONS_INIT;
    co.version = KF_CONNECT_OPTIONS_VERSION + 1;
    kf_connect *conn = (kf_connect *)&co; /* set to NULL by the failure */
    CHECK(kf_connect_new(&conn, &co) == KF_ERR_UNSUPPORTED && conn == NULL);
    CHECK(kf_error_last()->code == KF_ERR_UNSUPPORTED && strstr(kf_error_last()->message, "options version"));
    CHECK(kf_connect_new(&conn, NULL) == KF_OK && conn != NULL); /* NULL options: the defaults */
    kf_connect_free(conn);

    check_parse_errors();

    snprintf(path, sizeof path, "%s/offsets/datadir", argv[1]);
    replay_offsets(path);
    snprintf(path, sizeof path, "%s/datadir", argv[1]);
    predict_datadir(path);

    if (failures)
        return 1;
    printf("api_c: ok (libkfsck %s)\n", kf_version());
    return 0;
}
