"""replicas_model: an independent Python model of what `kfsck replicas`
computes (docs/kfsck.1, replicas), written from Kafka's sources, not from
kfsck's C:

- LeaderEpochFileCache (storage/src/main/java/org/apache/kafka/storage/
  internals/epoch/LeaderEpochFileCache.java): assign (with
  maybeTruncateNonMonotonicEntries), truncateFromEnd, truncateFromStart,
  endOffsetFor; a TreeMap epoch -> (epoch, start offset) here as a sorted list.
- What LogLoader.load does to the cache at start-up (truncateFromEnd at the
  recovered log end, then truncateFromStart at the log-start checkpoint).
- Partition.makeLeader: the elected leader assigns its new leader epoch at
  its log end (maybeAssignEpochStartOffset).
- What an election misses: the partition's high watermark (the largest of
  the replicas') above the elected log's end is acknowledged data no
  follower can bring back; the salvage of those offsets is what a merge of
  the copies' files takes (the partition reader's choice: the batch with
  the lowest first offset, the copy given first among equal ones).
- AbstractFetcherThread: a follower with epochs offers its latest one;
  the leader answers with Partition.lastOffsetForLeaderEpoch (its cache's
  endOffsetFor); getOffsetTruncationState decides the truncation and
  whether to ask again; a follower with no epochs truncates to its high
  watermark (truncateToHighWatermark, ReplicaManager.initialFetchOffset).

Used as a module by tests/e2e/test_replicas.py (expected values), or run
with a JSON description of replicas on stdin to print the judgement.
"""
import json
import sys

UNDEFINED_EPOCH = -1
UNDEFINED_EPOCH_OFFSET = -1


class EpochCache:
    """LeaderEpochFileCache: entries (epoch, start_offset) ordered by epoch."""

    def __init__(self, entries=()):
        self.entries = []
        for e, s in entries:          # the constructor assigns the checkpoint's entries one by one
            self.assign(e, s)

    def latest(self):
        return self.entries[-1] if self.entries else None

    def _update_needed(self, epoch, start):
        last = self.latest()
        return last is None or epoch != last[0] or start < last[1]

    def assign(self, epoch, start):
        if epoch < 0 or start < 0:
            return                    # Kafka throws IllegalArgumentException; such an entry is never kept
        if not self._update_needed(epoch, start):
            return
        # maybeTruncateNonMonotonicEntries: from the end, while epoch >= new or start >= new start
        while self.entries and (self.entries[-1][0] >= epoch or self.entries[-1][1] >= start):
            self.entries.pop()
        self.entries.append((epoch, start))

    def truncate_from_end(self, end_offset):
        if end_offset >= 0 and self.entries and self.entries[-1][1] >= end_offset:
            while self.entries and self.entries[-1][1] >= end_offset:
                self.entries.pop()

    def truncate_from_start(self, start_offset):
        removed = []
        while self.entries and self.entries[0][1] <= start_offset:
            removed.append(self.entries.pop(0))
        if removed:
            self.entries.insert(0, (removed[-1][0], start_offset))

    def end_offset_for(self, requested, log_end):
        """(epoch, end offset) as LeaderEpochFileCache.endOffsetFor answers."""
        if requested == UNDEFINED_EPOCH:
            return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
        last = self.latest()
        if last is not None and last[0] == requested:
            return requested, log_end
        higher = next((x for x in self.entries if x[0] > requested), None)
        if higher is None:
            return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
        floor = None
        for x in self.entries:
            if x[0] <= requested:
                floor = x
        if floor is None:
            return requested, higher[1]
        return floor[0], higher[1]

    def copy(self):
        c = EpochCache()
        c.entries = list(self.entries)
        return c


def loaded_cache(entries, log_start_checkpoint, log_end):
    """The cache as the broker has it after LogLoader.load."""
    c = EpochCache(entries)
    c.truncate_from_end(log_end)
    c.truncate_from_start(log_start_checkpoint if log_start_checkpoint is not None else 0)
    return c


class Log:
    """A replica's log as far as reconciliation sees it."""

    def __init__(self, cache, log_end, high_watermark):
        self.cache = cache
        self.leo = log_end
        self.hw = high_watermark

    def end_offset_for_epoch(self, epoch):
        """UnifiedLog.endOffsetForEpoch: None when the offset is undefined."""
        e, off = self.cache.end_offset_for(epoch, self.leo)
        return None if off == UNDEFINED_EPOCH_OFFSET else (e, off)

    def truncate_to(self, offset):
        if offset < self.leo:        # UnifiedLog.truncateTo: nothing to do at or past the end
            self.leo = offset
            self.cache.truncate_from_end(offset)


def follow(leader_cache, leader_end, follower_cache, follower_end, follower_hw):
    """Where the follower's log ends after it follows the new leader;
    returns (truncate_to, rounds)."""
    leader = Log(leader_cache.copy(), leader_end, None)
    new_epoch = 1 + max([e for e, _ in leader_cache.entries + follower_cache.entries] + [0])
    leader.cache.assign(new_epoch, leader_end)           # Partition.makeLeader
    f = Log(follower_cache.copy(), follower_end, follower_hw)
    if f.cache.latest() is None:                         # Truncating state, no epoch: the high watermark
        f.truncate_to(follower_hw)
        return f.leo, 0
    rounds = 0
    while f.cache.latest() is not None:
        rounds += 1
        asked = f.cache.latest()[0]
        answer = leader.end_offset_for_epoch(asked)      # Partition.lastOffsetForLeaderEpoch
        l_epoch, l_off = answer if answer else (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)
        if l_off == UNDEFINED_EPOCH_OFFSET:
            f.truncate_to(f.hw)
            break
        mine = f.end_offset_for_epoch(l_epoch)
        if mine is None:
            f.truncate_to(min(l_off, f.leo))
            break
        m_epoch, m_off = mine
        if m_epoch != l_epoch:
            f.truncate_to(min(m_off, f.leo))             # not complete: ask again
            continue
        f.truncate_to(min(min(m_off, l_off), f.leo))
        break
    return f.leo, rounds


def loaded_hw(r):
    hw = r.get("high_watermark")
    hw = 0 if hw is None else hw
    lo = r.get("log_start_offset") or 0
    return max(lo, min(hw, r["log_end_offset"]))


def salvage(copies, start, hw, epochs=()):
    """The stretches of [start, hw) a merge of the copies takes, in offset
    order: [(broker, from, to)]. copies: [(broker, [(first, end, epoch)]
    intact batches)] in the order given to the merge. A batch of a lower
    epoch than one that starts at or before its last offset is a history
    the cluster discarded: the merge leaves it out, and so does salvage
    when a replica's loaded epochs (a scan file's too: `epochs`, [(e, s)])
    start a higher epoch there."""
    starts = {}
    for e, st in epochs:
        starts[e] = min(st, starts.get(e, st))
    for _, batches in copies:
        for first, _, epoch in batches:
            starts[epoch] = min(first, starts.get(epoch, first))
    taken = {}
    for broker, batches in copies:
        for first, end, epoch in batches:
            if any(e > epoch and s <= end - 1 for e, s in starts.items()):
                continue
            taken.setdefault(first, (end, broker))
    runs = []
    for first in sorted(taken):
        end, broker = taken[first]
        lo, hi = max(first, start), min(end, hw)
        if lo >= hi:
            continue
        if runs and runs[-1][0] == broker and runs[-1][2] == lo:
            runs[-1][2] = hi
        else:
            runs.append([broker, lo, hi])
    return [tuple(r) for r in runs]


def judge(replicas, isr=None, elr=None, copies=None):
    """replicas: [{"broker", "log_start_offset" (checkpoint or None),
    "log_end_offset", "high_watermark" (or None), "epochs": [(e, s)]}] in
    broker order; copies (or None: scan files) as salvage() takes them.
    Returns {"epochs": {broker: loaded}, "elections": {candidate:
    {"followers": {broker: (truncate_to, lost, acked)}, "offsets_lost",
    "acknowledged_lost", "leader_log_end", "acknowledged_missing",
    "salvage"}}, "best", "unclean", "diverged"}."""
    caches = {r["broker"]: loaded_cache(r["epochs"], r.get("log_start_offset"), r["log_end_offset"])
              for r in replicas}
    hws = [r["high_watermark"] for r in replicas if r.get("high_watermark") is not None]
    part_hw = max(hws) if hws else None
    elections = {}
    for c in replicas:
        fol = {}
        for f in replicas:
            if f is c:
                continue
            hw = loaded_hw(f)
            t, _ = follow(caches[c["broker"]], c["log_end_offset"], caches[f["broker"]], f["log_end_offset"], hw)
            fol[f["broker"]] = (t, f["log_end_offset"] - t, max(0, hw - t))
        end = c["log_end_offset"]
        missing = max(0, part_hw - end) if part_hw is not None else 0
        elections[c["broker"]] = {
            "followers": fol,
            "offsets_lost": max([v[1] for v in fol.values()] + [0]),
            "acknowledged_lost": max([v[2] for v in fol.values()] + [0]),
            "leader_log_end": end,
            "acknowledged_missing": missing,
            "salvage": None if copies is None else salvage(copies, end, part_hw if part_hw is not None else end,
                                                           [x for cc in caches.values() for x in cc.entries]),
        }
    known = isr is not None
    members = set(isr or []) | set(elr or [])
    best = min(elections, key=lambda b: (elections[b]["acknowledged_missing"], elections[b]["acknowledged_lost"],
                                         elections[b]["offsets_lost"], 0 if b in members else 1, b))
    return {
        "epochs": {b: c.entries for b, c in caches.items()},
        "elections": elections,
        "best": best,
        "unclean": (best not in members) if known else None,
        "diverged": diverged(replicas, caches),
    }


def epoch_at(entries, offset):
    e = None
    for ep, s in entries:
        if s <= offset:
            e = ep
    return e


def diverged(replicas, caches):
    """Two replicas' histories give an offset below both log ends (and at
    or above both log starts) different epochs."""
    for i, a in enumerate(replicas):
        for b in replicas[i + 1:]:
            ea, eb = caches[a["broker"]].entries, caches[b["broker"]].entries
            if not ea or not eb:
                continue
            end = min(a["log_end_offset"], b["log_end_offset"])
            lo = max(a.get("log_start_offset") or 0, b.get("log_start_offset") or 0)
            points = {lo} | {s for _, s in ea + eb if lo < s < end}
            for p in points:
                if p < end:
                    x, y = epoch_at(ea, p), epoch_at(eb, p)
                    if x is not None and y is not None and x != y:
                        return True
    return False


if __name__ == "__main__":
    d = json.load(sys.stdin)
    r = judge(d["replicas"], d.get("isr"), d.get("elr"), d.get("copies"))
    r["elections"] = {str(k): v for k, v in r["elections"].items()}
    r["epochs"] = {str(k): v for k, v in r["epochs"].items()}
    json.dump(r, sys.stdout, default=list)
    print()
