/* outdir.c: the output-directory policy of repair and merge (outdir.h):
 * where a run's files go, what it refuses to write over, and the stale files
 * of an earlier run that a forced run removes. */
#include "jobs/outdir_internal.h"
#include "kfsck/outdir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytes/error.h"
#include "kfsck/dirs.h"
#include "kfsck/file.h"
#include "kfsck/names.h"
#include "format/out_file.h"

/* The last component of path without trailing slashes, malloc'd. */
static char *last_component(const char *path)
{
    const char *b = kf_path_base(path);
    size_t n = strlen(b);
    while (n > 1 && b[n - 1] == '/')
        n--;
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, b, n);
        s[n] = 0;
    }
    return s;
}

int kf_outdir_init(kf_outdir *od, const char *dir, const char *input, bool partition, const char *report_name,
                   bool force)
{
    memset(od, 0, sizeof *od);
    od->partition = partition;
    od->force = force;
    od->dir = strdup(dir);
    od->name = last_component(input);
    od->report = kf_path_join(dir, report_name);
    if (od->name)
        od->target = partition ? kf_path_join(dir, od->name) : strdup(dir);
    return od->dir && od->name && od->report && od->target ? KF_OK : KF_ERR_NOMEM;
}

void kf_outdir_free(kf_outdir *od)
{
    if (!od)
        return;
    free(od->dir);
    free(od->name);
    free(od->target);
    free(od->report);
    free(od->clash);
    for (size_t i = 0; i < od->nwritten; i++)
        free(od->written[i]);
    free(od->written);
    memset(od, 0, sizeof *od);
}

bool kf_outdir_named_after(const kf_outdir *od, const char *input)
{
    char *n = last_component(input);
    bool same = n && !strcmp(n, od->name);
    free(n);
    return same;
}

/* OUTDIR is input_dir or inside it, or the copy is inside it or holds it. */
static bool inside(const kf_outdir *od, const char *input_dir)
{
    return kf_path_within(od->dir, input_dir) ||
           (od->partition && (kf_path_within(od->target, input_dir) || kf_path_within(input_dir, od->target)));
}

static bool exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0;
}

/* Take p as the clash when it exists (p is freed otherwise). */
static bool clash_at(kf_outdir *od, char *p)
{
    if (p && exists(p)) {
        od->clash = p;
        return true;
    }
    free(p);
    return false;
}

/* Without force: the first output of an earlier run in the way, in od->clash. */
static kf_outdir_verdict find_clash(kf_outdir *od)
{
    if (clash_at(od, strdup(od->report)))
        return od->clash ? KF_OUTDIR_EXISTS : KF_OUTDIR_NOMEM;
    if (od->partition) {
        kf_name_list l;
        bool in_way;
        if (kf_list_dir(od->target, &l) == KF_OK) {
            in_way = l.n > 0;
            kf_name_list_free(&l);
        } else {
            in_way = exists(od->target);
        }
        if (in_way && !(od->clash = strdup(od->target)))
            return KF_OUTDIR_NOMEM;
        return in_way ? KF_OUTDIR_EXISTS : KF_OUTDIR_READY;
    }
    /* a segment: itself and the index files the writer puts beside it */
    if (clash_at(od, kf_path_join(od->dir, od->name)))
        return KF_OUTDIR_EXISTS;
    static const char *const exts[] = {".index", ".timeindex", ".txnindex"};
    kf_name_info ni = kf_classify_name(od->name);
    for (size_t i = 0; i < sizeof exts / sizeof *exts && ni.base_offset >= 0; i++) {
        char nm[64];
        snprintf(nm, sizeof nm, "%020lld%s", (long long)ni.base_offset, exts[i]);
        if (clash_at(od, kf_path_join(od->dir, nm)))
            return KF_OUTDIR_EXISTS;
    }
    return KF_OUTDIR_READY;
}

kf_outdir_verdict kf_outdir_prepare(kf_outdir *od, const char *const *inputs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *area = od->partition ? strdup(inputs[i]) : kf_path_dir(inputs[i]);
        if (!area)
            return KF_OUTDIR_NOMEM;
        bool in = inside(od, area);
        free(area);
        if (in)
            return KF_OUTDIR_INSIDE_INPUT;
    }
    if (!od->force) {
        kf_outdir_verdict v = find_clash(od);
        if (v != KF_OUTDIR_READY)
            return v;
    }
    if (kf_mkdirs(od->dir) != KF_OK)
        return kf_error_last()->err_no == ENOMEM ? KF_OUTDIR_NOMEM : KF_OUTDIR_CANNOT_CREATE;
    return KF_OUTDIR_READY;
}

static void add_name(kf_outdir *od, const char *b, size_t n, const char *ext)
{
    if (od->nwritten == od->cap_written) {
        size_t cap = od->cap_written ? od->cap_written * 2 : 32;
        char **v = realloc(od->written, cap * sizeof *v);
        if (!v) {
            od->written_incomplete = true;
            return;
        }
        od->written = v;
        od->cap_written = cap;
    }
    size_t e = ext ? strlen(ext) : 0;
    char *c = malloc(n + e + 1);
    if (!c) {
        od->written_incomplete = true;
        return;
    }
    memcpy(c, b, n);
    memcpy(c + n, ext ? ext : "", e);
    c[n + e] = 0;
    od->written[od->nwritten++] = c;
}

static const char *base_of(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

void kf_outdir_wrote(kf_outdir *od, const char *path)
{
    if (path)
        add_name(od, base_of(path), strlen(base_of(path)), NULL);
}

void kf_outdir_wrote_segment(kf_outdir *od, const char *log_path)
{
    if (!log_path)
        return;
    kf_outdir_wrote(od, log_path);
    const char *b = base_of(log_path);
    size_t n = strlen(b);
    if (n > 4 && !strcmp(b + n - 4, ".log")) {
        add_name(od, b, n - 4, ".index");
        add_name(od, b, n - 4, ".timeindex");
    }
}

bool kf_outdir_has_written(const kf_outdir *od, const char *name)
{
    for (size_t i = 0; i < od->nwritten; i++)
        if (!strcmp(od->written[i], name))
            return true;
    return false;
}

uint64_t kf_outdir_remove_stale(kf_outdir *od)
{
    kf_name_list l;
    if (!od->force || !od->partition || od->written_incomplete || kf_list_dir(od->target, &l) != KF_OK)
        return 0;
    for (size_t i = 0; i < l.n; i++) {
        kf_name_info ni = kf_classify_name(l.names[i]);
        if (ni.kind == KF_FILE_UNKNOWN || kf_outdir_has_written(od, l.names[i]))
            continue;
        char *p = kf_path_join(od->target, l.names[i]);
        if (p && unlink(p) == 0)
            od->stale_removed++;
        free(p);
    }
    kf_name_list_free(&l);
    return od->stale_removed;
}

int kf_outdir_finish(kf_outdir *od)
{
    if (od->written_incomplete)
        return KF_ERR_NOMEM;
    kf_outdir_remove_stale(od);
    return KF_OK;
}

int kf_outdir_write_report(const kf_outdir *od, const void *doc, size_t len)
{
    return kf_out_write_file(od->dir, kf_path_base(od->report), doc, len, true);
}
