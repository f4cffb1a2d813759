#!/usr/bin/python3
"""test_offsets_view: what `offsets` says a commit means to the consumer
resuming from it (issue 22): log start and end from the committed partitions'
directories, lag, out_of_range and the offset_out_of_range problem with its
auto.offset.reset counts; coordinator_load_error (offsets and groups); rows
that may be stale behind damage, with the lost range's time window; expiry by
the coordinator's rule (--now, --offsets-retention-minutes); names that match
nothing; reset-csv notes; the text table's columns and alignment.

The data dirs are built in temporary directories with the Python encoders of
tools/gen (gen_offsets' record builders over coordfmt and kafkafmt) and the
expected values come from tools/model/offsets_view_model.py, both
independent of the C code.
"""
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import ROOT, TempDirTest, jsonl, run  # noqa: E402

sys.path[:0] = [os.path.join(ROOT, "tools", "gen"), os.path.join(ROOT, "tools", "model")]
import coordfmt as cf  # noqa: E402
import gen_offsets as go  # noqa: E402
import offsets_view_model as model  # noqa: E402

T = 1700000000000
MIN = 60000
TOPIC_ID = cf.uuid_str(bytes(range(16)))


def topic_log(topic, part, base, n, ts):
    """A topic partition whose log holds offsets base..base+n-1."""
    log = go.PartLog(topic, part)
    log.next = base
    log.segments = [(base, [])]
    for b in range(base, base + n, 10):
        k = min(10, base + n - b)
        log.data([(b"k%d" % (b + i), b"v", None) for i in range(k)], ts)
    return log


class ViewTest(TempDirTest):
    def setUp(self):
        super().setUp()
        self.w = go.Writer(self.tmp)
        self.dd = os.path.join(self.tmp, "dd")

    def offsets_log(self, batches, part=0):
        """__consumer_offsets-<part> of the data dir: one batch per [records] with its time."""
        log = go.PartLog("__consumer_offsets", part)
        for recs, ts in batches:
            log.data(recs, ts)
        return log

    def write(self, log):
        return self.w.partition("dd", log, TOPIC_ID)

    def offsets(self, *args):
        code, out, err = run("offsets", "--json", *args, self.dd)
        return code, jsonl(out, "offset"), jsonl(out, "problem"), err


class OutOfRange(ViewTest):
    def build(self):
        self.write(self.offsets_log([([go.OC("g", "t", 0, 3, 40, T), go.OC("g", "t", 1, 3, 130, T),
                                       go.OC("g", "t", 2, 3, 500, T), go.OC("g", "t", 3, 3, -1, T)], T)]))
        self.write(topic_log("t", 0, 100, 50, T))    # log start: its first segment's base
        self.write(topic_log("t", 1, 100, 50, T))    # raised by the checkpoint to 120
        self.write(topic_log("t", 2, 0, 50, T))
        self.write(topic_log("t", 3, 0, 10, T))
        self.w.write("dd/log-start-offset-checkpoint", "0\n1\nt 1 120\n")
        bounds = {0: ([(100, None)], 150), 1: ([(100, 120)], 150), 2: ([(0, None)], 50), 3: ([(0, None)], 10)}
        return {p: (model.log_start(c), end) for p, (c, end) in bounds.items()}

    def test_rows_and_problems_follow_the_model(self):
        bounds = self.build()
        code, rows, probs, err = self.offsets()
        self.assertEqual(code, 0, err)  # warnings only
        commits = {0: 40, 1: 130, 2: 500, 3: -1}
        want_probs = []
        for r in rows:
            start, end = bounds[r["partition"]]
            fields, counts = model.view(commits[r["partition"]], start, end)
            self.assertEqual({k: r[k] for k in fields}, fields, r)
            if counts:
                want_probs.append(dict(group="g", topic="t", partition=r["partition"], offset=r["offset"],
                                       log_start_offset=start, log_end_offset=end, **counts))
        self.assertEqual(len(rows), 4)
        got = [p for p in probs if p["code"] == "offset_out_of_range"]
        self.assertEqual([{k: p[k] for k in want_probs[0]} for p in got], want_probs)
        self.assertTrue(all(p["severity"] == "warning" for p in got))
        # one below the start (t-0), one past the end (t-2); the checkpoint's 120 keeps t-1 in range
        self.assertEqual([p["partition"] for p in got], [0, 2])

    def test_table_marks_the_column(self):
        self.build()
        code, out, err = run("offsets", self.dd)
        lines = out.splitlines()
        head = lines[0].split()
        self.assertEqual(head[5:9], ["LOG-START-OFFSET", "LOG-END-OFFSET", "LAG", "OUT-OF-RANGE"])
        cells = {int(l.split()[2]): l.split() for l in lines[1:]}
        self.assertEqual(cells[0][5:9], ["100", "150", "110", "BELOW-LOG-START"])
        self.assertEqual(cells[1][5:9], ["120", "150", "20", "-"])
        self.assertEqual(cells[2][5:9], ["0", "50", "-450", "ABOVE-LOG-END"])
        self.assertEqual(cells[3][5:9], ["0", "10", "-", "-"])
        # the commit time as UTC ISO 8601 next to the ms
        self.assertEqual(cells[0][9:11], ["2023-11-14T22:13:20.000Z", str(T)])
        self.assertIn("offset_out_of_range", err)

    def test_reset_csv_names_what_it_would_restore_as_is(self):
        self.build()
        code, out, err = run("offsets", "--format", "reset-csv", "--group", "g", self.dd)
        self.assertEqual(out, "t,0,40\nt,1,130\nt,2,500\nt,3,-1\n")
        notes = [l for l in err.splitlines() if "reset-csv" in l]
        self.assertEqual(len(notes), 3, err)
        self.assertIn("t-0: offset 40 is below the log start 100", notes[0])
        self.assertIn("t-2: offset 500 is past the log end 50", notes[1])
        self.assertIn("t-3: committed -1 (no position)", notes[2])


class LoadErrors(ViewTest):
    def build(self):
        good = go.OC("g", "t", 0, 3, 5, T)
        bad_value = (good[0], good[1][:-6], None)                # a known type cut short
        unknown = (b"\x00\x63" + b"\x00\x01g", b"\x00\x00", None)  # type 99: skipped
        tomb = go.OT("g", "t", 1)                                # a tombstone decodes
        self.write(self.offsets_log([([go.OC("g", "t", 1, 3, 7, T)], T),
                                     ([bad_value, unknown, tomb], T + MIN),
                                     ([go.OC("h", "t", 0, 3, 9, T + 2 * MIN)], T + 2 * MIN)], part=7))

    def check(self, probs):
        load = [p for p in probs if p["code"] == "coordinator_load_error"]
        self.assertEqual(len(load), 1, probs)
        p = load[0]
        self.assertEqual((p["severity"], p["offset"], p["source_partition"], p["decode_error"]),
                         ("error", 1, 7, "bad_record"))
        self.assertTrue(p["file"].endswith("__consumer_offsets-7/00000000000000000000.log"), p)
        self.assertEqual([x["code"] for x in probs if x["code"] == "unknown_record_type"], ["unknown_record_type"])

    def test_offsets_reports_it_and_goes_on(self):
        self.build()
        code, rows, probs, err = self.offsets()
        self.assertEqual(code, 1, err)
        self.check(probs)
        # replay went on: the tombstone after it deleted g/t/1, h's commit after it is there
        self.assertEqual([(r["group"], r["partition"], r["offset"]) for r in rows], [("h", 0, 9)])

    def test_groups_reports_it(self):
        self.build()
        code, out, err = run("groups", "--json", self.dd)
        self.assertEqual(code, 1, err)
        self.check(jsonl(out, "problem"))


class MayBeStale(ViewTest):
    def build(self):
        log = self.offsets_log([([go.OC("g", "t", 0, 3, 5, T)], T),
                                ([go.OC("g", "t", 1, 3, 7, T + MIN)], T + MIN),
                                ([go.OC("g", "t", 0, 3, 9, T + 2 * MIN)], T + 2 * MIN),
                                ([go.OC("h", "t", 0, 3, 3, T + 3 * MIN)], T + 3 * MIN)])
        batches = log.segments[0][1]
        damaged = bytearray(batches[2])
        damaged[-3] ^= 0xFF  # inside the records: the CRC no longer matches
        batches[2] = bytes(damaged)
        self.write(log)
        return 2  # the lost range ends at offset 2

    def test_rows_below_the_lost_range_are_marked(self):
        end = self.build()
        code, rows, probs, err = self.offsets()
        self.assertEqual(code, 1, err)
        got = {(r["group"], r["partition"]): (r["offset"], r["may_be_stale"]) for r in rows}
        want = {(r["group"], r["partition"]): (r["offset"], model.may_be_stale(r["source_offset"], [end]))
                for r in rows}
        self.assertEqual(got, want)
        self.assertEqual(got, {("g", 0): (5, True), ("g", 1): (7, True), ("h", 0): (3, False)})
        lost = [p for p in probs if p["code"] == "offsets_lost"]
        self.assertEqual([(p["first_timestamp"], p["last_timestamp"]) for p in lost], [(T + MIN, T + 3 * MIN)])

    def test_a_batch_whose_records_cannot_be_read_counts_too(self):
        import kafkafmt
        many = [go.OC("g", "t", 0, 3, 9, T + MIN, md="x" * 200) for _ in range(5)]
        log = self.offsets_log([([go.OC("g", "t", 0, 3, 5, T)], T)])
        log.data(many, T + MIN, codec="gzip")
        log.data([go.OC("h", "t", 0, 3, 3, T + 2 * MIN)], T + 2 * MIN)
        bad = bytearray(log.segments[0][1][1])
        mid = 61 + (len(bad) - 61) // 2
        bad[mid:mid + 16] = b"\xff" * 16  # inside the gzip stream: framing and CRC intact, records unreadable
        kafkafmt._fix_v2_crc(bad)
        log.segments[0][1][1] = bytes(bad)
        self.write(log)
        code, rows, probs, err = self.offsets()
        self.assertEqual(code, 1, err)
        self.assertNotIn("offsets_lost", [p["code"] for p in probs])
        self.assertTrue([p for p in probs if p["offset"] == 1 and p["severity"] == "error"], probs)
        self.assertEqual({(r["group"], r["offset"]): r["may_be_stale"] for r in rows}, {("g", 5): True, ("h", 3): False})

    def test_table_column(self):
        # issue 33 item 8: the column has its header
        self.build()
        code, out, err = run("offsets", self.dd)
        lines = out.splitlines()
        head = lines[0].split()
        col = head.index("MAY-BE-STALE")
        self.assertEqual(col, len(head) - 1)
        self.assertEqual([(l.split()[0] + l.split()[2], l.split()[col]) for l in lines[1:]],
                         [("g0", "yes"), ("g1", "yes"), ("h0", "no")])

    def test_lost_window_in_text(self):
        # issue 33 item 8: offsets_lost in text gives the window JSON has
        self.build()
        code, out, err = run("offsets", self.dd)
        (lost,) = [l for l in err.splitlines() if "offsets_lost" in l]
        self.assertIn("the lost commits were written after 2023-11-14T22:14:20.000Z and before "
                      "2023-11-14T22:16:20.000Z", lost)

    def test_reset_csv_notes_stale_rows(self):
        # issue 33 item 8: the reset file's notes name the rows that may be stale
        self.build()
        code, out, err = run("offsets", "--format", "reset-csv", "--group", "g", self.dd)
        self.assertEqual(out, "t,0,5\nt,1,7\n")
        notes = [l for l in err.splitlines() if "reset-csv" in l]
        self.assertEqual(len(notes), 2, err)
        self.assertIn("group 'g' t-0: offset 5 may be stale: __consumer_offsets-0 lost commits", notes[0])
        self.assertIn("group 'g' t-1: offset 7 may be stale", notes[1])


class Expiry(ViewTest):
    RET = 60  # minutes

    def build(self):
        m = "m-1"
        stable = go.GM("stable", 3, "consumer", 1, "range", m, [
            go.member(m, "c", "/h", 30000, go.sub(0, ["t"]), go.asg(0, [("t", [0])]), rebalance=60000)],
            state_ts=T)
        connect = go.GM("workers", 3, "connect", 1, "sessioned", m, [
            go.member(m, "c", "/h", 30000, b"\x00\x00", b"\x00\x00", rebalance=60000)], state_ts=T)
        empty = go.GM("empty", 2, "consumer", 4, None, None, [], state_ts=T + 30 * MIN)
        old = go.GM("old", 1, "consumer", 4, None, None, [])
        c848 = [go.R(3, go.K("kip848"), 0, {"Epoch": 1, "MetadataHash": 0}),
                go.R(5, go.K("kip848", "A"), 0, {"InstanceId": None, "RackId": None, "ClientId": "a",
                                                 "ClientHost": "/h", "SubscribedTopicNames": ["t"],
                                                 "SubscribedTopicRegex": None, "RebalanceTimeoutMs": 1,
                                                 "ServerAssignor": None})]
        commits = [go.OC(g, tp, 0, 3, 1, T) for g in ("stable", "workers", "empty", "old", "alone", "kip848")
                   for tp in ("t", "u")]
        commits.append(go.OC("v1", "t", 0, 1, 1, T, expire=T + 5 * MIN))
        self.write(self.offsets_log([([stable, connect, empty, old] + c848, T), (commits, T + 10 * MIN)]))
        sub = {"kind": "classic", "protocol_type": "consumer", "members": [["t"]]}
        return {"stable": sub, "workers": {"kind": "classic", "protocol_type": "connect", "members": [None]},
                "empty": {"kind": "classic", "protocol_type": "consumer", "members": [], "state_ts": T + 30 * MIN},
                "old": {"kind": "classic", "protocol_type": "consumer", "members": []},
                "alone": {"kind": "standalone"}, "v1": {"kind": "standalone"},
                "kip848": {"kind": "consumer", "members": [["t"]]}}

    def check(self, now, groups, rows, probs):
        want = {}
        for r in rows:
            at = model.expires_at(groups[r["group"]], r["topic"], T, r["expire_timestamp"], self.RET * MIN)
            want[(r["group"], r["topic"])] = (at, at is not None and at <= now)
        got = {(r["group"], r["topic"]): (r["expires_at"], r["expired"]) for r in rows}
        self.assertEqual(got, want)
        exp = [(p["group"], p["topic"], p["expires_at"]) for p in probs if p["code"] == "offset_expired"]
        self.assertEqual(exp, [(g, t, at) for (g, t), (at, e) in sorted(want.items()) if e])
        return got

    def test_expiry_follows_the_coordinator(self):
        groups = self.build()
        now = T + 65 * MIN
        code, rows, probs, err = self.offsets("--now", "2023-11-14T23:18:20Z", "--offsets-retention-minutes",
                                              str(self.RET))
        self.assertEqual(code, 0, err)
        got = self.check(now, groups, rows, probs)
        self.assertEqual(got[("stable", "t")], (None, False))       # subscribed by a member
        self.assertEqual(got[("stable", "u")], (T + 60 * MIN, True))
        self.assertEqual(got[("workers", "u")], (None, False))      # members, not "consumer"
        self.assertEqual(got[("empty", "t")], (T + 90 * MIN, False))  # from when it became empty
        self.assertEqual(got[("old", "t")], (T + 60 * MIN, True))   # no state time: the commit
        self.assertEqual(got[("v1", "t")], (T + 5 * MIN, True))     # its own expire timestamp
        self.assertEqual(got[("kip848", "t")], (None, False))

    def test_now_defaults_to_the_newest_batch(self):
        groups = self.build()
        code, rows, probs, err = self.offsets("--offsets-retention-minutes", str(self.RET))
        self.check(T + 10 * MIN, groups, rows, probs)
        self.assertEqual([p["group"] for p in probs if p["code"] == "offset_expired"], ["v1"])

    def test_default_retention_is_seven_days(self):
        groups = self.build()
        code, rows, probs, err = self.offsets("--now", str(T))
        self.assertEqual(next(r["expires_at"] for r in rows if r["group"] == "alone"), T + 10080 * MIN)

    def test_bad_retention_is_a_usage_error(self):
        self.build()
        code, out, err = run("offsets", "--offsets-retention-minutes", "0", self.dd)
        self.assertEqual(code, 2)
        self.assertIn("--offsets-retention-minutes needs a count of minutes from 1 to 2147483647", err)
        code, out, err = run("offsets", "--now", "yesterday", self.dd)
        self.assertEqual(code, 2)
        self.assertIn("--now needs epoch milliseconds or an ISO 8601 time", err)


class History(ViewTest):
    def test_changes_carry_the_bounds_not_the_table_fields(self):
        self.write(self.offsets_log([([go.OC("g", "t", 0, 3, 40, T)], T), ([go.OC("g", "t", 0, 3, 120, T + MIN)], T + MIN)]))
        self.write(topic_log("t", 0, 100, 50, T))
        code, out, err = run("offsets", "--json", "--history", self.dd)
        rows = jsonl(out, "offset")
        self.assertEqual([(r["offset"], r["out_of_range"], r["lag"]) for r in rows],
                         [(40, "below_log_start", 110), (120, None, 30)])
        self.assertTrue(all("may_be_stale" not in r and "expires_at" not in r for r in rows))
        # the table's own rows have them, and only the final commit counts as out of range or not
        code, out, err = run("offsets", "--json", self.dd)
        self.assertEqual([(r["offset"], r["may_be_stale"]) for r in jsonl(out, "offset")], [(120, False)])
        self.assertEqual(jsonl(out, "problem"), [])


class GroupsText(ViewTest):
    def test_times_and_durations_in_units(self):
        m = "m-1"
        self.write(self.offsets_log([([go.GM("g", 3, "consumer", 1, "range", m, [
            go.member(m, "c", "/h", 45000, go.sub(0, ["t"]), go.asg(0, [("t", [0])]), rebalance=300000)],
            state_ts=T)], T)]))
        code, out, err = run("groups", self.dd)
        self.assertEqual(code, 0, err)
        self.assertIn("current_state_timestamp: %d (2023-11-14T22:13:20.000Z)\n" % T, out)
        self.assertIn("session_timeout: 45000 (45s)\n", out)
        self.assertIn("rebalance_timeout: 300000 (5m00s)\n", out)
        # JSON keeps the milliseconds alone
        code, out, err = run("groups", "--json", self.dd)
        g = jsonl(out, "group")[0]
        self.assertEqual((g["current_state_timestamp"], g["members"][0]["session_timeout"]), (T, 45000))


class Names(ViewTest):
    def build(self):
        self.write(self.offsets_log([([go.OC("connect-my-sink", "orders", 0, 3, 5, T),
                                       go.OC("payments-app", "payments", 0, 3, 5, T)], T)]))

    def test_group_and_topic_matching_nothing(self):
        self.build()
        code, out, err = run("offsets", "--group", "my-sink", "--topic", "orders-0", self.dd)
        self.assertEqual(code, 0, err)
        self.assertIn("group 'my-sink' matches nothing", err)
        self.assertIn("'connect-my-sink' (a sink connector's group is connect-<name>)", err)
        self.assertIn("topic 'orders-0' matches nothing", err)
        self.assertIn("'orders' ('orders-0' is partition 0 of it)", err)
        code, out, err = run("groups", "--group", "payments-ap", self.dd)
        self.assertIn("group 'payments-ap' matches nothing", err)
        self.assertIn("'payments-app'", err)
        # a name that matches says nothing
        code, out, err = run("offsets", "--group", "connect-my-sink", self.dd)
        self.assertNotIn("matches nothing", err)


class Alignment(ViewTest):
    def test_wide_names_keep_the_columns(self):
        self.write(self.offsets_log([([go.OC("grüße-日本語", "t", 0, 3, 5, T),
                                       go.OC("plain", "注文", 0, 3, 6, T)], T)]))
        code, out, err = run("offsets", self.dd)
        lines = out.splitlines()
        self.assertEqual(len(lines), 3, out)

        def width(s):  # East Asian wide characters take two terminal columns
            return sum(2 if "\u3000" <= ch <= "\u9fff" else 1 for ch in s)

        def column_ends(line):  # where each of the first columns ends, in terminal columns
            return [width(line[:m.end()]) for m in list(re.finditer(r"\S+", line))[:5]]

        # right-aligned columns end where the header's do; TOPIC starts at one column
        ends = [column_ends(l) for l in lines]
        self.assertEqual({tuple(e[2:5]) for e in ends}, {tuple(ends[0][2:5])}, lines)
        starts = {width(l[:re.search(r"\s\S", l).end() - 1]) for l in lines}
        self.assertEqual(len(starts), 1, lines)


class CommitInDamage(ViewTest):
    """Issue 33 item 7: a group's next read lies in damage of the committed
    partition: which group, partition and offset, where the damage ends, the
    kafka-consumer-groups.sh --reset-offsets --to-offset that skips it and how
    many offsets it skips."""

    def build(self, commits, copy=False):
        self.write(self.offsets_log([([go.OC("sink-group", "orders", 0, 3, off, T)], T) for off in commits]))
        log = topic_log("orders", 0, 0, 30, T)   # batches 0-9, 10-19, 20-29
        batches = log.segments[0][1]
        self.intact = list(batches)
        bad = bytearray(batches[1])
        bad[-3] ^= 0xFF                          # batch 10-19: its CRC no longer matches
        batches[1] = bytes(bad)
        self.write(log)
        if copy:                                 # a second broker's copy holds 10-19 intact
            log.segments[0] = (0, self.intact)
            go.Writer(self.tmp).partition("dd2", log, TOPIC_ID)

    def damage(self, *paths):
        code, out, err = run("offsets", "--json", *(paths or [self.dd]))
        return [p for p in jsonl(out, "problem") if p["code"] == "committed_offset_damaged"]

    def test_inside_the_damage(self):
        for committed in (10, 15, 19):
            with self.subTest(committed=committed):
                self.setUp()
                self.build([committed])
                (p,) = self.damage()
                self.assertEqual((p["severity"], p["group"], p["topic"], p["partition"], p["offset"]),
                                 ("warning", "sink-group", "orders", 0, committed))
                self.assertEqual((p["damage_last_offset"], p["next_offset"], p["offsets_skipped"]),
                                 (19, 20, 20 - committed))
                self.assertEqual(p["reset_command"],
                                 "kafka-consumer-groups.sh --bootstrap-server BROKER:9092 --group sink-group "
                                 "--topic orders:0 --reset-offsets --to-offset 20 --execute")
                code, out, err = run("offsets", self.dd)
                self.assertIn("sink-group: orders-0 committed %d lies in damage" % committed, err)
                self.assertIn("the damage ends at 19: --reset-offsets --to-offset 20 skips %d offsets"
                              % (20 - committed), err)
                self.assertIn("    kafka-consumer-groups.sh --bootstrap-server BROKER:9092 --group sink-group "
                              "--topic orders:0 --reset-offsets --to-offset 20 --execute\n", err)
                self.tearDown()

    def test_outside_the_damage_or_covered_by_a_copy(self):
        for committed in (0, 9, 20, 25, 30):
            with self.subTest(committed=committed):
                self.setUp()
                self.build([committed])
                self.assertEqual(self.damage(), [])
                self.tearDown()
        self.setUp()
        self.build([15], copy=True)
        self.assertEqual(len(self.damage()), 1)
        self.assertEqual(self.damage(self.dd, os.path.join(self.tmp, "dd2", "orders-0")), [])

    def test_names_are_quoted_for_the_shell(self):
        self.write(self.offsets_log([([go.OC("it's a group", "orders", 0, 3, 12, T)], T)]))
        log = topic_log("orders", 0, 0, 30, T)
        bad = bytearray(log.segments[0][1][1])
        bad[-3] ^= 0xFF
        log.segments[0][1][1] = bytes(bad)
        self.write(log)
        (p,) = self.damage()
        self.assertIn("--group 'it'\\''s a group' --topic orders:0", p["reset_command"])

    def test_hostile_group_name_is_escaped_and_quoted(self):
        """Issue 37 item 2: a group id holding ESC[2J, a newline and BEL: the
        problem line shows it escaped, the suggested command quotes it in
        bash's $'...' so that the terminal sees no control and the paste
        names the group exactly."""
        group = "g\x1b[2J\nFAKE\x07'x"
        self.write(self.offsets_log([([go.OC(group, "orders", 0, 3, 12, T)], T)]))
        log = topic_log("orders", 0, 0, 30, T)
        bad = bytearray(log.segments[0][1][1])
        bad[-3] ^= 0xFF
        log.segments[0][1][1] = bytes(bad)
        self.write(log)
        code, out, err = run("offsets", self.dd)
        self.assertNotRegex(out + err, "[\x00-\x08\x0b-\x1f\x7f]")
        self.assertIn("group g\\x1b[2J\\nFAKE\\x07'x: orders-0 committed 12 lies in damage", err)
        (cmd,) = [l.strip() for l in err.splitlines() if l.strip().startswith("kafka-consumer-groups.sh")]
        self.assertIn("--group $'g\\x1b[2J\\x0aFAKE\\x07\\'x' --topic orders:0", cmd)
        words = subprocess.run(["bash", "-c", 'f() { printf "%s\\0" "$@"; }; f ' + cmd], stdout=subprocess.PIPE,
                               check=True).stdout.split(b"\0")
        self.assertEqual(words[words.index(b"--group") + 1], group.encode())


class TopicIds(ViewTest):
    """Issue 34 item 2: offsets gives a commit without a topic id its topic's id
    from the one topic-name table groups uses (kf_topic_names): here the
    partition.metadata of the topic's directory among the inputs."""

    def test_from_partition_metadata(self):
        self.write(self.offsets_log([([go.OC("g", "t", 0, 3, 5, T), go.OC("g", "u", 0, 3, 6, T)], T)]))
        self.write(topic_log("t", 0, 0, 10, T))
        code, out, err = run("offsets", "--json", self.dd)
        rows = {r["topic"]: r for r in jsonl(out, "offset")}
        self.assertEqual(rows["t"]["topic_id"], TOPIC_ID)
        self.assertNotIn("topic_id", rows["u"])  # no input names u's id
        code, out, err = run("offsets", "--json", "--history", self.dd)
        self.assertEqual([r.get("topic_id") for r in jsonl(out, "offset")], [TOPIC_ID, None])


if __name__ == "__main__":
    unittest.main()
