/* outdir.c: helpers shared by `repair` and `merge` (see outdir.h). */
#include "cli/outdir.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/walk.h"

static void add_name(name_set *s, const char *b, size_t n, const char *ext)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 32;
        s->v = must(realloc(s->v, s->cap * sizeof *s->v));
    }
    size_t e = ext ? strlen(ext) : 0;
    char *c = must(malloc(n + e + 1));
    memcpy(c, b, n);
    memcpy(c + n, ext ? ext : "", e);
    c[n + e] = 0;
    s->v[s->n++] = c;
}

static const char *base_of(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

void name_set_add(name_set *s, const char *path)
{
    if (path)
        add_name(s, base_of(path), strlen(base_of(path)), NULL);
}

void name_set_add_segment(name_set *s, const char *log_path)
{
    if (!log_path)
        return;
    name_set_add(s, log_path);
    const char *b = base_of(log_path);
    size_t n = strlen(b);
    if (n > 4 && !strcmp(b + n - 4, ".log")) {
        add_name(s, b, n - 4, ".index");
        add_name(s, b, n - 4, ".timeindex");
    }
}

bool name_set_has(const name_set *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i], name))
            return true;
    return false;
}

void name_set_free(name_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

uint64_t remove_stale(const char *dir, const name_set *written)
{
    uint64_t n = 0;
    kf_name_list l;
    if (kf_list_dir(dir, &l, NULL) != KF_OK)
        return 0;
    for (size_t i = 0; i < l.n; i++) {
        kf_name_info ni = kf_classify_name(l.names[i]);
        if (ni.kind == KF_FILE_UNKNOWN || name_set_has(written, l.names[i]))
            continue;
        char *p = path_join(dir, l.names[i]);
        if (unlink(p) == 0)
            n++;
        free(p);
    }
    kf_name_list_free(&l);
    return n;
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

char *clean_base(const char *path)
{
    const char *b = kf_path_base(path);
    size_t n = strlen(b);
    while (n > 1 && b[n - 1] == '/')
        n--;
    char *s = must(malloc(n + 1));
    memcpy(s, b, n);
    s[n] = 0;
    return s;
}

FILE *mem_open(char **buf, size_t *len) { return must(open_memstream(buf, len)); }
