/* compaction_text.c: `kfsck compaction`'s text for one partition
 * (compaction_text.h): the verdict line first -- the open transaction that
 * pins the cleaning (who it is, hanging or live, how to abort it), or
 * whether the cleaner would clean and why not -- then the log, the cleaner's
 * offsets, the dirty ratio and what a full cleaning frees. */
#include "cli/compaction_text.h"

#include <inttypes.h>

#include "cli/out.h"

/* A name from disk in text, quoted and escaped as in JSON. */
static void put_quoted(FILE *f, const char *s)
{
    out q;
    out_init(&q, f, true);
    kf_jsonl_str(&q.w, NULL, s);
}

/* "  N record(s) WHY (the cleaner drops them)", when n is not 0: records a
 * full cleaning removes whatever their key. */
static void print_dropped(FILE *f, uint64_t n, const char *why)
{
    if (n)
        tprintf(f, "  %" PRIu64 " record%s %s (the cleaner drops them)\n", n, n == 1 ? "" : "s", why);
}

/* The open transaction pinning the cleaning: who it is, whether it hangs
 * (older than its timeout at --now) or is live, then how to abort it. */
static void print_pinned(FILE *f, const kf_compaction_result *r)
{
    const kf_partition *p = r->partition;
    const kf_open_txn *t = &r->pinned_by;
    const kf_pinning_txn *w = &r->pinning;
    char tm[40], age[32], to[32];
    tprintf(f, "  blocked by open transaction producer %" PRId64 " epoch %d", t->producer_id, t->producer_epoch);
    if (t->has_first_timestamp) {
        kf_format_time(t->first_timestamp, true, tm, sizeof tm);
        tprintf(f, " since %s", tm);
    }
    tprintf(f, " at offset %" PRId64 " (", t->first_offset);
    if (w->transactional_id) {
        const char *st = kf_txn_state_name(w->coordinator_state);
        fputs("transactional id ", f);
        put_quoted(f, w->transactional_id);
        if (st)
            tprintf(f, ", %s in the coordinator)", st);
        else
            tprintf(f, ", state %d in the coordinator)", w->coordinator_state);
    } else if (w->coordinator) {
        tprintf(f, "no transactional id: no coordinator state among the inputs names producer %" PRId64 ")",
                t->producer_id);
    } else {
        fputs("transactional id unknown: no __transaction_state partition among the inputs)", f);
    }
    fmt_duration_unit(w->timeout_ms, to, sizeof to);
    const char *src = w->timeout_from_coordinator ? "its transaction.timeout.ms" : "transaction.max.timeout.ms's default";
    kf_format_duration(w->age_ms, age, sizeof age);
    if (!w->has_age)
        tprintf(f, ": age unknown (it began before the log's first segment; timeout %s, %s) — if it hangs, abort it",
                to, src);
    else if (w->hanging)
        tprintf(f, ": hanging, %s old, past its %s timeout (%s) — abort it", age, to, src);
    else
        tprintf(f, ": live, %s old, within its %s timeout (%s): its producer or, at the timeout, the coordinator "
                   "ends it — abort it only if its producer is gone", age, to, src);
    fputs(": `kafka-transactions.sh --bootstrap-server HOST:PORT abort", f);
    if (p->topic[0] && p->partition >= 0) {
        tshell(f, " --topic ", p->topic);
        tprintf(f, " --partition %d", p->partition);
    }
    tprintf(f, " --start-offset %" PRId64 "`\n", t->first_offset);
}

static void print_verdict(FILE *f, const kf_compaction_result *r)
{
    const kf_cleanable *c = &r->cleanable;
    char dirty[32], tm[40];
    fmt_bytes(c->cleanable_bytes, dirty, sizeof dirty);
    if (r->pinned) {
        print_pinned(f, r);
    } else if (c->would_clean && c->need_compaction_now && !(c->dirty_ratio > r->min_cleanable_ratio)) {
        kf_format_duration(c->compaction_delay_ms, tm, sizeof tm);
        tprintf(f,
                "  cleanable: %s dirty, %s past max.compaction.lag.ms — the cleaner should be running: check "
                "`log-cleaner.log` and `uncleanable-partitions-count`\n",
                dirty, tm);
    } else if (c->would_clean) {
        tprintf(f,
                "  cleanable: %s dirty, ratio %.2f > %g — the cleaner should be running: check `log-cleaner.log` "
                "and `uncleanable-partitions-count`\n",
                dirty, c->dirty_ratio, r->min_cleanable_ratio);
    } else if (c->cleanable_bytes > 0) {
        tprintf(f, "  not enough dirty: %s dirty, ratio %.2f <= %g — the cleaner waits for more\n", dirty,
                c->dirty_ratio, r->min_cleanable_ratio);
    } else if (c->reason == KF_UNCLEANABLE_ACTIVE_SEGMENT) {
        tprintf(f, "  nothing to clean: the dirty part from offset %" PRId64 " is all in the active segment, which "
                   "the cleaner never cleans (it rolls at segment.bytes or segment.ms)\n",
                c->first_dirty_offset);
    } else {
        tprintf(f, "  nothing to clean: no whole segment between the first dirty offset %" PRId64
                   " and the first uncleanable offset %" PRId64 " (%s)\n",
                c->first_dirty_offset, c->first_uncleanable_offset, kf_uncleanable_reason_name(c->reason));
    }
}

void compaction_print_text(FILE *f, const kf_compaction_result *r)
{
    const kf_cleanable *c = &r->cleanable;
    char label[300], size[32], clean[32], total[32], reclaim[32];
    partition_label(r->partition, label, sizeof label);
    fmt_bytes(r->bytes, size, sizeof size);
    if (r->bytes == 0 && r->records == 0) {
        tprintf(f, "%s: empty: nothing to clean\n", label);
        return;
    }
    tprintf(f, "%s:\n", label);
    print_verdict(f, r);
    tprintf(f, "  log: %zu segment%s, %s; log start %" PRId64 ", log end %" PRId64, r->segments,
            r->segments == 1 ? "" : "s", size, r->log_start_offset, r->log_end_offset);
    if (r->has_high_watermark)
        tprintf(f, ", high watermark %" PRId64, r->high_watermark);
    tprintf(f, ", last stable offset %" PRId64 "\n", r->last_stable_offset);
    tprintf(f, "  first dirty offset %" PRId64, c->first_dirty_offset);
    if (!r->has_cleaner_offset)
        tprintf(f, " (no cleaner-offset-checkpoint entry: the log start)\n");
    else if (c->dirty_reset == KF_DIRTY_FROM_CHECKPOINT)
        tprintf(f, " (cleaner-offset-checkpoint)\n");
    else
        tprintf(f, " (the checkpoint's %" PRId64 " is %s: reset to the log start)\n", r->cleaner_offset,
                c->dirty_reset == KF_DIRTY_BELOW_LOG_START ? "below the log start" : "past the log end");
    tprintf(f, "  first uncleanable offset %" PRId64 " (%s)\n", c->first_uncleanable_offset,
            kf_uncleanable_reason_name(c->reason));
    fmt_bytes(c->cleanable_bytes, size, sizeof size);
    fmt_bytes(c->clean_bytes, clean, sizeof clean);
    fmt_bytes(c->total_bytes, total, sizeof total);
    tprintf(f, "  cleanable %s, clean %s", size, clean);
    if (c->has_ratio)
        tprintf(f, ", dirty ratio %.4f (min.cleanable.dirty.ratio %g, %s)\n", c->dirty_ratio, r->min_cleanable_ratio,
                kf_config_source_name(r->min_cleanable_ratio_source));
    else
        tprintf(f, " (nothing before the uncleanable part)\n");
    fmt_bytes(r->reclaimable_bytes, reclaim, sizeof reclaim);
    tprintf(f,
            "  a full cleaning: %" PRIu64 " record%s, %" PRIu64 " distinct key%s, %" PRIu64 " live (%" PRIu64
            " tombstone%s), %s of records to free\n",
            r->records, r->records == 1 ? "" : "s", r->keys, r->keys == 1 ? "" : "s", r->live_records, r->tombstones,
            r->tombstones == 1 ? "" : "s", reclaim);
    print_dropped(f, r->keyless_records, "without a key");
    print_dropped(f, r->aborted_records, "of aborted transactions");
    if (r->min_compaction_lag_ms > 0) {
        kf_format_duration(r->min_compaction_lag_ms, size, sizeof size);
        tprintf(f, "  min.compaction.lag.ms %s (%s)\n", size, kf_config_source_name(r->min_compaction_lag_source));
    }
    if (r->incomplete)
        tprintf(f, "  damaged batches were skipped: the figures may be incomplete\n");
    fputc('\n', f);
}

