/* checkpoint.c: the parser of the offset checkpoints and
 * leader-epoch-checkpoint (docs/formats.md §7; CheckpointFile.java:
 * version line, count line, then count entry lines split on whitespace),
 * following what the broker accepts line by line over the file's bytes,
 * in memory or read in pieces (kf_checkpoint_read). Memory use is a few
 * small fixed buffers whatever the input; overlong lines are errors. kf_leader_epochs_read reads a leader-epoch-checkpoint
 * from disk into a list cut at an offset (scan's), kf_epoch_stream hands
 * its entries out one by one (the partition reader's and repair's); both
 * read the file in pieces. The other small files beside the logs have their own parsers:
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
#include "format/epoch_stream.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/file.h"

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
    bool first_io;            /* ... is one the broker's reader throws an IOException for */
} ckpt_ctx;

/* What the broker's CheckpointFile.read throws at a problem (it stops at
 * the first): an IOException (a version other than 0, a line whose field
 * count is wrong, a count that the lines do not match), which
 * CheckpointFileWithFailureHandler reports to the log dir failure channel,
 * or another exception (a number that does not parse, a negative count),
 * after which the entries are only reset; or none (kfsck's own checks). */
enum { CK_OTHER, CK_IO };

static void ckpt_problem(ckpt_ctx *c, int klass, uint64_t pos, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void ckpt_problem(ckpt_ctx *c, int klass, uint64_t pos, const char *fmt, ...)
{
    if (c->problems + c->suppressed == 0)
        c->first_io = klass == CK_IO;
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

/* The entry lines of a checkpoint, one at a time (ckpt_next), as the
 * broker's CheckpointFile reads them: the one parser behind the push
 * (kf_checkpoint_parse/read) and pull (kf_epoch_stream) readers. */
typedef struct ckpt_lines {
    kf_text_stream *t;
    ckpt_ctx *cp;
    int kind;
    bool done;              /* no more entries: the end, or a problem that ends the parse */
    int64_t count;          /* the count line's */
    uint64_t count_pos, nlines, first_extra_pos;
    bool have_prev;
    int32_t prev_epoch;
    int64_t prev_start;
    char topic[CKPT_MAX_TOPIC + 1];
} ckpt_lines;

/* The version and count lines. KF_OK (cl->done when there are no entry
 * lines to come), KF_ERR_CORRUPT when a problem ends the parse, KF_ERR_IO
 * when a read failed. */
static int ckpt_header(ckpt_lines *cl, kf_text_stream *t, ckpt_ctx *cp, int kind, int32_t *version)
{
    memset(cl, 0, sizeof *cl);
    cl->t = t;
    cl->cp = cp;
    cl->kind = kind;
    cl->done = true;
    kf_text_line L;
    char ex[80];
    if (!kf_text_stream_next(t, &L))
        return t->failed ? KF_ERR_IO : KF_OK; /* empty file: empty list */
    int64_t v;
    if (!kf_text_line_int(&L, INT32_MIN, INT32_MAX, &v)) {
        kf_text_line_excerpt(&L, ex, sizeof ex);
        ckpt_problem(cp, CK_OTHER, L.start, "malformed version line \"%s\"", ex);
        return KF_ERR_CORRUPT;
    }
    if (version)
        *version = (int32_t)v;
    if (v != 0) {
        ckpt_problem(cp, CK_IO, L.start, "unrecognised version %" PRId64 ", expected version 0", v);
        return KF_ERR_CORRUPT;
    }
    if (!kf_text_stream_next(t, &L))
        return t->failed ? KF_ERR_IO : KF_OK; /* the broker reads a missing count line as an empty list */
    cl->count_pos = L.start;
    if (!kf_text_line_int(&L, INT32_MIN, INT32_MAX, &cl->count)) {
        kf_text_line_excerpt(&L, ex, sizeof ex);
        ckpt_problem(cp, CK_OTHER, L.start, "malformed entry count line \"%s\"", ex);
        return KF_ERR_CORRUPT;
    }
    if (cl->count < 0)
        ckpt_problem(cp, CK_OTHER, L.start, "negative entry count %" PRId64, cl->count);
    cl->done = false;
    return KF_OK;
}

/* The next good entry into *e (its topic valid until the next call): 1;
 * 0 at the end (the count checked); KF_ERR_IO when a read failed. Bad
 * lines go to the problems and are passed over. */
static int ckpt_next(ckpt_lines *cl, kf_checkpoint_entry *e)
{
    if (cl->done)
        return 0;
    kf_text_stream *t = cl->t;
    ckpt_ctx *cp = cl->cp;
    kf_text_line L;
    char ex[80];
    int want_fields = cl->kind == KF_CHECKPOINT_LEADER_EPOCH ? 2 : 3;
    while (kf_text_stream_next(t, &L)) {
        uint64_t ls = L.start, ll = L.len;
        cl->nlines++;
        if (cl->count >= 0 && cl->nlines == (uint64_t)cl->count + 1)
            cl->first_extra_pos = ls;
        if (ll > CKPT_MAX_LINE) {
            ckpt_problem(cp, CK_OTHER, ls, "line of %" PRIu64 " bytes is too long for an entry", ll);
            continue;
        }
        const uint8_t *p = L.p; /* whole: shorter than the stream's buffer */
        size_t ts[KF_MAXTOK], tl[KF_MAXTOK];
        int nt = split_ws(p, (size_t)ll, ts, tl);
        kf_text_excerpt(p, ll, ex, sizeof ex);
        if (nt != want_fields) {
            ckpt_problem(cp, CK_IO, ls, "malformed line \"%s\": expected %d fields", ex, want_fields);
            continue;
        }
        memset(e, 0, sizeof *e);
        e->position = ls;
        if (cl->kind == KF_CHECKPOINT_LEADER_EPOCH) {
            int64_t ep, so;
            if (!kf_text_parse_int(p + ts[0], tl[0], INT32_MIN, INT32_MAX, &ep) ||
                !kf_text_parse_int(p + ts[1], tl[1], INT64_MIN, INT64_MAX, &so)) {
                ckpt_problem(cp, CK_OTHER, ls, "malformed line \"%s\": epoch and start offset must be integers", ex);
                continue;
            }
            e->epoch = (int32_t)ep;
            e->offset = so;
            if (cl->have_prev && e->epoch <= cl->prev_epoch)
                ckpt_problem(cp, CK_OTHER, ls, "leader epoch %" PRId32 " is not greater than the previous epoch %" PRId32,
                             e->epoch, cl->prev_epoch);
            if (cl->have_prev && e->offset <= cl->prev_start)
                ckpt_problem(cp, CK_OTHER, ls,
                             "start offset %" PRId64 " of epoch %" PRId32
                             " is not greater than the previous start offset %" PRId64,
                             e->offset, e->epoch, cl->prev_start);
            cl->have_prev = true;
            cl->prev_epoch = e->epoch;
            cl->prev_start = e->offset;
        } else {
            int64_t part, off;
            if (tl[0] == 0 || tl[0] > CKPT_MAX_TOPIC || memchr(p + ts[0], 0, tl[0])) {
                ckpt_problem(cp, CK_OTHER, ls, "malformed line \"%s\": bad topic name", ex);
                continue;
            }
            if (!kf_text_parse_int(p + ts[1], tl[1], INT32_MIN, INT32_MAX, &part) ||
                !kf_text_parse_int(p + ts[2], tl[2], INT64_MIN, INT64_MAX, &off)) {
                ckpt_problem(cp, CK_OTHER, ls, "malformed line \"%s\": partition and offset must be integers", ex);
                continue;
            }
            memcpy(cl->topic, p + ts[0], tl[0]);
            cl->topic[tl[0]] = 0;
            e->topic = cl->topic;
            e->partition = (int32_t)part;
            e->offset = off;
        }
        return 1;
    }
    cl->done = true;
    if (t->failed)
        return KF_ERR_IO;
    if (cl->count >= 0 && cl->nlines != (uint64_t)cl->count) {
        if (cl->nlines < (uint64_t)cl->count)
            ckpt_problem(cp, CK_IO, cl->count_pos, "expected %" PRId64 " entries but found only %" PRIu64, cl->count,
                         cl->nlines);
        else
            ckpt_problem(cp, CK_IO, cl->first_extra_pos, "expected %" PRId64 " entries but found %" PRIu64, cl->count,
                         cl->nlines);
    }
    return 0;
}

/* The lines of t: entries to entry_fn, problems to cp. KF_OK (also with
 * problems: cp counts them), KF_ERR_CORRUPT when a problem ends the parse,
 * KF_ERR_IO when a read failed. */
static int parse_entries(kf_text_stream *t, ckpt_ctx *cp, int kind, int32_t *version,
                         kf_checkpoint_entry_fn entry_fn, void *ectx)
{
    ckpt_lines cl;
    int rc = ckpt_header(&cl, t, cp, kind, version);
    if (rc != KF_OK)
        return rc;
    kf_checkpoint_entry e;
    while ((rc = ckpt_next(&cl, &e)) == 1)
        if (entry_fn)
            entry_fn(ectx, &e);
    return rc;
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
        return kf_error_set(KF_ERR_CORRUPT, c.first_io ? EIO : 0, path,
                            "%" PRIu64 " problem%s, the first at byte %" PRIu64 ": %s",
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
    int64_t keep_through;
    bool nomem;
} epoch_loader;

static void epoch_collect(void *ctx, const kf_checkpoint_entry *e)
{
    epoch_loader *ld = ctx;
    kf_leader_epochs *l = ld->l;
    if (ld->nomem)
        return;
    if (e->offset > ld->keep_through) {
        if (l->n_beyond < KF_EPOCHS_BEYOND_KEPT)
            l->beyond[l->n_beyond] = (kf_epoch_entry_at){{e->epoch, e->offset}, e->position};
        else if (l->n_beyond == KF_EPOCHS_BEYOND_KEPT)
            l->beyond_unlisted_position = e->position;
        l->n_beyond++;
        return;
    }
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

/* A leader-epoch-checkpoint's state before it is read: present, and
 * readable as a file (not a directory, a FIFO or the like). */
static int epoch_file_open(const char *path, kf_source **src, bool *present)
{
    *src = NULL;
    int err_no = 0;
    int rc = kf_error_errno(kf_source_open(src, path, 0), &err_no);
    *present = rc == KF_OK || err_no != ENOENT;
    return rc;
}

int kf_leader_epochs_read(const char *path, int64_t keep_through, bool positions, kf_leader_epochs *out,
                          kf_problem_fn pfn, void *pctx)
{
    memset(out, 0, sizeof *out);
    kf_source *src;
    int rc = epoch_file_open(path, &src, &out->present);
    if (rc == KF_ERR_NOMEM)
        return rc;
    if (rc != KF_OK)
        return KF_OK;
    kf_text_stream t;
    if (kf_text_stream_source(&t, src) != KF_OK) {
        kf_source_close(src);
        return kf_error_nomem();
    }
    epoch_loader ld = {out, 0, positions, keep_through, false};
    int32_t version;
    rc = parse_lines(&t, path, KF_CHECKPOINT_LEADER_EPOCH, &version, epoch_collect, &ld, pfn, pctx);
    kf_text_stream_free(&t);
    kf_source_close(src);
    out->read = rc != KF_ERR_IO;
    out->valid = rc == KF_OK;
    if (ld.nomem) {
        kf_leader_epochs_free(out);
        return kf_error_nomem();
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

/* ---- leader-epoch-checkpoint entry by entry (epoch_stream.h) -------------- */

struct kf_epoch_pass {
    kf_source *src;
    kf_text_stream t;
    ckpt_ctx cp;            /* problems of the second pass: none while the file is as checked */
    ckpt_lines cl;
};

int kf_epoch_stream_open(kf_epoch_stream *s, const char *path, kf_problem_fn pfn, void *pctx)
{
    memset(s, 0, sizeof *s);
    kf_source *src;
    int rc = epoch_file_open(path, &src, &s->present);
    if (rc == KF_ERR_NOMEM)
        return rc;
    if (rc != KF_OK)
        return KF_OK;
    struct kf_epoch_pass *p = calloc(1, sizeof *p);
    if (!p) {
        kf_source_close(src);
        return kf_error_nomem();
    }
    p->src = src;
    s->pass = p;
    /* the check: the whole file once, keeping nothing */
    if (kf_text_stream_source(&p->t, src) != KF_OK)
        return kf_error_nomem();
    int32_t version;
    rc = parse_lines(&p->t, path, KF_CHECKPOINT_LEADER_EPOCH, &version, NULL, NULL, pfn, pctx);
    kf_text_stream_free(&p->t);
    s->read = rc != KF_ERR_IO;
    s->valid = rc == KF_OK;
    if (!s->valid)
        return KF_OK;
    /* the entries, from the start again */
    if (kf_text_stream_source(&p->t, src) != KF_OK) {
        s->valid = false;
        return kf_error_nomem();
    }
    if (ckpt_header(&p->cl, &p->t, &p->cp, KF_CHECKPOINT_LEADER_EPOCH, &version) != KF_OK)
        p->cl.done = true;
    return KF_OK;
}

int kf_epoch_stream_next(kf_epoch_stream *s, kf_leader_epoch *e)
{
    if (!s->valid || !s->pass)
        return 0;
    struct kf_epoch_pass *p = s->pass;
    kf_checkpoint_entry ce;
    /* a problem now that the check did not see: the file changed under us */
    if (ckpt_next(&p->cl, &ce) != 1 || p->cp.problems) {
        p->cl.done = true;
        return 0;
    }
    *e = (kf_leader_epoch){ce.epoch, ce.offset};
    return 1;
}

void kf_epoch_stream_close(kf_epoch_stream *s)
{
    if (!s || !s->pass)
        return;
    kf_text_stream_free(&s->pass->t);
    kf_source_close(s->pass->src);
    free(s->pass);
    s->pass = NULL;
}
