/* replicas_rule.c: Kafka's leader-epoch reconciliation as pure functions
 * (include/kfsck/replicas.h, docs/formats.md §18): how a broker loads its
 * leader-epoch cache, and where a follower truncates when it follows a new
 * leader. No I/O, no allocation. The rules come from Kafka's
 * storage/.../epoch/LeaderEpochFileCache.java (assign, truncateFromEnd,
 * truncateFromStart, endOffsetFor), storage/.../log/LogLoader.java (the
 * cuts at load), core/.../cluster/Partition.scala (makeLeader) and
 * core/.../server/AbstractFetcherThread.scala (getOffsetTruncationState,
 * truncateToHighWatermark). */
#include "kfsck/replicas.h"

/* LeaderEpochFileCache.assign of each entry in turn: an entry is taken when
 * it names another epoch than the latest or starts before it; before it is
 * put, the entries from the end that it contradicts (an epoch at or above
 * its own, or a start at or after its own) are removed. */
static size_t assign_all(kf_leader_epoch *e, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        kf_leader_epoch x = e[i];
        if (x.epoch < 0 || x.start_offset < 0)
            continue; /* Kafka refuses them */
        if (kept && x.epoch == e[kept - 1].epoch && x.start_offset >= e[kept - 1].start_offset)
            continue;
        while (kept && (e[kept - 1].epoch >= x.epoch || e[kept - 1].start_offset >= x.start_offset))
            kept--;
        e[kept++] = x;
    }
    return kept;
}

size_t kf_replica_epochs_load(kf_leader_epoch *e, size_t n, int64_t log_start_checkpoint, int64_t log_end)
{
    n = assign_all(e, n);
    /* truncateFromEnd(log end): entries starting at or after it go */
    while (n && log_end >= 0 && e[n - 1].start_offset >= log_end)
        n--;
    /* truncateFromStart(log-start checkpoint): entries starting at or before
     * it go, the last of them kept, starting there */
    size_t gone = 0;
    while (gone < n && e[gone].start_offset <= log_start_checkpoint)
        gone++;
    if (gone) {
        kf_leader_epoch first = {e[gone - 1].epoch, log_start_checkpoint};
        for (size_t i = gone; i < n; i++)
            e[i - gone + 1] = e[i];
        e[0] = first;
        n = n - gone + 1;
    }
    return n;
}

/* An epoch and the end offset endOffsetFor answers with. */
typedef struct epoch_end {
    bool found;        /* false: UNDEFINED_EPOCH_OFFSET (UnifiedLog.endOffsetForEpoch: None) */
    int32_t epoch;
    int64_t end;
} epoch_end;

/* LeaderEpochFileCache.endOffsetFor(asked, log_end) over e[0..n) whose
 * latest epoch is not the one asked (the caller handles that case): the
 * start of the first epoch above the one asked, with the largest epoch at
 * or below it (the one asked when there is none); nothing when no epoch is
 * above it. above_epoch/above_start: an entry after e[n-1] (the new
 * leader's epoch), or above_start < 0 for none. */
static epoch_end end_offset_for(const kf_leader_epoch *e, size_t n, int32_t asked, int64_t above_start)
{
    size_t i = 0;
    while (i < n && e[i].epoch <= asked)
        i++;
    int64_t higher_start;
    if (i < n)
        higher_start = e[i].start_offset;
    else if (above_start >= 0)
        higher_start = above_start;
    else
        return (epoch_end){false, -1, -1};
    return (epoch_end){true, i ? e[i - 1].epoch : asked, higher_start};
}

/* The follower's side (UnifiedLog.endOffsetForEpoch): its log end for its
 * own latest epoch, else as the cache answers. */
static epoch_end follower_end_for(const kf_leader_epoch *fe, size_t n, int64_t end, int32_t epoch)
{
    if (!n)
        return (epoch_end){false, -1, -1};
    if (fe[n - 1].epoch == epoch)
        return (epoch_end){true, epoch, end};
    return end_offset_for(fe, n, epoch, -1);
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

kf_replica_truncation kf_replica_reconcile(const kf_leader_epoch *le, size_t nle, int64_t leader_end,
                                           const kf_leader_epoch *fe, size_t nfe, int64_t follower_end,
                                           int64_t follower_hw)
{
    kf_replica_truncation t = {follower_end, 0};
    /* No epochs: the Truncating state, truncateToHighWatermark. */
    if (!nfe) {
        t.truncate_to = min64(follower_hw, follower_end);
        return t;
    }
    /* The leader's cache holds a new epoch, above every epoch any replica
     * has, starting at its log end (Partition.makeLeader), so the epoch the
     * follower asks is never the leader's latest and an epoch above it is
     * always there. Each round takes at least the follower's latest entry
     * away, so there are at most nfe of them. */
    size_t n = nfe;
    int64_t end = follower_end;
    while (n) {
        t.rounds++;
        epoch_end l = end_offset_for(le, nle, fe[n - 1].epoch, leader_end);
        epoch_end f = follower_end_for(fe, n, end, l.epoch);
        if (!f.found) { /* the follower tracks no epoch at or below the answer */
            end = min64(l.end, end);
            break;
        }
        if (f.epoch != l.epoch) { /* it does not know that epoch: truncate, ask again */
            size_t before = n;
            end = min64(f.end, end);
            while (n && fe[n - 1].start_offset >= end)
                n--; /* truncateFromEnd */
            if (n == before)
                break; /* entries not cut at the log end (not loaded): nothing more to learn */
            continue;
        }
        end = min64(min64(f.end, l.end), end);
        break;
    }
    t.truncate_to = end;
    return t;
}
