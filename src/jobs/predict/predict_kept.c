/* predict_kept.c: what the broker keeps that it should not, after it has
 * loaded a partition (docs/formats.md §20.5): the damage in the segments it
 * did not recover (below the one holding the recovery point after an
 * unclean shutdown, every segment after a clean one, a torn tail included)
 * — damage it then serves to consumers and followers, and behind which it
 * appends after a clean shutdown — the acknowledged offsets the log does
 * not hold once loaded (the high watermark above the log end), and the
 * offsets cut out of a segment the log keeps going past. Every
 * segment the broker does not recover is read here, CRC and framing, as
 * recovery would read it. */
#include "predict_internal.h"
#include "bytes/satmath.h"

#include <stdlib.h>
#include <string.h>


typedef struct kept_scan {
    pp_part *p;
    const pp_seg *s;
    bool has_last;
    int64_t last;          /* last offset of the last intact batch before the damage */
} kept_scan;

static int kept_batch(void *ctx, const kf_batch *b)
{
    kept_scan *k = ctx;
    k->has_last = true;
    k->last = b->last_offset;
    return 0;
}

/* Each damaged stretch a reader of the segment meets: errors, and a
 * zero-filled tail (a fetch there fails as well). */
static void kept_problem(void *ctx, const kf_problem *pr)
{
    kept_scan *k = ctx;
    pp_part *p = k->p;
    if (p->rc != KF_OK || (pr->severity != KF_SEV_ERROR && strcmp(pr->code, KF_P_ZERO_FILL) != 0))
        return;
    if (p->nkept >= KF_PREDICT_DAMAGE_KEPT_MAX) {
        p->out.damage_kept_omitted++;
        return;
    }
    if (!pp_grow(p, &p->kept, &p->capkept, p->nkept, sizeof *p->kept))
        return;
    int64_t off = pr->has_offset ? pr->offset : k->has_last ? k->last + 1 : k->s->base;
    const char *error = pp_strf(p, "%s", pr->message);
    if (error)
        p->kept[p->nkept++] = (kf_damage_kept){k->s->path, pr->position, off, pr->code, error};
}

static void scan_kept(pp_part *p, const pp_seg *s)
{
    kept_scan k = {p, s, false, 0};
    kf_segment_scan_opts fns;
    kf_segment_scan_opts_init(&fns);
    fns.batch_fn = kept_batch;
    fns.ctx = &k;
    fns.problem_fn = kept_problem;
    fns.problem_ctx = &k;
    kf_segment_summary sum;
    int rc = pp_scan_segment(p, s->path, s->base, 0, false, &sum, &fns);
    if (rc != KF_OK && p->rc == KF_OK)
        p->rc = rc;
}

void pp_damage_kept(pp_part *p)
{
    kf_predict_partition *o = &p->out;
    if (p->state == KF_PST_ONLINE && p->has_hw && p->hw > o->log_end_offset_after)
        o->acknowledged_missing = kf_offsets_between(o->log_end_offset_after, p->hw);
    for (size_t i = 0; i < p->ncuts && !p->deleting; i++) { /* cuts the log end does not show */
        int64_t from = p->cuts[i].from > o->log_start_offset ? p->cuts[i].from : o->log_start_offset;
        int64_t to = p->cuts[i].to < o->log_end_offset_after ? p->cuts[i].to : o->log_end_offset_after;
        if (from < to)
            o->offsets_lost_inside = kf_sat_add(o->offsets_lost_inside, kf_offsets_between(from, to));
    }
    /* a -delete dir is deleted once loaded, a stray one kept out of
     * service: nothing is served from them */
    bool served = p->state == KF_PST_ONLINE || p->state == KF_PST_FUTURE;
    for (size_t i = 0; i < p->nsegs && served && p->rc == KF_OK && !p->io_error; i++) {
        const pp_seg *s = &p->segs[i];
        /* a segment already read whole (the last one, for the log end) is
         * read again only when it holds damage, for where and what */
        if (!s->recovered && !(s->read && s->valid_bytes >= s->size))
            scan_kept(p, s);
    }
    o->damage_kept = p->kept;
    o->n_damage_kept = p->nkept;
}
