"""merge_model: what `kfsck merge` must produce from copies of a partition,
computed from the contract (cli.md, merge; docs/kfsck.1) over the facts the
fixture generator knows, for the expected values in
fixtures/replicas/MANIFEST.json. Independent of the C code: it works on
whole lists (not streams) and is written from the rules:

  - every intact batch of every copy is a candidate, unless its history was
    discarded: a batch of leader epoch e >= 0 whose last offset is at or
    past the start of an epoch above e (the earliest start any copy shows,
    from its batches or from its leader-epoch-checkpoint entries that its
    own batches reach) is divergent and never taken;
  - in offset order, the candidate with the lowest first offset is taken
    (then the higher epoch, then the copy given first); batches of other
    copies over offsets already taken are left out, except those holding
    the very bytes taken;
  - conflicts: left-out batches, sorted by first offset, in runs of touching
    or overlapping offsets; chosen: the copy whose taken batch covers the
    run's first offset (with its epoch, as have the copies holding the same
    bytes), else the copy that showed the epoch that made the first batch
    divergent; leader_epochs: per copy, its epoch at the run's start
    (chosen) or its first left-out batch's epoch in the run;
  - holes: each gap in the taken offsets (before the first, between two,
    after the last) that some window overlaps, cut to the span of the
    windows overlapping it (open when one of them is); windows: a copy's
    damaged ranges and every left-out batch's offsets; damage of unknown
    extent at a copy's end counts only for the gap where it starts;
  - output segments start at the greatest input base offset at or below a
    batch's first offset that is past the last offset written.

Copies are dicts: {"batches": [{"first", "last", "epoch", "data"}] (the
intact ones, in offset order), "windows": [(lo, hi or None)] (damage),
"checkpoint": [(epoch, start)], "bases": [segment bases]}."""

INF = float("inf")


def _evidence(copies):
    ev = {}

    def note(epoch, start, ci):
        if epoch < 0:
            return
        if epoch not in ev or (start, ci) < ev[epoch]:
            ev[epoch] = (start, ci)
    for ci, c in enumerate(copies):
        for b in c["batches"]:
            note(b["epoch"], b["first"], ci)
        reach = max((b["last"] for b in c["batches"]), default=None)
        for epoch, start in c.get("checkpoint", []):
            if reach is not None and reach >= start:
                note(epoch, start, ci)
    return ev


def _divergent_by(ev, epoch, last):
    """(epoch, start, copy) of the highest epoch above `epoch` starting at or before last."""
    if epoch < 0:
        return None
    best = None
    for e, (start, ci) in ev.items():
        if e > epoch and start <= last and (best is None or e > best[0]):
            best = (e, start, ci)
    return best


def merge(copies):
    ev = _evidence(copies)
    allb = [(b["first"], ci, b) for ci, c in enumerate(copies) for b in c["batches"]]
    cands = [(f, ci, b) for f, ci, b in allb if not _divergent_by(ev, b["epoch"], b["last"])]
    taken = []
    nxt = -INF
    while True:
        avail = [x for x in cands if x[0] >= nxt]
        if not avail:
            break
        f, ci, b = min(avail, key=lambda x: (x[0], -x[2]["epoch"], x[1]))
        taken.append((ci, b))
        nxt = b["last"] + 1
    taken_ids = {id(b) for _, b in taken}

    def agrees(b):
        return any(t["first"] == b["first"] and t["data"] == b["data"] for _, t in taken)
    left = sorted([(f, ci, b) for f, ci, b in allb if id(b) not in taken_ids and not agrees(b)],
                  key=lambda x: (x[0], x[1]))

    # conflicts
    runs = []
    for f, ci, b in left:
        if runs and f <= runs[-1]["end"] + 1:
            r = runs[-1]
            r["end"] = max(r["end"], b["last"])
        else:
            r = {"start": f, "end": b["last"], "has": {}}
            cover = [(tci, t) for tci, t in taken if t["first"] <= f <= t["last"]]
            if cover:
                tci, t = cover[0]
                r["chosen"] = tci
                for ci2, c2 in enumerate(copies):
                    if ci2 == tci or any(x["first"] == t["first"] and x["data"] == t["data"]
                                         for x in c2["batches"]):
                        r["has"][ci2] = t["epoch"]
            else:
                d = _divergent_by(ev, b["epoch"], b["last"])
                r["chosen"] = d[2] if d else ci
                if d:
                    r["has"][d[2]] = d[0]
            runs.append(r)
        r["has"].setdefault(ci, b["epoch"])
    conflicts = [{"start_offset": r["start"], "end_offset": r["end"], "chosen": r["chosen"],
                  "leader_epochs": [r["has"].get(i) for i in range(len(copies))]} for r in runs]

    # holes
    windows = [(lo, INF if hi is None else hi) for c in copies for lo, hi in c["windows"] if hi is None or hi >= lo]
    windows += [(f, b["last"]) for f, _, b in left]
    gaps = []
    prev = -INF
    for _, t in taken:
        if t["first"] > prev:
            gaps.append((prev, t["first"] - 1, False))
        prev = t["last"] + 1
    gaps.append((prev, INF, True))
    holes = []
    for lo, hi, end in gaps:
        # damage of unknown extent at a copy's end: only a gap where it starts
        ws = [w for w in windows if w[1] >= lo and (end or w[0] <= hi) and (w[1] != INF or w[0] >= lo)]
        if not ws:
            continue
        start = max(lo, min(w[0] for w in ws))
        top = max(w[1] for w in ws)
        if end:
            holes.append({"start_offset": start, "end_offset": None if top == INF else top})
        else:
            holes.append({"start_offset": start, "end_offset": min(hi, top)})

    # output segments
    bases = sorted({b for c in copies for b in c["bases"]})
    out = []
    seg = None
    last = None
    for ci, t in taken:
        target = seg
        for base in bases:
            if base <= t["first"] and (target is None or base > target) and (last is None or base > last):
                target = base
        if target is None:
            target = t["first"]
        seg = target
        last = t["last"]
        out.append({"segment": seg, "copy": ci, "base_offset": t["first"], "last_offset": t["last"],
                    "leader_epoch": t["epoch"]})
    return {"batches": out, "conflicts": conflicts, "holes": holes}
