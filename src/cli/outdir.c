/* outdir.c: the printing shared by `repair` and `merge` (outdir.h). */
#include "cli/outdir.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/walk.h"

int outdir_refused(const char *cmd, const kf_outdir *od, kf_outdir_verdict v, const char *input,
                   const char *copy)
{
    switch (v) {
    case KF_OUTDIR_READY: break;
    case KF_OUTDIR_INSIDE_INPUT:
        fprintf(stderr,
                "kfsck %s: the output directory '%s' is %s directory, inside it, or would put %s there; choose "
                "another -o OUTDIR\n",
                cmd, od->dir, input, copy);
        return EXIT_USAGE;
    case KF_OUTDIR_EXISTS: cli_error(od->clash, "already exists (use --force to overwrite)"); return EXIT_FAIL;
    case KF_OUTDIR_CANNOT_CREATE:
        cli_error(od->dir, "cannot create the output directory: %s", strerror(kf_error_last()->err_no));
        return EXIT_FAIL;
    case KF_OUTDIR_NOMEM: cli_oom();
    }
    return EXIT_CLEAN;
}

static void mem_json_open(mem_json *m)
{
    memset(m, 0, sizeof *m);
    m->f = mem_open(&m->buf, &m->len);
    out_init(&m->o, m->f, true);
}

void report_arrays_open(mem_json *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        mem_json_open(&a[i]);
}

void report_arrays_close(mem_json *a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fclose(a[i].f);
        a[i].f = NULL;
    }
}

void report_arrays_free(mem_json *a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(a[i].buf);
        a[i].buf = NULL;
    }
}

void report_begin(mem_json *doc, const char *command)
{
    mem_json_open(doc);
    fputc('{', doc->f);
    out_str(&doc->o, "command", command);
}

void report_put_arrays(mem_json *doc, const char *const *keys, const mem_json *a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        out_key(&doc->o, keys[i]);
        fprintf(doc->f, "[%s]", a[i].buf ? a[i].buf : "");
    }
}

int report_write(mem_json *doc, kf_outdir *od)
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

int job_failed(void)
{
    const kf_error *e = kf_error_last();
    fflush(stdout);
    if (e->err_no)
        cli_error(e->path, "%s: %s", e->message, strerror(e->err_no));
    else
        cli_error(e->path, "%s", e->message);
    return EXIT_FAIL;
}

void segment_fields(out *o, const kf_repair_segment *s, bool with_input)
{
    out_str(o, "file", s->output);
    if (with_input) {
        out_str(o, "input", s->input);
        out_uint(o, "size", s->size);
        out_uint(o, "input_size", s->input_size);
    } else {
        out_uint(o, "size", s->size);
    }
    out_uint(o, "batches", s->batches);
    if (s->has_offsets) {
        out_int(o, "first_offset", s->first_offset);
        out_int(o, "last_offset", s->last_offset);
    } else {
        out_null(o, "first_offset");
        out_null(o, "last_offset");
    }
    out_uint(o, "index_entries", s->index_entries);
    out_uint(o, "timeindex_entries", s->time_entries);
}

static void file_fields(out *o, const kf_repair_file *f)
{
    out_str(o, "input", f->input);
    out_str(o, "output", f->output);
    out_str(o, "action", f->action);
    out_str(o, "reason", f->reason);
}

void file_record(out *o, out *report_files, const kf_repair_file *f)
{
    if (o->json) {
        out_begin(o, "file");
        file_fields(o, f);
        out_end(o);
    } else {
        out_text(o, "%s %s%s%s: %s\n", f->action, f->input ? f->input : "(none)", f->output ? " -> " : "",
                 f->output ? f->output : "", f->reason);
    }
    out_obj_open(report_files, NULL);
    file_fields(report_files, f);
    out_obj_close(report_files);
}

FILE *mem_open(char **buf, size_t *len) { return must(open_memstream(buf, len)); }
