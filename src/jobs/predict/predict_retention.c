/* predict_retention.c: the first retention pass after start-up
 * (docs/formats.md §20.7; core/.../log/UnifiedLog.scala: deleteOldSegments,
 * deletableSegments, deleteLogStartOffsetBreachedSegments,
 * deleteRetentionSizeBreachedSegments, deleteRetentionMsBreachedSegments;
 * LogManager.cleanupLogs leaves compact-only topics to the cleaner). Each
 * segment's largest timestamp is LogSegment.largestTimestamp: the batches'
 * largest for a segment recovered, else the last entry of its .timeindex
 * (read alone), else the file's modification time. */
#include "predict_internal.h"
#include "bytes/grow.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kfsck/sys/file.h"

/* The timestamp of the last slot of a .timeindex (the broker counts every
 * slot of an existing file: size / 12), -1 when it has none. */
static int64_t time_index_last(pp_part *p, const pp_seg *s)
{
    size_t n = strlen(s->path);
    if (n < 4)
        return -1;
    char *path = pp_strf(p, "%.*s.timeindex", (int)(n - 4), s->path);
    kf_source *src;
    if (!path || kf_source_open(&src, path, 0) != KF_OK)
        return -1;
    uint64_t size = kf_source_size(src), entries = size / 12;
    uint8_t b[8];
    int64_t ts = -1;
    if (entries && kf_source_pread(src, (entries - 1) * 12, b, 8) == 8) {
        uint64_t v = 0;
        for (int i = 0; i < 8; i++)
            v = v << 8 | b[i];
        ts = (int64_t)v;
    }
    kf_source_close(src);
    return ts;
}

static void largest_timestamps(pp_part *p)
{
    for (size_t i = 0; i < p->nsegs; i++) {
        pp_seg *s = &p->segs[i];
        int64_t ts = s->recovered ? s->kept_max_ts : time_index_last(p, s);
        s->largest_ts = ts >= 0 ? ts : s->mtime_ms;
        if (s->largest_ts > p->now_ms)
            p->out.future_timestamps++;
    }
}

/* The segments left, as retention sees them; a rolled empty one at the end. */
typedef struct ret_seg {
    int64_t base;
    uint64_t size;
    int64_t largest_ts;
    const char *path;
} ret_seg;

typedef struct ret_log {
    ret_seg *s;
    size_t first, n;       /* s[first..n) are the segments */
    int64_t log_start, log_end, hw;
    int64_t size_diff;     /* retention.bytes' running difference */
    int64_t now, retention_ms;
} ret_log;

typedef bool (*ret_pred)(ret_log *l, const ret_seg *seg, const ret_seg *next);

static bool start_breached(ret_log *l, const ret_seg *seg, const ret_seg *next)
{
    (void)seg;
    return next && next->base <= l->log_start;
}

static bool size_breached(ret_log *l, const ret_seg *seg, const ret_seg *next)
{
    (void)next;
    if (l->size_diff - (int64_t)seg->size < 0)
        return false;
    l->size_diff -= (int64_t)seg->size;
    return true;
}

static bool time_breached(ret_log *l, const ret_seg *seg, const ret_seg *next)
{
    (void)next;
    return l->now - seg->largest_ts > l->retention_ms;
}

/* deletableSegments and deleteSegments: oldest first while the high
 * watermark reaches the segment's end and the rule holds (never a last
 * segment that is empty); deleting every segment rolls a new empty one at
 * the log end first. */
static void delete_old(pp_part *p, ret_log *l, ret_pred pred, kf_retention_reason why)
{
    size_t i = l->first;
    while (i < l->n) {
        const ret_seg *seg = &l->s[i], *next = i + 1 < l->n ? &l->s[i + 1] : NULL;
        bool last_empty = !next && seg->size == 0;
        int64_t upper = next ? next->base : l->log_end;
        if (!(l->hw >= upper && pred(l, seg, next)) || last_empty)
            break;
        i++;
    }
    if (i == l->first)
        return;
    if (i == l->n) /* roll(): the log keeps one segment */
        l->s[l->n++] = (ret_seg){l->log_end, 0, p->now_ms, NULL};
    for (size_t k = l->first; k < i; k++) {
        if (!KF_GROW(p->rets, p->nrets, p->caprets, 4)) {
            p->rc = KF_ERR_NOMEM;
            return;
        }
        p->rets[p->nrets++] = (kf_retention_delete){l->s[k].path, l->s[k].base, why, l->s[k].size};
    }
    l->first = i;
    if (l->s[i].base > l->log_start)
        l->log_start = l->s[i].base;
}

void pp_retention(pp_part *p)
{
    largest_timestamps(p);
    if (p->compact_only || p->deleting || p->state == KF_PST_STRAY || p->state == KF_PST_OFFLINE)
        return;
    ret_log l = {0};
    l.s = calloc(p->nsegs + 1, sizeof *l.s);
    if (!l.s) {
        p->rc = KF_ERR_NOMEM;
        return;
    }
    for (size_t i = 0; i < p->nsegs; i++)
        l.s[i] = (ret_seg){p->segs[i].base, p->segs[i].size, p->segs[i].largest_ts, p->segs[i].path};
    l.n = p->nsegs;
    l.log_start = p->out.log_start_offset;
    l.log_end = p->out.log_end_offset_after;
    /* the high watermark the partition is created with: the checkpoint's
     * (0 when none) held between the log start and the log end */
    int64_t hw = p->has_hw ? p->hw : 0;
    l.hw = hw < l.log_start ? l.log_start : hw > l.log_end ? l.log_end : hw;
    l.now = p->now_ms;
    l.retention_ms = p->retention_ms;
    if (l.n == 0)
        l.s[l.n++] = (ret_seg){l.log_end, 0, p->now_ms, NULL};
    delete_old(p, &l, start_breached, KF_RET_LOG_START_OFFSET);
    int64_t total = 0;
    for (size_t i = l.first; i < l.n; i++)
        total += (int64_t)l.s[i].size;
    if (p->rc == KF_OK && p->retention_bytes >= 0 && total >= p->retention_bytes) {
        l.size_diff = total - p->retention_bytes;
        delete_old(p, &l, size_breached, KF_RET_RETENTION_BYTES);
    }
    if (p->rc == KF_OK && p->retention_ms >= 0)
        delete_old(p, &l, time_breached, KF_RET_RETENTION_MS);
    free(l.s);
    p->out.retention_deletes = p->rets;
    p->out.n_retention_deletes = p->nrets;
}
