/* partition.c: finding partitions and their copies under the PATHs, and the
 * partition reader (include/kfsck/partition.h): the union of several copies'
 * intact batches in offset order, for jobs that read a partition's log where
 * each copy may be damaged in a different place. */
#include "kfsck/partition.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfsck/dirs.h"
#include "kfsck/file.h"
#include "kfsck/names.h"
#include "kfsck/segment.h"

/* ---- inputs --------------------------------------------------------------- */

static void *grow(void *p, size_t n, size_t size)
{
    return realloc(p, (n ? n : 1) * size);
}

static kf_partition *part_for(kf_inputs *in, const char *topic, int32_t partition)
{
    /* a partition we cannot name (a loose file) is never a copy of another */
    for (size_t i = 0; i < in->n && partition >= 0; i++)
        if (in->parts[i].partition == partition && !strcmp(in->parts[i].topic, topic))
            return &in->parts[i];
    kf_partition *np = grow(in->parts, in->n + 1, sizeof *np);
    if (!np)
        return NULL;
    in->parts = np;
    kf_partition *p = &in->parts[in->n];
    memset(p, 0, sizeof *p);
    if (!(p->topic = strdup(topic)))
        return NULL;
    p->partition = partition;
    in->n++;
    return p;
}

static kf_copy *new_copy(kf_partition *p, const char *label)
{
    if (!p)
        return NULL;
    kf_copy *nc = grow(p->copies, p->ncopies + 1, sizeof *nc);
    if (!nc)
        return NULL;
    p->copies = nc;
    kf_copy *c = &p->copies[p->ncopies];
    memset(c, 0, sizeof *c);
    if (!(c->label = strdup(label)))
        return NULL;
    p->ncopies++;
    return c;
}

static int add_segment(kf_copy *c, const char *path, int64_t base)
{
    char **s = grow(c->segments, c->nseg + 1, sizeof *s);
    if (s)
        c->segments = s;
    int64_t *b = grow(c->bases, c->nseg + 1, sizeof *b);
    if (b)
        c->bases = b;
    if (!s || !b || !(c->segments[c->nseg] = strdup(path)))
        return KF_ERR_NOMEM;
    c->bases[c->nseg++] = base;
    return KF_OK;
}

static void partition_of_dir(const char *dir, char *topic, size_t cap, int32_t *partition)
{
    if (!kf_parse_partition_dir(kf_path_base(dir), topic, cap, partition)) {
        topic[0] = 0;
        *partition = -1;
    }
}

static int add_partition_dir(kf_inputs *in, const char *dir, kf_path_error_fn fn, void *ctx)
{
    char topic[256];
    int32_t partition;
    partition_of_dir(dir, topic, sizeof topic, &partition);
    kf_name_list l;
    int err_no = 0;
    int rc = kf_list_dir(dir, &l, &err_no);
    if (rc != KF_OK) {
        if (fn && rc != KF_ERR_NOMEM)
            fn(ctx, dir, err_no, kf_path_error_str(err_no));
        return rc;
    }
    kf_copy *c = new_copy(part_for(in, topic, partition), dir);
    rc = c ? KF_OK : KF_ERR_NOMEM;
    for (size_t i = 0; i < l.n && rc == KF_OK; i++) {
        kf_name_info ni = kf_classify_name(l.names[i]);
        if (ni.kind == KF_FILE_LOG && ni.suffix[0] == 0) {
            char *p = kf_path_join(dir, l.names[i]);
            rc = p ? add_segment(c, p, ni.base_offset) : KF_ERR_NOMEM;
            free(p);
        }
    }
    kf_name_list_free(&l);
    return rc;
}

static int add_file(kf_inputs *in, const char *path)
{
    char *dir = kf_path_dir(path);
    if (!dir)
        return KF_ERR_NOMEM;
    char topic[256];
    int32_t partition;
    partition_of_dir(dir, topic, sizeof topic, &partition);
    free(dir);
    kf_name_info ni = kf_classify_name(kf_path_base(path));
    kf_copy *c = new_copy(part_for(in, topic, partition), path);
    if (!c)
        return KF_ERR_NOMEM;
    return add_segment(c, path, ni.kind == KF_FILE_LOG ? ni.base_offset : -1);
}

static int cmp_parts(const void *a, const void *b)
{
    const kf_partition *x = a, *y = b;
    int c = strcmp(x->topic, y->topic);
    if (c)
        return c;
    return x->partition < y->partition ? -1 : x->partition > y->partition;
}

int kf_inputs_collect(kf_inputs *in, char *const *paths, size_t n, kf_path_error_fn fn, void *ctx)
{
    memset(in, 0, sizeof *in);
    int status = KF_OK;
    for (size_t i = 0; i < n && status != KF_ERR_NOMEM; i++) {
        const char *p = paths[i];
        int err_no = 0, rc = KF_OK;
        switch (kf_classify_path(p, &err_no)) {
        case KF_PATH_ERROR:
            if (fn)
                fn(ctx, p, err_no, kf_path_error_str(err_no));
            rc = KF_ERR_IO;
            break;
        case KF_PATH_SPECIAL:
            if (fn)
                fn(ctx, p, 0, "not a regular file or directory");
            rc = KF_ERR_IO;
            break;
        case KF_PATH_FILE:
            rc = add_file(in, p);
            break;
        case KF_PATH_PARTITION:
            rc = add_partition_dir(in, p, fn, ctx);
            break;
        case KF_PATH_DATADIR: {
            kf_name_list l;
            if ((rc = kf_list_dir(p, &l, &err_no)) != KF_OK) {
                if (fn && rc != KF_ERR_NOMEM)
                    fn(ctx, p, err_no, kf_path_error_str(err_no));
                break;
            }
            for (size_t k = 0; k < l.n && rc != KF_ERR_NOMEM; k++) {
                char *sub = kf_path_join(p, l.names[k]);
                if (!sub) {
                    rc = KF_ERR_NOMEM;
                    break;
                }
                int e2 = 0;
                kf_path_kind sk = kf_classify_path(sub, &e2);
                char topic[256];
                int32_t part;
                if (sk == KF_PATH_PARTITION) {
                    int r2 = add_partition_dir(in, sub, fn, ctx);
                    if (r2 != KF_OK)
                        rc = r2;
                } else if (sk == KF_PATH_ERROR && kf_parse_partition_dir(l.names[k], topic, sizeof topic, &part)) {
                    /* a partition dir that cannot be read is not silently skipped */
                    if (fn)
                        fn(ctx, sub, e2, kf_path_error_str(e2));
                    rc = KF_ERR_IO;
                }
                free(sub);
            }
            kf_name_list_free(&l);
            break;
        }
        case KF_PATH_OTHER_DIR:
            if (fn)
                fn(ctx, p, 0, "neither a partition directory nor a broker data directory");
            rc = KF_ERR_IO;
            break;
        }
        if (rc != KF_OK && status != KF_ERR_NOMEM)
            status = rc;
    }
    if (in->n)
        qsort(in->parts, in->n, sizeof *in->parts, cmp_parts);
    return status;
}

void kf_inputs_free(kf_inputs *in)
{
    for (size_t i = 0; i < in->n; i++) {
        kf_partition *p = &in->parts[i];
        for (size_t c = 0; c < p->ncopies; c++) {
            for (size_t s = 0; s < p->copies[c].nseg; s++)
                free(p->copies[c].segments[s]);
            free(p->copies[c].segments);
            free(p->copies[c].bases);
            free(p->copies[c].label);
        }
        free(p->copies);
        free(p->topic);
    }
    free(in->parts);
    memset(in, 0, sizeof *in);
}

const kf_partition *kf_inputs_find(const kf_inputs *in, const char *topic, int32_t partition)
{
    for (size_t i = 0; i < in->n; i++)
        if (in->parts[i].partition == partition && !strcmp(in->parts[i].topic, topic))
            return &in->parts[i];
    return NULL;
}

/* ---- the union of copies ------------------------------------------------- */

typedef struct window {
    int64_t lo, hi;     /* offsets a copy shows damage over; INT64_MIN/MAX: open */
} window;

struct kf_part_reader;

typedef struct cursor {
    struct kf_part_reader *r;
    const kf_copy *c;
    size_t seg;
    kf_source *src;
    kf_segment_iter *it;
    const char *file;
    bool has_peek, done;
    kf_batch peek;
    bool have_prev, pending_damage;
    int64_t prev_last, first, damage_lo;
    window *win;
    size_t nwin;
    bool unreadable;
    bool nomem;
} cursor;

struct kf_part_reader {
    const kf_partition *p;
    kf_part_reader_opts o;
    cursor *ks;
    size_t n;
    int64_t next;
    cursor *consume;   /* the cursor whose batch was returned last */
    kf_part_result res;
    kf_buf buf;
};

void kf_part_reader_opts_init(kf_part_reader_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_batch_bytes = KF_DEFAULT_MAX_BATCH_BYTES;
}

static void count_problem(kf_part_reader *r, const kf_problem *p)
{
    if (p->severity == KF_SEV_ERROR)
        r->res.errors++;
    else
        r->res.warnings++;
    if (r->o.problem_fn)
        r->o.problem_fn(r->o.problem_ctx, p);
}

static void cursor_problem(void *ctx, const kf_problem *p)
{
    cursor *k = ctx;
    kf_problem q = *p;
    if (!q.file)
        q.file = k->file;
    count_problem(k->r, &q);
}

static int64_t first_offset(const kf_batch *b) { return b->base_offset_known ? b->base_offset : b->last_offset; }

static void add_window(cursor *k, int64_t lo, int64_t hi)
{
    window *w = realloc(k->win, (k->nwin + 1) * sizeof *w);
    if (!w) {
        k->nomem = true;
        return;
    }
    k->win = w;
    k->win[k->nwin++] = (window){lo, hi};
}

static void close_segment(cursor *k)
{
    kf_segment_iter_close(k->it);
    k->it = NULL;
    kf_source_close(k->src);
    k->src = NULL;
}

static void note_damage(cursor *k)
{
    if (!k->pending_damage) {
        k->pending_damage = true;
        k->damage_lo = k->have_prev ? k->prev_last + 1 : INT64_MIN;
    }
}

/* Move k to its next intact batch. */
static void advance(cursor *k)
{
    k->has_peek = false;
    while (!k->done && !k->nomem) {
        if (!k->it) {
            if (k->seg >= k->c->nseg) {
                k->done = true;
                break;
            }
            const char *path = k->c->segments[k->seg];
            k->file = path;
            int err_no = 0;
            int orc = kf_source_open(&k->src, path, 0, &err_no);
            if (orc == KF_ERR_NOMEM) {
                k->nomem = true;
                break;
            }
            if (orc != KF_OK) {
                kf_problem p = {0};
                p.code = KF_P_UNREADABLE;
                p.severity = KF_SEV_ERROR;
                p.file = path;
                snprintf(p.message, sizeof p.message, "cannot read: %s",
                         err_no == EINVAL ? "not a regular file" : strerror(err_no));
                count_problem(k->r, &p);
                k->unreadable = true;
                k->seg++;
                note_damage(k);
                continue;
            }
            kf_scan_opts o;
            kf_scan_opts_init(&o);
            o.deep = false;
            o.max_batch_bytes = k->r->o.max_batch_bytes;
            o.threads = k->r->o.threads;
            o.base_offset = k->c->bases[k->seg];
            o.problem_fn = cursor_problem;
            o.problem_ctx = k;
            if (kf_segment_iter_open(&k->it, k->src, &o) != KF_OK) {
                k->nomem = true;
                break;
            }
        }
        bool damaged = false;
        int got = kf_segment_iter_next(k->it, &k->peek, &damaged);
        if (damaged)
            note_damage(k);
        if (got == -KF_ERR_NOMEM) {
            k->nomem = true;
            break;
        }
        if (got < 0) { /* a read failed: the rest of this segment is lost */
            kf_problem p = {0};
            p.code = KF_P_UNREADABLE;
            p.severity = KF_SEV_ERROR;
            p.file = k->file;
            snprintf(p.message, sizeof p.message, "read error: %s", strerror(errno));
            count_problem(k->r, &p);
            k->unreadable = true;
            note_damage(k);
        }
        if (got > 0) {
            if (k->pending_damage) {
                add_window(k, k->damage_lo, first_offset(&k->peek) - 1);
                k->pending_damage = false;
            }
            k->has_peek = true;
            return;
        }
        close_segment(k);
        k->seg++;
    }
    if (k->pending_damage) {
        add_window(k, k->damage_lo, INT64_MAX);
        k->pending_damage = false;
    }
}

static void consumed(cursor *k)
{
    if (!k->have_prev)
        k->first = first_offset(&k->peek);
    if (!k->have_prev || k->peek.last_offset > k->prev_last)
        k->prev_last = k->peek.last_offset;
    k->have_prev = true;
    advance(k);
}

static bool overlaps(const cursor *k, int64_t lo, int64_t hi)
{
    for (size_t i = 0; i < k->nwin; i++)
        if (!(k->win[i].hi < lo || k->win[i].lo > hi))
            return true;
    return false;
}

int kf_part_reader_open(kf_part_reader **out, const kf_partition *p, const kf_part_reader_opts *o)
{
    *out = NULL;
    kf_part_reader *r = calloc(1, sizeof *r);
    size_t n = p->ncopies;
    cursor *ks = calloc(n ? n : 1, sizeof *ks);
    if (!r || !ks) {
        free(r);
        free(ks);
        return KF_ERR_NOMEM;
    }
    r->p = p;
    if (o)
        r->o = *o;
    else
        kf_part_reader_opts_init(&r->o);
    r->ks = ks;
    r->n = n;
    r->next = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        ks[i].r = r;
        ks[i].c = &p->copies[i];
        advance(&ks[i]);
    }
    *out = r;
    return KF_OK;
}

int kf_part_reader_next(kf_part_reader *r, kf_batch *out_batch)
{
    if (r->consume) {
        consumed(r->consume);
        r->consume = NULL;
    }
    /* drop what is already covered, pick the lowest next batch */
    cursor *best = NULL;
    for (size_t i = 0; i < r->n; i++) {
        cursor *k = &r->ks[i];
        while (k->has_peek && k->peek.last_offset < r->next)
            consumed(k);
        if (k->nomem)
            return KF_ERR_NOMEM;
        if (!k->has_peek)
            continue;
        if (!best || first_offset(&k->peek) < first_offset(&best->peek) ||
            (first_offset(&k->peek) == first_offset(&best->peek) &&
             k->peek.partition_leader_epoch > best->peek.partition_leader_epoch))
            best = k;
    }
    if (!best)
        return 0;
    kf_batch b = best->peek;
    for (size_t i = 0; i < r->n; i++) {
        cursor *k = &r->ks[i];
        if (k == best || !k->has_peek || first_offset(&k->peek) != first_offset(&b))
            continue;
        if (k->peek.crc != b.crc || k->peek.size != b.size || k->peek.last_offset != b.last_offset) {
            r->res.disagreements++;
            kf_problem p = {0};
            p.code = KF_P_COPIES_DISAGREE;
            p.severity = KF_SEV_WARNING;
            p.file = k->file;
            p.position = k->peek.position;
            p.has_offset = true;
            p.offset = first_offset(&b);
            snprintf(p.message, sizeof p.message,
                     "this copy's batch at offset %lld differs from %s's (leader epochs %d and %d); using %s's",
                     (long long)first_offset(&b), best->c->label, k->peek.partition_leader_epoch,
                     b.partition_leader_epoch, best->c->label);
            count_problem(r, &p);
        }
    }
    r->res.batches++;
    r->res.has_offsets = true;
    r->res.last_offset = b.last_offset;
    r->next = b.last_offset + 1;
    r->consume = best; /* advanced on the next call, so b's bytes stay valid until then */
    *out_batch = b;
    return 1;
}

const char *kf_part_reader_file(const kf_part_reader *r) { return r->consume ? r->consume->file : NULL; }

int kf_part_reader_records(kf_part_reader *r, kf_batch *b, kf_record_iter *it)
{
    if (r->consume && r->consume->it)
        return kf_segment_iter_records(r->consume->it, b, it);
    return kf_records_begin(it, b, &r->buf, r->o.max_batch_bytes);
}

void kf_part_reader_close(kf_part_reader *r, kf_part_result *res)
{
    if (!r) {
        if (res)
            memset(res, 0, sizeof *res);
        return;
    }
    /* damage in one copy is covered when another copy read those offsets intact */
    for (size_t i = 0; i < r->n; i++) {
        cursor *k = &r->ks[i];
        for (size_t w = 0; w < k->nwin; w++) {
            window x = k->win[w];
            if (x.lo > x.hi)
                continue; /* nothing between the batches around the damage */
            r->res.damaged_ranges++;
            bool covered = false;
            for (size_t j = 0; j < r->n && !covered; j++) {
                cursor *y = &r->ks[j];
                if (j == i || !y->have_prev || overlaps(y, x.lo, x.hi))
                    continue;
                if (y->first <= x.lo && (x.hi == INT64_MAX ? y->prev_last >= x.lo : y->prev_last >= x.hi))
                    covered = true;
            }
            if (covered)
                continue;
            r->res.uncovered++;
            char range[64];
            if (x.lo == INT64_MIN && x.hi == INT64_MAX)
                snprintf(range, sizeof range, "(all of them)");
            else if (x.hi == INT64_MAX)
                snprintf(range, sizeof range, "from %lld on", (long long)x.lo);
            else if (x.lo == INT64_MIN)
                snprintf(range, sizeof range, "up to %lld", (long long)x.hi);
            else
                snprintf(range, sizeof range, "%lld..%lld", (long long)x.lo, (long long)x.hi);
            kf_problem p = {0};
            p.code = KF_P_OFFSETS_LOST;
            p.severity = KF_SEV_ERROR;
            p.file = k->c->label;
            p.has_offset = x.lo != INT64_MIN;
            p.offset = p.has_offset ? x.lo : 0;
            snprintf(p.message, sizeof p.message,
                     "offsets %s are damaged in this copy and no other copy given holds them intact", range);
            count_problem(r, &p);
        }
    }
    for (size_t i = 0; i < r->n; i++) { /* only now: the loop above reads every copy's windows */
        cursor *k = &r->ks[i];
        r->res.unreadable |= k->unreadable;
        close_segment(k);
        free(k->win);
    }
    if (res)
        *res = r->res;
    kf_buf_free(&r->buf);
    free(r->ks);
    free(r);
}

bool kf_partition_log_end(const kf_partition *p, size_t max_batch_bytes, int64_t *leo)
{
    bool any = false;
    int64_t best = INT64_MIN;
    for (size_t c = 0; c < p->ncopies; c++) {
        const kf_copy *cp = &p->copies[c];
        for (size_t s = cp->nseg; s-- > 0;) {
            kf_source *src;
            if (kf_source_open(&src, cp->segments[s], 0, NULL) != KF_OK)
                continue;
            kf_scan_opts o;
            kf_scan_opts_init(&o);
            o.deep = false;
            o.max_batch_bytes = max_batch_bytes;
            kf_segment_iter *it;
            int64_t last = INT64_MIN;
            if (kf_segment_iter_open(&it, src, &o) == KF_OK) {
                kf_batch b;
                while (kf_segment_iter_next(it, &b, NULL) == 1)
                    if (b.last_offset > last)
                        last = b.last_offset;
                kf_segment_iter_close(it);
            }
            kf_source_close(src);
            any = true;
            int64_t e = last != INT64_MIN ? last + 1 : cp->bases[s];
            if (e > best)
                best = e;
            if (last != INT64_MIN || s == cp->nseg - 1)
                break; /* a log with no batch: its last segment's base */
        }
    }
    if (any)
        *leo = best;
    return any;
}
