/* merge.c: rebuild one partition from several damaged copies of it. Each
 * copy is read with the resynchronising segment iterator (only batches that
 * pass every verify check count); the copies are walked side by side in
 * offset order and, for each offset range, one valid batch is streamed to
 * the output. Same offsets with different bytes are a conflict, settled by
 * the higher partition leader epoch; offset ranges that some copy shows
 * damage over and no copy supplies are holes. Output segments start at the
 * input segments' base offsets; indexes are rebuilt by the recovery rule and
 * the leader-epoch checkpoint from the merged batches. Producer state is
 * replayed over the merged batches (producer_state.c, starting from a
 * copy's snapshot at the log start offset when that is past 0): each output
 * segment gets the .txnindex of the aborted transactions whose ABORT marker
 * it holds, and the partition a `<log end offset>.snapshot`. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfsck/checkpoint.h"
#include "kfsck/cursor.h"
#include "kfsck/file.h"
#include "kfsck/names.h"
#include "kfsck/producer_state.h"
#include "kfsck/repair.h"
#include "kfsck/segment.h"
#include "kfsck/snapshot.h"

typedef struct window {
    int64_t lo, hi;     /* offsets a copy shows damage over; hi INT64_MAX: unknown */
} window;

typedef struct copy_reader {
    size_t idx;
    const char *dir;
    char **paths;       /* segment paths in base order */
    int64_t *bases;
    size_t nseg, seg;   /* seg: the open segment */
    kf_source *src;
    kf_segment_iter *it;
    bool has_head;
    kf_batch head;
    int64_t head_first, head_last;
    bool has_prev;
    int64_t prev_last;  /* last good offset of this copy */
    bool damage;        /* damage seen since prev */
    bool tail_known;    /* damage at its end: the torn entry's last offset */
    int64_t tail_last;
    bool done;
} copy_reader;

struct merge_ctx;

/* What an iterator's problem callback gets: the merge and the copy. */
typedef struct reader_slot {
    struct merge_ctx *c;
    copy_reader *r;
} reader_slot;

typedef struct merge_ctx {
    reader_slot *slots;
    const kf_merge_opts *o;
    kf_merge_result *res;
    const char *out_dir;
    copy_reader *cr;
    size_t n;
    window *win;
    size_t nwin, capwin;
    int64_t *bases;     /* union of segment bases */
    size_t nbases;
    /* the open output segment */
    kf_out_file *lf, *ixf, *tixf;
    kf_index_builder ib;
    bool seg_open;
    int64_t seg_base;
    kf_repair_segment sr;
    char seg_log_path[4200];
    /* leader epochs of the merged log */
    int32_t *le_epoch;
    int64_t *le_start;
    size_t nle, caple;
    bool has_prev;
    int64_t prev_last;
    /* producer state of the merged log, and the open segment's aborted txns */
    kf_pstate *ps;
    int64_t ps_seed;      /* offset of the snapshot it started from, -1: none */
    const char *ps_seed_path;
    char *seed_path;
    kf_buf buf;
    uint8_t *txn_out;
    size_t txn_len, txn_cap;
} merge_ctx;

static int fail(merge_ctx *c, const char *path, int err_no, const char *what)
{
    size_t n = strlen(path);
    if (n >= sizeof c->res->err_path)
        n = sizeof c->res->err_path - 1;
    memcpy(c->res->err_path, path, n);
    c->res->err_path[n] = 0;
    c->res->err_no = err_no;
    snprintf(c->res->err_what, sizeof c->res->err_what, "%s", what);
    return KF_ERR_IO;
}


static void add_window(merge_ctx *c, int64_t lo, int64_t hi)
{
    if (hi < lo)
        return;
    if (c->nwin == c->capwin) {
        size_t n = c->capwin ? c->capwin * 2 : 16;
        window *w = realloc(c->win, n * sizeof *w);
        if (!w)
            return;
        c->win = w;
        c->capwin = n;
    }
    c->win[c->nwin++] = (window){lo, hi};
}

static void copy_problem(void *ctx, const kf_problem *p)
{
    copy_reader *r = ctx;
    r->damage = true;
    /* a torn or broken entry whose v2 header still names its offsets */
    uint8_t h[KF_V2_HEADER_SIZE];
    if (!r->tail_known && r->src &&
        kf_source_pread(r->src, p->position, h, sizeof h) == (int64_t)sizeof h && h[16] == 2) {
        kf_batch hb;
        kf_batch_parse(h, sizeof h, p->position, &hb);
        int64_t base = hb.base_offset;
        int32_t delta = hb.last_offset_delta;
        int64_t expect = r->has_prev ? r->prev_last + 1 : r->bases[r->seg];
        if (base == expect && delta >= 0 && delta < (1 << 20)) {
            r->tail_known = true;
            r->tail_last = base + delta;
        }
    }
}

static void close_segment_reader(copy_reader *r)
{
    kf_segment_iter_close(r->it);
    r->it = NULL;
    kf_source_close(r->src);
    r->src = NULL;
}


static void reader_problem(void *ctx, const kf_problem *p)
{
    reader_slot *s = ctx;
    copy_problem(s->r, p);
    if (s->c->o->problem_fn)
        s->c->o->problem_fn(s->c->o->ctx, s->r->idx, s->r->paths[s->r->seg], p);
}

/* Next batch of a copy that passes every check (across its segments). */
static int advance(merge_ctx *c, copy_reader *r)
{
    if (r->has_head) {
        r->has_prev = true;
        r->prev_last = r->head_last;
        r->damage = false;
        r->tail_known = false;
    }
    r->has_head = false;
    while (!r->done) {
        if (!r->it) {
            if (r->seg >= r->nseg) {
                r->done = true;
                break;
            }
            int err_no = 0;
            if (kf_source_open(&r->src, r->paths[r->seg], 0, &err_no) != KF_OK) {
                kf_problem p;
                memset(&p, 0, sizeof p);
                p.code = KF_P_UNREADABLE;
                p.severity = KF_SEV_ERROR;
                snprintf(p.message, sizeof p.message, "cannot read: %s",
                         err_no == EINVAL ? "not a regular file" : strerror(err_no));
                r->damage = true;
                if (c->o->problem_fn)
                    c->o->problem_fn(c->o->ctx, r->idx, r->paths[r->seg], &p);
                r->seg++;
                continue;
            }
            kf_scan_opts so;
            kf_scan_opts_init(&so);
            so.resync = true;
            so.base_offset = r->bases[r->seg];
            so.problem_fn = reader_problem;
            so.problem_ctx = &c->slots[r->idx];
            if (kf_segment_iter_open(&r->it, r->src, &so) != KF_OK)
                return KF_ERR_NOMEM;
        }
        bool dmg = false;
        if (kf_segment_iter_next(r->it, &r->head, &dmg) != 1) {
            close_segment_reader(r);
            r->seg++;
            continue;
        }
        const char *code;
        int64_t first, last;
        if (dmg)
            r->damage = true;
        if (!kf_batch_deep_ok(&r->head, c->o->max_batch_bytes, &code, &first, &last) ||
            (r->has_prev && first <= r->prev_last) || first < r->bases[r->seg] ||
            last - r->bases[r->seg] > INT32_MAX) {
            r->damage = true;
            continue;
        }
        if (r->damage) {
            int64_t lo = r->has_prev ? r->prev_last + 1 : r->bases[0];
            add_window(c, lo, first - 1);
        }
        r->has_head = true;
        r->head_first = first;
        r->head_last = last;
        return KF_OK;
    }
    if (r->damage) {
        int64_t lo = r->has_prev ? r->prev_last + 1 : (r->nseg ? r->bases[0] : 0);
        add_window(c, lo, r->tail_known ? r->tail_last : INT64_MAX);
        r->damage = false;
    }
    return KF_OK;
}

/* ---- output segments ------------------------------------------------------- */

static int close_out_segment(merge_ctx *c)
{
    if (!c->seg_open)
        return KF_OK;
    int err_no = 0, rc = KF_OK;
    char *ixp = NULL, *tixp = NULL;
    char name[64];
    snprintf(name, sizeof name, "%020lld.index", (long long)c->seg_base);
    ixp = kf_path_join(c->out_dir, name);
    snprintf(name, sizeof name, "%020lld.timeindex", (long long)c->seg_base);
    tixp = kf_path_join(c->out_dir, name);
    if (kf_index_builder_finish(&c->ib) != KF_OK)
        rc = fail(c, tixp ? tixp : c->out_dir, errno, "cannot write");
    c->sr.size = kf_out_size(c->lf);
    c->sr.index_entries = c->ib.index_entries;
    c->sr.time_entries = c->ib.time_entries;
    kf_out_file *f;
    if (rc == KF_OK) {
        f = c->ixf;
        c->ixf = NULL;
        if (kf_out_commit(f, &err_no) != KF_OK)
            rc = fail(c, ixp ? ixp : c->out_dir, err_no, "cannot write");
    }
    if (rc == KF_OK) {
        f = c->tixf;
        c->tixf = NULL;
        if (kf_out_commit(f, &err_no) != KF_OK)
            rc = fail(c, tixp ? tixp : c->out_dir, err_no, "cannot write");
    }
    if (rc == KF_OK) {
        f = c->lf;
        c->lf = NULL;
        if (kf_out_commit(f, &err_no) != KF_OK)
            rc = fail(c, c->seg_log_path, err_no, "cannot write");
    }
    kf_out_abort(c->lf);
    kf_out_abort(c->ixf);
    kf_out_abort(c->tixf);
    c->lf = c->ixf = c->tixf = NULL;
    c->seg_open = false;
    if (rc == KF_OK) {
        c->res->segments_written++;
        c->sr.output = c->seg_log_path;
        if (c->o->segment_fn)
            c->o->segment_fn(c->o->ctx, &c->sr);
    }
    if (rc == KF_OK && c->txn_len) {
        snprintf(name, sizeof name, "%020lld.txnindex", (long long)c->seg_base);
        char *txp = kf_path_join(c->out_dir, name);
        if (!txp) {
            rc = fail(c, c->out_dir, ENOMEM, "out of memory");
        } else if (kf_out_write_file(c->out_dir, name, c->txn_out, c->txn_len, c->o->force, &err_no) != KF_OK) {
            rc = fail(c, txp, err_no, "cannot write");
        } else if (c->o->file_fn) {
            kf_repair_file tf;
            memset(&tf, 0, sizeof tf);
            tf.output = txp;
            tf.action = "rebuilt";
            snprintf(tf.reason, sizeof tf.reason,
                     "from the merged batches: %zu aborted transactions whose ABORT marker is in this segment",
                     c->txn_len / KF_TXN_ENTRY_SIZE);
            c->o->file_fn(c->o->ctx, &tf);
        }
        free(txp);
    }
    c->txn_len = 0;
    free(ixp);
    free(tixp);
    return rc;
}

static int open_out_segment(merge_ctx *c, int64_t base, const char *input)
{
    int err_no = 0;
    char name[64];
    c->seg_base = base;
    memset(&c->sr, 0, sizeof c->sr);
    c->sr.input = input;
    snprintf(name, sizeof name, "%020lld.log", (long long)base);
    snprintf(c->seg_log_path, sizeof c->seg_log_path, "%s/%s", c->out_dir, name);
    const char *exists = "already exists (use --force to overwrite)";
    if (kf_out_open(&c->lf, c->out_dir, name, c->o->force, &err_no) != KF_OK)
        return fail(c, c->seg_log_path, err_no, err_no == EEXIST ? exists : "cannot create");
    snprintf(name, sizeof name, "%020lld.index", (long long)base);
    if (kf_out_open(&c->ixf, c->out_dir, name, c->o->force, &err_no) != KF_OK) {
        kf_out_abort(c->lf);
        c->lf = NULL;
        return fail(c, c->seg_log_path, err_no, err_no == EEXIST ? exists : "cannot create");
    }
    snprintf(name, sizeof name, "%020lld.timeindex", (long long)base);
    if (kf_out_open(&c->tixf, c->out_dir, name, c->o->force, &err_no) != KF_OK) {
        kf_out_abort(c->lf);
        kf_out_abort(c->ixf);
        c->lf = c->ixf = NULL;
        return fail(c, c->seg_log_path, err_no, err_no == EEXIST ? exists : "cannot create");
    }
    kf_index_builder_init(&c->ib, base, c->ixf, c->tixf);
    c->seg_open = true;
    c->txn_len = 0;
    return KF_OK;
}

static int write_batch(merge_ctx *c, copy_reader *r)
{
    const kf_batch *b = &r->head;
    int64_t first = r->head_first;
    /* the segment: greatest input base <= first, not at or below what was written */
    int64_t target = c->seg_open ? c->seg_base : -1;
    for (size_t i = 0; i < c->nbases; i++) {
        int64_t base = c->bases[i];
        if (base <= first && base > target && (!c->has_prev || base > c->prev_last))
            target = base;
    }
    if (target < 0)
        target = first;
    int rc;
    if (!c->seg_open || target != c->seg_base) {
        if ((rc = close_out_segment(c)) != KF_OK)
            return rc;
        if ((rc = open_out_segment(c, target, r->paths[r->seg])) != KF_OK)
            return rc;
    }
    int64_t bl, bts;
    kf_entry_broker_view(b->bytes, b->size, &bl, &bts);
    rc = kf_index_builder_add(&c->ib, b->size, bl, bts);
    if (rc == KF_ERR_IO)
        return fail(c, c->seg_log_path, errno, "cannot write index");
    if (rc != KF_OK)
        return fail(c, c->seg_log_path, EINVAL, "index rebuild failed");
    if (kf_out_write(c->lf, b->bytes, b->size) != KF_OK)
        return fail(c, c->seg_log_path, errno, "cannot write");
    if (!c->sr.has_offsets) {
        c->sr.has_offsets = true;
        c->sr.first_offset = first;
    }
    c->sr.last_offset = r->head_last;
    c->sr.batches++;
    c->res->batches++;
    kf_pstate_step st;
    if (kf_pstate_add(c->ps, b->bytes, b->size, &c->buf, c->o->max_batch_bytes, &st) != KF_OK)
        return fail(c, c->seg_log_path, ENOMEM, "out of memory");
    if (st.has_aborted) {
        if (c->txn_len + KF_TXN_ENTRY_SIZE > c->txn_cap) {
            size_t nc = c->txn_cap ? c->txn_cap * 2 : 16 * KF_TXN_ENTRY_SIZE;
            uint8_t *nt = realloc(c->txn_out, nc);
            if (!nt)
                return fail(c, c->seg_log_path, ENOMEM, "out of memory");
            c->txn_out = nt;
            c->txn_cap = nc;
        }
        kf_aborted_txn_encode(&st.aborted, c->txn_out + c->txn_len);
        c->txn_len += KF_TXN_ENTRY_SIZE;
    }
    if (b->magic == 2 && b->partition_leader_epoch >= 0 &&
        (c->nle == 0 || b->partition_leader_epoch > c->le_epoch[c->nle - 1])) {
        if (c->nle == c->caple) {
            size_t n = c->caple ? c->caple * 2 : 16;
            int32_t *e = realloc(c->le_epoch, n * sizeof *e);
            if (e)
                c->le_epoch = e;
            int64_t *s = realloc(c->le_start, n * sizeof *s);
            if (s)
                c->le_start = s;
            if (e && s)
                c->caple = n;
        }
        if (c->nle < c->caple) {
            c->le_epoch[c->nle] = b->partition_leader_epoch;
            c->le_start[c->nle] = b->base_offset;
            c->nle++;
        }
    }
    c->has_prev = true;
    c->prev_last = r->head_last;
    return KF_OK;
}

/* Report [lo, hi] as a hole when some copy showed damage over it. */
static void check_gap(merge_ctx *c, int64_t lo, int64_t hi, bool end)
{
    bool any = false, hi_known = false;
    int64_t lo2 = INT64_MAX, hi2 = INT64_MIN;
    for (size_t i = 0; i < c->nwin; i++) {
        window w = c->win[i];
        if (w.hi < lo || (!end && w.lo > hi))
            continue;
        any = true;
        if (w.lo < lo2)
            lo2 = w.lo;
        if (w.hi != INT64_MAX) {
            hi_known = true;
            if (w.hi > hi2)
                hi2 = w.hi;
        }
    }
    if (!any)
        return;
    kf_merge_hole h;
    h.start_offset = lo;
    if (end) {
        h.has_end = hi_known && hi2 >= lo;
        h.end_offset = hi2;
        if (!h.has_end && !hi_known)
            h.has_end = false;
        if (hi_known && hi2 < lo)
            return; /* every damage window ends before the log does */
    } else {
        h.has_end = true;
        h.end_offset = hi;
    }
    c->res->holes++;
    if (c->o->hole_fn)
        c->o->hole_fn(c->o->ctx, &h);
}

/* ---- inputs ----------------------------------------------------------------- */

typedef struct sname {
    char *name;
    int64_t base;
} sname;

static int cmp_sname(const void *a, const void *b)
{
    const sname *x = a, *y = b;
    return x->base < y->base ? -1 : x->base > y->base;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int list_copy(merge_ctx *c, copy_reader *r)
{
    DIR *d = opendir(r->dir);
    if (!d)
        return fail(c, r->dir, errno, "cannot list directory");
    sname *v = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        kf_name_info ni = kf_classify_name(e->d_name);
        if (ni.kind != KF_FILE_LOG || ni.suffix[0] || ni.base_offset < 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            sname *nv = realloc(v, cap * sizeof *nv);
            if (!nv) {
                closedir(d);
                free(v);
                return fail(c, r->dir, ENOMEM, "out of memory");
            }
            v = nv;
        }
        v[n].name = strdup(e->d_name);
        v[n].base = ni.base_offset;
        n++;
    }
    closedir(d);
    if (n)
        qsort(v, n, sizeof *v, cmp_sname);
    r->paths = calloc(n ? n : 1, sizeof *r->paths);
    r->bases = calloc(n ? n : 1, sizeof *r->bases);
    for (size_t i = 0; i < n; i++) {
        r->paths[i] = kf_path_join(r->dir, v[i].name);
        r->bases[i] = v[i].base;
        free(v[i].name);
    }
    free(v);
    r->nseg = n;
    return KF_OK;
}

static void emit_file(merge_ctx *c, const char *in, const char *outp, const char *action, const char *reason)
{
    if (!c->o->file_fn)
        return;
    kf_repair_file f;
    memset(&f, 0, sizeof f);
    f.input = in;
    f.output = outp;
    f.action = action;
    snprintf(f.reason, sizeof f.reason, "%s", reason);
    c->o->file_fn(c->o->ctx, &f);
}

static int write_small_files(merge_ctx *c)
{
    int err_no = 0;
    /* leader-epoch-checkpoint from the merged batches */
    size_t cap = 32 + c->nle * 48;
    char *text = malloc(cap);
    if (!text)
        return fail(c, c->out_dir, ENOMEM, "out of memory");
    size_t len = (size_t)snprintf(text, cap, "0\n%zu\n", c->nle);
    for (size_t i = 0; i < c->nle; i++)
        len += (size_t)snprintf(text + len, cap - len, "%d %lld\n", c->le_epoch[i], (long long)c->le_start[i]);
    char *p = kf_path_join(c->out_dir, "leader-epoch-checkpoint");
    int rc = KF_OK;
    if (kf_out_write_file(c->out_dir, "leader-epoch-checkpoint", text, len, c->o->force, &err_no) != KF_OK)
        rc = fail(c, p, err_no, "cannot write");
    else
        emit_file(c, NULL, p, "rebuilt", "from the leader epochs of the merged batches");
    free(p);
    free(text);
    if (rc != KF_OK)
        return rc;
    /* partition.metadata: the first copy's that parses */
    for (size_t i = 0; i < c->n; i++) {
        char *in = kf_path_join(c->cr[i].dir, "partition.metadata");
        kf_bytes m;
        if (in && kf_file_read_all(in, KF_SMALL_FILE_MAX, &m.data, &m.size, NULL) == KF_OK) {
            kf_partition_metadata pm;
            char msg[200];
            if (kf_partition_metadata_parse(m.data, m.size, &pm, msg, sizeof msg) == KF_OK) {
                char *outp = kf_path_join(c->out_dir, "partition.metadata");
                if (kf_out_write_file(c->out_dir, "partition.metadata", m.data, m.size, c->o->force, &err_no) !=
                    KF_OK)
                    rc = fail(c, outp, err_no, "cannot write");
                else
                    emit_file(c, in, outp, "copied", "valid");
                free(outp);
                free(m.data);
                free(in);
                break;
            }
            free(m.data);
        }
        free(in);
    }
    /* the producer snapshot at the merged log end */
    if (rc == KF_OK && c->has_prev) {
        char name[64];
        snprintf(name, sizeof name, "%020lld.snapshot", (long long)(c->prev_last + 1));
        uint8_t *data = NULL;
        size_t dlen = 0;
        char *outp = kf_path_join(c->out_dir, name);
        if (!outp || kf_pstate_snapshot(c->ps, &data, &dlen) != KF_OK) {
            rc = fail(c, c->out_dir, ENOMEM, "out of memory");
        } else if (kf_out_write_file(c->out_dir, name, data, dlen, c->o->force, &err_no) != KF_OK) {
            rc = fail(c, outp, err_no, "cannot write");
        } else if (c->o->file_fn) {
            kf_repair_file f;
            memset(&f, 0, sizeof f);
            f.input = c->ps_seed_path;
            f.output = outp;
            f.action = "rebuilt";
            if (c->ps_seed >= 0)
                snprintf(f.reason, sizeof f.reason,
                         "producer state at the merged log end offset %lld: this snapshot (at the log start offset) "
                         "replayed over the merged batches (%zu producers)",
                         (long long)(c->prev_last + 1), kf_pstate_producers(c->ps));
            else
                snprintf(f.reason, sizeof f.reason,
                         "producer state at the merged log end offset %lld, replayed from the merged batches (%zu producers)",
                         (long long)(c->prev_last + 1), kf_pstate_producers(c->ps));
            c->o->file_fn(c->o->ctx, &f);
        }
        free(data);
        free(outp);
    }
    /* the copies' own snapshots and transaction indexes are replaced by those */
    for (size_t i = 0; i < c->n && rc == KF_OK; i++) {
        DIR *d = opendir(c->cr[i].dir);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d))) {
            kf_name_info ni = kf_classify_name(e->d_name);
            if (ni.kind == KF_FILE_SNAPSHOT || ni.kind == KF_FILE_TXNINDEX) {
                char *in = kf_path_join(c->cr[i].dir, e->d_name);
                if (in && (!c->ps_seed_path || strcmp(in, c->ps_seed_path) != 0))
                    emit_file(c, in, NULL, "dropped",
                              ni.kind == KF_FILE_SNAPSHOT
                                  ? "superseded: producer state is rebuilt from the merged batches"
                                  : "superseded: transaction indexes are rebuilt from the merged batches' ABORT markers");
                free(in);
            }
        }
        closedir(d);
    }
    return rc;
}

int kf_merge_partitions(const char *const *in_dirs, size_t n, const char *out_dir, const kf_merge_opts *o,
                        kf_merge_result *res)
{
    memset(res, 0, sizeof *res);
    merge_ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.res = res;
    c.out_dir = out_dir;
    c.n = n;
    c.cr = calloc(n ? n : 1, sizeof *c.cr);
    c.slots = calloc(n ? n : 1, sizeof *c.slots);
    bool *cand = calloc(n ? n : 1, sizeof *cand);
    int32_t *eps = calloc(n ? n : 1, sizeof *eps);
    int rc = KF_OK;
    if (!c.cr || !c.slots || !cand || !eps) {
        rc = fail(&c, out_dir, ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n && rc == KF_OK; i++) {
        c.cr[i].idx = i;
        c.cr[i].dir = in_dirs[i];
        c.slots[i].c = &c;
        c.slots[i].r = &c.cr[i];
        rc = list_copy(&c, &c.cr[i]);
        for (size_t k = 0; rc == KF_OK && k < c.cr[i].nseg; k++) {
            int64_t *nb = realloc(c.bases, (c.nbases + 1) * sizeof *nb);
            if (!nb) {
                rc = fail(&c, out_dir, ENOMEM, "out of memory");
                break;
            }
            c.bases = nb;
            c.bases[c.nbases++] = c.cr[i].bases[k];
        }
    }
    if (rc != KF_OK)
        goto done;
    if (c.nbases)
        qsort(c.bases, c.nbases, sizeof *c.bases, cmp_i64);
    c.ps_seed = -1;
    c.ps = kf_pstate_new();
    if (!c.ps) {
        rc = fail(&c, out_dir, ENOMEM, "out of memory");
        goto done;
    }
    /* producer state before the log start: a copy's snapshot there */
    if (c.nbases && c.bases[0] > 0) {
        char name[64];
        snprintf(name, sizeof name, "%020lld.snapshot", (long long)c.bases[0]);
        for (size_t i = 0; i < n && c.ps_seed < 0 && rc == KF_OK; i++) {
            char *p = kf_path_join(c.cr[i].dir, name);
            kf_bytes sm;
            if (p && kf_file_read_all(p, KF_SMALL_FILE_MAX, &sm.data, &sm.size, NULL) == KF_OK) {
                kf_snapshot s;
                char msg[200];
                if (kf_snapshot_parse(sm.data, sm.size, &s, msg, sizeof msg) == KF_OK) {
                    if (kf_pstate_load(c.ps, &s) != KF_OK)
                        rc = fail(&c, p, ENOMEM, "out of memory");
                    c.ps_seed = c.bases[0];
                    c.seed_path = p;
                    c.ps_seed_path = p;
                    p = NULL;
                }
                free(sm.data);
            }
            free(p);
        }
        if (rc != KF_OK)
            goto done;
    }
    int err_no = 0;
    if (kf_mkdirs(out_dir, &err_no) != KF_OK) {
        rc = fail(&c, out_dir, err_no, "cannot create directory");
        goto done;
    }
    for (size_t i = 0; i < n && rc == KF_OK; i++)
        rc = advance(&c, &c.cr[i]);

    while (rc == KF_OK) {
        /* heads already covered by what was written are skipped */
        for (size_t i = 0; i < n && rc == KF_OK; i++) {
            copy_reader *r = &c.cr[i];
            while (rc == KF_OK && r->has_head && c.has_prev && r->head_first <= c.prev_last)
                rc = advance(&c, r);
        }
        if (rc != KF_OK)
            break;
        bool any = false;
        int64_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (c.cr[i].has_head && (!any || c.cr[i].head_first < m)) {
                m = c.cr[i].head_first;
                any = true;
            }
        if (!any)
            break;
        size_t best = n;
        for (size_t i = 0; i < n; i++) {
            copy_reader *r = &c.cr[i];
            cand[i] = r->has_head && r->head_first == m;
            eps[i] = cand[i] && r->head.magic == 2 ? r->head.partition_leader_epoch : -1;
            if (cand[i] && (best == n || eps[i] > eps[best]))
                best = i;
        }
        bool differ = false;
        const kf_batch *bb = &c.cr[best].head;
        for (size_t i = 0; i < n; i++)
            if (cand[i] && i != best &&
                (c.cr[i].head.size != bb->size || memcmp(c.cr[i].head.bytes, bb->bytes, bb->size) != 0))
                differ = true;
        if (c.has_prev && m > c.prev_last + 1)
            check_gap(&c, c.prev_last + 1, m - 1, false);
        else if (!c.has_prev && c.nbases && m > c.bases[0])
            check_gap(&c, c.bases[0], m - 1, false);
        if (differ) {
            kf_merge_conflict cf;
            cf.start_offset = m;
            cf.end_offset = c.cr[best].head_last;
            cf.chosen = best;
            cf.ncopies = n;
            cf.leader_epochs = eps;
            cf.has = cand;
            res->conflicts++;
            if (o->conflict_fn)
                o->conflict_fn(o->ctx, &cf);
        }
        rc = write_batch(&c, &c.cr[best]);
        for (size_t i = 0; i < n && rc == KF_OK; i++)
            if (cand[i])
                rc = advance(&c, &c.cr[i]);
    }
    if (rc == KF_OK) {
        int64_t lo = c.has_prev ? c.prev_last + 1 : (c.nbases ? c.bases[0] : 0);
        check_gap(&c, lo, INT64_MAX, true);
    }
    if (rc == KF_OK)
        rc = close_out_segment(&c);
    if (rc == KF_OK)
        rc = write_small_files(&c);
done:
    kf_out_abort(c.lf);
    kf_out_abort(c.ixf);
    kf_out_abort(c.tixf);
    for (size_t i = 0; c.cr && i < n; i++) {
        close_segment_reader(&c.cr[i]);
        for (size_t k = 0; k < c.cr[i].nseg; k++)
            free(c.cr[i].paths[k]);
        free(c.cr[i].paths);
        free(c.cr[i].bases);
    }
    free(c.cr);
    free(c.slots);
    free(cand);
    free(eps);
    free(c.win);
    free(c.bases);
    free(c.le_epoch);
    free(c.le_start);
    kf_pstate_free(c.ps);
    kf_buf_free(&c.buf);
    free(c.txn_out);
    free(c.seed_path);
    return rc;
}
