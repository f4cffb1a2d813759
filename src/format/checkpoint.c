/* checkpoint.c: the parser of the offset checkpoints and
 * leader-epoch-checkpoint (docs/formats.md §7; CheckpointFile.java:
 * version line, count line, then count entry lines split on whitespace),
 * following what the broker accepts line by line over the file's bytes,
 * in memory or read in pieces (kf_checkpoint_read). Memory use is a few
 * small fixed buffers whatever the input; overlong lines are errors. kf_leader_epochs_read reads a leader-epoch-checkpoint
 * from disk into a list (the one loader of the jobs and the partition
 * reader). The other small files beside the logs have their own parsers:
 * partition_metadata.c, meta_properties.c, and uuid.c for Kafka's Uuid text
 * form; checkpoint_text.h is what they share. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "format/checkpoint_text.h"
#include "kfsck/checkpoint.h"
#include "kfsck/file.h"

#define CKPT_MAX_LINE 1024     /* longer entry lines are errors (a topic name is at most 249 chars) */
#define CKPT_MAX_TOPIC 255
#define CKPT_MAX_PROBLEMS 100  /* then one summary problem */

/* Java's String.split("\\s+") (limit 0) on one line, counting up to
 * KF_MAXTOK tokens: a leading separator gives an empty first token, trailing
 * empty tokens are dropped. Returns the token count (KF_MAXTOK means "at
 * least"). */
#define KF_MAXTOK 4
static int split_ws(const uint8_t *p, size_t n, size_t ts[KF_MAXTOK], size_t tl[KF_MAXTOK])
{
    int nt = 0;
    size_t i = 0;
    bool any_match = false;
    while (nt < KF_MAXTOK) {
        size_t s = i;
        while (i < n && !kf_text_is_ws(p[i]))
            i++;
        ts[nt] = s;
        tl[nt] = i - s;
        nt++;
        if (i >= n)
            break;
        any_match = true;
        while (i < n && kf_text_is_ws(p[i]))
            i++;
        if (i >= n)
            break; /* trailing empty token: dropped */
    }
    if (!any_match)
        return 1; /* no separator: the whole line */
    while (nt > 0 && tl[nt - 1] == 0)
        nt--; /* all-empty: Java returns no tokens */
    return nt;
}

/* ---- offset / leader-epoch checkpoints --------------------------------- */

typedef struct ckpt_ctx {
    kf_problem_fn fn;
    void *ctx;
    uint64_t problems;
    uint64_t suppressed;
    uint64_t first_suppressed_pos;
    uint64_t first_pos;       /* the first problem, for the last error */
    char first[200];
} ckpt_ctx;

static void ckpt_problem(ckpt_ctx *c, uint64_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void ckpt_problem(ckpt_ctx *c, uint64_t pos, const char *fmt, ...)
{
    if (c->problems >= CKPT_MAX_PROBLEMS) {
        if (c->suppressed++ == 0)
            c->first_suppressed_pos = pos;
        return;
    }
    c->problems++;
    char buf[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (c->problems == 1) {
        c->first_pos = pos;
        memcpy(c->first, buf, sizeof c->first);
    }
    kf_report(c->fn, c->ctx, KF_P_CHECKPOINT_INVALID, KF_SEV_ERROR, pos, false, 0, "%s", buf);
}

/* The lines of t: entries to entry_fn, problems to cp. KF_OK (also with
 * problems: cp counts them), KF_ERR_CORRUPT when a problem ends the parse,
 * KF_ERR_IO when a read failed. */
static int parse_entries(kf_text_stream *t, ckpt_ctx *cp, int kind, int32_t *version,
                         kf_checkpoint_entry_fn entry_fn, void *ectx)
{
    kf_text_line L;
    char ex[80];

    if (!kf_text_stream_next(t, &L))
        return t->failed ? KF_ERR_IO : KF_OK; /* empty file: empty list */
    int64_t v;
    if (!kf_text_line_int(&L, INT32_MIN, INT32_MAX, &v)) {
        kf_text_line_excerpt(&L, ex, sizeof ex);
        ckpt_problem(cp, L.start, "malformed version line \"%s\"", ex);
        return KF_ERR_CORRUPT;
    }
    if (version)
        *version = (int32_t)v;
    if (v != 0) {
        ckpt_problem(cp, L.start, "unrecognised version %" PRId64 ", expected version 0", v);
        return KF_ERR_CORRUPT;
    }
    if (!kf_text_stream_next(t, &L))
        return t->failed ? KF_ERR_IO : KF_OK; /* the broker reads a missing count line as an empty list */
    int64_t count;
    uint64_t count_pos = L.start;
    if (!kf_text_line_int(&L, INT32_MIN, INT32_MAX, &count)) {
        kf_text_line_excerpt(&L, ex, sizeof ex);
        ckpt_problem(cp, L.start, "malformed entry count line \"%s\"", ex);
        return KF_ERR_CORRUPT;
    }
    if (count < 0)
        ckpt_problem(cp, L.start, "negative entry count %" PRId64, count);

    uint64_t nlines = 0, first_extra_pos = 0;
    bool have_prev = false;
    int32_t prev_epoch = 0;
    int64_t prev_start = 0;
    int want_fields = kind == KF_CHECKPOINT_LEADER_EPOCH ? 2 : 3;
    char topic[CKPT_MAX_TOPIC + 1];

    while (kf_text_stream_next(t, &L)) {
        uint64_t ls = L.start, ll = L.len;
        nlines++;
        if (count >= 0 && nlines == (uint64_t)count + 1)
            first_extra_pos = ls;
        if (ll > CKPT_MAX_LINE) {
            ckpt_problem(cp, ls, "line of %" PRIu64 " bytes is too long for an entry", ll);
            continue;
        }
        const uint8_t *p = L.p; /* whole: shorter than the stream's buffer */
        size_t ts[KF_MAXTOK], tl[KF_MAXTOK];
        int nt = split_ws(p, (size_t)ll, ts, tl);
        kf_text_excerpt(p, ll, ex, sizeof ex);
        if (nt != want_fields) {
            ckpt_problem(cp, ls, "malformed line \"%s\": expected %d fields", ex, want_fields);
            continue;
        }
        kf_checkpoint_entry e = {0};
        e.position = ls;
        if (kind == KF_CHECKPOINT_LEADER_EPOCH) {
            int64_t ep, so;
            if (!kf_text_parse_int(p + ts[0], tl[0], INT32_MIN, INT32_MAX, &ep) ||
                !kf_text_parse_int(p + ts[1], tl[1], INT64_MIN, INT64_MAX, &so)) {
                ckpt_problem(cp, ls, "malformed line \"%s\": epoch and start offset must be integers", ex);
                continue;
            }
            e.epoch = (int32_t)ep;
            e.offset = so;
            if (have_prev && e.epoch <= prev_epoch)
                ckpt_problem(cp, ls, "leader epoch %" PRId32 " is not greater than the previous epoch %" PRId32,
                             e.epoch, prev_epoch);
            if (have_prev && e.offset <= prev_start)
                ckpt_problem(cp, ls,
                             "start offset %" PRId64 " of epoch %" PRId32
                             " is not greater than the previous start offset %" PRId64,
                             e.offset, e.epoch, prev_start);
            have_prev = true;
            prev_epoch = e.epoch;
            prev_start = e.offset;
        } else {
            int64_t part, off;
            if (tl[0] == 0 || tl[0] > CKPT_MAX_TOPIC || memchr(p + ts[0], 0, tl[0])) {
                ckpt_problem(cp, ls, "malformed line \"%s\": bad topic name", ex);
                continue;
            }
            if (!kf_text_parse_int(p + ts[1], tl[1], INT32_MIN, INT32_MAX, &part) ||
                !kf_text_parse_int(p + ts[2], tl[2], INT64_MIN, INT64_MAX, &off)) {
                ckpt_problem(cp, ls, "malformed line \"%s\": partition and offset must be integers", ex);
                continue;
            }
            memcpy(topic, p + ts[0], tl[0]);
            topic[tl[0]] = 0;
            e.topic = topic;
            e.partition = (int32_t)part;
            e.offset = off;
        }
        if (entry_fn)
            entry_fn(ectx, &e);
    }
    if (t->failed)
        return KF_ERR_IO;
    if (count >= 0 && nlines != (uint64_t)count) {
        if (nlines < (uint64_t)count)
            ckpt_problem(cp, count_pos, "expected %" PRId64 " entries but found only %" PRIu64, count, nlines);
        else
            ckpt_problem(cp, first_extra_pos, "expected %" PRId64 " entries but found %" PRIu64, count, nlines);
    }
    return KF_OK;
}

/* The parse of kf_checkpoint_parse over the lines of t (of the file at
 * path; NULL: bytes in memory). KF_ERR_IO when a read failed (t->err_no;
 * the count check is left out then). */
static int parse_lines(kf_text_stream *t, const char *path, int kind, int32_t *version,
                       kf_checkpoint_entry_fn entry_fn, void *ectx, kf_problem_fn pfn, void *pctx)
{
    ckpt_ctx c = {.fn = pfn, .ctx = pctx};
    int rc = parse_entries(t, &c, kind, version, entry_fn, ectx);
    if (rc == KF_ERR_IO)
        return kf_error_set(rc, t->err_no, path, "read failed");
    if (c.suppressed)
        kf_report(pfn, pctx, KF_P_CHECKPOINT_INVALID, KF_SEV_ERROR, c.first_suppressed_pos, false, 0,
                  "%" PRIu64 " further problems in this checkpoint are not listed", c.suppressed);
    if (c.problems)
        return kf_error_set(KF_ERR_CORRUPT, 0, path, "%" PRIu64 " problem%s, the first at byte %" PRIu64 ": %s",
                            c.problems + c.suppressed, c.problems + c.suppressed == 1 ? "" : "s", c.first_pos,
                            c.first);
    return rc;
}

_Static_assert(CKPT_MAX_LINE < KF_TEXT_STREAM_BUF, "entry lines come whole");

int kf_checkpoint_parse(const uint8_t *data, uint64_t size, int kind, int32_t *version,
                        kf_checkpoint_entry_fn entry_fn, void *ectx, kf_problem_fn pfn, void *pctx)
{
    kf_text_stream t;
    kf_text_stream_memory(&t, data, size);
    return parse_lines(&t, NULL, kind, version, entry_fn, ectx, pfn, pctx);
}

int kf_checkpoint_read(const char *path, int kind, int32_t *version, kf_checkpoint_entry_fn entry_fn, void *ectx,
                       kf_problem_fn pfn, void *pctx)
{
    kf_source *src;
    int rc = kf_source_open(&src, path, 0);
    if (rc != KF_OK)
        return rc;
    kf_text_stream t;
    rc = kf_text_stream_source(&t, src);
    if (rc == KF_OK) {
        rc = parse_lines(&t, path, kind, version, entry_fn, ectx, pfn, pctx);
    } else {
        kf_error_set(rc, 0, path, "out of memory");
    }
    kf_text_stream_free(&t);
    kf_source_close(src);
    return rc;
}


/* ---- one partition's entry ----------------------------------------------- */

typedef struct entry_find {
    const char *topic;
    int32_t partition;
    bool found;
    int64_t offset;
} entry_find;

static void find_entry(void *ctx, const kf_checkpoint_entry *e)
{
    entry_find *f = ctx;
    if (e->topic && e->partition == f->partition && !strcmp(e->topic, f->topic)) {
        f->found = true;
        f->offset = e->offset;
    }
}

int kf_checkpoint_find(const char *path, const char *topic, int32_t partition, bool *found, int64_t *offset,
                       kf_problem_fn pfn, void *pctx)
{
    entry_find f = {topic, partition, false, 0};
    int32_t version;
    int rc = kf_checkpoint_read(path, KF_CHECKPOINT_OFFSETS, &version, find_entry, &f, pfn, pctx);
    *found = f.found;
    *offset = f.offset;
    return rc;
}

/* ---- leader-epoch-checkpoint from disk ---------------------------------- */

typedef struct epoch_loader {
    kf_leader_epochs *l;
    size_t cap;
    bool positions;
    bool nomem;
} epoch_loader;

static void epoch_collect(void *ctx, const kf_checkpoint_entry *e)
{
    epoch_loader *ld = ctx;
    kf_leader_epochs *l = ld->l;
    if (ld->nomem)
        return;
    if (l->n == ld->cap) {
        size_t cap = ld->cap ? ld->cap * 2 : 16;
        kf_leader_epoch *ne = realloc(l->entries, cap * sizeof *ne);
        if (ne)
            l->entries = ne;
        uint64_t *np = ne && ld->positions ? realloc(l->positions, cap * sizeof *np) : NULL;
        if (np)
            l->positions = np;
        if (!ne || (ld->positions && !np)) {
            ld->nomem = true;
            return;
        }
        ld->cap = cap;
    }
    l->entries[l->n] = (kf_leader_epoch){e->epoch, e->offset};
    if (ld->positions)
        l->positions[l->n] = e->position;
    l->n++;
}

int kf_leader_epochs_read(const char *path, bool positions, kf_leader_epochs *out, kf_problem_fn pfn, void *pctx)
{
    memset(out, 0, sizeof *out);
    kf_file_contents m;
    int err_no = 0;
    int rc = kf_error_errno(kf_file_read_all(path, KF_SMALL_FILE_MAX, &m.data, &m.size), &err_no);
    if (rc == KF_ERR_NOMEM)
        return rc;
    if (rc != KF_OK) {
        out->present = err_no != ENOENT;
        return KF_OK;
    }
    out->present = out->read = true;
    epoch_loader ld = {out, 0, positions, false};
    int32_t version;
    out->valid = kf_checkpoint_parse(m.data, m.size, KF_CHECKPOINT_LEADER_EPOCH, &version, epoch_collect, &ld, pfn,
                                     pctx) == KF_OK;
    free(m.data);
    if (ld.nomem) {
        kf_leader_epochs_free(out);
        return kf_error_set(KF_ERR_NOMEM, ENOMEM, NULL, "out of memory");
    }
    return KF_OK;
}

void kf_leader_epochs_free(kf_leader_epochs *l)
{
    if (!l)
        return;
    free(l->entries);
    free(l->positions);
    memset(l, 0, sizeof *l);
}
