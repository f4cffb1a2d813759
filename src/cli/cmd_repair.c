/* cmd_repair.c: `kfsck repair`: write a repaired copy of a segment or a
 * partition directory into OUTDIR, report every dropped byte range on
 * stdout and in OUTDIR/repair.json. The library does the work: the output
 * directory's policy (kfsck/outdir.h: never in the input's directory, no
 * overwriting without --force, stale files) and the repair
 * (kf_repair_into, src/jobs/rebuild/repair.c); this file parses, calls and prints. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/outdir.h"
#include "cli/walk.h"
#include "kfsck/outdir.h"
#include "kfsck/repair.h"

/* repair.json's arrays */
enum { R_DROPPED, R_SEGMENTS, R_FILES, R_ARRAYS };
static const char *const array_keys[R_ARRAYS] = {"dropped", "segments", "files"};

typedef struct rep_ctx {
    out *o;            /* stdout */
    bool json;
    mem_json arr[R_ARRAYS];
} rep_ctx;

static void drop_fields(out *o, const kf_repair_drop *d)
{
    out_str(o, "file", d->file);
    out_uint(o, "start", d->start);
    out_uint(o, "end", d->end);
    out_uint(o, "length", d->end - d->start);
    out_str(o, "reason", d->reason);
    if (d->has_first || d->has_last) {
        out_arr_open(o, "offsets");
        out_opt_int(o, NULL, d->has_first, d->first_offset);
        out_opt_int(o, NULL, d->has_last, d->last_offset);
        out_arr_close(o);
    } else {
        out_null(o, "offsets");
    }
    out_opt_int(o, "first_offset", d->has_first, d->first_offset);
    out_opt_int(o, "last_offset", d->has_last, d->last_offset);
    out_bool(o, "data_loss", d->data_loss);
    out_str(o, "message", d->message);
}

static void on_drop(void *ctx, const kf_repair_drop *d)
{
    rep_ctx *r = ctx;
    if (r->json) {
        out_begin(r->o, "dropped");
        drop_fields(r->o, d);
        out_end(r->o);
    } else {
        out_text(r->o, "dropped %s bytes %llu..%llu (%llu bytes): %s", d->file, (unsigned long long)d->start,
                 (unsigned long long)d->end, (unsigned long long)(d->end - d->start), d->reason);
        if (d->has_first && d->has_last)
            out_text(r->o, ", offsets %lld..%lld lost", (long long)d->first_offset, (long long)d->last_offset);
        else if (d->has_first)
            out_text(r->o, ", offsets from %lld lost", (long long)d->first_offset);
        out_text(r->o, "%s\n", d->data_loss ? "" : " (no data: zero fill)");
        if (d->message[0])
            out_text(r->o, "  %s\n", d->message);
    }
    out_obj_open(&r->arr[R_DROPPED].o, NULL);
    drop_fields(&r->arr[R_DROPPED].o, d);
    out_obj_close(&r->arr[R_DROPPED].o);
}

static void on_segment(void *ctx, const kf_repair_segment *s)
{
    rep_ctx *r = ctx;
    if (r->json) {
        out_begin(r->o, "segment");
        segment_fields(r->o, s, true);
        out_end(r->o);
    } else {
        out_text(r->o, "wrote %s: %llu of %llu bytes, %llu batches", s->output, (unsigned long long)s->size,
                 (unsigned long long)s->input_size, (unsigned long long)s->batches);
        if (s->has_offsets)
            out_text(r->o, ", offsets %lld..%lld", (long long)s->first_offset, (long long)s->last_offset);
        out_text(r->o, "; index %llu entries, time index %llu entries\n", (unsigned long long)s->index_entries,
                 (unsigned long long)s->time_entries);
    }
    out_obj_open(&r->arr[R_SEGMENTS].o, NULL);
    segment_fields(&r->arr[R_SEGMENTS].o, s, true);
    out_obj_close(&r->arr[R_SEGMENTS].o);
}

static void on_file(void *ctx, const kf_repair_file *f)
{
    rep_ctx *r = ctx;
    file_record(r->o, &r->arr[R_FILES].o, f);
}

/* An input file that cannot be read (an `unreadable` warning): the one-line
 * error on stderr, and a problem line with --json. */
static void on_problem(void *ctx, const kf_problem *p)
{
    rep_ctx *r = ctx;
    report rp = {r->o, p->file, 0, 0};
    report_problem(&rp, p);
}

static void repair_usage(FILE *f)
{
    fprintf(f, "usage: kfsck repair [--salvage] [--force] [--max-batch-bytes N] [--json] -o OUTDIR PATH\n\n"
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

typedef struct repair_args {
    bool json, salvage, force;
    const char *outdir, *path;
    uint64_t max_batch;
} repair_args;

/* The options and the PATH: -1 when they are fine, else the exit code. */
static int parse_args(int argc, char **argv, repair_args *a)
{
    static const struct option longopts[] = {
        {"json", no_argument, 0, 'j'},
        {"salvage", no_argument, 0, 's'},
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
        case 's': a->salvage = true; break;
        case 'f': a->force = true; break;
        case 'o': a->outdir = optarg; break;
        case 'B':
            if (opt_positive_size("repair", "--max-batch-bytes", optarg, &a->max_batch))
                return EXIT_USAGE;
            break;
        case 'h': repair_usage(stdout); return EXIT_CLEAN;
        default: return opt_usage_error("repair", "unknown or incomplete option", argv[optind - 1], repair_usage);
        }
    }
    if (!a->outdir || !a->outdir[0])
        return opt_usage_error("repair", "no output directory given (-o OUTDIR)", NULL, repair_usage);
    if (optind >= argc)
        return opt_usage_error("repair", "no PATH given", NULL, repair_usage);
    if (argc - optind > 1)
        return opt_usage_error("repair", "give one PATH (a segment or a partition directory), not", argv[optind + 1],
                               repair_usage);
    a->path = argv[optind];
    return -1;
}

/* What the walk found PATH to be: status -1 when it is a segment or a
 * partition directory (and partition says which), else the exit code. */
typedef struct repair_input {
    int status;
    bool partition;
} repair_input;

static int input_segment(void *ctx, const kf_path_entry *e)
{
    repair_input *in = ctx;
    if (e->file.kind != KF_FILE_LOG && !e->looks_like_log) {
        in->status = opt_usage_error("repair", "not a segment (.log) or a partition directory:", e->path, repair_usage);
        return KF_ERR_IO;
    }
    if (access(e->path, R_OK) != 0) {
        cli_error(e->path, "cannot read: %s", strerror(errno));
        return KF_ERR_IO;
    }
    in->status = -1;
    return KF_OK;
}

static int input_partition(void *ctx, const kf_path_entry *e)
{
    repair_input *in = ctx;
    in->status = -1;
    in->partition = true;
    return KF_OK;
}

static int input_datadir(void *ctx, const kf_path_entry *e)
{
    ((repair_input *)ctx)->status = opt_usage_error(
        "repair", "a broker data directory: give one partition directory, not", e->path, repair_usage);
    return KF_ERR_IO;
}

static int input_other_dir(void *ctx, const kf_path_entry *e)
{
    ((repair_input *)ctx)->status =
        opt_usage_error("repair", "not a segment (.log) or a partition directory:", e->path, repair_usage);
    return KF_ERR_IO;
}

/* Is PATH a segment or a partition directory? -1 (and *partition) when it
 * is one, else the exit code (an unusable PATH: EXIT_FAIL). */
static int input_kind(const char *path, bool *partition)
{
    repair_input in = {EXIT_FAIL, false};
    kf_paths_walk_opts o;
    cli_walk_opts_init(&o, &in);
    o.file_fn = input_segment;
    o.partition_fn = input_partition;
    o.datadir_fn = input_datadir;
    o.other_dir_fn = input_other_dir;
    o.sniff_logs = true;
    char *paths[] = {(char *)path};
    if (kf_paths_walk(paths, 1, &o) == KF_ERR_NOMEM)
        cli_oom();
    *partition = in.partition;
    return in.status;
}

/* OUTDIR/repair.json, then the summary line; the exit code. */
static int finish(const repair_args *a, kf_outdir *od, rep_ctx *r, const kf_repair_result *res)
{
    bool loss = res->data_loss_ranges > 0;
    mem_json doc;
    report_begin(&doc, "repair");
    out_str(&doc.o, "mode", a->salvage ? "salvage" : "default");
    out_str(&doc.o, "input", a->path);
    out_str(&doc.o, "output", od->target);
    out_bool(&doc.o, "data_loss", loss);
    out_uint(&doc.o, "dropped_ranges", res->dropped_ranges);
    out_uint(&doc.o, "segments_written", res->segments_written);
    report_put_arrays(&doc, array_keys, r->arr, R_ARRAYS);
    if (report_write(&doc, od) != EXIT_CLEAN)
        return EXIT_FAIL;
    if (a->json) {
        out_begin(r->o, "summary");
        out_str(r->o, "mode", a->salvage ? "salvage" : "default");
        out_str(r->o, "output", od->target);
        out_str(r->o, "report", od->report);
        out_uint(r->o, "segments_written", res->segments_written);
        out_uint(r->o, "dropped_ranges", res->dropped_ranges);
        out_uint(r->o, "data_loss_ranges", res->data_loss_ranges);
        out_uint(r->o, "stale_files_removed", od->stale_removed);
        out_bool(r->o, "data_loss", loss);
        out_end(r->o);
    } else {
        out_text(r->o, "%s: %llu segments written, %llu ranges dropped (%llu with data)%s; report in %s\n",
                 od->target, (unsigned long long)res->segments_written, (unsigned long long)res->dropped_ranges,
                 (unsigned long long)res->data_loss_ranges,
                 od->stale_removed ? ", stale files of an earlier output removed" : "", od->report);
    }
    return loss ? EXIT_DAMAGE : EXIT_CLEAN;
}

/* The repair itself, into the prepared od; the exit code. */
static int run(const repair_args *a, kf_outdir *od)
{
    /* the job writes into a stage, moved into place once the report is
     * written (report_write) */
    if (kf_outdir_stage(od) != KF_OK)
        return job_failed();
    out o;
    out_init(&o, stdout, a->json);
    rep_ctx r = {.o = &o, .json = a->json};
    report_arrays_open(r.arr, R_ARRAYS);
    kf_repair_opts ro;
    kf_repair_opts_init(&ro);
    ro.salvage = a->salvage;
    ro.max_batch_bytes = (size_t)a->max_batch;
    reader_tuning(&ro.threads, &ro.chunk_bytes);
    ro.drop_fn = on_drop;
    ro.segment_fn = on_segment;
    ro.file_fn = on_file;
    ro.problem_fn = on_problem;
    ro.ctx = &r;
    kf_repair_result res;
    int rc = kf_repair_into(od, a->path, &ro, &res);
    report_arrays_close(r.arr, R_ARRAYS);
    int status = rc != KF_OK ? job_failed() : finish(a, od, &r, &res);
    fflush(stdout);
    report_arrays_free(r.arr, R_ARRAYS);
    return status;
}

int cmd_repair(int argc, char **argv)
{
    repair_args a;
    bool partition = false;
    int status = parse_args(argc, argv, &a);
    if (status < 0)
        status = input_kind(a.path, &partition);
    if (status >= 0)
        return status;
    kf_outdir od;
    if (kf_outdir_init(&od, a.outdir, a.path, partition, "repair.json", a.force) != KF_OK)
        cli_oom();
    const char *inputs[] = {a.path};
    kf_outdir_verdict v = kf_outdir_prepare(&od, inputs, 1);
    status = v != KF_OUTDIR_READY ? outdir_refused("repair", &od, v, "the input's", "the copy") : run(&a, &od);
    kf_outdir_free(&od);
    return status;
}
