/* cmd_merge.c: `kfsck merge`: rebuild one partition from several damaged
 * copies (PARTDIRs from different brokers or backups) into
 * OUTDIR/<partition dir name>/, reporting conflicts (same offsets, other
 * bytes: the higher leader epoch wins) and holes (offsets no copy holds
 * intact) on stdout and in OUTDIR/merge.json. The library does the work:
 * the output directory's policy (kfsck/outdir.h) and the merge
 * (kf_merge_into, src/jobs/rebuild/merge.c). The skeleton it shares with
 * repair (rebuild_cli.c) parses the options, runs the job and writes the
 * report; this file gives what is merge's: its PARTDIRs, its job, the
 * conflicts and holes and the summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/rebuild_cli.h"
#include "cli/walk.h"
#include "kfsck/repair.h"

/* merge.json's own arrays (segments and files follow) */
enum { M_CONFLICTS, M_HOLES };
static const char *const array_keys[] = {"conflicts", "holes"};

static void conflict_fields(const rebuild_cli *m, out *o, const void *item)
{
    const kf_merge_conflict *c = item;
    kf_jsonl_fields(&o->w, KF_JI("start_offset", c->start_offset), KF_JI("end_offset", c->end_offset),
                    KF_JS("chosen", m->paths[c->chosen]));
    kf_jsonl_arr_open(&o->w, "leader_epochs");
    for (size_t i = 0; i < c->ncopies; i++) {
        if (c->has[i])
            kf_jsonl_int(&o->w, NULL, c->leader_epochs[i]);
        else
            kf_jsonl_null(&o->w, NULL);
    }
    kf_jsonl_arr_close(&o->w);
    kf_jsonl_arr_open(&o->w, "copies");
    for (size_t i = 0; i < c->ncopies; i++)
        if (c->has[i])
            kf_jsonl_str(&o->w, NULL, m->paths[i]);
    kf_jsonl_arr_close(&o->w);
}

static void on_conflict(void *ctx, const kf_merge_conflict *c)
{
    rebuild_cli *m = ctx;
    if (!m->json) {
        out_text(m->o, "conflict: offsets %lld..%lld differ between copies; took %s (leader epochs",
                 (long long)c->start_offset, (long long)c->end_offset, m->paths[c->chosen]);
        for (size_t i = 0; i < c->ncopies; i++)
            if (c->has[i])
                out_text(m->o, " %s=%d", m->paths[i], c->leader_epochs[i]);
        out_text(m->o, ")\n");
    }
    rebuild_record(m, M_CONFLICTS, "conflict", conflict_fields, c);
}

static void hole_fields(const rebuild_cli *m, out *o, const void *item)
{
    const kf_merge_hole *h = item;
    kf_jsonl_fields(&o->w, KF_JI("start_offset", h->start_offset), KF_JOPT("end_offset", h->has_end, h->end_offset));
}

static void on_hole(void *ctx, const kf_merge_hole *h)
{
    rebuild_cli *m = ctx;
    if (!m->json && h->has_end && h->discarded)
        out_text(m->o, "hole: offsets %lld..%lld are held only by a discarded history (a lower leader epoch)\n",
                 (long long)h->start_offset, (long long)h->end_offset);
    else if (!m->json && h->has_end)
        out_text(m->o, "hole: offsets %lld..%lld are intact in no copy\n", (long long)h->start_offset,
                 (long long)h->end_offset);
    else if (!m->json)
        out_text(m->o, "hole: offsets from %lld are intact in no copy\n", (long long)h->start_offset);
    rebuild_record(m, M_HOLES, "hole", hole_fields, h);
}

static void merge_usage(FILE *f)
{
    tprintf(f, "usage: kfsck merge [--force] [--max-batch-bytes N] [--json] -o OUTDIR PARTDIR PARTDIR...\n\n"
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

/* ---- the PARTDIRs: each a partition directory ---------------------------------- */

/* The walk over the PATHs (one at a time) keeps in the int its ctx is the
 * exit code so far: -1 while every PATH is a partition directory. */

static int not_a_partition(const char *path)
{
    return opt_usage_error("merge", "not a partition directory:", path, merge_usage);
}

static int copy_not_partition(void *ctx, const kf_path_entry *e)
{
    *(int *)ctx = not_a_partition(e->path);
    return KF_ERR_IO;
}

/* A PARTDIR the walk cannot use: one that cannot be read (err_no) is
 * EXIT_FAIL, a FIFO or device (no err_no) is not a partition directory. */
static void copy_unusable(void *ctx, const char *path, int err_no, const char *what)
{
    if (!err_no) {
        *(int *)ctx = not_a_partition(path);
        return;
    }
    print_path_error(NULL, path, err_no, what);
    *(int *)ctx = EXIT_FAIL;
}

/* Two or more PARTDIRs, each a partition directory: -1, else the exit code
 * of the first that is not (the others are not looked at). */
static int merge_inputs(rebuild_cli *c)
{
    if (c->npaths < 1)
        return rebuild_usage_error(c, "no PARTDIR given", NULL);
    if (c->npaths < 2)
        return rebuild_usage_error(c, "two or more PARTDIRs are needed (to repair one copy: kfsck repair --salvage):",
                                   c->paths[0]);
    if (cli_mixed_clusters(c->paths, c->npaths))
        return EXIT_FAIL;
    c->partition = true;
    int status = -1;
    kf_paths_walk_opts o;
    cli_walk_opts_init(&o, &status);
    o.file_fn = o.datadir_fn = o.other_dir_fn = copy_not_partition; /* partition_fn: none, all is well */
    o.error_fn = copy_unusable; /* a FIFO is a usage error here */
    o.error_ctx = &status;
    for (int i = 0; i < c->npaths && status < 0; i++)
        if (kf_paths_walk(c->paths + i, 1, &o) == KF_ERR_NOMEM)
            cli_oom();
    return status;
}

/* ---- the job and its report ------------------------------------------------------ */

static int merge_run(rebuild_cli *c, kf_outdir *od)
{
    kf_merge_opts mo;
    kf_merge_opts_init(&mo);
    mo.max_batch_bytes = (size_t)c->max_batch;
    reader_tuning(&mo.threads, &mo.chunk_bytes);
    mo.conflict_fn = on_conflict;
    mo.hole_fn = on_hole;
    mo.segment_fn = rebuild_on_segment;
    mo.file_fn = rebuild_on_file;
    mo.problem_fn = rebuild_on_problem;
    mo.ctx = c;
    return kf_merge_into(od, (const char *const *)c->paths, (size_t)c->npaths, &mo, c->job);
}

static void merge_report_head(rebuild_cli *c, const kf_outdir *od, out *doc)
{
    const kf_merge_result *res = c->job;
    kf_jsonl_arr_open(&doc->w, "inputs");
    for (int i = 0; i < c->npaths; i++)
        kf_jsonl_str(&doc->w, NULL, c->paths[i]);
    kf_jsonl_arr_close(&doc->w);
    kf_jsonl_fields(&doc->w, KF_JS("output", od->target), KF_JU("batches", res->batches));
}

static int merge_summary(rebuild_cli *c, const kf_outdir *od)
{
    const kf_merge_result *res = c->job;
    if (c->json) {
        kf_jsonl_begin(&c->o->w, "summary");
        kf_jsonl_fields(&c->o->w, KF_JS("output", od->target), KF_JS("report", od->report),
                        KF_JU("batches", res->batches), KF_JU("segments_written", res->segments_written),
                        KF_JU("conflicts", res->conflicts), KF_JU("holes", res->holes));
        kf_jsonl_end(&c->o->w);
    } else {
        out_text(c->o, "%s: %llu batches in %llu segments, %llu conflicts, %llu holes; report in %s\n", od->target,
                 (unsigned long long)res->batches, (unsigned long long)res->segments_written,
                 (unsigned long long)res->conflicts, (unsigned long long)res->holes, od->report);
    }
    return res->conflicts || res->holes ? EXIT_DAMAGE : EXIT_CLEAN;
}

int cmd_merge(int argc, char **argv)
{
    static const rebuild_cmd cmd = {
        .name = "merge", .report_name = "merge.json", .usage = merge_usage, .salvage = false,
        .segment_input = false, .input_words = "an input's", .copy_words = "the merged copy",
        .keys = array_keys, .nkeys = sizeof array_keys / sizeof array_keys[0],
        .inputs = merge_inputs, .run = merge_run, .report_head = merge_report_head, .summary = merge_summary,
    };
    kf_merge_result res = {0};
    return rebuild_main(argc, argv, &cmd, &res);
}
