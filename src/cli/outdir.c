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
        cli_error(od->dir, "cannot create the output directory: %s", strerror(od->err_no));
        return EXIT_FAIL;
    case KF_OUTDIR_NOMEM: cli_oom();
    }
    return EXIT_CLEAN;
}

void report_array_open(report_array *a)
{
    memset(a, 0, sizeof *a);
    a->f = mem_open(&a->buf, &a->len);
    out_init(&a->o, a->f, true);
}

void report_array_close(report_array *a)
{
    fclose(a->f);
    a->f = NULL;
}

void report_array_put(out *jo, FILE *doc, const char *key, const report_array *a)
{
    out_key(jo, key);
    fprintf(doc, "[%s]", a->buf ? a->buf : "");
}

void report_array_free(report_array *a)
{
    free(a->buf);
    a->buf = NULL;
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
