/* md_covered.c: the metadata log's damage that the snapshot used covers
 * (md_covered.h). A damaged batch whose base offset lies below the
 * snapshot's end offset, and a hole that ends below it, change nothing the
 * state is built from: each becomes a warning saying so. A damaged batch
 * below it that a hole reaching past it holds stays an error. */
#include "kraft/md_covered.h"
#include "bytes/grow.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void md_covered_init(md_covered *c, kf_problem_fn fn, void *ctx, int64_t start)
{
    memset(c, 0, sizeof *c);
    c->fn = fn;
    c->ctx = ctx;
    c->start = start;
}

static void pass(md_covered *c, const kf_problem *p)
{
    if (c->fn)
        c->fn(c->ctx, p);
}

/* p as a warning that says the state does not depend on it. */
static void pass_covered(md_covered *c, const kf_problem *p)
{
    kf_problem q = *p;
    q.severity = KF_SEV_WARNING;
    size_t n = strlen(q.message);
    snprintf(q.message + n, sizeof q.message - n,
             " (below the end offset %" PRId64 " of the snapshot the state is built from: the state is unaffected)",
             c->start);
    pass(c, &q);
}

void md_covered_problem(void *ctx, const kf_problem *p)
{
    md_covered *c = ctx;
    if (!strcmp(p->code, KF_P_OFFSETS_LOST)) {
        /* kf_part_reader_close reports the holes in their order */
        size_t i = c->next_hole++;
        if (i < c->nholes && c->holes[i].has_end && c->holes[i].end_offset < c->start)
            pass_covered(c, p);
        else
            pass(c, p);
        return;
    }
    if (p->severity != KF_SEV_ERROR || !p->has_offset || p->offset >= c->start) {
        pass(c, p);
        return;
    }
    if (!KF_GROW(c->held, c->nheld, c->capheld, 8)) {
        c->nomem = true;
        pass(c, p);
        return;
    }
    c->held[c->nheld++] = *p;
}

static void flush_held(md_covered *c);

void md_covered_holes(md_covered *c, const kf_part_reader *r)
{
    size_t n = kf_part_reader_holes(r);
    c->holes = n ? malloc(n * sizeof *c->holes) : NULL;
    if (n && !c->holes) {
        c->nomem = true;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        c->holes[i] = *kf_part_reader_hole(r, i);
        c->covered_holes += c->holes[i].has_end && c->holes[i].end_offset < c->start;
    }
    c->nholes = n;
    flush_held(c); /* before the close reports the holes, as the reader's order was */
}

static void flush_held(md_covered *c)
{
    for (size_t i = 0; i < c->nheld; i++) {
        const kf_problem *p = &c->held[i];
        bool reaches = false; /* a hole holding it that reaches the snapshot's end or past it */
        for (size_t k = 0; k < c->nholes && !reaches; k++) {
            const kf_part_hole *h = &c->holes[k];
            reaches = (!h->has_start || h->start_offset <= p->offset) && (!h->has_end || h->end_offset >= p->offset) &&
                      (!h->has_end || h->end_offset >= c->start);
        }
        if (reaches)
            pass(c, p);
        else
            pass_covered(c, p);
    }
    c->nheld = 0;
}

bool md_covered_finish(md_covered *c)
{
    flush_held(c);
    free(c->held);
    free(c->holes);
    bool ok = !c->nomem;
    c->held = NULL;
    c->holes = NULL;
    return ok;
}
