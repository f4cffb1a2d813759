/* replicas_scanfile.c: the `kfsck scan --json` files the replicas job
 * reads (replicas_internal.h): read line by line with a cap on a line,
 * each line parsed by Jansson; only "type":"partition" lines are used. A
 * first read finds the runs of lines in (topic, partition) order (one per
 * data dir section of a scan's output) and reports bad lines; each run is
 * then a stream of its own over the same descriptor, so the driver can
 * merge them with every other input by topic-partition. Memory: a read
 * buffer per run, whatever the file's size. */
#include "kfsck/replicas.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/order.h"
#include "bytes/error.h"
#include "bytes/report.h"
#include "jobs/replicas/replicas_internal.h"

/* ---- lines ------------------------------------------------------------------ */

/* The lines of [pos, end) of a file, read with pread into a buffer that
 * grows up to one line of RP_SCAN_LINE_MAX. */
typedef struct line_reader {
    int fd;
    int64_t pos, end;      /* of the next read */
    char *buf;
    size_t cap, len, off;  /* buf[off..len) not handed out yet */
    uint64_t lineno;       /* of the last line handed out */
    int64_t line_pos;      /* its byte position */
} line_reader;

enum { LINE_OK = 1, LINE_END = 0, LINE_TOO_LONG = 2 };

static int refill(line_reader *lr)
{
    if (lr->off) {
        memmove(lr->buf, lr->buf + lr->off, lr->len - lr->off);
        lr->len -= lr->off;
        lr->off = 0;
    }
    if (lr->len == lr->cap) {
        size_t cap = lr->cap ? lr->cap * 2 : 4096;
        if (cap > RP_SCAN_LINE_MAX + 1)
            cap = RP_SCAN_LINE_MAX + 1;
        if (cap == lr->cap)
            return 0; /* full: the caller sees a line too long */
        char *nb = realloc(lr->buf, cap);
        if (!nb)
            return kf_error_nomem();
        lr->buf = nb;
        lr->cap = cap;
    }
    if (lr->pos >= lr->end)
        return 0;
    size_t want = lr->cap - lr->len;
    if ((int64_t)want > lr->end - lr->pos)
        want = (size_t)(lr->end - lr->pos);
    ssize_t got;
    do
        got = pread(lr->fd, lr->buf + lr->len, want, lr->pos);
    while (got < 0 && errno == EINTR);
    if (got < 0)
        return kf_error_set(KF_ERR_IO, errno, NULL, "cannot read");
    lr->len += (size_t)got;
    lr->pos += got;
    if (got == 0)
        lr->end = lr->pos; /* shrank since it was opened */
    return got > 0;
}

/* The next line (without its newline) in *line and *n: LINE_OK, LINE_END,
 * LINE_TOO_LONG (skipped up to its newline; *line unset), or a kf_err. */
static int next_line(line_reader *lr, const char **line, size_t *n)
{
    size_t scanned = 0;
    bool too_long = false;
    for (;;) {
        size_t unseen = lr->len - lr->off - scanned;
        char *nl = unseen ? memchr(lr->buf + lr->off + scanned, '\n', unseen) : NULL;
        if (nl) {
            size_t len = (size_t)(nl - (lr->buf + lr->off));
            lr->lineno++;
            *line = lr->buf + lr->off;
            *n = len;
            lr->off += len + 1;
            lr->line_pos += (int64_t)len + 1;
            if (too_long)
                return LINE_TOO_LONG;
            return len > RP_SCAN_LINE_MAX ? LINE_TOO_LONG : LINE_OK;
        }
        scanned = lr->len - lr->off;
        if (scanned > RP_SCAN_LINE_MAX) { /* drop what was read of it, keep looking for its end */
            too_long = true;
            lr->line_pos += (int64_t)scanned;
            lr->off = lr->len;
            scanned = 0;
        }
        int rc = refill(lr);
        if (rc < 0)
            return rc;
        if (rc == 0) {
            if (lr->len == lr->off)
                return too_long ? (lr->lineno++, LINE_TOO_LONG) : LINE_END;
            /* a last line with no newline */
            size_t len = lr->len - lr->off;
            lr->lineno++;
            *line = lr->buf + lr->off;
            *n = len;
            lr->off = lr->len;
            lr->line_pos += (int64_t)len;
            return too_long || len > RP_SCAN_LINE_MAX ? LINE_TOO_LONG : LINE_OK;
        }
    }
}

/* ---- one line ------------------------------------------------------------------ */

void rp_rec_free(rp_rec *r)
{
    free(r->topic);
    free(r->datadir);
    free(r->dir);
    free(r->cluster_id);
    free(r->epochs);
    memset(r, 0, sizeof *r);
}

void rp_rec_move(rp_rec *to, rp_rec *from)
{
    rp_rec_free(to);
    *to = *from;
    memset(from, 0, sizeof *from);
}

int rp_rec_cmp(const rp_rec *a, const rp_rec *b)
{
    return kf_cmp_topic_partition(a->topic, a->partition, b->topic, b->partition);
}

/* An optional integer field: false with *why set when it is there but not
 * an integer. */
static bool opt_int(json_t *o, const char *key, bool *has, int64_t *v, const char **why)
{
    json_t *x = json_object_get(o, key);
    *has = false;
    if (!x || json_is_null(x))
        return true;
    if (!json_is_integer(x)) {
        *why = key;
        return false;
    }
    *has = true;
    *v = (int64_t)json_integer_value(x);
    return true;
}

/* An optional string field: true when it is a string or null/absent. */
static bool opt_str(json_t *o, const char *key, const char **v, const char **why)
{
    json_t *x = json_object_get(o, key);
    *v = NULL;
    if (!x || json_is_null(x))
        return true;
    if (!json_is_string(x)) {
        *why = key;
        return false;
    }
    *v = json_string_value(x);
    return true;
}

/* s copied (NULL stays NULL); false when out of memory. */
static bool dup_opt(char **to, const char *s)
{
    *to = s ? strdup(s) : NULL;
    return !s || *to;
}

typedef enum line_kind { L_BAD, L_OTHER, L_PARTITION } line_kind;

/* The fields of a partition line into *r (all but the strings); NULL, or
 * the name of the first field that is missing or of the wrong kind. */
static const char *read_fields(json_t *o, rp_rec *r)
{
    const char *bad = NULL;
    kf_partition_checkpoints *ck = &r->checkpoints;
    json_t *part = json_object_get(o, "partition"), *errs = json_object_get(o, "errors");
    if (!json_is_string(json_object_get(o, "topic")))
        return "topic";
    if (!json_is_integer(part) || json_integer_value(part) < 0 || json_integer_value(part) > INT32_MAX)
        return "partition";
    if (!json_is_string(json_object_get(o, "datadir")))
        return "datadir";
    if (!json_is_array(json_object_get(o, "leader_epochs")))
        return "leader_epochs";
    if (!json_is_integer(errs) || json_integer_value(errs) < 0)
        return "errors";
    int64_t broker = 0;
    if (!opt_int(o, "broker", &r->has_broker, &broker, &bad) ||
        !opt_int(o, "log_start_offset", &ck->log_start_offset.has, &ck->log_start_offset.offset, &bad) ||
        !opt_int(o, "first_offset", &r->has_first_offset, &r->first_offset, &bad) ||
        !opt_int(o, "recovery_end_offset", &r->has_end, &r->end, &bad) ||
        !opt_int(o, "high_watermark", &ck->high_watermark.has, &ck->high_watermark.offset, &bad))
        return bad;
    if (r->has_broker && (broker < INT32_MIN || broker > INT32_MAX))
        return "broker";
    r->broker = (int32_t)broker;
    r->partition = (int32_t)json_integer_value(part);
    r->errors = (uint64_t)json_integer_value(errs);
    return NULL;
}

/* The leader_epochs array into r->epochs; NULL, "leader_epochs" when an
 * entry is not {"epoch", "start_offset"} integers, or "" when out of memory. */
static const char *read_epochs(json_t *eps, rp_rec *r)
{
    size_t ne = json_array_size(eps);
    if (!ne)
        return NULL;
    if (!(r->epochs = malloc(ne * sizeof *r->epochs)))
        return "";
    for (size_t i = 0; i < ne; i++) {
        json_t *e = json_array_get(eps, i), *ep = json_object_get(e, "epoch"), *so = json_object_get(e, "start_offset");
        if (!json_is_integer(ep) || !json_is_integer(so) || json_integer_value(ep) > INT32_MAX ||
            json_integer_value(ep) < INT32_MIN)
            return "leader_epochs";
        r->epochs[i] = (kf_leader_epoch){(int32_t)json_integer_value(ep), (int64_t)json_integer_value(so)};
    }
    r->nepochs = ne;
    return NULL;
}

/* The replica a partition line describes, into *r (emptied first).
 * L_PARTITION, L_OTHER (another scan line), or L_BAD with why[] set;
 * *nomem set when memory ran out. */
static line_kind parse_line(const char *line, size_t n, rp_rec *r, char *why, size_t whyn, int *nomem)
{
    rp_rec_free(r);
    json_error_t err;
    json_t *o = json_loadb(line, n, JSON_REJECT_DUPLICATES, &err);
    if (!o) {
        snprintf(why, whyn, "not JSON: %s (column %d)", err.text, err.column);
        return L_BAD;
    }
    line_kind kind = L_BAD;
    json_t *type = json_object_get(o, "type");
    const char *bad = NULL, *cluster = NULL, *dir = NULL;
    if (!json_is_object(o) || !json_is_string(type)) {
        snprintf(why, whyn, "not a kfsck scan line (a JSON object with a \"type\")");
    } else if (strcmp(json_string_value(type), "partition")) {
        kind = L_OTHER;
    } else if ((bad = read_fields(o, r)) || !opt_str(o, "cluster_id", &cluster, &bad) ||
               !opt_str(o, "dir", &dir, &bad) || (bad = read_epochs(json_object_get(o, "leader_epochs"), r))) {
        if (!*bad)
            *nomem = 1;
        snprintf(why, whyn, "a partition line whose \"%s\" is missing or of the wrong kind", bad);
    } else if (!(r->topic = strdup(json_string_value(json_object_get(o, "topic")))) ||
               !(r->datadir = strdup(json_string_value(json_object_get(o, "datadir")))) ||
               !dup_opt(&r->cluster_id, cluster) || !dup_opt(&r->dir, dir)) {
        *nomem = 1;
    } else {
        r->from_scan_file = true;
        kind = L_PARTITION;
    }
    json_decref(o);
    if (kind != L_PARTITION)
        rp_rec_free(r);
    return kind;
}

rp_sniff rp_scan_file_sniff(const char *path, int *err_no)
{
    *err_no = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        *err_no = errno;
        return RP_SNIFF_OTHER;
    }
    struct stat st;
    rp_sniff what = RP_SNIFF_OTHER;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        line_reader lr = {fd, 0, st.st_size, NULL, 0, 0, 0, 0, 0};
        const char *line;
        size_t n;
        int got = next_line(&lr, &line, &n);
        if (got == LINE_OK) {
            json_t *o = json_loadb(line, n, JSON_REJECT_DUPLICATES, NULL);
            const char *t = json_string_value(json_object_get(o, "type"));
            if (t && (!strcmp(t, "partition") || !strcmp(t, "problem") || !strcmp(t, "summary")))
                what = RP_SNIFF_SCAN;
            json_decref(o);
        } else if (got == LINE_TOO_LONG) {
            what = RP_SNIFF_TOO_LONG;
        }
        free(lr.buf);
    }
    close(fd);
    return what;
}

/* ---- the file and its runs ---------------------------------------------------------- */

typedef struct run {
    int64_t start;      /* byte position of its first line */
    uint64_t lineno;    /* lines before it */
} run;

typedef struct run_stream {
    rp_scan_file *f;
    line_reader lr;
} run_stream;

struct rp_scan_file {
    char *path;
    int fd;
    int64_t size;
    run *runs;
    size_t nruns;
    run_stream *streams;   /* one per run */
    uint64_t bad_lines;
};

static void bad_line(kf_problem_fn fn, void *ctx, const rp_scan_file *f, const line_reader *lr, const char *why)
{
    kf_report_in(fn, ctx, f->path, KF_P_BAD_SCAN_LINE, KF_SEV_ERROR, (uint64_t)lr->line_pos, false, 0,
                 "line %" PRIu64 ": %s; skipped", lr->lineno, why);
}

/* A cluster id not named by an earlier line of the file. */
typedef struct seen_ids {
    char **ids;
    size_t n;
} seen_ids;

static int seen_before(seen_ids *s, const char *id, bool *before)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->ids[i], id)) {
            *before = true;
            return KF_OK;
        }
    *before = false;
    char **ni = realloc(s->ids, (s->n + 1) * sizeof *ni);
    if (!ni)
        return kf_error_nomem();
    s->ids = ni;
    return (ni[s->n] = strdup(id)) ? (s->n++, KF_OK) : KF_ERR_NOMEM;
}

static int add_run(rp_scan_file *f, int64_t start, uint64_t lineno)
{
    if (f->nruns == RP_SCAN_RUNS_MAX)
        return kf_error_set(KF_ERR_IO, 0, f->path,
                            "more than %u runs of lines in (topic, partition) order (line %" PRIu64
                            "): not as kfsck scan writes them; sort its partition lines by topic and partition",
                            RP_SCAN_RUNS_MAX, lineno + 1);
    run *nr = realloc(f->runs, (f->nruns + 1) * sizeof *nr);
    if (!nr)
        return kf_error_nomem();
    f->runs = nr;
    nr[f->nruns++] = (run){start, lineno};
    return KF_OK;
}

/* The first read: runs, bad lines, cluster ids. */
static int first_read(rp_scan_file *f, kf_problem_fn problem_fn, void *problem_ctx, rp_cluster_fn cluster_fn,
                      void *cluster_ctx)
{
    line_reader lr = {f->fd, 0, f->size, NULL, 0, 0, 0, 0, 0};
    rp_rec prev = {0}, cur = {0};
    seen_ids seen = {NULL, 0};
    int rc = KF_OK;
    for (;;) {
        int64_t pos = lr.line_pos;
        uint64_t before = lr.lineno;
        const char *line;
        size_t n;
        int lk = next_line(&lr, &line, &n);
        if (lk < 0 || lk == LINE_END) {
            rc = lk < 0 ? lk : KF_OK;
            break;
        }
        if (lk == LINE_TOO_LONG) {
            f->bad_lines++;
            char why[64];
            snprintf(why, sizeof why, "longer than %u bytes", RP_SCAN_LINE_MAX);
            bad_line(problem_fn, problem_ctx, f, &lr, why);
            continue;
        }
        char why[200];
        int nomem = 0;
        /* where the line starts, for its problem */
        int64_t after = lr.line_pos;
        lr.line_pos = pos;
        line_kind k = parse_line(line, n, &cur, why, sizeof why, &nomem);
        if (nomem) {
            rc = KF_ERR_NOMEM;
            break;
        }
        if (k == L_BAD) {
            f->bad_lines++;
            bad_line(problem_fn, problem_ctx, f, &lr, why);
        }
        lr.line_pos = after;
        if (k != L_PARTITION)
            continue;
        if (!prev.topic || rp_rec_cmp(&cur, &prev) < 0)
            if ((rc = add_run(f, pos, before)) != KF_OK)
                break;
        bool was_seen = true;
        if (cur.cluster_id && (rc = seen_before(&seen, cur.cluster_id, &was_seen)) != KF_OK)
            break;
        if (!was_seen && cluster_fn && (rc = cluster_fn(cluster_ctx, f->path, cur.cluster_id)) != KF_OK)
            break;
        rp_rec_move(&prev, &cur);
    }
    rp_rec_free(&prev);
    rp_rec_free(&cur);
    for (size_t i = 0; i < seen.n; i++)
        free(seen.ids[i]);
    free(seen.ids);
    free(lr.buf);
    return rc;
}

int rp_scan_file_open(rp_scan_file **out, const char *path, kf_problem_fn problem_fn, void *problem_ctx,
                      rp_cluster_fn cluster_fn, void *cluster_ctx)
{
    *out = NULL;
    rp_scan_file *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path))) {
        free(f);
        return kf_error_nomem();
    }
    f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    if (f->fd < 0 || fstat(f->fd, &st) != 0) {
        int e = errno;
        rp_scan_file_close(f);
        return kf_error_set(KF_ERR_IO, e, path, "cannot open");
    }
    f->size = st.st_size;
    int rc = first_read(f, problem_fn, problem_ctx, cluster_fn, cluster_ctx);
    if (rc == KF_OK && f->nruns && !(f->streams = calloc(f->nruns, sizeof *f->streams)))
        rc = KF_ERR_NOMEM;
    if (rc != KF_OK) {
        rp_scan_file_close(f);
        return rc;
    }
    for (size_t i = 0; i < f->nruns; i++) {
        int64_t end = i + 1 < f->nruns ? f->runs[i + 1].start : f->size;
        f->streams[i] = (run_stream){f, {f->fd, f->runs[i].start, end, NULL, 0, 0, 0, f->runs[i].lineno,
                                         f->runs[i].start}};
    }
    *out = f;
    return KF_OK;
}

size_t rp_scan_file_runs(const rp_scan_file *f)
{
    return f->nruns;
}

uint64_t rp_scan_file_bad_lines(const rp_scan_file *f)
{
    return f->bad_lines;
}

static int run_next(void *self, rp_rec *r)
{
    run_stream *s = self;
    for (;;) {
        const char *line;
        size_t n;
        int lk = next_line(&s->lr, &line, &n);
        if (lk < 0 || lk == LINE_END)
            return lk;
        if (lk == LINE_TOO_LONG)
            continue;
        char why[200];
        int nomem = 0;
        line_kind k = parse_line(line, n, r, why, sizeof why, &nomem);
        if (nomem)
            return kf_error_nomem();
        if (k == L_PARTITION) {
            r->source = s->f->path;
            return 1;
        }
    }
}

rp_stream rp_scan_file_stream(rp_scan_file *f, size_t i)
{
    return (rp_stream){run_next, &f->streams[i]};
}

void rp_scan_file_close(rp_scan_file *f)
{
    if (!f)
        return;
    for (size_t i = 0; f->streams && i < f->nruns; i++)
        free(f->streams[i].lr.buf);
    free(f->streams);
    free(f->runs);
    if (f->fd >= 0)
        close(f->fd);
    free(f->path);
    free(f);
}
