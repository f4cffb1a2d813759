/* compaction_offsets.c: the log cleaner's choice over one log, as a pure
 * function of the segments, the checkpoint entry and the clock
 * (include/kfsck/compaction.h, docs/formats.md §19.1-19.3). Kafka's
 * rules are in core/src/main/scala/kafka/log/LogCleanerManager.scala
 * (cleanableOffsets, calculateCleanableBytes, maxCompactionDelay,
 * grabFilthiestCompactedLog), core/src/main/scala/kafka/log/LogCleaner.scala
 * (LogToClean) and storage/.../log/LogSegments.java (which segments a range
 * of offsets takes). */
#include <stdint.h>

#include "kfsck/compaction.h"

const char *kf_uncleanable_reason_name(kf_uncleanable_reason r)
{
    switch (r) {
    case KF_UNCLEANABLE_LAST_STABLE_OFFSET: return "last_stable_offset";
    case KF_UNCLEANABLE_ACTIVE_SEGMENT: return "active_segment";
    case KF_UNCLEANABLE_MIN_COMPACTION_LAG: return "min_compaction_lag";
    }
    return "unknown";
}

const char *kf_dirty_reset_name(kf_dirty_reset r)
{
    switch (r) {
    case KF_DIRTY_FROM_CHECKPOINT: return "checkpoint";
    case KF_DIRTY_NO_ENTRY: return "no_entry";
    case KF_DIRTY_BELOW_LOG_START: return "below_log_start";
    case KF_DIRTY_PAST_LOG_END: return "past_log_end";
    }
    return "unknown";
}

/* Index of the segment holding offset: the last whose base is at or below
 * it, or 0 when it is below every base (a range then starts at the first). */
static size_t floor_segment(const kf_cleanable_input *in, int64_t offset)
{
    size_t i = 0;
    while (i + 1 < in->nsegments && in->segments[i + 1].base_offset <= offset)
        i++;
    return i;
}

/* The bytes of the segments a range [from, to) of offsets takes: from the
 * segment holding `from` to the last one whose base is below `to`. */
static uint64_t range_bytes(const kf_cleanable_input *in, int64_t from, int64_t to)
{
    if (from >= to)
        return 0;
    uint64_t sum = 0;
    bool below_all = from < in->segments[0].base_offset;
    for (size_t i = below_all ? 0 : floor_segment(in, from); i < in->nsegments; i++) {
        if (in->segments[i].base_offset >= to)
            break;
        sum += in->segments[i].bytes;
    }
    return sum;
}

/* Index of the first non-active segment a range from `from` takes, or
 * nsegments - 1 (the active one) when there is none. */
static size_t first_non_active_from(const kf_cleanable_input *in, int64_t from)
{
    size_t active = in->nsegments - 1;
    if (from >= in->segments[active].base_offset)
        return active;
    return from < in->segments[0].base_offset ? 0 : floor_segment(in, from);
}

/* now - lag (lag >= 0) without overflow: at worst the earliest time. */
static int64_t time_minus(int64_t now, int64_t lag)
{
    return (now >= 0 || lag <= now - INT64_MIN) ? now - lag : INT64_MIN;
}

static void first_dirty(const kf_cleanable_input *in, kf_cleanable *out)
{
    out->dirty_reset = KF_DIRTY_FROM_CHECKPOINT;
    int64_t d = in->has_checkpoint ? in->checkpoint_offset : in->log_start_offset;
    if (!in->has_checkpoint) {
        out->dirty_reset = KF_DIRTY_NO_ENTRY;
    } else if (d < in->log_start_offset) {
        out->dirty_reset = KF_DIRTY_BELOW_LOG_START;
        d = in->log_start_offset;
    } else if (d > in->log_end_offset) {
        out->dirty_reset = KF_DIRTY_PAST_LOG_END;
        d = in->log_start_offset;
    }
    out->first_dirty_offset = d;
}

/* The first dirty non-active segment whose largest timestamp is after
 * now - lag: cleaning stops before it. */
static void lag_bound(const kf_cleanable_input *in, kf_cleanable *out)
{
    int64_t lag = in->min_compaction_lag_ms > 0 ? in->min_compaction_lag_ms : 0;
    out->has_lag_bound = false;
    if (lag == 0)
        return;
    size_t active = in->nsegments - 1;
    int64_t horizon = time_minus(in->now_ms, lag);
    for (size_t i = first_non_active_from(in, out->first_dirty_offset); i < active; i++) {
        const kf_cleaner_segment *s = &in->segments[i];
        int64_t largest = s->has_largest_timestamp ? s->largest_timestamp : -1;
        if (largest > horizon) {
            out->has_lag_bound = true;
            out->lag_bound_offset = s->base_offset;
            return;
        }
    }
}

/* How long past max.compaction.lag.ms the oldest first batch of a dirty
 * non-active segment is (0: none is). */
static int64_t compaction_delay(const kf_cleanable_input *in, int64_t first_dirty_offset)
{
    size_t active = in->nsegments - 1;
    int64_t earliest = INT64_MAX;
    for (size_t i = first_non_active_from(in, first_dirty_offset); i < active; i++) {
        const kf_cleaner_segment *s = &in->segments[i];
        if (s->has_first_batch_timestamp && s->first_batch_timestamp > 0 && s->first_batch_timestamp < earliest)
            earliest = s->first_batch_timestamp;
    }
    int64_t lag = in->max_compaction_lag_ms > 0 ? in->max_compaction_lag_ms : 0;
    int64_t until = time_minus(in->now_ms, lag);
    if (earliest < until)
        return until - earliest;
    return 0;
}

void kf_cleanable_offsets(const kf_cleanable_input *in, kf_cleanable *out)
{
    *out = (kf_cleanable){0};
    first_dirty(in, out);
    size_t active = in->nsegments - 1;
    out->active_segment_offset = in->segments[active].base_offset;
    lag_bound(in, out);

    int64_t bound = in->last_stable_offset;
    out->reason = KF_UNCLEANABLE_LAST_STABLE_OFFSET;
    if (out->active_segment_offset < bound) {
        bound = out->active_segment_offset;
        out->reason = KF_UNCLEANABLE_ACTIVE_SEGMENT;
    }
    if (out->has_lag_bound && out->lag_bound_offset < bound) {
        bound = out->lag_bound_offset;
        out->reason = KF_UNCLEANABLE_MIN_COMPACTION_LAG;
    }
    out->first_uncleanable_offset = bound > out->first_dirty_offset ? bound : out->first_dirty_offset;

    /* LogToClean: the cleaning stops before the segment holding the
     * uncleanable offset; the clean part is every segment below the first
     * dirty offset (the segment holding it is counted in both). */
    size_t stop = first_non_active_from(in, out->first_uncleanable_offset);
    out->first_uncleanable_segment = in->segments[stop].base_offset;
    int64_t from = out->first_dirty_offset < out->first_uncleanable_segment ? out->first_dirty_offset
                                                                            : out->first_uncleanable_segment;
    out->cleanable_bytes = range_bytes(in, from, out->first_uncleanable_segment);
    for (size_t i = 0; i < in->nsegments && in->segments[i].base_offset < out->first_dirty_offset; i++)
        out->clean_bytes += in->segments[i].bytes;
    out->total_bytes = out->clean_bytes + out->cleanable_bytes;
    out->has_ratio = out->total_bytes > 0;
    out->dirty_ratio = out->has_ratio ? (double)out->cleanable_bytes / (double)out->total_bytes : 0.0;

    out->compaction_delay_ms = compaction_delay(in, out->first_dirty_offset);
    out->need_compaction_now = out->compaction_delay_ms > 0;
    out->would_clean = out->has_ratio && ((out->need_compaction_now && out->cleanable_bytes > 0) ||
                                          out->dirty_ratio > in->min_cleanable_ratio);
}
