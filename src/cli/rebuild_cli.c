/* rebuild_cli.c: the command-line skeleton `repair` and `merge` share
 * (rebuild_cli.h): options, the output directory, the run and its report,
 * the records both print. */
#include "cli/rebuild_cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/walk.h"

/* ---- the output directory and the report ----------------------------------- */

/* Why kf_outdir_prepare refused or failed (rc != KF_OK, or v !=
 * KF_OUTDIR_READY), and the exit code: OUTDIR in an input or a broker's data
 * dir is a usage error ("kfsck CMD: the output directory '...' is INPUT
 * directory, inside it, or would put COPY there"), an existing output, an
 * OUTDIR another run is writing into or one that cannot be made is a
 * failure. */
static int outdir_refused(const char *cmd, const kf_outdir *od, int rc, kf_outdir_verdict v, const char *input,
                          const char *copy)
{
    if (rc == KF_ERR_NOMEM)
        cli_oom();
    if (rc != KF_OK) {
        cli_error(od->dir, "cannot create the output directory: %s", strerror(kf_error_last()->err_no));
        return EXIT_FAIL;
    }
    switch (v) {
    case KF_OUTDIR_READY: break;
    case KF_OUTDIR_INSIDE_INPUT:
        tprintf(stderr,
                "kfsck %s: the output directory '%s' is %s directory, inside it, or would put %s there; choose "
                "another -o OUTDIR\n",
                cmd, od->dir, input, copy);
        return EXIT_USAGE;
    case KF_OUTDIR_EXISTS: cli_error(od->clash, "already exists (use --force to overwrite)"); return EXIT_FAIL;
    case KF_OUTDIR_IS_DATADIR:
        tprintf(stderr,
                "kfsck %s: the output directory '%s' is a broker's data directory (it holds %s): a broker would "
                "load what kfsck wrote there; choose another -o OUTDIR\n",
                cmd, od->dir, kf_path_base(od->clash));
        return EXIT_USAGE;
    case KF_OUTDIR_BUSY: cli_error(od->dir, "%s", kf_error_last()->message); return EXIT_FAIL;
    }
    return EXIT_CLEAN;
}

/* The job failed (the last error's path, message and errno): prints
 * "kfsck: <path>: <what>: <strerror>" (without ": <strerror>" when errno is
 * 0) after what stdout holds; EXIT_FAIL. */
static int job_failed(void)
{
    const kf_error *e = kf_error_last();
    fflush(stdout);
    if (e->err_no)
        cli_error(e->path, "%s: %s", e->message, strerror(e->err_no));
    else
        cli_error(e->path, "%s", e->message);
    return EXIT_FAIL;
}

/* JSON into memory (out of memory exits). */
static void mem_json_open(mem_json *m)
{
    memset(m, 0, sizeof *m);
    m->f = must(open_memstream(&m->buf, &m->len));
    out_init(&m->o, m->f, true);
}

/* Open, close (the bytes are then in buf) and free n arrays. */
static void report_arrays_open(mem_json *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        mem_json_open(&a[i]);
}

static void report_arrays_close(mem_json *a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fclose(a[i].f);
        a[i].f = NULL;
    }
}

static void report_arrays_free(mem_json *a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(a[i].buf);
        a[i].buf = NULL;
    }
}

/* Start the report: {"command":"<command>" (add fields with doc->o). */
static void report_begin(mem_json *doc, const char *command)
{
    mem_json_open(doc);
    fputc('{', doc->f);
    kf_jsonl_str(&doc->o.w, "command", command);
}

/* "keys[i]":[<a[i]>] for each of the n closed arrays. */
static void report_put_arrays(mem_json *doc, const char *const *keys, const mem_json *a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        kf_jsonl_key(&doc->o.w, keys[i]);
        tprintf(doc->f, "[%s]", a[i].buf ? a[i].buf : "");
    }
}

/* Close the report and write it (kf_outdir_write_report), free it, then
 * move the run's output into place (kf_outdir_commit): EXIT_CLEAN, or
 * EXIT_FAIL after "kfsck: <path>: <what failed>". */
static int report_write(mem_json *doc, kf_outdir *od)
{
    fputs("}\n", doc->f);
    fclose(doc->f);
    int rc = kf_outdir_write_report(od, doc->buf, doc->len);
    free(doc->buf);
    if (rc != KF_OK) {
        fflush(stdout);
        cli_error(od->report, "cannot write: %s", strerror(kf_error_last()->err_no));
        return EXIT_FAIL;
    }
    if (kf_outdir_commit(od) != KF_OK)
        return job_failed();
    return EXIT_CLEAN;
}

/* ---- the records ---------------------------------------------------------- */

void rebuild_record(rebuild_cli *c, size_t arr, const char *type, rebuild_fields_fn fields, const void *item)
{
    if (c->json) {
        kf_jsonl_begin(&c->o->w, type);
        fields(c, c->o, item);
        kf_jsonl_end(&c->o->w);
    }
    kf_jsonl_obj_open(&c->arr[arr].o.w, NULL);
    fields(c, &c->arr[arr].o, item);
    kf_jsonl_obj_close(&c->arr[arr].o.w);
}

/* A segment written: the file, with the segment it was rebuilt from when
 * the command names one. */
static void segment_fields(const rebuild_cli *c, out *o, const void *item)
{
    const kf_repair_segment *s = item;
    const kf_segment_written *w = &s->written;
    kf_jsonl_str(&o->w, "file", s->output);
    if (c->cmd->segment_input)
        kf_jsonl_fields(&o->w, KF_JS("input", s->input), KF_JU("size", w->size), KF_JU("input_size", s->input_size));
    else
        kf_jsonl_uint(&o->w, "size", w->size);
    kf_jsonl_fields(&o->w, KF_JU("batches", w->batches), KF_JOPT("first_offset", w->has_offsets, w->first_offset),
                    KF_JOPT("last_offset", w->has_offsets, w->last_offset), KF_JU("index_entries", w->index_entries),
                    KF_JU("timeindex_entries", w->time_entries));
}

void rebuild_on_segment(void *ctx, const kf_repair_segment *s)
{
    rebuild_cli *c = ctx;
    const kf_segment_written *w = &s->written;
    if (!c->json && c->cmd->segment_input) {
        out_text(c->o, "wrote %s: %llu of %llu bytes, %llu batches", s->output, (unsigned long long)w->size,
                 (unsigned long long)s->input_size, (unsigned long long)w->batches);
        if (w->has_offsets)
            out_text(c->o, ", offsets %lld..%lld", (long long)w->first_offset, (long long)w->last_offset);
        out_text(c->o, "; index %llu entries, time index %llu entries\n", (unsigned long long)w->index_entries,
                 (unsigned long long)w->time_entries);
    } else if (!c->json) {
        out_text(c->o, "wrote %s: %llu batches, %llu bytes\n", s->output, (unsigned long long)w->batches,
                 (unsigned long long)w->size);
    }
    rebuild_record(c, c->cmd->nkeys, "segment", segment_fields, s);
}

static void file_fields(const rebuild_cli *c, out *o, const void *item)
{
    const kf_repair_file *f = item;
    kf_jsonl_fields(&o->w, KF_JS("input", f->input), KF_JS("output", f->output), KF_JS("action", f->action),
                    KF_JS("reason", f->reason));
}

void rebuild_on_file(void *ctx, const kf_repair_file *f)
{
    rebuild_cli *c = ctx;
    if (!c->json)
        out_text(c->o, "%s %s%s%s: %s\n", f->action, f->input ? f->input : "(none)", f->output ? " -> " : "",
                 f->output ? f->output : "", f->reason);
    rebuild_record(c, c->cmd->nkeys + 1, "file", file_fields, f);
}

void rebuild_on_problem(void *ctx, const kf_problem *p)
{
    rebuild_cli *c = ctx;
    report r = {c->o, p->file, 0, 0};
    report_problem(&r, p);
}

/* ---- the command ------------------------------------------------------------ */

int rebuild_usage_error(const rebuild_cli *c, const char *what, const char *arg)
{
    return opt_usage_error(c->cmd->name, what, arg, c->cmd->usage);
}

/* The options: -1 to go on with the PATHs, else the exit code. */
static int parse_options(rebuild_cli *c, int argc, char **argv)
{
    const rebuild_cmd *cmd = c->cmd;
    c->max_batch = KF_DEFAULT_MAX_BATCH_BYTES;
    opt_spec specs[] = {
        {.name = "--json", .kind = OPT_FLAG, .to = &c->json},
        {.name = "--force", .kind = OPT_FLAG, .to = &c->force},
        {.name = "--output", .letter = 'o', .kind = OPT_STRING, .to = &c->outdir},
        {.name = "--max-batch-bytes", .kind = OPT_SIZE, .to = &c->max_batch},
        {.name = "--salvage", .kind = OPT_FLAG, .to = &c->salvage}, /* repair's only */
        {0},
    };
    if (!cmd->salvage)
        specs[4] = (opt_spec){0};
    int st = opt_parse(cmd->name, argc, argv, specs, cmd->usage, NULL);
    if (st >= 0)
        return st;
    if (!c->outdir || !c->outdir[0])
        return rebuild_usage_error(c, "no output directory given (-o OUTDIR)", NULL);
    c->paths = argv + optind;
    c->npaths = argc - optind;
    return -1;
}

/* OUTDIR/<report>, then the summary; the exit code. */
static int finish(rebuild_cli *c, kf_outdir *od)
{
    const char *keys[REBUILD_MAX_ARRAYS];
    size_t n = c->cmd->nkeys;
    memcpy(keys, c->cmd->keys, n * sizeof *keys);
    keys[n++] = "segments";
    keys[n++] = "files";
    mem_json doc;
    report_begin(&doc, c->cmd->name);
    c->cmd->report_head(c, od, &doc.o);
    report_put_arrays(&doc, keys, c->arr, n);
    if (report_write(&doc, od) != EXIT_CLEAN)
        return EXIT_FAIL;
    return c->cmd->summary(c, od);
}

/* The job into the prepared od; the exit code. */
static int run(rebuild_cli *c, kf_outdir *od)
{
    /* the job writes into a stage, moved into place once the report is
     * written (report_write) */
    if (kf_outdir_stage(od) != KF_OK)
        return job_failed();
    out o;
    out_init(&o, stdout, c->json);
    c->o = &o;
    size_t n = c->cmd->nkeys + REBUILD_OWN_ARRAYS;
    report_arrays_open(c->arr, n);
    int rc = c->cmd->run(c, od);
    report_arrays_close(c->arr, n);
    int status = rc != KF_OK ? job_failed() : finish(c, od);
    fflush(stdout);
    report_arrays_free(c->arr, n);
    return status;
}

int rebuild_main(int argc, char **argv, const rebuild_cmd *cmd, void *job)
{
    rebuild_cli c;
    memset(&c, 0, sizeof c);
    c.cmd = cmd;
    c.job = job;
    int status = parse_options(&c, argc, argv);
    if (status < 0)
        status = cmd->inputs(&c);
    if (status >= 0)
        return status;
    kf_outdir od;
    if (kf_outdir_init(&od, c.outdir, c.paths[0], c.partition, cmd->report_name, c.force) != KF_OK)
        cli_oom();
    for (int i = 1; i < c.npaths; i++)
        if (!kf_outdir_named_after(&od, c.paths[i]))
            tprintf(stderr, "kfsck %s: note: '%s' and '%s' have different names; the output is named '%s'\n",
                    cmd->name, c.paths[0], c.paths[i], od.name);
    kf_outdir_verdict v;
    int rc = kf_outdir_prepare(&od, (const char *const *)c.paths, (size_t)c.npaths, &v);
    status = rc != KF_OK || v != KF_OUTDIR_READY
                 ? outdir_refused(cmd->name, &od, rc, v, cmd->input_words, cmd->copy_words)
                 : run(&c, &od);
    kf_outdir_free(&od);
    return status;
}
