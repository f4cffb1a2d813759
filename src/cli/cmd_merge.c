/* cmd_merge.c: `kfsck merge`: rebuild one partition from several damaged
 * copies (PARTDIRs from different brokers or backups) into
 * OUTDIR/<partition dir name>/, reporting conflicts (same offsets, other
 * bytes: the higher leader epoch wins) and holes (offsets no copy holds
 * intact) on stdout and in OUTDIR/merge.json. The library does the work:
 * the output directory's policy (kfsck/outdir.h) and the merge
 * (kf_merge_into, src/jobs/rebuild/merge.c); this file parses, calls and prints. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/outdir.h"
#include "cli/walk.h"
#include "kfsck/outdir.h"
#include "kfsck/repair.h"

/* merge.json's arrays */
enum { M_CONFLICTS, M_HOLES, M_SEGMENTS, M_FILES, M_ARRAYS };
static const char *const array_keys[M_ARRAYS] = {"conflicts", "holes", "segments", "files"};

typedef struct merge_cli {
    out *o;
    bool json;
    char *const *labels;
    mem_json arr[M_ARRAYS];
    uint64_t problems;
} merge_cli;

static void conflict_fields(merge_cli *m, out *o, const kf_merge_conflict *c)
{
    out_int(o, "start_offset", c->start_offset);
    out_int(o, "end_offset", c->end_offset);
    out_str(o, "chosen", m->labels[c->chosen]);
    out_arr_open(o, "leader_epochs");
    for (size_t i = 0; i < c->ncopies; i++) {
        if (c->has[i])
            out_int(o, NULL, c->leader_epochs[i]);
        else
            out_null(o, NULL);
    }
    out_arr_close(o);
    out_arr_open(o, "copies");
    for (size_t i = 0; i < c->ncopies; i++)
        if (c->has[i])
            out_str(o, NULL, m->labels[i]);
    out_arr_close(o);
}

static void on_conflict(void *ctx, const kf_merge_conflict *c)
{
    merge_cli *m = ctx;
    if (m->json) {
        out_begin(m->o, "conflict");
        conflict_fields(m, m->o, c);
        out_end(m->o);
    } else {
        out_text(m->o, "conflict: offsets %lld..%lld differ between copies; took %s (leader epochs", (long long)c->start_offset,
                 (long long)c->end_offset, m->labels[c->chosen]);
        for (size_t i = 0; i < c->ncopies; i++)
            if (c->has[i])
                out_text(m->o, " %s=%d", m->labels[i], c->leader_epochs[i]);
        out_text(m->o, ")\n");
    }
    out_obj_open(&m->arr[M_CONFLICTS].o, NULL);
    conflict_fields(m, &m->arr[M_CONFLICTS].o, c);
    out_obj_close(&m->arr[M_CONFLICTS].o);
}

static void hole_fields(out *o, const kf_merge_hole *h)
{
    out_int(o, "start_offset", h->start_offset);
    if (h->has_end)
        out_int(o, "end_offset", h->end_offset);
    else
        out_null(o, "end_offset");
}

static void on_hole(void *ctx, const kf_merge_hole *h)
{
    merge_cli *m = ctx;
    if (m->json) {
        out_begin(m->o, "hole");
        hole_fields(m->o, h);
        out_end(m->o);
    } else if (h->has_end && h->discarded) {
        out_text(m->o, "hole: offsets %lld..%lld are held only by a discarded history (a lower leader epoch)\n",
                 (long long)h->start_offset, (long long)h->end_offset);
    } else if (h->has_end) {
        out_text(m->o, "hole: offsets %lld..%lld are intact in no copy\n", (long long)h->start_offset,
                 (long long)h->end_offset);
    } else {
        out_text(m->o, "hole: offsets from %lld are intact in no copy\n", (long long)h->start_offset);
    }
    out_obj_open(&m->arr[M_HOLES].o, NULL);
    hole_fields(&m->arr[M_HOLES].o, h);
    out_obj_close(&m->arr[M_HOLES].o);
}

static void on_segment(void *ctx, const kf_repair_segment *s)
{
    merge_cli *m = ctx;
    if (m->json) {
        out_begin(m->o, "segment");
        segment_fields(m->o, s, false);
        out_end(m->o);
    } else {
        out_text(m->o, "wrote %s: %llu batches, %llu bytes\n", s->output, (unsigned long long)s->batches,
                 (unsigned long long)s->size);
    }
    out_obj_open(&m->arr[M_SEGMENTS].o, NULL);
    segment_fields(&m->arr[M_SEGMENTS].o, s, false);
    out_obj_close(&m->arr[M_SEGMENTS].o);
}

static void on_file(void *ctx, const kf_repair_file *f)
{
    merge_cli *m = ctx;
    file_record(m->o, &m->arr[M_FILES].o, f);
}

static void on_problem(void *ctx, const kf_problem *p)
{
    merge_cli *m = ctx;
    m->problems++;
    report r = {m->o, p->file, 0, 0};
    report_problem(&r, p);
}

static void merge_usage(FILE *f)
{
    fprintf(f, "usage: kfsck merge [--force] [--max-batch-bytes N] [--json] -o OUTDIR PARTDIR PARTDIR...\n\n"
               "Each PARTDIR is a copy of the same partition (from another broker or a backup).\n"
               "Writes OUTDIR/<partition dir name>/ holding, for every offset range, a valid batch\n"
               "from some copy (same offsets with other bytes: the higher leader epoch wins, and\n"
               "the conflict is reported), and OUTDIR/merge.json with the conflicts and the holes\n"
               "(offset ranges no copy holds intact). Segments start at the inputs' base offsets.\n"
               "The merged log never goes back to a lower leader epoch: a copy's batches of a\n"
               "lower epoch past the start of a higher one are left out as conflicts.\n"
               "  --force     overwrite existing output files\n"
               "  --max-batch-bytes N  cap on one batch's decompressed size (default 128M)\n"
               "  --json      newline-delimited JSON on stdout (merge.json is written either way)\n"
               "Exit 0: nothing left out; 1: a hole or a conflict; 2: usage error; 3: cannot\n"
               "read or write.\n");
}

typedef struct merge_args {
    bool json, force;
    const char *outdir;
    uint64_t max_batch;
    char *const *dirs;   /* the copies */
    int n;
} merge_args;

/* ---- the PARTDIRs: each a partition directory ---------------------------------- */

static int copy_is_partition(void *ctx, const kf_path_entry *e)
{
    *(int *)ctx = -1;
    return KF_OK;
}

static int copy_not_partition(void *ctx, const kf_path_entry *e)
{
    *(int *)ctx = opt_usage_error("merge", "not a partition directory:", e->path, merge_usage);
    return KF_ERR_IO;
}

/* A PARTDIR the walk cannot use: one that cannot be read (err_no) is
 * EXIT_FAIL, a FIFO or device (no err_no) is not a partition directory. */
static void copy_unusable(void *ctx, const char *path, int err_no, const char *what)
{
    if (!err_no) {
        *(int *)ctx = opt_usage_error("merge", "not a partition directory:", path, merge_usage);
        return;
    }
    print_path_error(NULL, path, err_no, what);
    *(int *)ctx = EXIT_FAIL;
}

/* -1 when every PARTDIR is a partition directory, else the exit code of the
 * first that is not (the others are not looked at). */
static int copies_check(const merge_args *a)
{
    if (cli_mixed_clusters(a->dirs, a->n))
        return EXIT_FAIL;
    int status = -1;
    kf_paths_walk_opts o;
    cli_walk_opts_init(&o, &status);
    o.partition_fn = copy_is_partition;
    o.file_fn = o.datadir_fn = o.other_dir_fn = copy_not_partition;
    o.error_fn = copy_unusable; /* a FIFO is a usage error here */
    o.error_ctx = &status;
    for (int i = 0; i < a->n && status < 0; i++)
        if (kf_paths_walk(a->dirs + i, 1, &o) == KF_ERR_NOMEM)
            cli_oom();
    return status;
}

/* The options and the PARTDIRs: -1 when they are fine, else the exit code. */
static int parse_args(int argc, char **argv, merge_args *a)
{
    static const struct option longopts[] = {
        {"json", no_argument, 0, 'j'},
        {"force", no_argument, 0, 'f'},
        {"output", required_argument, 0, 'o'},
        {"max-batch-bytes", required_argument, 0, 'B'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    memset(a, 0, sizeof *a);
    a->max_batch = KF_DEFAULT_MAX_BATCH_BYTES;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': a->json = true; break;
        case 'f': a->force = true; break;
        case 'o': a->outdir = optarg; break;
        case 'B':
            if (opt_positive_size("merge", "--max-batch-bytes", optarg, &a->max_batch))
                return EXIT_USAGE;
            break;
        case 'h': merge_usage(stdout); return EXIT_CLEAN;
        default: return opt_usage_error("merge", "unknown or incomplete option", argv[optind - 1], merge_usage);
        }
    }
    if (!a->outdir || !a->outdir[0])
        return opt_usage_error("merge", "no output directory given (-o OUTDIR)", NULL, merge_usage);
    if (optind >= argc)
        return opt_usage_error("merge", "no PARTDIR given", NULL, merge_usage);
    if (argc - optind < 2)
        return opt_usage_error("merge", "two or more PARTDIRs are needed (to repair one copy: kfsck repair --salvage):",
                               argv[optind], merge_usage);
    a->n = argc - optind;
    a->dirs = argv + optind;
    return copies_check(a);
}

/* OUTDIR/merge.json, then the summary line; the exit code. */
static int finish(const merge_args *a, kf_outdir *od, merge_cli *m, const kf_merge_result *res)
{
    mem_json doc;
    report_begin(&doc, "merge");
    out_arr_open(&doc.o, "inputs");
    for (int i = 0; i < a->n; i++)
        out_str(&doc.o, NULL, a->dirs[i]);
    out_arr_close(&doc.o);
    out_str(&doc.o, "output", od->target);
    out_uint(&doc.o, "batches", res->batches);
    report_put_arrays(&doc, array_keys, m->arr, M_ARRAYS);
    if (report_write(&doc, od) != EXIT_CLEAN)
        return EXIT_FAIL;
    if (a->json) {
        out_begin(m->o, "summary");
        out_str(m->o, "output", od->target);
        out_str(m->o, "report", od->report);
        out_uint(m->o, "batches", res->batches);
        out_uint(m->o, "segments_written", res->segments_written);
        out_uint(m->o, "conflicts", res->conflicts);
        out_uint(m->o, "holes", res->holes);
        out_end(m->o);
    } else {
        out_text(m->o, "%s: %llu batches in %llu segments, %llu conflicts, %llu holes; report in %s\n", od->target,
                 (unsigned long long)res->batches, (unsigned long long)res->segments_written,
                 (unsigned long long)res->conflicts, (unsigned long long)res->holes, od->report);
    }
    return res->conflicts || res->holes ? EXIT_DAMAGE : EXIT_CLEAN;
}

/* The merge itself, into the prepared od; the exit code. */
static int run(const merge_args *a, kf_outdir *od)
{
    /* the job writes into a stage, moved into place once the report is
     * written (report_write) */
    if (kf_outdir_stage(od) != KF_OK)
        return job_failed();
    out o;
    out_init(&o, stdout, a->json);
    merge_cli m = {.o = &o, .json = a->json, .labels = a->dirs};
    report_arrays_open(m.arr, M_ARRAYS);
    kf_merge_opts mo;
    kf_merge_opts_init(&mo);
    mo.max_batch_bytes = (size_t)a->max_batch;
    reader_tuning(&mo.threads, &mo.chunk_bytes);
    mo.conflict_fn = on_conflict;
    mo.hole_fn = on_hole;
    mo.segment_fn = on_segment;
    mo.file_fn = on_file;
    mo.problem_fn = on_problem;
    mo.ctx = &m;
    kf_merge_result res;
    int rc = kf_merge_into(od, (const char *const *)a->dirs, (size_t)a->n, &mo, &res);
    report_arrays_close(m.arr, M_ARRAYS);
    int status = rc != KF_OK ? job_failed() : finish(a, od, &m, &res);
    fflush(stdout);
    report_arrays_free(m.arr, M_ARRAYS);
    return status;
}

int cmd_merge(int argc, char **argv)
{
    merge_args a;
    int status = parse_args(argc, argv, &a);
    if (status >= 0)
        return status;
    kf_outdir od;
    if (kf_outdir_init(&od, a.outdir, a.dirs[0], true, "merge.json", a.force) != KF_OK)
        cli_oom();
    for (int i = 1; i < a.n; i++)
        if (!kf_outdir_named_after(&od, a.dirs[i]))
            fprintf(stderr, "kfsck merge: note: '%s' and '%s' have different names; the output is named '%s'\n",
                    a.dirs[0], a.dirs[i], od.name);
    kf_outdir_verdict v = kf_outdir_prepare(&od, (const char *const *)a.dirs, (size_t)a.n);
    status = v != KF_OUTDIR_READY ? outdir_refused("merge", &od, v, "an input's", "the merged copy") : run(&a, &od);
    kf_outdir_free(&od);
    return status;
}
