/* report_file.c: the report's output file (report.h), through the safe
 * output files repair and merge write with (src/format/out_file.h): a
 * temporary name in the file's directory, then flush, fsync, rename and the
 * directory's fsync, so the file appears whole or not at all. Before that,
 * the path is refused when it is an input or lies inside an input directory:
 * a report is never written over, or into, the data it describes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bytes/error.h"
#include "format/out_file.h"
#include "kfsck/report.h"

struct kf_report_file {
    kf_out_file *out;
};

static char clash_buf[4096];

static kf_report_file_verdict check(const char *path, char *const *inputs, size_t n, const char **clash)
{
    char out[4096], in[4096];
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return KF_REPORT_FILE_IS_DIR;
    if (kf_path_resolve(path, out, sizeof out) != 0)
        return KF_REPORT_FILE_OK; /* what cannot be resolved is not an input: opening it says why */
    for (size_t i = 0; i < n; i++) {
        if (kf_path_resolve(inputs[i], in, sizeof in) != 0)
            continue;
        bool dir = stat(in, &st) == 0 && S_ISDIR(st.st_mode);
        if (!strcmp(out, in) || (dir && kf_path_within(out, in))) {
            size_t l = strlen(inputs[i]);
            if (l >= sizeof clash_buf)
                l = sizeof clash_buf - 1;
            memcpy(clash_buf, inputs[i], l);
            clash_buf[l] = 0;
            *clash = clash_buf;
            return KF_REPORT_FILE_INSIDE_INPUT;
        }
    }
    return KF_REPORT_FILE_OK;
}

int kf_report_file_open(kf_report_file **f, const char *path, char *const *inputs, size_t n,
                        kf_report_file_verdict *verdict, const char **clash)
{
    *f = NULL;
    *clash = NULL;
    *verdict = check(path, inputs, n, clash);
    if (*verdict != KF_REPORT_FILE_OK)
        return KF_ERR_IO;
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
    if (!dir)
        return kf_error_nomem();
    const char *name = slash ? slash + 1 : path;
    if (!*name) { /* "dir/": a directory's name, not a file's */
        free(dir);
        *verdict = KF_REPORT_FILE_IS_DIR;
        return KF_ERR_IO;
    }
    kf_report_file *r = calloc(1, sizeof *r);
    if (!r) {
        free(dir);
        return kf_error_nomem();
    }
    int rc = kf_out_open(&r->out, dir, name, true);
    free(dir);
    if (rc != KF_OK) {
        if (rc == KF_ERR_IO)
            *verdict = KF_REPORT_FILE_CANNOT_WRITE;
        free(r);
        return rc;
    }
    *f = r;
    return KF_OK;
}

int kf_report_file_write(void *ctx, const void *p, size_t n)
{
    kf_report_file *r = ctx;
    return kf_out_write(r->out, p, n);
}

int kf_report_file_commit(kf_report_file *f)
{
    int rc = kf_out_commit(f->out);
    free(f);
    return rc;
}

void kf_report_file_abort(kf_report_file *f)
{
    if (!f)
        return;
    kf_out_abort(f->out);
    free(f);
}
