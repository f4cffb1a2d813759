/* test_walker.c: unit tests for the walk over PATHs (src/format/paths.c,
 * include/kfsck/paths.h) and what is built on it: kf_inputs_collect's
 * and kf_partition_of_dirs's copies (data dirs of different clusters are
 * never copies of one another) and kf_verify_paths's unusable paths. Each test builds a small tree of
 * directories and empty files in a temporary directory and compares the
 * callbacks' calls, in order, with what the rules of paths.h say by hand. */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"


static int setup(void **state)
{
    (void)state;
    return tu_tmpdir_make("walker");
}

static int teardown(void **state)
{
    (void)state;
    return tu_tmpdir_remove();
}

/* ---- building trees ------------------------------------------------------------ */

/* tu_tmpdir/<test>/<rel>, in a static buffer of 8 (enough for one call's arguments). */
static const char *at(const char *test, const char *rel)
{
    static char buf[8][512];
    static int next;
    char *b = buf[next++ % 8];
    snprintf(b, sizeof buf[0], "%s/%s%s%s", tu_tmpdir, test, rel[0] ? "/" : "", rel);
    return b;
}

static void mkdirs(const char *test, const char *rel)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", at(test, rel));
    assert_int_equal(system(cmd), 0);
}

static void put(const char *test, const char *rel, const char *text)
{
    FILE *f = fopen(at(test, rel), "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void meta_properties(const char *test, const char *datadir, int broker, const char *cluster)
{
    char rel[300], text[200];
    snprintf(rel, sizeof rel, "%s/meta.properties", datadir);
    snprintf(text, sizeof text, "version=0\nbroker.id=%d\ncluster.id=%s\n", broker, cluster);
    put(test, rel, text);
}

/* ---- what the callbacks saw ----------------------------------------------------- */

typedef struct calls {
    char line[32][600];
    int n;
    const char *base;   /* stripped from the paths */
    int stop_at;        /* the call that returns KF_ERR_UNSUPPORTED (-1: none) */
    int io_at;          /* the call that returns KF_ERR_IO (-1: none) */
} calls;

static const char *rel(const calls *c, const char *path)
{
    size_t n = strlen(c->base);
    return strncmp(path, c->base, n) == 0 && path[n] == '/' ? path + n + 1 : path;
}

static int record(calls *c, const char *what, const kf_path_entry *e)
{
    assert_true(c->n < 32);
    char dd[300] = "-";
    if (e->datadir)
        snprintf(dd, sizeof dd, "%s(%d,%s)", rel(c, e->datadir->path),
                 e->datadir->has_meta ? e->datadir->meta.broker_id : -1,
                 e->datadir->has_meta ? e->datadir->meta.cluster_id : "");
    snprintf(c->line[c->n], sizeof c->line[0], "%s %s kind=%d %s%s", what, rel(c, e->path), (int)e->kind, dd,
             e->in_datadir ? " in" : "");
    int i = c->n++;
    return i == c->stop_at ? KF_ERR_UNSUPPORTED : i == c->io_at ? KF_ERR_IO : KF_OK;
}

static int on_file(void *ctx, const kf_path_entry *e) { return record(ctx, "file", e); }
static int on_partition(void *ctx, const kf_path_entry *e) { return record(ctx, "partition", e); }
static int on_datadir(void *ctx, const kf_path_entry *e) { return record(ctx, "datadir", e); }
static int on_datadir_file(void *ctx, const kf_path_entry *e) { return record(ctx, "own", e); }
static int on_other_dir(void *ctx, const kf_path_entry *e) { return record(ctx, "other", e); }
static int on_other_entry(void *ctx, const kf_path_entry *e) { return record(ctx, "entry", e); }

static void on_error(void *ctx, const char *path, int err_no, const char *what)
{
    calls *c = ctx;
    assert_true(c->n < 32);
    snprintf(c->line[c->n++], sizeof c->line[0], "error %s errno=%d %s", rel(c, path), err_no, what);
}

static void walk_opts(kf_paths_walk_opts *o, calls *c, const char *base)
{
    memset(c, 0, sizeof *c);
    c->base = base;
    c->stop_at = c->io_at = -1;
    kf_paths_walk_opts_init(o);
    o->file_fn = on_file;
    o->partition_fn = on_partition;
    o->datadir_fn = on_datadir;
    o->datadir_file_fn = on_datadir_file;
    o->descend = true;
    o->ctx = c;
    o->error_fn = on_error;
    o->error_ctx = c;
}

static void expect(const calls *c, const char *const *want, int n)
{
    for (int i = 0; i < c->n && i < n; i++)
        assert_string_equal(c->line[i], want[i]);
    assert_int_equal(c->n, n);
}

/* A data dir: its meta.properties read once, its own files and partition
 * dirs in name order, entries that are neither skipped, a dangling
 * partition-named symlink reported. */
static void test_datadir_entries(void **state)
{
    (void)state;
    const char *t = "datadir";
    mkdirs(t, "dd/orders-0");
    mkdirs(t, "dd/payments-1");
    mkdirs(t, "dd/notes");       /* neither: no Kafka file, not named <topic>-<n> */
    mkdirs(t, "dd/backup");      /* holds a segment: a partition dir whatever its name */
    put(t, "dd/backup/00000000000000000000.log", "");
    put(t, "dd/orders-0/00000000000000000000.log", "");
    put(t, "dd/clicks-2", "");    /* a file named like a partition dir: skipped */
    put(t, "dd/recovery-point-offset-checkpoint", "0\n0\n");
    meta_properties(t, "dd", 7, "ClusterA");
    assert_int_equal(symlink("/nonexistent/kfsck", at(t, "dd/gone-3")), 0);

    kf_paths_walk_opts o;
    calls c;
    walk_opts(&o, &c, at(t, ""));
    char *paths[] = {(char *)at(t, "dd")};
    assert_int_equal(kf_paths_walk(paths, 1, &o), KF_ERR_IO);
    const char *want[] = {
        "datadir dd kind=4 dd(7,ClusterA)",
        "partition dd/backup kind=3 dd(7,ClusterA) in",
        "error dd/gone-3 errno=2 a symlink to /nonexistent/kfsck, which does not exist",
        "own dd/meta.properties kind=1 dd(7,ClusterA) in",
        "partition dd/orders-0 kind=3 dd(7,ClusterA) in",
        "partition dd/payments-1 kind=3 dd(7,ClusterA) in",
        "own dd/recovery-point-offset-checkpoint kind=1 dd(7,ClusterA) in",
    };
    expect(&c, want, 7);

    /* the same with unreadable partitions handed to partition_fn */
    walk_opts(&o, &c, at(t, ""));
    o.unreadable_partitions = true;
    assert_int_equal(kf_paths_walk(paths, 1, &o), KF_OK);
    assert_string_equal(c.line[2], "partition dd/gone-3 kind=0 dd(7,ClusterA) in");
    assert_int_equal(c.n, 7);

    /* and the entries that are not partitions handed to other_entry_fn */
    walk_opts(&o, &c, at(t, ""));
    o.unreadable_partitions = true;
    o.other_entry_fn = on_other_entry;
    assert_int_equal(kf_paths_walk(paths, 1, &o), KF_OK);
    assert_int_equal(c.n, 9);
    assert_string_equal(c.line[2], "entry dd/clicks-2 kind=1 dd(7,ClusterA) in");
    assert_string_equal(c.line[3], "partition dd/gone-3 kind=0 dd(7,ClusterA) in");
    assert_string_equal(c.line[5], "entry dd/notes kind=5 dd(7,ClusterA) in");
}

static bool only_orders(void *ctx, const kf_path_entry *e)
{
    (void)ctx;
    return e->partition_named && !strcmp(e->topic, "orders");
}

static void test_want_and_descend(void **state)
{
    (void)state;
    const char *t = "want";
    mkdirs(t, "dd/orders-0");
    mkdirs(t, "dd/payments-1");
    put(t, "dd/meta.properties", "version=0\nbroker.id=1\n");
    assert_int_equal(symlink("/nonexistent/kfsck", at(t, "dd/gone-3")), 0);
    kf_paths_walk_opts o;
    calls c;
    walk_opts(&o, &c, at(t, ""));
    o.want_fn = only_orders;
    char *paths[] = {(char *)at(t, "dd")};
    assert_int_equal(kf_paths_walk(paths, 1, &o), KF_OK); /* gone-3 was not looked at */
    const char *want[] = {
        "datadir dd kind=4 dd(1,)",
        "own dd/meta.properties kind=1 dd(1,) in",
        "partition dd/orders-0 kind=3 dd(1,) in",
    };
    expect(&c, want, 3);

    walk_opts(&o, &c, at(t, ""));
    o.descend = false;
    assert_int_equal(kf_paths_walk(paths, 1, &o), KF_OK);
    expect(&c, want, 1);

    /* kf_datadir_walk: the entries alone; a data dir that cannot be listed
     * is KF_ERR_IO with its errno, nothing reported */
    walk_opts(&o, &c, at(t, ""));
    o.want_fn = only_orders;
    assert_int_equal(kf_datadir_walk(at(t, "dd"), &o), KF_OK);
    expect(&c, want + 1, 2);
    walk_opts(&o, &c, at(t, ""));
    assert_int_equal(kf_datadir_walk(at(t, "nothing-here"), &o), KF_ERR_IO);
    assert_int_equal(kf_error_last()->err_no, ENOENT);
    assert_int_equal(c.n, 0);
}

/* PATHs of every kind, each classified once and said in order. */
static void test_path_kinds(void **state)
{
    (void)state;
    const char *t = "kinds";
    mkdirs(t, "dd/orders-0");
    mkdirs(t, "empty");
    mkdirs(t, "other/sub");
    put(t, "dd/orders-0/00000000000000000000.log", "");
    put(t, "loose.bin", "x");
    meta_properties(t, "dd", 3, "C");
    assert_int_equal(mkfifo(at(t, "fifo.log"), 0600), 0);

    kf_paths_walk_opts o;
    calls c;
    walk_opts(&o, &c, at(t, ""));
    o.descend = false;
    char *paths[] = {(char *)at(t, "dd/orders-0"), (char *)at(t, "loose.bin"), (char *)at(t, "missing"),
                     (char *)at(t, "fifo.log"), (char *)at(t, "empty"), (char *)at(t, "other")};
    assert_int_equal(kf_paths_walk(paths, 6, &o), KF_ERR_IO);
    const char *want[] = {
        "partition dd/orders-0 kind=3 dd(3,C)", /* a partition dir PATH: its parent's meta.properties */
        "file loose.bin kind=1 -",
        "error missing errno=2 no such file or directory",
        "error fifo.log errno=0 not a regular file or directory",
        "error empty errno=0 neither a partition directory nor a broker data directory",
        "error other errno=0 neither a partition directory nor a broker data directory",
    };
    expect(&c, want, 6);

    /* scan's words, and an empty directory as a data dir with nothing in it */
    walk_opts(&o, &c, at(t, ""));
    o.empty_dir_is_datadir = true;
    o.special_what = "special";
    o.other_dir_what = "other";
    assert_int_equal(kf_paths_walk(paths + 3, 3, &o), KF_ERR_IO);
    const char *want2[] = {
        "error fifo.log errno=0 special",
        "datadir empty kind=4 empty(-1,)",
        "error other errno=0 other",
    };
    expect(&c, want2, 3);

    /* other_dir_fn: a directory that is neither is the caller's to judge */
    walk_opts(&o, &c, at(t, ""));
    o.other_dir_fn = on_other_dir;
    assert_int_equal(kf_paths_walk(paths + 4, 2, &o), KF_OK);
    const char *want3[] = {"other empty kind=5 -", "other other kind=5 -"};
    expect(&c, want3, 2);
}

/* A callback's KF_ERR_IO is remembered and the walk goes on; another error
 * stops it and is returned. */
static void test_callback_results(void **state)
{
    (void)state;
    const char *t = "results";
    mkdirs(t, "");
    put(t, "a.log", "");
    put(t, "b.log", "");
    put(t, "c.log", "");
    char *paths[] = {(char *)at(t, "a.log"), (char *)at(t, "b.log"), (char *)at(t, "c.log")};
    kf_paths_walk_opts o;
    calls c;
    walk_opts(&o, &c, at(t, ""));
    c.io_at = 0;
    assert_int_equal(kf_paths_walk(paths, 3, &o), KF_ERR_IO);
    assert_int_equal(c.n, 3);
    walk_opts(&o, &c, at(t, ""));
    c.stop_at = 1;
    assert_int_equal(kf_paths_walk(paths, 3, &o), KF_ERR_UNSUPPORTED);
    assert_int_equal(c.n, 2);
}

/* file_fn that keeps whether each file looked like a log, in a bool[] (by
 * whether the name starts with "segment"). */
static int remember_look(void *ctx, const kf_path_entry *e)
{
    bool *seen = ctx;
    seen[strncmp(e->name, "segment", 7) == 0 ? 0 : 1] = e->looks_like_log;
    return KF_OK;
}


/* sniff_logs (dump and repair): a file PATH whose first bytes frame as a
 * record batch is said to look like a log, whatever its name. */
static void test_sniff_logs(void **state)
{
    (void)state;
    const char *t = "sniff";
    mkdirs(t, "");
    /* a record batch's frame: base offset 0, length 100, leader epoch 0, magic 2 */
    static const char frame[17] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100, 0, 0, 0, 0, 2};
    FILE *f = fopen(at(t, "segment.bin"), "w");
    assert_non_null(f);
    assert_int_equal(fwrite(frame, 1, sizeof frame, f), sizeof frame);
    fclose(f);
    put(t, "text.bin", "not a record batch at all");

    kf_paths_walk_opts o;
    calls c;
    bool seen[2];
    walk_opts(&o, &c, at(t, ""));
    o.sniff_logs = true;
    o.file_fn = remember_look;
    o.ctx = seen;
    char *files[] = {(char *)at(t, "segment.bin"), (char *)at(t, "text.bin")};
    assert_int_equal(kf_paths_walk(files, 2, &o), KF_OK);
    assert_true(seen[0]);
    assert_false(seen[1]);
    o.sniff_logs = false; /* the file is not read */
    assert_int_equal(kf_paths_walk(files, 1, &o), KF_OK);
    assert_false(seen[0]);
}

/* ---- kf_inputs_collect: copies, and the cluster.id rule --------------------------- */

typedef struct errors {
    int n;
    char what[4][700];
} errors;

static void collect_error(void *ctx, const char *path, int err_no, const char *what)
{
    (void)err_no;
    errors *e = ctx;
    if (e->n < 4)
        snprintf(e->what[e->n], sizeof e->what[0], "%s: %s", path, what);
    e->n++;
}

/* The first error is the refusal of data dir other (cluster.id Other) as a
 * copy beside first's (Same). */
static void expect_other_cluster(const errors *e, const char *other, const char *first)
{
    char want[700];
    snprintf(want, sizeof want,
             "%s: its meta.properties names cluster.id Other, but %s names Same: data dirs of different clusters "
             "are never read as copies of one another",
             other, first);
    assert_string_equal(e->what[0], want);
}

static void test_copies_of_one_cluster_only(void **state)
{
    (void)state;
    const char *t = "clusters";
    const char *dirs[] = {"b1", "b2", "b3", "b4"};
    for (int i = 0; i < 4; i++) {
        char r[100];
        snprintf(r, sizeof r, "%s/orders-0", dirs[i]);
        mkdirs(t, r);
        snprintf(r, sizeof r, "%s/orders-0/00000000000000000000.log", dirs[i]);
        put(t, r, "");
        snprintf(r, sizeof r, "%s/orders-1", dirs[i]);
        mkdirs(t, r);
    }
    meta_properties(t, "b1", 1, "Same");
    meta_properties(t, "b2", 2, "Same");
    meta_properties(t, "b3", 3, "Other"); /* another cluster */
    /* b4: no meta.properties, a copy of whichever */
    char *paths[] = {(char *)at(t, "b1"), (char *)at(t, "b2"), (char *)at(t, "b3"), (char *)at(t, "b4")};
    kf_inputs in;
    errors e = {0};
    /* refused whole: one error naming both data dirs and both ids, nothing collected */
    assert_int_equal(kf_inputs_collect(&in, paths, 4, collect_error, &e), KF_ERR_IO);
    assert_int_equal(in.n, 0);
    assert_int_equal(e.n, 1);
    expect_other_cluster(&e, at(t, "b3"), at(t, "b1"));
    kf_inputs_free(&in);

    /* without b3: b4 (no meta.properties) joins the one cluster */
    char *three[] = {(char *)at(t, "b1"), (char *)at(t, "b2"), (char *)at(t, "b4")};
    e.n = 0;
    assert_int_equal(kf_inputs_collect(&in, three, 3, collect_error, &e), KF_OK);
    assert_int_equal(e.n, 0);
    assert_int_equal(in.n, 2);
    for (size_t i = 0; i < in.n; i++)
        assert_int_equal(in.parts[i].ncopies, 3);
    kf_inputs_free(&in);

    /* the same data dirs, one cluster each time: no error */
    char *same[] = {(char *)at(t, "b1"), (char *)at(t, "b2/orders-0")};
    e.n = 0;
    assert_int_equal(kf_inputs_collect(&in, same, 2, collect_error, &e), KF_OK);
    assert_int_equal(e.n, 0);
    assert_int_equal(in.n, 2);
    assert_int_equal(kf_inputs_find(&in, "orders", 0)->ncopies, 2);
    assert_int_equal(kf_inputs_find(&in, "orders", 1)->ncopies, 1);
    kf_inputs_free(&in);

    /* a partition dir PATH belongs to its parent's cluster */
    char *mixed[] = {(char *)at(t, "b1/orders-0"), (char *)at(t, "b3/orders-0")};
    e.n = 0;
    assert_int_equal(kf_inputs_collect(&in, mixed, 2, collect_error, &e), KF_ERR_IO);
    assert_int_equal(e.n, 1);
    expect_other_cluster(&e, at(t, "b3"), at(t, "b1"));
    assert_int_equal(in.n, 0);
    kf_inputs_free(&in);

    /* and a segment PATH to its partition dir's parent's */
    char *files[] = {(char *)at(t, "b1/orders-0/00000000000000000000.log"),
                     (char *)at(t, "b3/orders-0/00000000000000000000.log")};
    e.n = 0;
    assert_int_equal(kf_inputs_collect(&in, files, 2, collect_error, &e), KF_ERR_IO);
    assert_int_equal(e.n, 1);
    expect_other_cluster(&e, at(t, "b3"), at(t, "b1"));
    kf_inputs_free(&in);

    /* data dirs of different clusters that share no partition: refused too */
    mkdirs(t, "b5/payments-0");
    put(t, "b5/payments-0/00000000000000000000.log", "");
    /* KRaft's form; a directory.id the broker would refuse still names the cluster */
    put(t, "b5/meta.properties", "version=1\nnode.id=5\ndirectory.id=not-a-uuid\ncluster.id=Other\n");
    char *apart[] = {(char *)at(t, "b1/orders-0"), (char *)at(t, "b5")};
    e.n = 0;
    assert_int_equal(kf_inputs_collect(&in, apart, 2, collect_error, &e), KF_ERR_IO);
    assert_int_equal(e.n, 1);
    expect_other_cluster(&e, at(t, "b5"), at(t, "b1"));
    assert_int_equal(in.n, 0);
    kf_inputs_free(&in);

    /* a walk that asks for it walks them all (predict's log dirs) */
    kf_paths_walk_opts o;
    kf_paths_walk_opts_init(&o);
    o.error_fn = collect_error;
    o.error_ctx = &e;
    e.n = 0;
    assert_int_equal(kf_paths_walk(apart, 2, &o), KF_ERR_IO);
    assert_int_equal(e.n, 1);
    o.mixed_clusters = true;
    e.n = 0;
    assert_int_equal(kf_paths_walk(apart, 2, &o), KF_OK);
    assert_int_equal(e.n, 0);
}

/* kf_partition_of_dirs (merge's copies): the same rule, whatever the copies' names */
static void test_partition_of_dirs_clusters(void **state)
{
    (void)state;
    const char *t = "mergecopies";
    mkdirs(t, "b1/orders-0");
    mkdirs(t, "b2/orders-0");
    mkdirs(t, "b3/orders-0-backup");
    mkdirs(t, "b4/orders-0");
    put(t, "b3/orders-0-backup/00000000000000000000.log", "");
    meta_properties(t, "b1", 1, "Same");
    meta_properties(t, "b2", 2, "Other");
    meta_properties(t, "b3", 3, "Same");
    /* b4: no meta.properties */
    const char *ok[] = {at(t, "b1/orders-0"), at(t, "b3/orders-0-backup"), at(t, "b4/orders-0")};
    kf_partition p;
    errors e = {0};
    assert_int_equal(kf_partition_of_dirs(&p, ok, 3, collect_error, &e), KF_OK);
    assert_int_equal(e.n, 0);
    assert_int_equal(p.ncopies, 3);
    assert_string_equal(p.topic, "orders");
    assert_int_equal(p.copies[1].nseg, 1);
    kf_partition_free(&p);

    const char *mixed[] = {at(t, "b4/orders-0"), at(t, "b1/orders-0"), at(t, "b2/orders-0")};
    assert_int_equal(kf_partition_of_dirs(&p, mixed, 3, collect_error, &e), KF_ERR_IO);
    assert_int_equal(e.n, 1);
    expect_other_cluster(&e, at(t, "b2"), at(t, "b1"));
    kf_partition_free(&p);
}

/* ---- kf_verify_paths ---------------------------------------------------------------- */

static void test_verify_paths(void **state)
{
    (void)state;
    const char *t = "verify";
    mkdirs(t, "");
    put(t, "notes.txt", "not kafka");
    put(t, "00000000000000000000.log", "");
    kf_verify_opts o;
    kf_verify_opts_init(&o);
    errors e = {0};
    o.path_error_fn = collect_error;
    o.path_ctx = &e;
    kf_verify_result res = {0};
    /* a file kfsck does not know is said and skipped: no failure */
    char *known[] = {(char *)at(t, "notes.txt"), (char *)at(t, "00000000000000000000.log")};
    assert_int_equal(kf_verify_paths(known, 2, &o, &res), KF_OK);
    assert_int_equal(e.n, 1);
    char want[700];
    snprintf(want, sizeof want, "%s: not a Kafka file kfsck knows (by its name); skipped", at(t, "notes.txt"));
    assert_string_equal(e.what[0], want);
    assert_int_equal(res.errors, 0);
    /* a missing PATH is */
    e.n = 0;
    char *missing[] = {(char *)at(t, "missing")};
    assert_int_equal(kf_verify_paths(missing, 1, &o, &res), KF_ERR_IO);
    assert_int_equal(e.n, 1);
    snprintf(want, sizeof want, "%s: no such file or directory", at(t, "missing"));
    assert_string_equal(e.what[0], want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_datadir_entries),
        cmocka_unit_test(test_want_and_descend),
        cmocka_unit_test(test_path_kinds),
        cmocka_unit_test(test_callback_results),
        cmocka_unit_test(test_sniff_logs),
        cmocka_unit_test(test_partition_of_dirs_clusters),
        cmocka_unit_test(test_copies_of_one_cluster_only),
        cmocka_unit_test(test_verify_paths),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
