/* partwriter.c: the partition writer (partwriter.h): segments with indexes
 * rebuilt by the recovery rule, the leader epochs, producer state and
 * per-segment .txnindex of what was written, on the safe output files
 * (out_file.h). */
#include "bytes/grow.h"
#include "bytes/opts.h"
#include "format/partwriter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/index.h"
#include "format/index_builder.h"
#include "format/out_file.h"

#define COPY_PIECE ((size_t)1 << 20)
#define HEADER_PEEK 64 /* a v2 header (61 bytes), a v1 timestamp (bytes 18..25) */

typedef struct seg_state {
    bool open;
    int64_t base;
    char *input;
    char *log_path, *ix_path, *tix_path, *txn_path;
    char *txn_written;        /* txn_path's file in write_dir */
    kf_out_file *lf, *ixf, *tixf;
    kf_out_file *txnf;        /* the .txnindex, opened at its first entry */
    kf_index_builder ib;
    kf_segment_written written; /* its batches so far; the rest filled at its close */
    uint64_t txn_len;         /* bytes written to txnf */
    /* the partition state when the segment started (rewind) */
    kf_pstate *ps_start;
    size_t nle_start;
    bool has_last_start;
    int64_t last_start;
} seg_state;

struct kf_part_writer {
    kf_part_writer_opts o;
    char *out_dir;            /* the directory the paths reported name */
    char *write_dir;          /* where the files are written (o.stage_dir, else out_dir) */
    kf_part_writer_error err;
    kf_part_refusal refusal;
    seg_state s;
    bool started;             /* a segment was started */
    int64_t last_base;
    bool has_last;
    int64_t last;             /* last offset written */
    kf_leader_epoch *le;
    size_t nle, cap_le;
    kf_pstate *ps;
    kf_pstate_step step;
    kf_buf buf;
    uint8_t *piece;           /* kf_part_writer_add_large */
    char *epochs_path, *snapshot_path;
};

void kf_part_writer_opts_init(kf_part_writer_opts *o)
{
    *o = (kf_part_writer_opts)KF_PART_WRITER_OPTIONS_INIT;
}

static int fail(kf_part_writer *w, const char *path, int err_no, const char *what)
{
    snprintf(w->err.path, sizeof w->err.path, "%s", path ? path : w->out_dir);
    w->err.err_no = err_no;
    snprintf(w->err.what, sizeof w->err.what, "%s", what);
    return err_no == ENOMEM ? KF_ERR_NOMEM : KF_ERR_IO;
}

static int nomem(kf_part_writer *w) { return fail(w, w->out_dir, ENOMEM, "out of memory"); }

const kf_part_writer_error *kf_part_writer_err(const kf_part_writer *w) { return &w->err; }

int kf_part_writer_open(kf_part_writer **out, const char *out_dir, const kf_part_writer_opts *o)
{
    *out = NULL;
    kf_part_writer *w;
    int rc = KF_OPTS_NEW(&w, kf_part_writer, o, KF_PART_WRITER_OPTIONS_VERSION, max_batch_bytes);
    if (rc != KF_OK)
        return rc;
    w->out_dir = strdup(out_dir);
    w->write_dir = strdup(w->o.stage_dir ? w->o.stage_dir : out_dir);
    w->o.stage_dir = NULL;
    w->ps = kf_pstate_new();
    if (!w->out_dir || !w->write_dir || !w->ps) {
        kf_part_writer_close(w);
        return kf_error_nomem();
    }
    *out = w;
    int err_no = 0;
    if (kf_error_errno(kf_mkdirs(w->write_dir), &err_no) != KF_OK)
        return fail(w, out_dir, err_no, "cannot create directory");
    return KF_OK;
}

static void seg_abort(seg_state *s)
{
    kf_out_abort(s->lf);
    kf_out_abort(s->ixf);
    kf_out_abort(s->tixf);
    kf_out_abort(s->txnf);
    s->lf = s->ixf = s->tixf = s->txnf = NULL;
}

/* Forget the segment's names (its buffers are kept for the next one). */
static void seg_clear(seg_state *s)
{
    seg_abort(s);
    free(s->input);
    free(s->log_path);
    free(s->ix_path);
    free(s->tix_path);
    free(s->txn_path);
    free(s->txn_written);
    s->input = s->log_path = s->ix_path = s->tix_path = s->txn_path = s->txn_written = NULL;
    s->open = false;
    s->written = (kf_segment_written){0};
    s->txn_len = 0;
}

static void seg_free(seg_state *s)
{
    seg_clear(s);
    kf_pstate_free(s->ps_start);
    memset(s, 0, sizeof *s);
}

void kf_part_writer_close(kf_part_writer *w)
{
    if (!w)
        return;
    seg_free(&w->s);
    free(w->out_dir);
    free(w->write_dir);
    free(w->le);
    kf_pstate_free(w->ps);
    kf_buf_free(&w->buf);
    free(w->piece);
    free(w->epochs_path);
    free(w->snapshot_path);
    free(w);
}

int kf_part_writer_seed(kf_part_writer *w, const kf_producer_snapshot *s)
{
    return kf_pstate_load(w->ps, s) == KF_OK ? KF_OK : nomem(w);
}

/* ---- segments ---------------------------------------------------------------- */

static int open_file(kf_part_writer *w, kf_out_file **f, const char *name, const char *path)
{
    int err_no = 0;
    if (kf_error_errno(kf_out_open(f, w->write_dir, name, w->o.force), &err_no) == KF_OK)
        return KF_OK;
    return fail(w, path, err_no, err_no == EEXIST ? "already exists (use --force to overwrite)" : "cannot create");
}

/* Open the three files of the segment s describes (names in s). */
static int open_files(kf_part_writer *w)
{
    seg_state *s = &w->s;
    char name[64];
    int rc = open_file(w, &s->lf, kf_path_base(s->log_path), s->log_path);
    snprintf(name, sizeof name, "%020lld.index", (long long)s->base);
    if (rc == KF_OK)
        rc = open_file(w, &s->ixf, name, s->log_path);
    snprintf(name, sizeof name, "%020lld.timeindex", (long long)s->base);
    if (rc == KF_OK)
        rc = open_file(w, &s->tixf, name, s->log_path);
    if (rc != KF_OK) {
        seg_abort(s);
        return rc;
    }
    kf_index_builder_init(&s->ib, s->base, s->ixf, s->tixf);
    return KF_OK;
}

int kf_part_writer_segment(kf_part_writer *w, int64_t base, const char *log_name, const char *input)
{
    int rc = kf_part_writer_close_segment(w, NULL);
    if (rc != KF_OK)
        return rc;
    seg_state *s = &w->s;
    seg_clear(s);
    s->base = base;
    char name[64];
    snprintf(name, sizeof name, "%020lld", (long long)base);
    char logname[80];
    snprintf(logname, sizeof logname, "%s.log", name);
    if (!log_name)
        log_name = logname;
    s->log_path = kf_path_join(w->out_dir, log_name);
    snprintf(logname, sizeof logname, "%s.index", name);
    s->ix_path = kf_path_join(w->out_dir, logname);
    snprintf(logname, sizeof logname, "%s.timeindex", name);
    s->tix_path = kf_path_join(w->out_dir, logname);
    snprintf(logname, sizeof logname, "%s.txnindex", name);
    s->txn_path = kf_path_join(w->out_dir, logname);
    s->txn_written = kf_path_join(w->write_dir, logname);
    s->input = input ? strdup(input) : NULL;
    if (!s->log_path || !s->ix_path || !s->tix_path || !s->txn_path || !s->txn_written || (input && !s->input))
        return nomem(w);
    if (w->o.rewindable) {
        if (!s->ps_start && !(s->ps_start = kf_pstate_new()))
            return nomem(w);
        if (kf_pstate_copy(s->ps_start, w->ps) != KF_OK)
            return nomem(w);
    }
    s->nle_start = w->nle;
    s->has_last_start = w->has_last;
    s->last_start = w->last;
    w->started = true;
    w->last_base = base;
    if ((rc = open_files(w)) != KF_OK)
        return rc;
    s->open = true;
    return KF_OK;
}

int kf_part_writer_rewind(kf_part_writer *w)
{
    seg_state *s = &w->s;
    if (!s->open)
        return KF_OK;
    if (!s->ps_start)
        return fail(w, s->log_path, EINVAL, "the writer was not opened rewindable");
    seg_abort(s);
    s->open = false;
    if (kf_pstate_copy(w->ps, s->ps_start) != KF_OK)
        return nomem(w);
    w->nle = s->nle_start;
    w->has_last = s->has_last_start;
    w->last = s->last_start;
    s->written = (kf_segment_written){0};
    s->txn_len = 0;
    int rc = open_files(w);
    if (rc == KF_OK)
        s->open = true;
    return rc;
}

/* An entry of the open segment's .txnindex, written through (the file is
 * opened at the first one: a segment with none has no .txnindex). */
static int txn_append(kf_part_writer *w, const kf_aborted_txn *t)
{
    seg_state *s = &w->s;
    int rc;
    if (!s->txnf && (rc = open_file(w, &s->txnf, kf_path_base(s->txn_path), s->txn_path)) != KF_OK)
        return rc;
    uint8_t e[KF_TXN_ENTRY_SIZE];
    kf_aborted_txn_encode(t, e);
    if (kf_out_write(s->txnf, e, sizeof e) != KF_OK)
        return fail(w, s->txn_path, errno, "cannot write");
    s->txn_len += KF_TXN_ENTRY_SIZE;
    return KF_OK;
}

int kf_part_writer_txn_entry(kf_part_writer *w, const kf_aborted_txn *t)
{
    if (!w->s.open)
        return fail(w, w->out_dir, EINVAL, "no segment is open");
    return txn_append(w, t);
}

static int refuse(kf_part_writer *w, const char *code)
{
    w->refusal.code = code;
    return KF_ERR_CORRUPT;
}

static int note_epoch(kf_part_writer *w, const kf_batch *b)
{
    if (b->magic < 2 || b->partition_leader_epoch < 0)
        return KF_OK;
    if (w->nle && b->partition_leader_epoch <= w->le[w->nle - 1].epoch)
        return KF_OK;
    if (!KF_GROW(w->le, w->nle, w->cap_le, 16))
        return nomem(w);
    w->le[w->nle++] = (kf_leader_epoch){b->partition_leader_epoch, b->base_offset};
    return KF_OK;
}

/* Everything but the bytes: indexes, epochs, producer state, counters.
 * size: the entry's size in the file. */
static int account(kf_part_writer *w, const kf_batch *b, uint32_t size)
{
    seg_state *s = &w->s;
    char *m = w->refusal.message;
    size_t cap = sizeof w->refusal.message;
    if (kf_batch_last_offset_overflows(b)) {
        snprintf(m, cap, "batch at offset %lld: its last offset + 1 is past 2^63-1", (long long)b->base_offset);
        return refuse(w, KF_P_LAST_OFFSET_OVERFLOW);
    }
    if (b->last_offset < s->base) {
        snprintf(m, cap, "last offset %lld is below the segment's base offset %lld", (long long)b->last_offset,
                 (long long)s->base);
        return refuse(w, KF_P_BASE_OFFSET_MISMATCH);
    }
    uint64_t rel = (uint64_t)b->last_offset - (uint64_t)s->base; /* last >= base: exact */
    if (rel > INT32_MAX) {
        snprintf(m, cap, "last offset %lld is more than 2^31-1 past the base offset %lld", (long long)b->last_offset,
                 (long long)s->base);
        return refuse(w, KF_P_OFFSET_OVERFLOW);
    }
    kf_index_builder saved = s->ib;
    int rc = kf_index_builder_add(&s->ib, size, b->last_offset, b->max_timestamp);
    if (rc == KF_ERR_IO)
        return fail(w, s->ix_path, errno, "cannot write");
    if (rc != KF_OK) {
        s->ib = saved;
        snprintf(m, cap, "the index rebuild throws at offset %lld (an index entry going back)",
                 (long long)b->last_offset);
        return refuse(w, KF_P_OFFSET_REGRESSION);
    }
    if (kf_pstate_add_batch(w->ps, b, &w->buf, w->o.max_batch_bytes, &w->step) != KF_OK)
        return nomem(w);
    if (w->step.has_aborted && (rc = txn_append(w, &w->step.aborted)) != KF_OK)
        return rc;
    if ((rc = note_epoch(w, b)) != KF_OK)
        return rc;
    int64_t first = b->base_offset_known ? b->base_offset : b->last_offset;
    if (!s->written.has_offsets) {
        s->written.has_offsets = true;
        s->written.first_offset = first;
    }
    s->written.last_offset = b->last_offset;
    s->written.batches++;
    w->has_last = true;
    w->last = b->last_offset;
    return KF_OK;
}

int kf_part_writer_add(kf_part_writer *w, const kf_batch *b)
{
    seg_state *s = &w->s;
    if (!s->open)
        return fail(w, w->out_dir, EINVAL, "no segment is open");
    int rc = account(w, b, b->size);
    if (rc != KF_OK)
        return rc;
    if (kf_out_write(s->lf, b->bytes, b->size) != KF_OK)
        return fail(w, s->log_path, errno, "cannot write");
    return KF_OK;
}

int kf_part_writer_add_large(kf_part_writer *w, kf_source *src, uint64_t pos, kf_batch *header)
{
    seg_state *s = &w->s;
    if (!s->open)
        return fail(w, w->out_dir, EINVAL, "no segment is open");
    const char *in = s->input ? s->input : s->log_path;
    uint8_t h[HEADER_PEEK];
    uint64_t left = kf_source_size(src) > pos ? kf_source_size(src) - pos : 0;
    int64_t got = kf_source_pread(src, pos, h, left < sizeof h ? (size_t)left : sizeof h);
    if (got < 0)
        return fail(w, in, errno, "cannot read");
    uint32_t size;
    int8_t magic;
    if (got <= KF_HEADER_UP_TO_MAGIC || kf_batch_frame(h, left, &size, &magic) != KF_FRAME_OK)
        return fail(w, in, EINVAL, "the entry to copy is not whole");
    kf_batch hb; /* the header only: its records are not at hand */
    kf_batch_parse_broker(h, size < (uint64_t)got ? size : (uint32_t)got, pos, &hb);
    if (header) {
        *header = hb;
        header->size = size;
        header->bytes = header->payload = header->legacy_key = NULL;
        header->payload_len = 0;
    }
    int rc = account(w, &hb, size);
    if (rc != KF_OK)
        return rc;
    if (!w->piece && !(w->piece = malloc(COPY_PIECE)))
        return nomem(w);
    for (uint64_t done = 0; done < size;) {
        size_t n = size - done < COPY_PIECE ? (size_t)(size - done) : COPY_PIECE;
        if (kf_source_pread(src, pos + done, w->piece, n) != (int64_t)n)
            return fail(w, in, errno ? errno : EIO, "cannot read");
        if (kf_out_write(s->lf, w->piece, n) != KF_OK)
            return fail(w, s->log_path, errno, "cannot write");
        done += n;
    }
    return KF_OK;
}

const kf_part_refusal *kf_part_writer_refusal(const kf_part_writer *w) { return &w->refusal; }

const kf_pstate_step *kf_part_writer_step(const kf_part_writer *w) { return &w->step; }

static int commit(kf_part_writer *w, kf_out_file **f, const char *path)
{
    int err_no = 0;
    kf_out_file *x = *f;
    *f = NULL;
    if (kf_error_errno(kf_out_commit(x), &err_no) != KF_OK)
        return fail(w, path, err_no, "cannot write");
    return KF_OK;
}

int kf_part_writer_close_segment(kf_part_writer *w, kf_part_segment *out)
{
    seg_state *s = &w->s;
    if (out)
        memset(out, 0, sizeof *out);
    if (!s->open)
        return KF_OK;
    s->open = false;
    int rc = KF_OK;
    if (kf_index_builder_finish(&s->ib) != KF_OK)
        rc = fail(w, s->tix_path, errno, "cannot write");
    s->written.size = kf_out_size(s->lf);
    s->written.index_entries = s->ib.index_entries;
    s->written.time_entries = s->ib.time_entries;
    /* indexes first: the .log appears last, with its indexes beside it */
    if (rc == KF_OK)
        rc = commit(w, &s->ixf, s->ix_path);
    if (rc == KF_OK)
        rc = commit(w, &s->tixf, s->tix_path);
    if (rc == KF_OK)
        rc = commit(w, &s->lf, s->log_path);
    if (rc == KF_OK && s->txnf)
        rc = commit(w, &s->txnf, s->txn_path);
    seg_abort(s);
    if (rc != KF_OK || !out)
        return rc;
    out->input = s->input;
    out->log_path = s->log_path;
    out->base = s->base;
    out->written = s->written;
    out->txn_len = s->txn_len;
    out->txn_path = s->txn_len ? s->txn_path : NULL;
    out->txn_written = s->txn_len ? s->txn_written : NULL;
    return KF_OK;
}

/* ---- the partition's files --------------------------------------------------- */

const kf_leader_epoch *kf_part_writer_epochs(const kf_part_writer *w, size_t *n)
{
    *n = w->nle;
    return w->le;
}

const kf_pstate *kf_part_writer_pstate(const kf_part_writer *w) { return w->ps; }

bool kf_part_writer_last_offset(const kf_part_writer *w, int64_t *last)
{
    if (w->has_last)
        *last = w->last;
    return w->has_last;
}

bool kf_part_writer_log_end(const kf_part_writer *w, int64_t *leo)
{
    if (w->has_last)
        *leo = w->last + 1;
    else if (w->started)
        *leo = w->last_base;
    return w->has_last || w->started;
}

int kf_part_writer_write_epochs(kf_part_writer *w, const kf_leader_epoch *e, size_t n)
{
    if (!e) {
        e = w->le;
        n = w->nle;
    }
    size_t cap = 32 + n * 48;
    char *text = malloc(cap);
    if (!w->epochs_path)
        w->epochs_path = kf_path_join(w->out_dir, "leader-epoch-checkpoint");
    if (!text || !w->epochs_path) {
        free(text);
        return nomem(w);
    }
    size_t len = (size_t)snprintf(text, cap, "0\n%zu\n", n);
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len, "%d %lld\n", e[i].epoch, (long long)e[i].start_offset);
    int err_no = 0, rc = KF_OK;
    if (kf_error_errno(kf_out_write_file(w->write_dir, "leader-epoch-checkpoint", text, len, w->o.force), &err_no) != KF_OK)
        rc = fail(w, w->epochs_path, err_no, "cannot write");
    free(text);
    return rc;
}

int kf_part_writer_write_snapshot(kf_part_writer *w, const char **path)
{
    int64_t leo = 0;
    kf_part_writer_log_end(w, &leo);
    char name[64];
    snprintf(name, sizeof name, "%020lld.snapshot", (long long)leo);
    free(w->snapshot_path);
    w->snapshot_path = kf_path_join(w->out_dir, name);
    uint8_t *data = NULL;
    size_t len = 0;
    if (!w->snapshot_path || kf_pstate_snapshot(w->ps, &data, &len) != KF_OK)
        return nomem(w);
    int err_no = 0, rc = KF_OK;
    if (kf_error_errno(kf_out_write_file(w->write_dir, name, data, len, w->o.force), &err_no) != KF_OK)
        rc = fail(w, w->snapshot_path, err_no, "cannot write");
    free(data);
    if (path)
        *path = rc == KF_OK ? w->snapshot_path : NULL;
    return rc;
}

int kf_part_writer_finish(kf_part_writer *w, kf_part_finish *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    int rc = kf_part_writer_close_segment(w, NULL);
    if (rc == KF_OK)
        rc = kf_part_writer_write_epochs(w, NULL, 0);
    const char *snap = NULL;
    if (rc == KF_OK && w->has_last)
        rc = kf_part_writer_write_snapshot(w, &snap);
    if (rc == KF_OK && out) {
        out->epochs_path = w->epochs_path;
        out->snapshot_path = snap;
        kf_part_writer_log_end(w, &out->log_end);
    }
    return rc;
}
