/* cmd_verify.c: `kfsck verify`: every batch of every segment, each segment's
 * indexes against it, a partition's segments against each other, and the
 * partition's and data dir's small files; one problem line per finding and
 * one summary line per segment. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/walk.h"

typedef struct verify_ctx {
    out *o;
    uint64_t max_batch_bytes;
    uint64_t errors, warnings;
    int status; /* worst of EXIT_CLEAN / EXIT_FAIL for unreadable inputs */
} verify_ctx;

typedef struct seg_result {
    bool ok;       /* the segment could be read */
    bool has_offsets;
    int64_t base, first, last;
} seg_result;

static void add_counts(verify_ctx *v, const report *r)
{
    v->errors += r->errors;
    v->warnings += r->warnings;
}

/* A file that cannot be read: the one-line error on stderr, an `unreadable`
 * problem line for whoever reads the JSON, and exit 3 at the end. */
static void unreadable(verify_ctx *v, const char *path, int err_no)
{
    cli_error(path, "cannot read: %s", strerror(err_no));
    report r = {v->o->json ? v->o : NULL, path, 0, 0};
    kf_report(report_problem, &r, KF_P_UNREADABLE, KF_SEV_ERROR, 0, false, 0, "cannot read: %s", strerror(err_no));
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

static bool map_optional(const char *path, kf_map *m)
{
    if (kf_map_open(m, path, 0) == KF_OK)
        return true;
    m->data = NULL;
    m->size = 0;
    m->fd = -1;
    return false;
}

static void verify_segment(verify_ctx *v, const char *path, kf_name_info ni, seg_result *res)
{
    memset(res, 0, sizeof *res);
    res->base = ni.base_offset;
    kf_map m;
    if (kf_map_open(&m, path, 0) != KF_OK) {
        unreadable(v, path, m.err_no);
        return;
    }
    kf_map_sequential(&m);
    report r = {v->o, path, 0, 0};
    kf_scan_opts so;
    kf_scan_opts_init(&so);
    so.max_batch_bytes = (size_t)v->max_batch_bytes;
    so.base_offset = ni.kind == KF_FILE_LOG ? ni.base_offset : -1;
    so.problem_fn = report_problem;
    so.problem_ctx = &r;

    /* the segment's own indexes, when they sit beside it */
    char *ipath = NULL, *tpath = NULL;
    kf_map im = {0}, tm = {0};
    im.fd = tm.fd = -1;
    kf_index oi, ti;
    report ri = {v->o, NULL, 0, 0}, rt = {v->o, NULL, 0, 0};
    if (ni.kind == KF_FILE_LOG && ni.base_offset >= 0) {
        ipath = sibling(path, ".index", ni.suffix);
        tpath = sibling(path, ".timeindex", ni.suffix);
        ri.file = ipath;
        rt.file = tpath;
        if (map_optional(ipath, &im)) {
            kf_offset_index_init(&oi, im.data, im.size, ni.base_offset);
            kf_offset_index_check(&oi, UINT64_MAX, report_problem, &ri);
            so.offset_index = &oi;
            so.index_problem_fn = report_problem;
            so.index_problem_ctx = &ri;
        }
        if (map_optional(tpath, &tm)) {
            kf_time_index_init(&ti, tm.data, tm.size, ni.base_offset);
            kf_time_index_check(&ti, report_problem, &rt);
            so.time_index = &ti;
            so.timeindex_problem_fn = report_problem;
            so.timeindex_problem_ctx = &rt;
        }
    }
    so.progress_fn = progress_show;
    so.readahead = true;
    so.progress_ctx = (void *)path;
    kf_segment_summary sum;
    int scan_rc = kf_segment_scan(&m, &so, &sum);
    progress_done();
    if (scan_rc != KF_OK) {
        cli_error(path, "out of memory");
        v->status = EXIT_FAIL;
    } else {
        /* index problems were counted into the summary too; keep file counts */
        sum.errors = r.errors;
        sum.warnings = r.warnings;
        print_summary(v, path, &sum);
        res->ok = true;
        res->has_offsets = sum.has_offsets;
        res->first = sum.first_offset;
        res->last = sum.last_offset;
    }
    add_counts(v, &r);
    add_counts(v, &ri);
    add_counts(v, &rt);
    kf_map_close(&m);
    kf_map_close(&im);
    kf_map_close(&tm);
    free(ipath);
    free(tpath);
}

static void verify_aux(verify_ctx *v, const char *path, kf_name_info ni)
{
    kf_map m;
    if (kf_map_open(&m, path, 0) != KF_OK) {
        unreadable(v, path, m.err_no);
        return;
    }
    report r = {v->o, path, 0, 0};
    aux_check(path, &m, ni, &r);
    add_counts(v, &r);
    kf_map_close(&m);
}

static void verify_file(verify_ctx *v, const char *path)
{
    kf_name_info ni = kf_classify_name(path_base(path));
    if (ni.kind == KF_FILE_UNKNOWN && looks_like_log(path))
        ni.kind = KF_FILE_LOG; /* base offset unknown: -1 */
    seg_result res;
    switch (ni.kind) {
    case KF_FILE_LOG:
    case KF_FILE_KRAFT_CHECKPOINT:
        verify_segment(v, path, ni, &res);
        break;
    case KF_FILE_UNKNOWN:
        cli_error(path, "not a Kafka file kfsck knows (by its name); skipped");
        break;
    default:
        verify_aux(v, path, ni);
    }
}

static void chain_problem(verify_ctx *v, const char *path, const char *code, kf_severity sev, int64_t off,
                          const char *msg)
{
    report r = {v->o, path, 0, 0};
    kf_report(report_problem, &r, code, sev, 0, true, off, "%s", msg);
    add_counts(v, &r);
}

static void verify_partition(verify_ctx *v, const char *dir)
{
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
            }
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
}

static void verify_datadir(verify_ctx *v, const char *dir)
{
    name_list l;
    if (list_dir(dir, &l) != 0) {
        cli_error(dir, "cannot list directory");
        v->status = EXIT_FAIL;
        return;
    }
    for (size_t i = 0; i < l.n; i++) {
        char *p = path_join(dir, l.names[i]);
        path_kind k = classify_path(p);
        kf_name_info ni = kf_classify_name(l.names[i]);
        if (k == PATH_FILE && (ni.kind == KF_FILE_META_PROPERTIES || ni.kind == KF_FILE_OFFSET_CHECKPOINT))
            verify_aux(v, p, ni);
        else if (k == PATH_PARTITION)
            verify_partition(v, p);
        free(p);
    }
    name_list_free(&l);
}

static void verify_usage(FILE *f)
{
    fprintf(f, "usage: kfsck verify [--max-batch-bytes N] [--json] PATH...\n\n"
               "PATH: a segment or other Kafka file, a partition dir, or a broker data dir.\n"
               "Reports each problem (code, byte position, offset) and one summary per segment,\n"
               "with valid_bytes: where a recovering broker would truncate the segment.\n"
               "Exit 0 when no error was found (warnings alone: 0), 1 otherwise.\n");
}

int cmd_verify(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, 0, 'j'},
        {"max-batch-bytes", required_argument, 0, 'B'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    bool json = false;
    uint64_t max_batch = KF_DEFAULT_MAX_BATCH_BYTES;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'B':
            if (opt_positive_size("verify", "--max-batch-bytes", optarg, &max_batch))
                return EXIT_USAGE;
            break;
        case 'h': verify_usage(stdout); return EXIT_CLEAN;
        default: return opt_usage_error("verify", "unknown or incomplete option", argv[optind - 1], verify_usage);
        }
    }
    if (optind >= argc)
        return opt_usage_error("verify", "no PATH given", NULL, verify_usage);
    out o;
    out_init(&o, stdout, json);
    verify_ctx v = {&o, max_batch, 0, 0, EXIT_CLEAN};
    for (int i = optind; i < argc; i++) {
        const char *p = argv[i];
        switch (classify_path(p)) {
        case PATH_MISSING:
            cli_error(p, "no such file or directory");
            v.status = EXIT_FAIL;
            break;
        case PATH_FILE: verify_file(&v, p); break;
        case PATH_PARTITION: verify_partition(&v, p); break;
        case PATH_DATADIR: verify_datadir(&v, p); break;
        case PATH_OTHER_DIR:
            cli_error(p, "neither a partition directory nor a broker data directory");
            v.status = EXIT_FAIL;
            break;
        }
    }
    if (!json)
        out_text(&o, "%llu errors, %llu warnings\n", (unsigned long long)v.errors, (unsigned long long)v.warnings);
    fflush(stdout);
    if (v.status == EXIT_FAIL)
        return EXIT_FAIL;
    return v.errors ? EXIT_DAMAGE : EXIT_CLEAN;
}
