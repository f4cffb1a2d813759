/* verify_common.c: the segment, index, chain and small-file checks of
 * `kfsck verify`, shared with `kfsck scan` (see verify_common.h). Output goes
 * to the verify_ctx's `out`, problems through report_problem. */
#include "cli/verify_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/walk.h"

void verify_ctx_init(verify_ctx *v, out *o, uint64_t max_batch_bytes)
{
    memset(v, 0, sizeof *v);
    v->o = o;
    v->max_batch_bytes = max_batch_bytes;
    v->status = EXIT_CLEAN;
    v->segment_lines = true;
    v->progress = true;
}

bool part_log_end(const part_result *pr, int64_t *leo)
{
    if (!pr->has_last_segment)
        return false;
    *leo = pr->last_has_offsets ? pr->last_last + 1 : pr->last_base;
    return true;
}

static void add_counts(verify_ctx *v, const report *r)
{
    v->errors += r->errors;
    v->warnings += r->warnings;
}

/* A file that cannot be read: the one-line error on stderr, an `unreadable`
 * problem line for whoever reads the JSON, and exit 3 at the end. */
void verify_unreadable(verify_ctx *v, const char *path, int err_no)
{
    report r = {v->o, path, 0, 0}; /* report_problem prints the stderr line */
    kf_report(report_problem, &r, KF_P_UNREADABLE, KF_SEV_ERROR, 0, false, 0, "cannot read: %s", cli_read_error(err_no));
    add_counts(v, &r);
    v->status = EXIT_FAIL;
}

/* "dir/000123.log[.deleted]" -> "dir/000123<ext>[.deleted]" */
static char *sibling(const char *log_path, const char *ext, const char *suffix)
{
    size_t n = strlen(log_path) - strlen(suffix) - strlen(".log");
    size_t e = strlen(ext), s = strlen(suffix);
    char *p = malloc(n + e + s + 1);
    if (!p) {
        fputs("kfsck: out of memory\n", stderr);
        exit(EXIT_FAIL);
    }
    memcpy(p, log_path, n);
    memcpy(p + n, ext, e);
    memcpy(p + n + e, suffix, s + 1);
    return p;
}

static void print_summary(verify_ctx *v, const char *path, const kf_segment_summary *s)
{
    out *o = v->o;
    if (o->json) {
        out_begin(o, "segment");
        out_str(o, "file", path);
        out_uint(o, "size", s->size);
        out_uint(o, "batches", s->batches);
        out_uint(o, "records", s->records);
        out_uint(o, "bad_batches", s->bad_batches);
        out_uint(o, "valid_bytes", s->valid_bytes);
        if (s->has_offsets) {
            out_int(o, "first_offset", s->first_offset);
            out_int(o, "last_offset", s->last_offset);
        } else {
            out_null(o, "first_offset");
            out_null(o, "last_offset");
        }
        out_uint(o, "errors", s->errors);
        out_uint(o, "warnings", s->warnings);
        out_end(o);
        return;
    }
    out_text(o, "%s: %llu bytes, %llu batches, %llu records", path, (unsigned long long)s->size,
             (unsigned long long)s->batches, (unsigned long long)s->records);
    if (s->has_offsets)
        out_text(o, ", offsets %lld..%lld", (long long)s->first_offset, (long long)s->last_offset);
    if (s->bad_batches || s->valid_bytes != s->size)
        out_text(o, ", %llu damaged, broker recovery keeps %llu bytes", (unsigned long long)s->bad_batches,
                 (unsigned long long)s->valid_bytes);
    out_text(o, "%s\n", s->errors ? "" : (s->warnings ? " (warnings only)" : " - ok"));
}

static bool read_optional(const char *path, kf_bytes *m)
{
    if (kf_file_read_all(path, KF_SMALL_FILE_MAX, &m->data, &m->size, NULL) == KF_OK)
        return true;
    m->data = NULL;
    m->size = 0;
    return false;
}

void verify_segment(verify_ctx *v, const char *path, kf_name_info ni, seg_result *res)
{
    memset(res, 0, sizeof *res);
    res->base = ni.base_offset;
    kf_source *m;
    int err_no = 0;
    if (kf_source_open(&m, path, 0, &err_no) != KF_OK) {
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            res->size = (uint64_t)st.st_size;
        verify_unreadable(v, path, err_no);
        return;
    }
    report r = {v->o, path, 0, 0};
    kf_scan_opts so;
    kf_scan_opts_init(&so);
    so.max_batch_bytes = (size_t)v->max_batch_bytes;
    so.base_offset = ni.kind == KF_FILE_LOG ? ni.base_offset : -1;
    so.problem_fn = report_problem;
    so.problem_ctx = &r;

    /* the segment's own indexes, when they sit beside it */
    char *ipath = NULL, *tpath = NULL;
    kf_bytes im = {0}, tm = {0};
    kf_index oi, ti;
    report ri = {v->o, NULL, 0, 0}, rt = {v->o, NULL, 0, 0};
    if (ni.kind == KF_FILE_LOG && ni.base_offset >= 0) {
        ipath = sibling(path, ".index", ni.suffix);
        tpath = sibling(path, ".timeindex", ni.suffix);
        ri.file = ipath;
        rt.file = tpath;
        if (read_optional(ipath, &im)) {
            kf_offset_index_init(&oi, im.data, im.size, ni.base_offset);
            kf_offset_index_check(&oi, UINT64_MAX, report_problem, &ri);
            so.offset_index = &oi;
            so.index_problem_fn = report_problem;
            so.index_problem_ctx = &ri;
        }
        if (read_optional(tpath, &tm)) {
            kf_time_index_init(&ti, tm.data, tm.size, ni.base_offset);
            kf_time_index_check(&ti, report_problem, &rt);
            so.time_index = &ti;
            so.timeindex_problem_fn = report_problem;
            so.timeindex_problem_ctx = &rt;
        }
    }
    if (v->progress) {
        so.progress_fn = progress_show;
        so.progress_ctx = (void *)path;
    }
    so.threads = v->threads;
    reader_tuning(&so.threads, &so.chunk_bytes);
    kf_segment_summary sum;
    int scan_rc = kf_segment_scan(m, &so, &sum);
    if (v->progress)
        progress_done();
    if (scan_rc != KF_OK) {
        cli_error(path, "%s", scan_rc == KF_ERR_NOMEM ? "out of memory" : "read error");
        v->status = EXIT_FAIL;
    } else {
        /* index problems were counted into the summary too; keep file counts */
        sum.errors = r.errors;
        sum.warnings = r.warnings;
        if (v->segment_lines)
            print_summary(v, path, &sum);
        res->ok = true;
        res->size = sum.size;
        res->has_offsets = sum.has_offsets;
        res->first = sum.first_offset;
        res->last = sum.last_offset;
    }
    add_counts(v, &r);
    add_counts(v, &ri);
    add_counts(v, &rt);
    kf_source_close(m);
    free(im.data);
    free(tm.data);
    free(ipath);
    free(tpath);
}

void verify_aux(verify_ctx *v, const char *path, kf_name_info ni)
{
    kf_bytes m;
    int err_no = 0;
    int rc = kf_file_read_all(path, KF_SMALL_FILE_MAX, &m.data, &m.size, &err_no);
    if (rc == KF_ERR_TOO_BIG)
        err_no = EFBIG;
    if (rc != KF_OK) {
        verify_unreadable(v, path, err_no);
        return;
    }
    report r = {v->o, path, 0, 0};
    aux_check(path, &m, ni, &r);
    add_counts(v, &r);
    free(m.data);
}

static void chain_problem(verify_ctx *v, const char *path, const char *code, kf_severity sev, int64_t off,
                          const char *msg)
{
    report r = {v->o, path, 0, 0};
    kf_report(report_problem, &r, code, sev, 0, true, off, "%s", msg);
    add_counts(v, &r);
}

void verify_partition(verify_ctx *v, const char *dir, part_result *pr)
{
    part_result dummy;
    if (!pr)
        pr = &dummy;
    memset(pr, 0, sizeof *pr);
    name_list l;
    if (list_dir(dir, &l) != 0) {
        cli_error(dir, "cannot list directory");
        v->status = EXIT_FAIL;
        return;
    }
    bool have_prev = false;
    int64_t prev_last = 0;
    char msg[200];
    for (size_t i = 0; i < l.n; i++) {
        kf_name_info ni = kf_classify_name(l.names[i]);
        char *p = path_join(dir, l.names[i]);
        if (ni.kind == KF_FILE_LOG && ni.suffix[0] == 0) {
            seg_result res;
            verify_segment(v, p, ni, &res);
            if (res.ok && have_prev) {
                if (ni.base_offset <= prev_last) {
                    snprintf(msg, sizeof msg, "segment base offset %lld is not after the previous segment's last offset %lld",
                             (long long)ni.base_offset, (long long)prev_last);
                    chain_problem(v, p, KF_P_SEGMENT_OVERLAP, KF_SEV_ERROR, ni.base_offset, msg);
                } else if (res.has_offsets && res.first > prev_last + 1) {
                    snprintf(msg, sizeof msg, "offsets %lld..%lld are in no segment (normal after compaction or retention)",
                             (long long)prev_last + 1, (long long)res.first - 1);
                    chain_problem(v, p, KF_P_SEGMENT_GAP, KF_SEV_WARNING, prev_last + 1, msg);
                }
            }
            if (res.ok && res.has_offsets) {
                have_prev = true;
                prev_last = res.last;
                pr->last_offset = res.last;
                if (!pr->has_offsets) {
                    pr->has_offsets = true;
                    pr->first_offset = res.first;
                }
            }
            pr->segments++;
            pr->bytes += res.size;
            pr->has_last_segment = true;
            pr->last_base = ni.base_offset;
            pr->last_has_offsets = res.ok && res.has_offsets;
            pr->last_last = res.last;
        } else if (ni.kind == KF_FILE_LOG || ni.kind == KF_FILE_KRAFT_CHECKPOINT) {
            seg_result res;
            verify_segment(v, p, ni, &res);
        } else if (ni.kind == KF_FILE_TXNINDEX || ni.kind == KF_FILE_SNAPSHOT || ni.kind == KF_FILE_LEADER_EPOCH ||
                   ni.kind == KF_FILE_PARTITION_METADATA) {
            verify_aux(v, p, ni);
        }
        /* .index/.timeindex are checked with their segment */
        free(p);
    }
    name_list_free(&l);
    pr->listed = true;
}

