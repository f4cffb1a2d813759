/* test_outdir.c: unit tests for src/jobs/rebuild/outdir.c, the output-directory
 * policy of repair and merge: where the copy goes, OUTDIR refused in or
 * around an input, no writing over an earlier run's output without force,
 * OUTDIR created, and the stale files a forced run removes (by name, Kafka
 * files only), also through kf_repair_into and kf_merge_into. */
#include <errno.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobs/rebuild/outdir_internal.h"
#include "kfsck/outdir.h"
#include "kfsck/repair.h"
#include "testutil.h"

#include "format/out_file.h"

/* One scratch directory for the whole group; each test works in a
 * directory of its own below it (at() names the paths). */
static char tmpdir[300];
static char group_dir[256];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int group_setup(void **state)
{
    (void)state;
    snprintf(group_dir, sizeof group_dir, "/tmp/kfsck-unit-outdir-XXXXXX");
    return mkdtemp(group_dir) ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    return nftw(group_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A fresh directory for the next test. */
static int test_dir(void **state)
{
    static int n;
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "%s/t%d", group_dir, n++);
    return mkdir(tmpdir, 0755);
}

/* tmpdir/rel, in a static buffer of its own per slot */
static const char *at(int slot, const char *rel)
{
    static char buf[8][512];
    snprintf(buf[slot], sizeof buf[slot], "%s/%s", tmpdir, rel);
    return buf[slot];
}

static void touch(const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("x", f);
    fclose(f);
}

static void mkdir_p(const char *path)
{
    assert_int_equal(kf_mkdirs(path), KF_OK);
}

static bool present(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static void test_names(void **state)
{
    (void)state;
    kf_outdir od;
    assert_int_equal(kf_outdir_init(&od, "out", "data/orders-3/", true, "repair.json", false), KF_OK);
    assert_string_equal(od.name, "orders-3");
    assert_string_equal(od.target, "out/orders-3");
    assert_string_equal(od.report, "out/repair.json");
    assert_true(kf_outdir_named_after(&od, "/backup/orders-3"));
    assert_false(kf_outdir_named_after(&od, "/backup/orders-4"));
    kf_outdir_free(&od);
    assert_int_equal(kf_outdir_init(&od, "out", "data/orders-3/00000000000000000000.log", false, "repair.json",
                                    false), KF_OK);
    assert_string_equal(od.name, "00000000000000000000.log");
    assert_string_equal(od.target, "out");
    kf_outdir_free(&od);
}

/* What kf_outdir_prepare said of a run over one input: its verdict, or
 * CANNOT_CREATE when it failed with KF_ERR_IO; with the clash (EXISTS) and
 * the errno (CANNOT_CREATE) it left. */
#define CANNOT_CREATE (-KF_ERR_IO)
static char last_clash[512];
static int last_err_no;

static int prepare_one(const char *outdir, const char *input, bool partition, bool force)
{
    kf_outdir od;
    assert_int_equal(kf_outdir_init(&od, outdir, input, partition, "repair.json", force), KF_OK);
    const char *in[] = {input};
    kf_outdir_verdict v;
    int rc = kf_outdir_prepare(&od, in, 1, &v);
    assert_true(rc == KF_OK || rc == KF_ERR_IO);
    snprintf(last_clash, sizeof last_clash, "%s", od.clash ? od.clash : "");
    last_err_no = rc == KF_ERR_IO ? kf_error_last()->err_no : 0;
    kf_outdir_free(&od);
    return rc == KF_ERR_IO ? CANNOT_CREATE : (int)v;
}

/* Two runs into one OUTDIR: the second is refused while the first holds
 * the lock, and gets it once the first is done. */
static void test_one_writer(void **state)
{
    (void)state;
    const char *part = at(0, "src/orders-0");
    mkdir_p(part);
    kf_outdir a, b;
    const char *in[] = {part};
    kf_outdir_verdict v;
    assert_int_equal(kf_outdir_init(&a, at(1, "shared"), part, true, "repair.json", true), KF_OK);
    assert_int_equal(kf_outdir_prepare(&a, in, 1, &v), KF_OK);
    assert_int_equal(v, KF_OUTDIR_READY);
    assert_int_equal(kf_outdir_init(&b, at(1, "shared"), part, true, "repair.json", true), KF_OK);
    assert_int_equal(kf_outdir_prepare(&b, in, 1, &v), KF_OK);
    assert_int_equal(v, KF_OUTDIR_BUSY);
    assert_non_null(strstr(kf_error_last()->message, "another kfsck repair or merge is writing into it"));
    kf_outdir_free(&b);
    kf_outdir_free(&a);
    assert_int_equal(kf_outdir_init(&b, at(1, "shared"), part, true, "repair.json", true), KF_OK);
    assert_int_equal(kf_outdir_prepare(&b, in, 1, &v), KF_OK);
    assert_int_equal(v, KF_OUTDIR_READY);
    kf_outdir_free(&b);
}

static void test_inside_input(void **state)
{
    (void)state;
    const char *part = at(0, "in/orders-0");
    const char *seg = at(1, "in/orders-0/00000000000000000000.log");
    mkdir_p(part);
    touch(seg);
    /* a partition: OUTDIR is the input, inside it, or the copy would be it */
    assert_int_equal(prepare_one(part, part, true, false), KF_OUTDIR_INSIDE_INPUT);
    assert_int_equal(prepare_one(at(2, "in/orders-0/out"), part, true, false), KF_OUTDIR_INSIDE_INPUT);
    assert_int_equal(prepare_one(at(2, "in"), part, true, true), KF_OUTDIR_INSIDE_INPUT);
    assert_int_equal(prepare_one(at(2, "elsewhere"), part, true, false), KF_OUTDIR_READY);
    assert_true(present(at(2, "elsewhere")));
    /* a segment: its directory is the input's; writing beside that directory is fine */
    assert_int_equal(prepare_one(part, seg, false, true), KF_OUTDIR_INSIDE_INPUT);
    assert_int_equal(prepare_one(at(2, "in/orders-0/x/y"), seg, false, false), KF_OUTDIR_INSIDE_INPUT);
    assert_int_equal(prepare_one(at(2, "beside"), seg, false, false), KF_OUTDIR_READY);
    /* a broker's data dir is no OUTDIR: "in" holds a partition dir (and no
     * report of an earlier run), or meta.properties */
    assert_int_equal(prepare_one(at(2, "in"), seg, false, true), KF_OUTDIR_IS_DATADIR);
    assert_string_equal(last_clash, at(2, "in/orders-0"));
    mkdir_p(at(2, "dd"));
    touch(at(2, "dd/meta.properties"));
    assert_int_equal(prepare_one(at(2, "dd"), seg, false, true), KF_OUTDIR_IS_DATADIR);
    assert_string_equal(last_clash, at(2, "dd/meta.properties"));
    /* merge: any of the copies */
    mkdir_p(at(3, "other/orders-0"));
    kf_outdir od;
    assert_int_equal(kf_outdir_init(&od, at(2, "other/orders-0/m"), part, true, "merge.json", false), KF_OK);
    const char *copies[] = {part, at(3, "other/orders-0")};
    kf_outdir_verdict v;
    assert_int_equal(kf_outdir_prepare(&od, copies, 2, &v), KF_OK);
    assert_int_equal(v, KF_OUTDIR_INSIDE_INPUT);
    kf_outdir_free(&od);
}

static void test_existing_output(void **state)
{
    (void)state;
    const char *part = at(0, "in/orders-0");
    const char *seg = at(1, "in/orders-0/00000000000000000007.log");
    mkdir_p(part);
    touch(seg);
    /* an earlier report */
    mkdir_p(at(2, "o1"));
    touch(at(3, "o1/repair.json"));
    assert_int_equal(prepare_one(at(2, "o1"), part, true, false), KF_OUTDIR_EXISTS);
    assert_string_equal(last_clash, at(3, "o1/repair.json"));
    /* an empty copy directory is no clash, one with a file is */
    mkdir_p(at(2, "o2/orders-0"));
    assert_int_equal(prepare_one(at(2, "o2"), part, true, false), KF_OUTDIR_READY);
    touch(at(3, "o2/orders-0/anything"));
    assert_int_equal(prepare_one(at(2, "o2"), part, true, false), KF_OUTDIR_EXISTS);
    assert_string_equal(last_clash, at(3, "o2/orders-0"));
    assert_int_equal(prepare_one(at(2, "o2"), part, true, true), KF_OUTDIR_READY);
    /* a segment: the index files the writer puts beside it count too */
    mkdir_p(at(2, "o3"));
    touch(at(3, "o3/00000000000000000007.timeindex"));
    assert_int_equal(prepare_one(at(2, "o3"), seg, false, false), KF_OUTDIR_EXISTS);
    assert_string_equal(last_clash, at(3, "o3/00000000000000000007.timeindex"));
    touch(at(3, "o3/00000000000000000008.index")); /* another segment's: no clash */
    unlink(at(3, "o3/00000000000000000007.timeindex"));
    assert_int_equal(prepare_one(at(2, "o3"), seg, false, false), KF_OUTDIR_READY);
    touch(at(3, "o3/00000000000000000007.log"));
    assert_int_equal(prepare_one(at(2, "o3"), seg, false, false), KF_OUTDIR_EXISTS);
    assert_string_equal(last_clash, at(3, "o3/00000000000000000007.log"));
}

static void test_cannot_create(void **state)
{
    (void)state;
    const char *part = at(0, "in/orders-0");
    mkdir_p(part);
    touch(at(1, "plainfile"));
    assert_int_equal(prepare_one(at(2, "plainfile/out"), part, true, false), CANNOT_CREATE);
    assert_int_equal(last_err_no, ENOTDIR);
}

static void test_stale(void **state)
{
    (void)state;
    const char *part = at(0, "in/orders-0");
    mkdir_p(part);
    mkdir_p(at(1, "o/orders-0"));
    touch(at(2, "o/orders-0/00000000000000000000.log"));
    touch(at(3, "o/orders-0/00000000000000000000.index"));
    touch(at(4, "o/orders-0/00000000000000000050.log"));
    touch(at(5, "o/orders-0/00000000000000000050.snapshot"));
    touch(at(6, "o/orders-0/notes.txt"));
    kf_outdir od;
    /* without force nothing is stale */
    assert_int_equal(kf_outdir_init(&od, at(1, "o"), part, true, "repair.json", false), KF_OK);
    kf_outdir_wrote_segment(&od, at(2, "o/orders-0/00000000000000000000.log"));
    assert_int_equal(kf_outdir_remove_stale(&od), 0);
    kf_outdir_free(&od);
    assert_int_equal(kf_outdir_init(&od, at(1, "o"), part, true, "repair.json", true), KF_OK);
    kf_outdir_wrote_segment(&od, at(2, "o/orders-0/00000000000000000000.log"));
    kf_outdir_wrote(&od, NULL);
    assert_true(kf_outdir_has_written(&od, "00000000000000000000.timeindex"));
    assert_int_equal(kf_outdir_remove_stale(&od), 2);
    assert_int_equal(od.stale_removed, 2);
    kf_outdir_free(&od);
    assert_true(present(at(2, "o/orders-0/00000000000000000000.log")));
    assert_true(present(at(3, "o/orders-0/00000000000000000000.index")));
    assert_false(present(at(4, "o/orders-0/00000000000000000050.log")));
    assert_false(present(at(5, "o/orders-0/00000000000000000050.snapshot")));
    assert_true(present(at(6, "o/orders-0/notes.txt")));
}

/* kf_repair_into and kf_merge_into over a fixture partition: a forced second
 * run removes the segment an earlier run left and keeps what it wrote. */
static void test_runs_into(void **state)
{
    (void)state;
    const char *in = "fixtures/partition/orders-0";
    const char *stale = at(1, "o/orders-0/00000000000000999999.log");
    for (int merge = 0; merge < 2; merge++) {
        kf_outdir od;
        const char *report = merge ? "merge.json" : "repair.json";
        assert_int_equal(kf_outdir_init(&od, at(0, "o"), in, true, report, true), KF_OK);
        const char *copies[] = {in, in};
        kf_outdir_verdict v;
        assert_int_equal(kf_outdir_prepare(&od, copies, merge ? 2 : 1, &v), KF_OK);
        assert_int_equal(v, KF_OUTDIR_READY);
        mkdir_p(at(2, "o/orders-0"));
        touch(stale);
        int rc;
        if (merge) {
            kf_merge_opts mo;
            kf_merge_opts_init(&mo);
            kf_merge_result res;
            rc = kf_merge_into(&od, copies, 2, &mo, &res);
        } else {
            kf_repair_opts ro;
            kf_repair_opts_init(&ro);
            kf_repair_result res;
            rc = kf_repair_into(&od, in, &ro, &res);
        }
        assert_int_equal(rc, KF_OK);
        assert_int_equal(od.stale_removed, 1);
        assert_false(present(stale));
        assert_true(kf_outdir_has_written(&od, "00000000000000000000.log"));
        assert_true(kf_outdir_has_written(&od, "leader-epoch-checkpoint"));
        assert_true(present(at(3, "o/orders-0/00000000000000000000.log")));
        assert_true(present(at(4, "o/orders-0/00000000000000000000.index")));
        assert_int_equal(kf_outdir_write_report(&od, "{}\n", 3), KF_OK);
        assert_true(present(od.report));
        kf_outdir_free(&od);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test_setup(test_inside_input, test_dir),
        cmocka_unit_test_setup(test_one_writer, test_dir),
        cmocka_unit_test_setup(test_existing_output, test_dir),
        cmocka_unit_test_setup(test_cannot_create, test_dir),
        cmocka_unit_test_setup(test_stale, test_dir),
        cmocka_unit_test_setup(test_runs_into, test_dir),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
