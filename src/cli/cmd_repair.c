/* cmd_repair.c: `kfsck repair`: write a repaired copy of a segment or a
 * partition directory into OUTDIR, report every dropped byte range on
 * stdout and in OUTDIR/repair.json. The library does the work: the output
 * directory's policy (kfsck/outdir.h: never in the input's directory, no
 * overwriting without --force, stale files) and the repair
 * (kf_repair_into, src/jobs/rebuild/repair.c). The skeleton it shares with
 * merge (rebuild_cli.c) parses the options, runs the job and writes the
 * report; this file gives what is repair's: its PATH, its job, the dropped
 * ranges and the summary. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/rebuild_cli.h"
#include "cli/walk.h"
#include "kfsck/repair.h"

/* repair.json's own array (segments and files follow) */
enum { R_DROPPED };
static const char *const array_keys[] = {"dropped"};

static void drop_fields(const rebuild_cli *c, out *o, const void *item)
{
    const kf_repair_drop *d = item;
    kf_jsonl_fields(&o->w, KF_JS("file", d->file), KF_JU("start", d->start), KF_JU("end", d->end),
                    KF_JU("length", d->end - d->start), KF_JS("reason", d->reason));
    if (d->has_first || d->has_last) {
        kf_jsonl_arr_open(&o->w, "offsets");
        kf_jsonl_opt_int(&o->w, NULL, d->has_first, d->first_offset);
        kf_jsonl_opt_int(&o->w, NULL, d->has_last, d->last_offset);
        kf_jsonl_arr_close(&o->w);
    } else {
        kf_jsonl_null(&o->w, "offsets");
    }
    kf_jsonl_fields(&o->w, KF_JOPT("first_offset", d->has_first, d->first_offset),
                    KF_JOPT("last_offset", d->has_last, d->last_offset), KF_JB("data_loss", d->data_loss),
                    KF_JS("message", d->message));
}

static void on_drop(void *ctx, const kf_repair_drop *d)
{
    rebuild_cli *c = ctx;
    if (!c->json) {
        out_text(c->o, "dropped %s bytes %llu..%llu (%llu bytes): %s", d->file, (unsigned long long)d->start,
                 (unsigned long long)d->end, (unsigned long long)(d->end - d->start), d->reason);
        if (d->has_first && d->has_last)
            out_text(c->o, ", offsets %lld..%lld lost", (long long)d->first_offset, (long long)d->last_offset);
        else if (d->has_first)
            out_text(c->o, ", offsets from %lld lost", (long long)d->first_offset);
        out_text(c->o, "%s\n", d->data_loss ? "" : " (no data: zero fill)");
        if (d->message[0])
            out_text(c->o, "  %s\n", d->message);
    }
    rebuild_record(c, R_DROPPED, "dropped", drop_fields, d);
}

static void repair_usage(FILE *f)
{
    tprintf(f, "usage: kfsck repair [--salvage] [--force] [--max-batch-bytes N] [--json] -o OUTDIR PATH\n\n"
               "PATH: a segment (.log) or a partition directory. Writes a repaired copy into OUTDIR\n"
               "(a partition to OUTDIR/<partition dir name>/, a segment to OUTDIR/<file name>) with\n"
               ".index/.timeindex rebuilt as broker recovery builds them, and OUTDIR/repair.json\n"
               "listing every dropped byte range.\n"
               "  default     keep what broker recovery keeps: cut the first damaged segment at\n"
               "              its valid_bytes and drop every later segment\n"
               "  --salvage   also keep the intact batches after the damage (offsets increasing)\n"
               "  --force     overwrite existing output files\n"
               "  --max-batch-bytes N  cap on one batch's decompressed size (default 128M)\n"
               "  --json      newline-delimited JSON on stdout (repair.json is written either way)\n"
               "Exit 0: nothing but zero fill dropped; 1: data was left out; 2: usage error\n"
               "(also OUTDIR equal to or inside the input's directory); 3: cannot read or write.\n");
}

/* ---- PATH: a segment or a partition directory ---------------------------------- */

/* The walk over PATH (ctx: the rebuild_cli, whose partition it sets): a
 * refusal said as a usage error stops it with KF_ERR_UNSUPPORTED. */

static int input_segment(void *ctx, const kf_path_entry *e)
{
    if (e->file.kind != KF_FILE_LOG && !e->looks_like_log) {
        rebuild_usage_error(ctx, "not a segment (.log) or a partition directory:", e->path);
        return KF_ERR_UNSUPPORTED;
    }
    if (access(e->path, R_OK) != 0) {
        cli_error(e->path, "cannot read: %s", strerror(errno));
        return KF_ERR_IO;
    }
    return KF_OK;
}

static int input_partition(void *ctx, const kf_path_entry *e)
{
    ((rebuild_cli *)ctx)->partition = true;
    return KF_OK;
}

static int input_datadir(void *ctx, const kf_path_entry *e)
{
    rebuild_usage_error(ctx, "a broker data directory: give one partition directory, not", e->path);
    return KF_ERR_UNSUPPORTED;
}

static int input_other_dir(void *ctx, const kf_path_entry *e)
{
    rebuild_usage_error(ctx, "not a segment (.log) or a partition directory:", e->path);
    return KF_ERR_UNSUPPORTED;
}

/* One PATH, a segment or a partition directory: -1, else the exit code
 * (an unusable PATH: EXIT_FAIL). */
static int repair_inputs(rebuild_cli *c)
{
    if (c->npaths < 1)
        return rebuild_usage_error(c, "no PATH given", NULL);
    if (c->npaths > 1)
        return rebuild_usage_error(c, "give one PATH (a segment or a partition directory), not", c->paths[1]);
    kf_paths_walk_opts o;
    cli_walk_opts_init(&o, c);
    o.file_fn = input_segment;
    o.partition_fn = input_partition;
    o.datadir_fn = input_datadir;
    o.other_dir_fn = input_other_dir;
    o.sniff_logs = true;
    int rc = kf_paths_walk(c->paths, 1, &o);
    if (rc == KF_ERR_NOMEM)
        cli_oom();
    return rc == KF_OK ? -1 : rc == KF_ERR_UNSUPPORTED ? EXIT_USAGE : EXIT_FAIL;
}

/* ---- the job and its report ------------------------------------------------------ */

static int repair_run(rebuild_cli *c, kf_outdir *od)
{
    kf_repair_opts ro;
    kf_repair_opts_init(&ro);
    ro.salvage = c->salvage;
    ro.max_batch_bytes = (size_t)c->max_batch;
    reader_tuning(&ro.threads, &ro.chunk_bytes);
    ro.drop_fn = on_drop;
    ro.segment_fn = rebuild_on_segment;
    ro.file_fn = rebuild_on_file;
    ro.problem_fn = rebuild_on_problem;
    ro.ctx = c;
    return kf_repair_into(od, c->paths[0], &ro, c->job);
}

static void repair_report_head(rebuild_cli *c, const kf_outdir *od, out *doc)
{
    const kf_repair_result *res = c->job;
    kf_jsonl_fields(&doc->w, KF_JS("mode", c->salvage ? "salvage" : "default"), KF_JS("input", c->paths[0]),
                    KF_JS("output", od->target), KF_JB("data_loss", res->data_loss_ranges > 0),
                    KF_JU("dropped_ranges", res->dropped_ranges), KF_JU("segments_written", res->segments_written));
}

static int repair_summary(rebuild_cli *c, const kf_outdir *od)
{
    const kf_repair_result *res = c->job;
    bool loss = res->data_loss_ranges > 0;
    if (c->json) {
        kf_jsonl_begin(&c->o->w, "summary");
        kf_jsonl_fields(&c->o->w, KF_JS("mode", c->salvage ? "salvage" : "default"), KF_JS("output", od->target),
                        KF_JS("report", od->report), KF_JU("segments_written", res->segments_written),
                        KF_JU("dropped_ranges", res->dropped_ranges), KF_JU("data_loss_ranges", res->data_loss_ranges),
                        KF_JU("stale_files_removed", od->stale_removed), KF_JB("data_loss", loss));
        kf_jsonl_end(&c->o->w);
    } else {
        out_text(c->o, "%s: %llu segments written, %llu ranges dropped (%llu with data)%s; report in %s\n",
                 od->target, (unsigned long long)res->segments_written, (unsigned long long)res->dropped_ranges,
                 (unsigned long long)res->data_loss_ranges,
                 od->stale_removed ? ", stale files of an earlier output removed" : "", od->report);
    }
    return loss ? EXIT_DAMAGE : EXIT_CLEAN;
}

int cmd_repair(int argc, char **argv)
{
    static const rebuild_cmd cmd = {
        .name = "repair", .report_name = "repair.json", .usage = repair_usage, .salvage = true,
        .segment_input = true, .input_words = "the input's", .copy_words = "the copy",
        .keys = array_keys, .nkeys = sizeof array_keys / sizeof array_keys[0],
        .inputs = repair_inputs, .run = repair_run, .report_head = repair_report_head, .summary = repair_summary,
    };
    kf_repair_result res = {0};
    return rebuild_main(argc, argv, &cmd, &res);
}
