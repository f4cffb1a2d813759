#!/usr/bin/python3
"""offsets_view_model: what a committed offset means to the consumer resuming
from it, written from Kafka's rules independently of kfsck's C code (the
expectations of tests/e2e/test_offsets_view.py).

- Log start (UnifiedLog / LogLoader): the larger of the data dir's
  log-start-offset-checkpoint entry and the first segment's base offset;
  over several copies, the lowest.
- Out of range (the fetch path's OFFSET_OUT_OF_RANGE, then the consumer's
  auto.offset.reset): below the log start, `earliest` skips log_start - offset
  records and `latest` log_end - offset; past the log end, `earliest` reads
  log_end - log_start again. A committed -1 is "no position": neither lag nor
  a range.
- Lag (kafka-consumer-groups.sh --describe, ConsumerGroupCommand): the log end
  offset minus the committed offset whenever both are known, below the log
  start too (issue 33 item 2).
- Staleness: a row whose source_offset lies below the end of a range of its
  __consumer_offsets partition that no copy holds intact may have been
  committed again inside that range.
- Expiry (KIP-211: ClassicGroup/ConsumerGroup.offsetExpirationCondition,
  OffsetExpirationConditionImpl, OffsetMetadataManager.cleanupExpiredOffsets):
  see expires_at.
"""


def log_start(copies):
    """copies: [(first segment base offset or None, checkpoint entry or None)]."""
    starts = []
    for base, ckpt in copies:
        known = [x for x in (base, ckpt) if x is not None]
        if known:
            starts.append(max(known))
    return min(starts) if starts else None


def view(offset, start, end):
    """The JSON fields log_start_offset, log_end_offset, lag, out_of_range of a
    commit, and the offset_out_of_range counts (None when in range)."""
    row = {"log_start_offset": start, "log_end_offset": end,
           "lag": end - offset if offset >= 0 else None, "out_of_range": None}
    counts = None
    if 0 <= offset < start:
        row["out_of_range"] = "below_log_start"
        counts = {"records_skipped_if_earliest": start - offset, "records_skipped_if_latest": end - offset,
                  "records_reread_if_earliest": 0}
    elif offset > end:
        row["out_of_range"] = "above_log_end"
        counts = {"records_skipped_if_earliest": 0, "records_skipped_if_latest": 0,
                  "records_reread_if_earliest": end - start}
    return row, counts


def may_be_stale(source_offset, lost_ends):
    """lost_ends: the inclusive end offsets of the partition's lost ranges
    (None: a range open to the end of the log)."""
    return any(e is None or source_offset < e for e in lost_ends)


def expires_at(group, topic, commit_ms, expire_ms, retention_ms):
    """When the coordinator's cleanup deletes the offset (None: never).

    group: {"kind": "classic"|"consumer"|"standalone", "protocol_type": str or
    None, "members": [subscribed topic lists, None for one that does not
    decode], "state_ts": current_state_timestamp or None}. A group known only
    from its commits is "standalone"."""
    kind = group["kind"]
    members = group.get("members") or []
    subscribed = set()
    if kind == "standalone" or (kind == "classic" and not group.get("protocol_type")):
        base = commit_ms                                  # a simple consumer: from the commit
    elif kind == "classic" and not members:
        st = group.get("state_ts")
        base = st if st is not None and st >= 0 else commit_ms   # empty: from when it became empty
    elif kind == "classic":
        if group["protocol_type"] != "consumer" or any(m is None for m in members):
            return None                                   # no condition: nothing expires
        subscribed = {t for m in members for t in m}
        base = commit_ms
    else:                                                 # consumer groups
        subscribed = {t for m in members for t in (m or [])}
        base = commit_ms
    if topic in subscribed:
        return None                                       # an active subscription never expires
    if expire_ms is not None and expire_ms >= 0:
        return expire_ms                                  # a v1 value's own expire timestamp
    return base + retention_ms


if __name__ == "__main__":
    assert log_start([(100, None)]) == 100 and log_start([(100, 120), (110, None)]) == 110
    assert view(40, 100, 150)[1]["records_skipped_if_latest"] == 110
    assert view(-1, 0, 10)[0]["lag"] is None and view(40, 100, 150)[0]["lag"] == 110
    g = {"kind": "classic", "protocol_type": "consumer", "members": [["t"]]}
    assert expires_at(g, "t", 0, -1, 10) is None and expires_at(g, "u", 0, -1, 10) == 10
    print("ok")
