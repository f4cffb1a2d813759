/* predict_recovery.c: segment recovery and what follows it
 * (docs/formats.md §20.5, §20.6): LogSegment.recover's cut (where verify's
 * valid_bytes falls), LogLoader.recoverLog after an unclean shutdown (every
 * segment from the one holding the recovery point, the first cut ending it
 * and deleting the later ones), the log-start rule, the offsets lost, and the
 * producer-state rebuild traced over the snapshot files
 * (UnifiedLog.rebuildProducerState, ProducerStateManager.truncateAndReload
 * and removeStraySnapshots). The rule for the log end is kf_recovery_end,
 * which scan uses too. */
#include "predict_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kfsck/sys/file.h"
#include "kfsck/sys/segment.h"
#include "bytes/grow.h"
#include "bytes/satmath.h"

int64_t kf_recovery_end(const kf_recovery_segment *segs, size_t n, int64_t recovery_point, int64_t log_start,
                        int64_t log_end, size_t *cut)
{
    size_t from = 0, at = n;
    for (size_t i = 1; i < n; i++)
        if (segs[i].base_offset <= recovery_point)
            from = i;
    int64_t end = n ? log_end : log_start;
    for (size_t i = from; i < n; i++) {
        if (segs[i].valid_bytes < segs[i].size) {
            end = segs[i].has_recovered_offsets ? segs[i].recovered_last_offset + 1 : segs[i].base_offset;
            at = i;
            break;
        }
    }
    if (cut)
        *cut = at;
    return end < log_start ? log_start : end;
}

/* ---- reading a segment ---------------------------------------------------------- */

int pp_scan_segment(pp_part *p, const char *path, int64_t base, uint64_t limit, bool no_resync,
                    kf_segment_summary *sum, const kf_segment_scan_opts *fns)
{
    kf_source *src;
    int rc = kf_source_open(&src, path, limit);
    if (rc == KF_ERR_NOMEM)
        return rc;
    if (rc != KF_OK) {
        pp_io_error(p, path, kf_error_last()->err_no);
        return KF_OK;
    }
    kf_segment_scan_opts so;
    kf_segment_scan_opts_init(&so);
    so.max_batch_bytes = p->max_batch_bytes;
    so.has_base_offset = base >= 0;
    so.base_offset = base;
    so.no_resync = no_resync;
    so.limited = limit > 0;
    so.threads = 1; /* batches and problems in file order */
    if (fns) {
        so.batch_fn = fns->batch_fn;
        so.ctx = fns->ctx;
        so.problem_fn = fns->problem_fn;
        so.problem_ctx = fns->problem_ctx;
    }
    memset(sum, 0, sizeof *sum);
    rc = kf_segment_scan(src, &so, sum);
    kf_source_close(src);
    if (rc == KF_ERR_IO) {
        pp_io_error(p, path, kf_error_last()->err_no);
        return KF_OK;
    }
    return rc;
}

/* LogSegment.readNextOffset's walk (FileLogInputStream.nextBatch): entries
 * framed by their length fields alone, no CRC, until one does not fit (or
 * holds a length below 14, where the broker's iterator throws); the last
 * one's last offset (a v2 batch's base + lastOffsetDelta, a v0/v1 entry's
 * offset). A batch that fails its CRC still counts: after a clean shutdown
 * nothing else looks at it, and the log end takes it in. */
static void frames_end(pp_part *p, pp_seg *s)
{
    kf_source *src;
    if (kf_source_open(&src, s->path, 0) != KF_OK)
        return; /* the scan before it said why */
    uint64_t size = kf_source_size(src), pos = 0;
    uint8_t h[27];
    while (pos + 17 < size && kf_source_pread(src, pos, h, sizeof h) >= 17) {
        int32_t len = (int32_t)((uint32_t)h[8] << 24 | (uint32_t)h[9] << 16 | (uint32_t)h[10] << 8 | h[11]);
        if (len < 14 || pos + 12 + (uint64_t)len > size)
            break;
        int64_t off = 0;
        for (int i = 0; i < 8; i++)
            off = (int64_t)((uint64_t)off << 8 | h[i]);
        if (h[16] >= 2) {
            if (len < 15 + 12) /* a v2 header too short for lastOffsetDelta */
                break;
            int32_t delta = (int32_t)((uint32_t)h[23] << 24 | (uint32_t)h[24] << 16 | (uint32_t)h[25] << 8 | h[26]);
            /* a next offset past 2^63-1 (last_offset_overflow): the broker's
             * sum wraps; its offsets count nowhere here, the walk ends before it */
            if (delta >= 0 && off > INT64_MAX - 1 - delta)
                break;
            off = (int64_t)((uint64_t)off + (uint64_t)(int64_t)delta);
        } else if (off == INT64_MAX) {
            break;
        }
        s->has_any = true;
        s->any_last = off;
        pos += 12 + (uint64_t)len;
    }
    kf_source_close(src);
    (void)p;
}

/* Read s: where recovery cuts it, the batches kept, and (need_tail) the
 * last entry that frames, for the log end as it is now. */
int pp_read_segment(pp_part *p, pp_seg *s, bool need_tail)
{
    if (s->read)
        return KF_OK;
    kf_segment_summary sum;
    int rc = pp_scan_segment(p, s->path, s->base, 0, !need_tail, &sum, NULL);
    if (rc != KF_OK || p->io_error)
        return rc;
    s->read = true;
    s->orig_size = s->size;
    s->valid_bytes = sum.valid_bytes < s->size ? sum.valid_bytes : s->size;
    s->has_kept = sum.has_recovered_offsets;
    s->kept_last = sum.recovered_last_offset;
    s->has_any = false;
    frames_end(p, s);
    s->kept_max_ts = sum.has_offsets ? sum.max_timestamp : -1;
    if (s->valid_bytes < s->size) {
        s->kept_max_ts = -1;
        if (s->valid_bytes > 0 && s->has_kept) {
            /* the largest timestamp of the part kept: the prefix read again */
            kf_segment_summary kept;
            rc = pp_scan_segment(p, s->path, s->base, s->valid_bytes, true, &kept, NULL);
            if (rc != KF_OK || p->io_error)
                return rc;
            s->kept_max_ts = kept.has_offsets ? kept.max_timestamp : -1;
        }
    }
    return KF_OK;
}

/* LogSegment.readNextOffset as the files are now / after the cut */
static int64_t next_before(const pp_seg *s)
{
    return s->has_any ? s->any_last + 1 : s->base;
}

static int64_t next_after(const pp_seg *s)
{
    if (!s->cut)
        return next_before(s);
    return s->has_kept ? s->kept_last + 1 : s->base;
}

/* ---- the producer-state snapshots -------------------------------------------------- */

static pp_snap *latest_snap(pp_part *p)
{
    pp_snap *best = NULL;
    for (size_t i = 0; i < p->nsnaps; i++)
        if (!p->snaps[i].gone && (!best || p->snaps[i].offset > best->offset))
            best = &p->snaps[i];
    return best;
}

/* truncateAndReload(log_start, end) on the snapshot files: those above end or
 * at or below log_start deleted, then the newest that loads (a corrupt one
 * deleted and the next tried). The offset loaded from, or false. */
static bool reload(pp_part *p, int64_t log_start, int64_t end, int64_t *from)
{
    for (size_t i = 0; i < p->nsnaps; i++)
        if (p->snaps[i].offset > end || p->snaps[i].offset <= log_start)
            p->snaps[i].gone = true;
    for (pp_snap *s; (s = latest_snap(p));) {
        if (s->valid) {
            *from = s->offset;
            return true;
        }
        s->gone = true;
    }
    return false;
}

void pp_snap_put(pp_part *p, int64_t off, bool valid)
{
    for (size_t i = 0; i < p->nsnaps; i++)
        if (p->snaps[i].offset == off) {
            p->snaps[i] = (pp_snap){off, valid, false};
            return;
        }
    if (!KF_GROW(p->snaps, p->nsnaps, p->capsnaps, 4)) {
        p->rc = KF_ERR_NOMEM;
        return;
    }
    p->snaps[p->nsnaps++] = (pp_snap){off, valid, false};
}

static void snap_drop(pp_part *p, int64_t off)
{
    for (size_t i = 0; i < p->nsnaps; i++)
        if (p->snaps[i].offset == off)
            p->snaps[i].gone = true;
}

/* removeStraySnapshots: of the snapshots at no segment's base only the
 * newest is kept, and only when it is above the last segment's base. */
static void remove_stray_snapshots(pp_part *p)
{
    pp_snap *stray = NULL;
    for (;;) {
        pp_snap *next = NULL; /* the next snapshot in offset order after stray */
        for (size_t i = 0; i < p->nsnaps; i++) {
            pp_snap *s = &p->snaps[i];
            if (s->gone || (stray && s->offset <= stray->offset))
                continue;
            bool at_base = false;
            for (size_t k = 0; k < p->nsegs && !at_base; k++)
                at_base = p->segs[k].base == s->offset;
            if (!at_base && (!next || s->offset < next->offset))
                next = s;
        }
        if (!next)
            break;
        if (stray)
            stray->gone = true;
        stray = next;
    }
    if (stray && p->nsegs && stray->offset < p->segs[p->nsegs - 1].base)
        stray->gone = true;
}

/* ---- recovery ------------------------------------------------------------------------ */

void pp_recover_segment(pp_part *p, size_t i, const char *reason, kf_predict_action_kind kind)
{
    pp_seg *s = &p->segs[i];
    if (pp_read_segment(p, s, true) != KF_OK) {
        p->rc = KF_ERR_NOMEM;
        return;
    }
    if (p->io_error)
        return;
    pp_act(p, kind, s->path, reason, s->size);
    /* recoverSegment first rebuilds the producer state up to the segment's
     * base in a manager of its own, on the same snapshot files */
    int64_t from = 0;
    bool has = reload(p, p->log_start_ckpt, s->base, &from);
    if (!p->first_rebuild_done) {
        p->first_rebuild_done = true;
        p->first_rebuild_has = has;
        p->first_rebuild_off = from;
    }
    if (!s->recovered) {
        s->recovered = true;
        p->out.segments_to_recover++;
        p->out.bytes_to_recover += s->orig_size;
    }
    if (s->valid_bytes < s->size) {
        int64_t before = next_before(s);
        s->cut = true;
        int64_t after = next_after(s);
        kf_predict_action *a = pp_act(p, KF_ACT_TRUNCATE_SEGMENT, s->path,
                                      pp_strf(p, "Found invalid messages in log segment %s at byte offset %" PRIu64
                                                 ": cut there",
                                              s->path, s->valid_bytes),
                                      s->size - s->valid_bytes);
        if (a) {
            a->position = s->valid_bytes;
            a->offset = after;
            a->offsets_lost = kf_offsets_between(after, before);
        }
        if (before > after && pp_grow(p, &p->cuts, &p->capcuts, p->ncuts, sizeof *p->cuts))
            p->cuts[p->ncuts++] = (pp_cut){after, before};
        s->size = s->valid_bytes;
    }
    pp_snap_put(p, next_after(s), true); /* the snapshot recovery takes at the segment's end */
}

static void delete_segments(pp_part *p, size_t from, const char *reason)
{
    for (size_t j = from; j < p->nsegs; j++) {
        pp_act(p, KF_ACT_DELETE_SEGMENT, p->segs[j].path, reason, p->segs[j].size);
        snap_drop(p, p->segs[j].base);
    }
    p->nsegs = from;
}

/* recoverLog after an unclean shutdown: segments from the one holding the
 * recovery point read until one is cut; the end by kf_recovery_end. */
static void recover_unflushed(pp_part *p, int64_t *end)
{
    size_t n = p->nsegs, from = 0;
    for (size_t i = 1; i < n; i++)
        if (p->segs[i].base <= p->recovery_point)
            from = i;
    size_t upto = n; /* segments read: up to the first cut */
    for (size_t i = from; i < n; i++) {
        if (pp_read_segment(p, &p->segs[i], true) != KF_OK) {
            p->rc = KF_ERR_NOMEM;
            return;
        }
        if (p->io_error)
            return;
        if (p->segs[i].valid_bytes < p->segs[i].size) {
            upto = i + 1;
            break;
        }
    }
    kf_recovery_segment *rs = calloc(upto ? upto : 1, sizeof *rs);
    if (!rs) {
        p->rc = KF_ERR_NOMEM;
        return;
    }
    for (size_t i = 0; i < upto; i++) {
        const pp_seg *s = &p->segs[i];
        bool known = i >= from;
        rs[i] = (kf_recovery_segment){s->base, s->size, known ? s->valid_bytes : s->size,
                                      s->has_kept, s->kept_last};
    }
    size_t cut;
    int64_t log_end = n ? next_after(&p->segs[n - 1]) : p->log_start_ckpt;
    *end = kf_recovery_end(rs, upto, p->recovery_point, p->log_start_ckpt, log_end, &cut);
    free(rs);
    for (size_t i = from; i < n && i <= cut; i++) {
        const char *why = pp_strf(p, "Recovering unflushed segment %" PRId64 " (%s)", p->segs[i].base,
                                  p->segs[i].base <= p->recovery_point && (i + 1 == n || p->segs[i + 1].base > p->recovery_point)
                                      ? "it holds the recovery point"
                                      : "above the recovery point");
        pp_recover_segment(p, i, why, KF_ACT_RECOVER_SEGMENT);
        if (p->io_error || p->rc != KF_OK)
            return;
    }
    if (cut < n)
        delete_segments(p, cut + 1,
                        pp_strf(p, "Corruption found in segment %" PRId64 ", truncating to offset %" PRId64
                                   ": every later unflushed segment deleted",
                                p->segs[cut].base, next_after(&p->segs[cut])));
}

void pp_recover_log(pp_part *p)
{
    kf_predict_partition *o = &p->out;
    o->recovery_point = p->recovery_point;
    /* the log end as the files are now (after the renames) */
    if (p->nsegs && pp_read_segment(p, &p->segs[p->nsegs - 1], true) != KF_OK) {
        p->rc = KF_ERR_NOMEM;
        return;
    }
    if (p->io_error || p->rc != KF_OK)
        return;
    pp_seg *last = p->nsegs ? &p->segs[p->nsegs - 1] : NULL;
    int64_t before = last ? (last->cut ? (last->has_any ? last->any_last + 1 : last->base) : next_before(last))
                          : p->log_start_ckpt;
    o->log_end_offset_before = before;
    if (p->deleting) {
        /* a -delete dir is loaded without recovery and deleted: nothing read, nothing lost */
        o->log_end_offset_after = before;
        o->log_start_offset = p->nsegs && p->segs[0].base > p->log_start_ckpt ? p->segs[0].base : p->log_start_ckpt;
        o->producer_state = KF_PRODUCER_EMPTY;
        return;
    }
    int64_t end = 0;
    if (!p->clean) {
        recover_unflushed(p, &end);
        if (p->io_error || p->rc != KF_OK)
            return;
    } else {
        end = p->nsegs ? next_after(&p->segs[p->nsegs - 1]) : p->log_start_ckpt;
        if (end < p->log_start_ckpt)
            end = p->log_start_ckpt;
    }
    /* deleteSegmentsIfLogStartGreaterThanLogEnd */
    bool all_deleted = false;
    if (p->nsegs && next_after(&p->segs[p->nsegs - 1]) < p->log_start_ckpt) {
        delete_segments(p, 0,
                        pp_strf(p, "Deleting all segments because logEndOffset (%" PRId64 ") is smaller than "
                                   "logStartOffset %" PRId64 ". This could happen if segment files were deleted "
                                   "from the file system.",
                                next_after(&p->segs[p->nsegs - 1]), p->log_start_ckpt));
        for (size_t i = 0; i < p->nsnaps; i++)
            p->snaps[i].gone = true;
        all_deleted = true;
        end = p->log_start_ckpt;
    }
    o->log_end_offset_after = end;
    o->log_start_offset = p->nsegs && p->segs[0].base > p->log_start_ckpt ? p->segs[0].base : p->log_start_ckpt;
    /* a log whose end is now below the log-start checkpoint lost nothing
     * that was not deleted already */
    o->offsets_lost = all_deleted ? 0 : kf_offsets_between(end, before);
    if (o->offsets_lost && p->has_hw) {
        int64_t top = p->hw < before ? p->hw : before;
        o->acknowledged_lost = kf_offsets_between(end, top);
    }
    for (size_t i = 0; i < p->nacts; i++) /* the cut of recoverLog carries the partition's loss */
        if (p->acts[i].action == KF_ACT_TRUNCATE_SEGMENT && p->acts[i].offsets_lost < o->offsets_lost &&
            i + 1 < p->nacts && p->acts[i + 1].action == KF_ACT_DELETE_SEGMENT)
            p->acts[i].offsets_lost = o->offsets_lost;

    /* the producer state the log is loaded with (rebuildProducerState after recovery) */
    remove_stray_snapshots(p);
    int64_t from = 0;
    if (all_deleted) {
        o->producer_state = KF_PRODUCER_EMPTY;
    } else if (p->first_rebuild_done) {
        /* the first recovery rebuilt it from a snapshot (or the start); the
         * recoveries then carried it to the end and left a snapshot there */
        if (p->first_rebuild_has && p->first_rebuild_off == end)
            o->producer_state = KF_PRODUCER_SNAPSHOT;
        else if (p->first_rebuild_has) {
            o->producer_state = KF_PRODUCER_REBUILD_FROM_SNAPSHOT;
            o->has_producer_snapshot_offset = true;
            o->producer_snapshot_offset = p->first_rebuild_off;
        } else
            o->producer_state = KF_PRODUCER_REBUILD_FROM_START;
    } else if (p->clean && !latest_snap(p)) {
        o->producer_state = KF_PRODUCER_EMPTY;
    } else if (reload(p, o->log_start_offset, end, &from)) {
        o->producer_state = from == end ? KF_PRODUCER_SNAPSHOT : KF_PRODUCER_REBUILD_FROM_SNAPSHOT;
        o->has_producer_snapshot_offset = from != end;
        o->producer_snapshot_offset = from;
    } else {
        o->producer_state = KF_PRODUCER_REBUILD_FROM_START;
    }
    if (o->producer_state == KF_PRODUCER_SNAPSHOT) {
        o->has_producer_snapshot_offset = true;
        o->producer_snapshot_offset = end;
    }
}
