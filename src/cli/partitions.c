/* partitions.c: finding partitions and their copies under the PATHs, and
 * reading the union of several copies' intact batches in offset order (for
 * offsets/groups replay over replicas or backups where each copy may be
 * damaged in a different place). */
#include "cli/partitions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/walk.h"

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("kfsck: out of memory\n", stderr);
        exit(EXIT_FAIL);
    }
    return q;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = xrealloc(NULL, n);
    memcpy(d, s, n);
    return d;
}

static part_input *part_for(inputs *in, const char *topic, int32_t partition)
{
    /* a partition we cannot name (a loose file) is never a copy of another */
    for (size_t i = 0; i < in->n && partition >= 0; i++)
        if (in->parts[i].partition == partition && !strcmp(in->parts[i].topic, topic))
            return &in->parts[i];
    in->parts = xrealloc(in->parts, (in->n + 1) * sizeof *in->parts);
    part_input *p = &in->parts[in->n++];
    memset(p, 0, sizeof *p);
    p->topic = xstrdup(topic);
    p->partition = partition;
    return p;
}

static part_copy *new_copy(part_input *p, const char *label)
{
    p->copies = xrealloc(p->copies, (p->ncopies + 1) * sizeof *p->copies);
    part_copy *c = &p->copies[p->ncopies++];
    memset(c, 0, sizeof *c);
    c->label = xstrdup(label);
    return c;
}

static void add_segment(part_copy *c, const char *path, int64_t base)
{
    c->segments = xrealloc(c->segments, (c->nseg + 1) * sizeof *c->segments);
    c->bases = xrealloc(c->bases, (c->nseg + 1) * sizeof *c->bases);
    c->segments[c->nseg] = xstrdup(path);
    c->bases[c->nseg] = base;
    c->nseg++;
}

static int add_partition_dir(inputs *in, const char *dir)
{
    char topic[256];
    int32_t partition;
    if (!kf_parse_partition_dir(path_base(dir), topic, sizeof topic, &partition)) {
        topic[0] = 0;
        partition = -1;
    }
    name_list l;
    if (list_dir(dir, &l) != 0) {
        cli_error(dir, "cannot list directory");
        return EXIT_FAIL;
    }
    part_copy *c = new_copy(part_for(in, topic, partition), dir);
    for (size_t i = 0; i < l.n; i++) {
        kf_name_info ni = kf_classify_name(l.names[i]);
        if (ni.kind == KF_FILE_LOG && ni.suffix[0] == 0) {
            char *p = path_join(dir, l.names[i]);
            add_segment(c, p, ni.base_offset);
            free(p);
        }
    }
    name_list_free(&l);
    return EXIT_CLEAN;
}

static int add_file(inputs *in, const char *path)
{
    char *dir = path_dir(path);
    char topic[256];
    int32_t partition;
    if (!kf_parse_partition_dir(path_base(dir), topic, sizeof topic, &partition)) {
        topic[0] = 0;
        partition = -1;
    }
    free(dir);
    kf_name_info ni = kf_classify_name(path_base(path));
    part_copy *c = new_copy(part_for(in, topic, partition), path);
    add_segment(c, path, ni.kind == KF_FILE_LOG ? ni.base_offset : -1);
    return EXIT_CLEAN;
}

static int cmp_parts(const void *a, const void *b)
{
    const part_input *x = a, *y = b;
    int c = strcmp(x->topic, y->topic);
    if (c)
        return c;
    return x->partition < y->partition ? -1 : x->partition > y->partition;
}

int inputs_collect(char *const *paths, int n, inputs *in)
{
    memset(in, 0, sizeof *in);
    int status = EXIT_CLEAN;
    for (int i = 0; i < n; i++) {
        const char *p = paths[i];
        switch (classify_path(p)) {
        case PATH_MISSING:
            cli_error(p, "no such file or directory");
            status = EXIT_FAIL;
            break;
        case PATH_FILE:
            add_file(in, p);
            break;
        case PATH_PARTITION:
            if (add_partition_dir(in, p) != EXIT_CLEAN)
                status = EXIT_FAIL;
            break;
        case PATH_DATADIR: {
            name_list l;
            if (list_dir(p, &l) != 0) {
                cli_error(p, "cannot list directory");
                status = EXIT_FAIL;
                break;
            }
            for (size_t k = 0; k < l.n; k++) {
                char *sub = path_join(p, l.names[k]);
                if (classify_path(sub) == PATH_PARTITION && add_partition_dir(in, sub) != EXIT_CLEAN)
                    status = EXIT_FAIL;
                free(sub);
            }
            name_list_free(&l);
            break;
        }
        case PATH_OTHER_DIR:
            cli_error(p, "neither a partition directory nor a broker data directory");
            status = EXIT_FAIL;
            break;
        }
    }
    if (in->n)
        qsort(in->parts, in->n, sizeof *in->parts, cmp_parts);
    return status;
}

void inputs_free(inputs *in)
{
    for (size_t i = 0; i < in->n; i++) {
        part_input *p = &in->parts[i];
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

const part_input *inputs_find(const inputs *in, const char *topic, int32_t partition)
{
    for (size_t i = 0; i < in->n; i++)
        if (in->parts[i].partition == partition && !strcmp(in->parts[i].topic, topic))
            return &in->parts[i];
    return NULL;
}

/* ---- union of copies -------------------------------------------------------- */

typedef struct window {
    int64_t lo, hi;
} window;

typedef struct cursor {
    const part_copy *c;
    size_t seg;
    kf_map map;
    kf_segment_iter *it;
    report rep;
    bool has_peek, done;
    kf_batch peek;
    bool have_prev, pending_damage;
    int64_t prev_last, first, damage_lo;
    window *win;
    size_t nwin;
    bool unreadable;
} cursor;

static int64_t first_offset(const kf_batch *b) { return b->base_offset_known ? b->base_offset : b->last_offset; }

static void add_window(cursor *k, int64_t lo, int64_t hi)
{
    k->win = xrealloc(k->win, (k->nwin + 1) * sizeof *k->win);
    k->win[k->nwin++] = (window){lo, hi};
}

static void close_segment(cursor *k)
{
    if (k->it)
        kf_segment_iter_close(k->it);
    k->it = NULL;
    kf_map_close(&k->map);
}

/* Move k to its next intact batch. */
static void advance(cursor *k)
{
    k->has_peek = false;
    while (!k->done) {
        if (!k->it) {
            if (k->seg >= k->c->nseg) {
                k->done = true;
                break;
            }
            const char *path = k->c->segments[k->seg];
            k->rep.file = path;
            if (kf_map_open(&k->map, path, 0) != KF_OK) {
                cli_error(path, "cannot read: %s", strerror(k->map.err_no));
                k->unreadable = true;
                k->seg++;
                if (!k->pending_damage) {
                    k->pending_damage = true;
                    k->damage_lo = k->have_prev ? k->prev_last + 1 : INT64_MIN;
                }
                continue;
            }
            kf_scan_opts o;
            kf_scan_opts_init(&o);
            o.deep = false;
            o.readahead = true;
            o.base_offset = k->c->bases[k->seg];
            o.problem_fn = report_problem;
            o.problem_ctx = &k->rep;
            if (kf_segment_iter_open(&k->it, &k->map, &o) != KF_OK) {
                fputs("kfsck: out of memory\n", stderr);
                exit(EXIT_FAIL);
            }
        }
        bool damaged = false;
        int got = kf_segment_iter_next(k->it, &k->peek, &damaged);
        if (damaged && !k->pending_damage) {
            k->pending_damage = true;
            k->damage_lo = k->have_prev ? k->prev_last + 1 : INT64_MIN;
        }
        if (got) {
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

struct part_union {
    const part_input *p;
    out *o;
    cursor *ks;
    size_t n;
    int64_t next;
    cursor *consume;   /* the cursor whose batch was returned last */
    union_result res;
    uint64_t warnings;
};

part_union *union_open(const part_input *p, out *o)
{
    part_union *u = calloc(1, sizeof *u);
    size_t n = p->ncopies;
    cursor *ks = calloc(n ? n : 1, sizeof *ks);
    if (!u || !ks) {
        fputs("kfsck: out of memory\n", stderr);
        exit(EXIT_FAIL);
    }
    u->p = p;
    u->o = o;
    u->ks = ks;
    u->n = n;
    u->next = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        ks[i].c = &p->copies[i];
        ks[i].map.fd = -1;
        ks[i].rep = (report){o, NULL, 0, 0};
        advance(&ks[i]);
    }
    return u;
}

int union_next(part_union *u, kf_batch *out_batch)
{
    if (u->consume) {
        consumed(u->consume);
        u->consume = NULL;
    }
    /* drop what is already covered, pick the lowest next batch */
    cursor *best = NULL;
    for (size_t i = 0; i < u->n; i++) {
        cursor *k = &u->ks[i];
        while (k->has_peek && k->peek.last_offset < u->next)
            consumed(k);
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
    for (size_t i = 0; i < u->n; i++) {
        cursor *k = &u->ks[i];
        if (k == best || !k->has_peek || first_offset(&k->peek) != first_offset(&b))
            continue;
        if (k->peek.crc != b.crc || k->peek.size != b.size || k->peek.last_offset != b.last_offset) {
            u->res.disagreements++;
            report r = {u->o, k->rep.file, 0, 0};
            kf_report(report_problem, &r, "copies_disagree", KF_SEV_WARNING, k->peek.position, true,
                      first_offset(&b),
                      "this copy's batch at offset %lld differs from %s's (leader epochs %d and %d); using %s's",
                      (long long)first_offset(&b), best->c->label, k->peek.partition_leader_epoch,
                      b.partition_leader_epoch, best->c->label);
            u->warnings += r.warnings;
        }
    }
    u->res.batches++;
    u->res.has_offsets = true;
    u->res.last_offset = b.last_offset;
    u->next = b.last_offset + 1;
    u->consume = best; /* advanced on the next call, so b's bytes stay mapped until then */
    *out_batch = b;
    return 1;
}

const char *union_file(const part_union *u) { return u->consume ? u->consume->rep.file : NULL; }

void union_close(part_union *u, uint64_t *errors, uint64_t *warnings, union_result *res)
{
    /* damage in one copy is covered when another copy read those offsets intact */
    for (size_t i = 0; i < u->n; i++) {
        cursor *k = &u->ks[i];
        for (size_t w = 0; w < k->nwin; w++) {
            window x = k->win[w];
            if (x.lo > x.hi)
                continue; /* nothing between the batches around the damage */
            u->res.damaged_windows++;
            bool covered = false;
            for (size_t j = 0; j < u->n && !covered; j++) {
                cursor *y = &u->ks[j];
                if (j == i || !y->have_prev || overlaps(y, x.lo, x.hi))
                    continue;
                if (y->first <= x.lo && (x.hi == INT64_MAX ? y->prev_last >= x.lo : y->prev_last >= x.hi))
                    covered = true;
            }
            if (!covered) {
                u->res.uncovered++;
                report r = {u->o, k->c->label, 0, 0};
                char range[64];
                if (x.lo == INT64_MIN && x.hi == INT64_MAX)
                    snprintf(range, sizeof range, "(all of them)");
                else if (x.hi == INT64_MAX)
                    snprintf(range, sizeof range, "from %lld on", (long long)x.lo);
                else if (x.lo == INT64_MIN)
                    snprintf(range, sizeof range, "up to %lld", (long long)x.hi);
                else
                    snprintf(range, sizeof range, "%lld..%lld", (long long)x.lo, (long long)x.hi);
                kf_report(report_problem, &r, "offsets_lost", KF_SEV_ERROR, 0, x.lo != INT64_MIN, x.lo,
                          "offsets %s are damaged in this copy and no other copy given holds them intact", range);
                *errors += r.errors;
            }
        }
    }
    for (size_t i = 0; i < u->n; i++) { /* only now: the loop above reads every copy's windows */
        cursor *k = &u->ks[i];
        *errors += k->rep.errors;
        *warnings += k->rep.warnings;
        u->res.unreadable |= k->unreadable;
        close_segment(k);
        free(k->win);
    }
    *warnings += u->warnings;
    *res = u->res;
    free(u->ks);
    free(u);
}

void union_read(const part_input *p, union_batch_fn fn, void *ctx, out *o, uint64_t *errors, uint64_t *warnings,
                union_result *res)
{
    part_union *u = union_open(p, o);
    kf_batch b;
    while (union_next(u, &b))
        if (fn(ctx, &b)) {
            /* drain so damage coverage is still judged over the whole partition */
            while (union_next(u, &b))
                ;
            break;
        }
    union_close(u, errors, warnings, res);
}

static int note_batch(void *ctx, kf_batch *b)
{
    int64_t *last = ctx;
    if (b->last_offset > *last)
        *last = b->last_offset;
    return 0;
}

bool partition_log_end(const part_input *p, int64_t *leo)
{
    bool any = false;
    int64_t best = INT64_MIN;
    for (size_t c = 0; c < p->ncopies; c++) {
        const part_copy *cp = &p->copies[c];
        for (size_t s = cp->nseg; s-- > 0;) {
            kf_map m;
            if (kf_map_open(&m, cp->segments[s], 0) != KF_OK)
                continue;
            kf_scan_opts o;
            kf_scan_opts_init(&o);
            o.deep = false;
            kf_segment_iter *it;
            int64_t last = INT64_MIN;
            if (kf_segment_iter_open(&it, &m, &o) == KF_OK) {
                kf_batch b;
                while (kf_segment_iter_next(it, &b, NULL))
                    note_batch(&last, &b);
                kf_segment_iter_close(it);
            }
            kf_map_close(&m);
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

/* ---- replay of the offsets topic on one time line -------------------------- */

uint64_t replay_offsets_topic(const inputs *in, kf_replay *r, report *rep, out *perr, uint64_t *found,
                              bool *unreadable)
{
    size_t n = 0;
    for (size_t i = 0; i < in->n; i++)
        n += !strcmp(in->parts[i].topic, "__consumer_offsets");
    *found = n;
    part_union **us = calloc(n ? n : 1, sizeof *us);
    kf_batch *cur = calloc(n ? n : 1, sizeof *cur);
    bool *has = calloc(n ? n : 1, sizeof *has);
    int32_t *part = calloc(n ? n : 1, sizeof *part);
    if (!us || !cur || !has || !part) {
        fputs("kfsck: out of memory\n", stderr);
        exit(EXIT_FAIL);
    }
    size_t k = 0;
    for (size_t i = 0; i < in->n; i++) {
        if (strcmp(in->parts[i].topic, "__consumer_offsets"))
            continue;
        part[k] = in->parts[i].partition;
        us[k] = union_open(&in->parts[i], perr);
        has[k] = union_next(us[k], &cur[k]);
        k++;
    }
    /* each partition in offset order; across partitions, by batch time */
    for (;;) {
        size_t best = n;
        for (size_t i = 0; i < n; i++)
            if (has[i] && (best == n || cur[i].max_timestamp < cur[best].max_timestamp))
                best = i;
        if (best == n)
            break;
        kf_batch *b = &cur[best];
        if (!(b->magic == 2 && b->count == 0)) { /* empty batches kept by the cleaner */
            if (rep)
                rep->file = union_file(us[best]);
            kf_replay_partition(r, part[best]);
            if (kf_replay_batch(r, b) == KF_ERR_NOMEM) {
                fputs("kfsck: out of memory\n", stderr);
                exit(EXIT_FAIL);
            }
        }
        has[best] = union_next(us[best], &cur[best]);
    }
    uint64_t uncovered = 0;
    for (size_t i = 0; i < n; i++) {
        union_result ur;
        uint64_t errors = 0, warnings = 0; /* damage counts only where no copy covers it */
        union_close(us[i], &errors, &warnings, &ur);
        uncovered += ur.uncovered;
        *unreadable |= ur.unreadable;
    }
    if (rep)
        rep->file = NULL; /* what the end reports (open transactions) names its partition */
    kf_replay_finish(r);
    free(us);
    free(cur);
    free(has);
    free(part);
    return uncovered;
}

void note_group_partitions(const inputs *in, const char *const *groups, size_t n, int32_t partitions)
{
    for (size_t i = 0; i < n; i++) {
        const char *g = groups[i];
        int32_t p = kf_coordinator_partition((const uint8_t *)g, strlen(g), partitions);
        if (!inputs_find(in, "__consumer_offsets", p))
            fprintf(stderr,
                    "kfsck: __consumer_offsets-%d: not among the inputs, but group '%s' is stored there (of %d "
                    "partitions)\n",
                    p, g, partitions);
        else
            fprintf(stderr, "kfsck: group '%s' is stored in __consumer_offsets-%d (of %d partitions)\n", g, p,
                    partitions);
    }
}
