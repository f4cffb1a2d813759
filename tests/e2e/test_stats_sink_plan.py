#!/usr/bin/python3
"""End-to-end tests of the sink catch-up simulation's planning options
(docs/kfsck.1, stats: --rotate-schedule-interval with --catch-up-rate,
--from-group, --tasks, --heap, sink_summary.tasks and the sink_verdict line,
the suggestion's levers and the model paragraph of the text output).

The expected figures come from tools/model/sink_model.py (the contract's
model, independent of kfsck) on the sink fixtures (fixtures/sink/) and on
data dirs built here with the Python encoders of tools/gen/.
"""
import os
import shutil
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, ROOT, TempDirTest, jsonl, of_type, run  # noqa: E402
from test_stats_sink import assert_usage_errors  # noqa: E402

sys.path[:0] = [os.path.join(ROOT, "tools", "gen"), os.path.join(ROOT, "tools", "model")]
import gen_offsets as go  # noqa: E402
import gen_sink  # noqa: E402
import sink_model  # noqa: E402

MIB = 1 << 20
HOUR = 3600000
EVENTS = ["sink/datadir/events-0", "sink/datadir/events-1", "sink/datadir/events-2"]


def sink(*extra, duration="10m", flush="50"):
    return ["stats", "--json", "--sink-partition-duration", duration, "--flush-size", flush, *extra]


def expect(rel, duration, flush, **kw):
    return sink_model.expect_dir(os.path.join(FIX, rel), duration, flush, **kw)


class RotateSchedule(unittest.TestCase):
    # (interval option, interval ms, --catch-up-rate or None, flush.size, rotate.interval.ms or None)
    COMBOS = [
        ("1s", 1000, "30", 50, None),
        ("1s", 1000, "7", 1000, None),
        ("2s", 2000, "25", 40, None),
        ("500ms", 500, "3", 100, None),     # 1.5 records: 1 record between scheduled commits
        ("1m", 60000, "1", 200, None),
        ("1s", 1000, "20", 50, 1800000),
        ("10m", 600000, None, 50, None),    # the default rate, 1000/s: 600000 records, never here
    ]

    def test_figures_follow_the_model(self):
        for opt, ms, rate, flush, rot in self.COMBOS:
            extra = ["--rotate-schedule-interval", opt] + (["--catch-up-rate", rate] if rate else [])
            if rot:
                extra += ["--rotate-interval", str(rot)]
            k = sink_model.schedule_records(ms, int(rate) if rate else 1000)
            for rel in EVENTS + ["sink/datadir/legacy-0"]:
                with self.subTest(partition=rel, interval=opt, rate=rate, flush=flush, rotate=rot):
                    code, out, err = run(*sink(*extra, flush=str(flush)), rel)
                    self.assertEqual(code, 0, err)
                    lines = jsonl(out)
                    p = of_type(lines, "sink_partition")[0]
                    e = expect(rel, 600000, flush, rotate=rot, schedule=k)
                    sim = e["sim"]
                    self.assertEqual((p["files_committed"], p["peak_open_files"], p["peak_at_offset"],
                                      p["open_files_at_end"], p["records_written"]),
                                     (sim["committed"], sim["peak"], sim["peak_at"], sim["open"], sim["written"]))
                    s = of_type(lines, "sink_summary")[0]
                    self.assertEqual(s["rotate_schedule_interval_ms"], ms)
                    self.assertEqual(s["catch_up_rate"], int(rate) if rate else 1000)
                    if not rot:
                        self.assertEqual((s["with_rotate_interval"]["peak_open_files"],
                                          s["with_rotate_interval"]["files_committed"]),
                                         (e["alt_rotate"]["peak"], e["alt_rotate"]["committed"]))
                        self.assertEqual((s["with_smaller_flush_size"]["peak_open_files"],
                                          s["with_smaller_flush_size"]["files_committed"]),
                                         (e["alt_flush"]["peak"], e["alt_flush"]["committed"]))

    def test_the_schedule_lowers_the_peak_of_late_data(self):
        rel = "sink/datadir/events-2"
        plain = expect(rel, 600000, 200)["sim"]
        sched = expect(rel, 600000, 200, schedule=sink_model.schedule_records(1000, 20))["sim"]
        self.assertLess(sched["peak"], plain["peak"])
        self.assertGreater(sched["committed"], plain["committed"])
        code, out, _ = run(*sink("--rotate-schedule-interval", "1s", "--catch-up-rate", "20", flush="200"), rel)
        self.assertEqual(code, 0)
        self.assertEqual(of_type(jsonl(out), "sink_partition")[0]["peak_open_files"], sched["peak"])

    def test_without_the_option_the_fields_are_null(self):
        code, out, _ = run(*sink(), "sink/datadir/events-0")
        self.assertEqual(code, 0)
        s = of_type(jsonl(out), "sink_summary")[0]
        self.assertIsNone(s["rotate_schedule_interval_ms"])
        self.assertIsNone(s["catch_up_rate"])

    def test_text_states_the_rate_and_its_default(self):
        base = ["stats", "--sink-partition-duration", "10m", "--flush-size", "50", "--rotate-schedule-interval"]
        code, out, _ = run(*base, "10m", "sink/datadir/events-0")
        self.assertEqual(code, 0)
        self.assertIn("rotate.schedule.interval.ms=600000 at a catch-up rate of 1000 records/s per partition "
                      "(the default; --catch-up-rate): a scheduled commit every 600000 records", out)
        code, out, _ = run(*base, "1s", "--catch-up-rate", "30", "sink/datadir/events-0")
        self.assertEqual(code, 0)
        self.assertIn("at a catch-up rate of 30 records/s per partition: a scheduled commit every 30 records", out)
        code, out, _ = run("stats", "--help")
        self.assertIn("--rotate-schedule-interval", out)
        self.assertIn("--catch-up-rate N       records/s per partition while catching up (default 1000)", out)

    def test_usage_errors(self):
        p = "sink/datadir/events-0"
        d = ["--sink-partition-duration", "10m", "--flush-size", "50"]
        bad = [
            ["--rotate-schedule-interval", "10m", p],                       # no --sink-partition-duration
            ["--catch-up-rate", "100", p],
            d + ["--catch-up-rate", "100", p],                              # no --rotate-schedule-interval
            d + ["--rotate-schedule-interval", "0", p],
            d + ["--rotate-schedule-interval", "-1m", p],
            d + ["--rotate-schedule-interval", "10x", p],
            d + ["--rotate-schedule-interval", "10m", "--catch-up-rate", "0", p],
            d + ["--rotate-schedule-interval", "10m", "--catch-up-rate", "-3", p],
            d + ["--rotate-schedule-interval", "10m", "--catch-up-rate", "1k", p],
            d + ["--rotate-schedule-interval", p],                          # its value is the path: no PATH
        ]
        assert_usage_errors(self, bad)


class TasksAndHeap(unittest.TestCase):
    ALL = EVENTS + ["sink/datadir/legacy-0"]

    def figures(self, flush, part=25 * MIB):
        """{(topic, partition): peak} of the data dir, from the model."""
        out = {}
        for rel in self.ALL:
            topic, num = os.path.basename(rel).rsplit("-", 1)
            out[(topic, int(num))] = expect(rel, 600000, flush)["sim"]["peak"]
        return out

    def test_tasks_and_verdict_follow_the_model(self):
        for tasks in (1, 2, 3, 4, 7):
            for heap in (None, "1g", "24GiB", "500M", "104857600"):
                with self.subTest(tasks=tasks, heap=heap):
                    extra = ["--tasks", str(tasks)] + (["--heap", heap] if heap else [])
                    code, out, err = run(*sink(*extra, flush="40"), "sink/datadir")
                    self.assertEqual(code, 0, err)
                    lines = jsonl(out)
                    self.assertEqual([x["type"] for x in lines][-1], "sink_verdict")
                    self.assertEqual(len(of_type(lines, "sink_verdict")), 1)
                    peaks = self.figures(40)
                    assignment = sink_model.assign_tasks(peaks, tasks)
                    for s in of_type(lines, "sink_summary"):
                        self.assertEqual(s["tasks"], sink_model.task_table(peaks, assignment, s["topic"], tasks,
                                                                           25 * MIB))
                    heap_bytes = {None: None, "1g": 1 << 30, "24GiB": 24 << 30, "500M": 500 * MIB,
                                  "104857600": 104857600}[heap]
                    v = of_type(lines, "sink_verdict")[0]
                    want = sink_model.verdict(sum(peaks.values()), 25 * MIB, heap_bytes)
                    self.assertEqual({k: v[k] for k in want}, want)
                    self.assertEqual((v["tasks"], v["partitions"], v["peak_open_files"]),
                                     (tasks, 4, sum(peaks.values())))

    def test_round_robin_runs_across_topics(self):
        # events-0, -1, -2 and legacy-0 in (topic, partition) order: legacy-0 is
        # the fourth partition, task 1 of 3
        code, out, _ = run(*sink("--tasks", "3"), "sink/datadir")
        self.assertEqual(code, 0)
        s = {x["topic"]: x for x in of_type(jsonl(out), "sink_summary")}
        self.assertEqual([t["partitions"] for t in s["events"]["tasks"]], [1, 1, 1])
        self.assertEqual([t["partitions"] for t in s["legacy"]["tasks"]], [1, 0, 0])
        self.assertEqual([t["task"] for t in s["legacy"]["tasks"]], [0, 1, 2])

    def test_heap_suffixes(self):
        for arg, n in (("24GiB", 24 << 30), ("24g", 24 << 30), ("24G", 24 << 30), ("24GB", 24 << 30),
                       ("512m", 512 * MIB), ("64K", 64 << 10), ("1000", 1000)):
            with self.subTest(heap=arg):
                code, out, _ = run(*sink("--heap", arg), "sink/datadir/events-0")
                self.assertEqual(code, 0)
                self.assertEqual(of_type(jsonl(out), "sink_verdict")[0]["heap"], n)

    def test_the_sum_of_the_tasks_decides(self):
        # each task's share fits, their sum (one worker's heap) does not
        peaks = self.figures(50)
        total = sum(peaks.values()) * 25 * MIB
        code, out, _ = run(*sink("--tasks", "4", "--heap", str(total - 1)), "sink/datadir")
        v = of_type(jsonl(out), "sink_verdict")[0]
        self.assertEqual((v["verdict"], v["peak_buffer_bytes"]), ("exceeds", total))
        code, out, _ = run(*sink("--tasks", "4", "--heap", str(total)), "sink/datadir")
        self.assertEqual(of_type(jsonl(out), "sink_verdict")[0]["verdict"], "fits")

    def test_text(self):
        base = ["stats", "--sink-partition-duration", "10m", "--flush-size", "50"]
        code, out, _ = run(*base, "--tasks", "2", "--heap", "24g", "sink/datadir")
        self.assertEqual(code, 0)
        peaks = self.figures(50)
        self.assertIn("for the 2 tasks of one worker", out)
        e0 = peaks[("events", 0)] + peaks[("events", 2)]
        self.assertIn("    task 0: 2 partitions, at most %d open files = " % e0, out)
        total = sum(peaks.values())
        self.assertIn("verdict: 4 partitions in 2 tasks of one worker (they share its heap): at most %d open files = "
                      % total, out)
        self.assertIn("fits the 24.0 GiB heap", out)
        code, out, _ = run(*base, "sink/datadir/events-0")
        self.assertIn("no heap given (--heap)", out)
        self.assertNotIn("    task 0:", out)

    def test_usage_errors(self):
        p = "sink/datadir/events-0"
        d = ["--sink-partition-duration", "10m", "--flush-size", "50"]
        assert_usage_errors(self, [["--tasks", "2", p], ["--heap", "1g", p], d + ["--tasks", "0", p],
                                   d + ["--tasks", "-1", p], d + ["--tasks", "65537", p], d + ["--tasks", "two", p],
                                   d + ["--heap", "0", p], d + ["--heap", "-1g", p], d + ["--heap", "1t", p],
                                   d + ["--heap", "g", p]])
        code, out, _ = run("stats", "--json", *d, "--tasks", "65536", p)
        self.assertEqual(code, 0)
        self.assertEqual(len(of_type(jsonl(out), "sink_summary")[0]["tasks"]), 65536)


class Levers(unittest.TestCase):
    # (flush.size, --heap bytes or None, --part-size bytes, rotate ms or None, scheduled records or None)
    COMBOS = [
        (50, None, 25 * MIB, None, None),
        (50, 300 * MIB, 25 * MIB, None, None),
        (50, 100 * MIB, 25 * MIB, None, None),
        (50, 10 * MIB, 25 * MIB, None, None),        # nothing fits, not even one partition a worker
        (200, 400 * MIB, 25 * MIB, None, None),
        (200, 1 << 30, 25 * MIB, None, None),        # fits: nothing to change
        (1, None, 25 * MIB, None, None),             # flush.size 1: no smaller flush.size
        (50, 200 * MIB, 5 * MIB, None, None),        # at the minimum part size already
        (50, 60 * MIB, 8 * MIB, None, None),
        (50, None, 25 * MIB, 600000, None),          # rotation given
        (50, 150 * MIB, 25 * MIB, None, 30),         # with a schedule (1s x 30 records/s)
    ]

    def test_levers_follow_the_model(self):
        for flush, heap, part, rot, sched in self.COMBOS:
            with self.subTest(flush=flush, heap=heap, part=part, rotate=rot, schedule=sched):
                extra = ["--part-size", str(part)]
                if heap is not None:
                    extra += ["--heap", str(heap)]
                if rot:
                    extra += ["--rotate-interval", str(rot)]
                if sched:
                    extra += ["--rotate-schedule-interval", "1s", "--catch-up-rate", str(sched)]
                code, out, err = run(*sink(*extra, flush=str(flush)), "sink/datadir")
                self.assertEqual(code, 0, err)
                lines = jsonl(out)
                exps = [expect(rel, 600000, flush, rotate=rot, schedule=sched) for rel in EVENTS]
                sim, alt_r, alt_f = sink_model.topic_sums(exps)
                want = sink_model.levers(sim, alt_r, alt_f, flush, 600000, rot, part, heap,
                                         [e["sim"]["peak"] for e in exps])
                s = {x["topic"]: x for x in of_type(lines, "sink_summary")}["events"]
                self.assertEqual(s["levers"], want)
                sug = s["suggestion"]
                if heap is not None and sim["peak"] * part < heap:
                    self.assertTrue(sug.startswith("nothing to change: at most %d open files" % sim["peak"]), sug)
                    self.assertIn("if every partition peaks at once, within the ", sug)
                    continue
                self.assertNotIn("nothing to change", sug)
                # rotation and a smaller flush.size are offered when rotation lowers the peak
                lowers = any(lv["setting"] == "rotate.interval.ms" and lv["peak_open_files"] < sim["peak"]
                             for lv in want)
                offered = [lv for lv in want if lowers or lv["setting"] not in ("rotate.interval.ms", "flush.size")]
                for lv in offered:
                    name = {"rotate.interval.ms": "rotate.interval.ms (e.g. %d" % lv["value"],
                            "flush.size": "flush.size to %d: at most %d open file" % (lv["value"],
                                                                                      lv["peak_open_files"]),
                            "s3.part.size": "s3.part.size=%d MiB" % (lv["value"] // MIB),
                            "tasks.max": "tasks.max=%d on %d workers" % (lv["value"], lv["value"])}[lv["setting"]]
                    self.assertIn(name, sug)
                    if lv["setting"] == "tasks.max":
                        self.assertIn("the largest task holds at most %d open file" % lv["peak_open_files"], sug)
                tiny = [lv for lv in offered
                        if lv["tiny_files"] and lv["setting"] in ("rotate.interval.ms", "flush.size")]
                if tiny:
                    self.assertIn("files of %d records on average: files of fewer than 1,000 records flood "
                                  "object storage" % tiny[0]["records_per_file"], sug)
                if heap is not None:
                    self.assertTrue(("fits the" in sug) or ("still over the" in sug) or ("fills the" in sug), sug)

    def test_files_below_1000_records_are_flagged(self):
        # 400 records: every file a lever writes holds fewer than 1,000 (the seed
        # example's data, SeedExample, has larger files)
        code, out, _ = run(*sink(flush="100"), "sink/datadir/events-0")
        s = of_type(jsonl(out), "sink_summary")[0]
        self.assertEqual([lv["setting"] for lv in s["levers"]],
                         ["rotate.interval.ms", "flush.size", "s3.part.size"])
        self.assertTrue(all(lv["tiny_files"] and lv["records_per_file"] < 1000 for lv in s["levers"]))


class BoundsAndRoom(unittest.TestCase):
    """The topic's and the worker's figure is the sum of every partition's own
    peak: an upper bound, said so in words; the tasks.max lever never offers
    fewer tasks than --tasks; buffers that fill the heap exactly "fit" only by
    the JSON rule (at most the heap): the words say they leave nothing for
    the worker, and the levers that choose a value against the heap choose
    one that stays below it."""
    EVENTS = [os.path.join(FIX, r) for r in EVENTS]

    def peaks(self, flush=50):
        return [expect(rel, 600000, flush)["sim"]["peak"] for rel in EVENTS]

    def model_levers(self, heap, tasks, flush=50, part=25 * MIB):
        exps = [expect(rel, 600000, flush) for rel in EVENTS]
        sim, alt_r, alt_f = sink_model.topic_sums(exps)
        return sink_model.levers(sim, alt_r, alt_f, flush, 600000, None, part, heap,
                                 [e["sim"]["peak"] for e in exps], tasks)

    def test_the_sum_of_the_peaks_is_an_upper_bound_in_words(self):
        peaks = self.peaks()
        code, out, _ = run("stats", "--sink-partition-duration", "10m", "--flush-size", "50", "--tasks", "2",
                           *self.EVENTS)
        self.assertEqual(code, 0)
        self.assertIn("  total, 3 partitions: 1200 records, at most %d open files = %s of upload buffers for the 2 "
                      "tasks of one worker, if every partition peaks at once;" % (sum(peaks),
                                                                                    fmt_bytes(sum(peaks) * 25 * MIB)),
                      out)
        self.assertIn("    task 0: 2 partitions, at most %d open files = %s, if they peak at once\n"
                      % (peaks[0] + peaks[2], fmt_bytes((peaks[0] + peaks[2]) * 25 * MIB)), out)
        self.assertIn("    task 1: 1 partition, peak %d open files = " % peaks[1], out)
        self.assertIn("verdict: 3 partitions in 2 tasks of one worker (they share its heap): at most %d open files = "
                      "%s of upload buffers, if every partition peaks at once; no heap given" % (
                          sum(peaks), fmt_bytes(sum(peaks) * 25 * MIB)), out)
        self.assertIn("at most %d open files (%s of buffers), if every partition peaks at once" % (
            sum(peaks), fmt_bytes(sum(peaks) * 25 * MIB)), out)     # the suggestion
        self.assertNotIn(" peak %d open files" % sum(peaks), out)
        # one partition: its own peak is a peak
        code, out, _ = run("stats", "--sink-partition-duration", "10m", "--flush-size", "50", self.EVENTS[1])
        self.assertIn("total, 1 partition: 400 records, peak %d open files = " % peaks[1], out)
        self.assertIn("(they share its heap): peak %d open files = " % peaks[1], out)
        self.assertNotIn("if every partition peaks at once", out)

    def test_tasks_max_never_offers_fewer_tasks_than_given(self):
        peaks = self.peaks()
        # a heap two tasks' largest share stays below: with --tasks 1 the
        # lever is 2 workers, with --tasks 2 three, with --tasks 3 (one
        # partition each already) none
        heap = (max(peaks[0] + peaks[2], peaks[1]) + 1) * 25 * MIB
        for tasks, want_k in ((1, 2), (2, 3), (3, None), (4, None)):
            for h in (heap, None):
                with self.subTest(tasks=tasks, heap=h):
                    extra = ["--tasks", str(tasks)] + (["--heap", str(h)] if h else [])
                    code, out, err = run(*sink(*extra), *self.EVENTS)
                    self.assertEqual(code, 0, err)
                    s = of_type(jsonl(out), "sink_summary")[0]
                    self.assertEqual(s["levers"], self.model_levers(h, tasks))
                    k = [lv["value"] for lv in s["levers"] if lv["setting"] == "tasks.max"]
                    if want_k is None:
                        self.assertEqual(k, [])
                        self.assertNotIn("tasks.max", s["suggestion"])
                    else:
                        self.assertEqual(k, [want_k if h else 3])
                        self.assertGreater(k[0], tasks)
                        self.assertIn("tasks.max=%d on %d workers" % (k[0], k[0]), s["suggestion"])

    def test_a_heap_filled_exactly_is_not_a_fit_in_words(self):
        peaks = self.peaks()
        heap = sum(peaks) * 25 * MIB
        h = fmt_bytes(heap)
        code, out, err = run(*sink("--heap", str(heap)), *self.EVENTS)
        self.assertEqual(code, 0, err)
        lines = jsonl(out)
        v = of_type(lines, "sink_verdict")[0]
        self.assertEqual((v["peak_buffer_bytes"], v["heap"], v["verdict"]), (heap, heap, "fits"))  # the JSON rule
        s = of_type(lines, "sink_summary")[0]
        levers = {lv["setting"]: lv for lv in s["levers"]}
        self.assertEqual(s["levers"], self.model_levers(heap, 1))
        # the levers that choose a value against the heap leave room
        self.assertLess(levers["s3.part.size"]["peak_buffer_bytes"], heap)
        self.assertEqual(levers["s3.part.size"]["value"], (heap - 1) // sum(peaks) // MIB * MIB)
        self.assertLess(levers["tasks.max"]["peak_buffer_bytes"], heap)
        sug = s["suggestion"]
        self.assertNotIn("nothing to change", sug)
        self.assertIn("which fill the %s heap exactly, leaving nothing for the worker itself" % h, sug)
        self.assertNotIn("within the", sug)
        code, out, _ = run("stats", "--sink-partition-duration", "10m", "--flush-size", "50", "--heap", str(heap),
                           *self.EVENTS)
        self.assertEqual(code, 0)
        verdict = [x for x in out.splitlines() if x.startswith("verdict: ")]
        self.assertEqual(len(verdict), 1, out)
        self.assertTrue(verdict[0].endswith(", fills the %s heap exactly, leaving nothing for the worker itself" % h),
                        verdict[0])
        self.assertNotIn("fits", verdict[0])
        self.assertIn("against the %s heap: fills it exactly, leaving nothing for the worker itself" % h, out)
        self.assertNotIn("heap: fits", out)
        # one byte more: room is left, and it fits in words too
        code, out, _ = run("stats", "--sink-partition-duration", "10m", "--flush-size", "50", "--heap",
                           str(heap + 1), *self.EVENTS)
        self.assertIn("suggestion: nothing to change: at most %d open files" % sum(peaks), out)
        self.assertIn(", fits the %s heap\n" % fmt_bytes(heap + 1), out)

    def test_a_lever_that_fills_the_heap_exactly_says_so(self):
        # the rotation lever's figure (one file per partition) as the heap
        exps = [expect(rel, 600000, 50) for rel in EVENTS]
        _, alt_r, _ = sink_model.topic_sums(exps)
        heap = alt_r["peak"] * 25 * MIB
        code, out, _ = run(*sink("--heap", str(heap)), *self.EVENTS)
        s = of_type(jsonl(out), "sink_summary")[0]
        rot = [lv for lv in s["levers"] if lv["setting"] == "rotate.interval.ms"][0]
        self.assertEqual((rot["peak_buffer_bytes"], rot["verdict"]), (heap, "fits"))
        self.assertIn("fills the %s heap exactly, leaving nothing for the worker itself" % fmt_bytes(heap),
                      s["suggestion"])


def fmt_bytes(n):
    """The text output's sizes: "25.0 MiB", "1.5 GiB"."""
    v, units = n / 1024, ["KiB", "MiB", "GiB", "TiB"]
    u = 0
    while v >= 1024 and u + 1 < len(units):
        v /= 1024
        u += 1
    return "%.1f %s" % (v, units[u])


class Maths(unittest.TestCase):
    def paragraph(self, out):
        lines = [x for x in out.splitlines() if x.startswith("  the maths: ")]
        self.assertEqual(len(lines), 1, out)
        return lines[0]

    def test_the_paragraph_has_the_figures_filled_in(self):
        for flush, tasks, heap, sched in ((50, 1, None, None), (40, 2, "300m", None), (200, 3, "1g", ("1s", 30))):
            with self.subTest(flush=flush, tasks=tasks, heap=heap, schedule=sched):
                extra = ["--tasks", str(tasks)] + (["--heap", heap] if heap else [])
                if sched:
                    extra += ["--rotate-schedule-interval", sched[0], "--catch-up-rate", str(sched[1])]
                code, out, _ = run("stats", "--sink-partition-duration", "10m", "--flush-size", str(flush), *extra,
                                   *[os.path.join(FIX, r) for r in EVENTS])
                self.assertEqual(code, 0)
                k = sink_model.schedule_records(1000, sched[1]) if sched else None
                peaks = [expect(rel, 600000, flush, schedule=k)["sim"]["peak"] for rel in EVENTS]
                m = self.paragraph(out)
                self.assertIn("floor(timestamp / 600000 ms)", m)
                self.assertIn("every %d records written (flush.size)" % flush, m)
                if sched:
                    self.assertIn("and every 1 s x %d records/s = %d records written" % (sched[1], k), m)
                else:
                    self.assertNotIn("records/s = ", m)
                self.assertIn("here at most %d, %.1f on average over 3 partitions" % (max(peaks), sum(peaks) / 3), m)
                self.assertIn("= %d x 25.0 MiB = %s for the largest partition" % (max(peaks),
                                                                                  fmt_bytes(max(peaks) * 25 * MIB)), m)
                self.assertIn("3 partitions in %d task%s hold at most %d open files, if every partition peaks at "
                              "once (the sum of the partitions' peaks) = " % (tasks, "s" if tasks > 1 else "",
                                                                             sum(peaks)), m)
                if heap:
                    hb = {"300m": 300 * MIB, "1g": 1 << 30}[heap]
                    self.assertIn("against the %s heap: %s" % (fmt_bytes(hb),
                                                               "fits" if sum(peaks) * 25 * MIB <= hb else "exceeds"), m)
                else:
                    self.assertNotIn("heap", m)
                self.assertTrue(m.endswith("open files ~ 1 + the time they span / partition.duration.ms."), m)


    def test_no_paragraph_when_nothing_is_written(self):
        code, out, _ = run("stats", "--sink-partition-duration", "10m", "--flush-size", "50", "--from-time",
                           "2030-01-01", "sink/datadir/events-0")
        self.assertEqual(code, 0)
        self.assertIn("suggestion: nothing to size", out)
        self.assertNotIn("the maths:", out)


class SeedExample(TempDirTest):
    """The guide's worked example (docs/guide.md, the sink playbook): the
    seed report's data scaled down, written by gen_sink.seed_example; the
    guide quotes what kfsck prints for it."""
    ARGS = ["--sink-partition-duration", "10m", "--flush-size", "1000", "--rotate-schedule-interval", "10m",
            "--catch-up-rate", "10", "--tasks", "2", "--heap", "16g"]

    def test_the_guide_quotes_what_kfsck_prints(self):
        dirs = gen_sink.seed_example(self.tmp)
        code, out, err = run("stats", *self.ARGS, *dirs)
        self.assertEqual(code, 0, err)
        with open(os.path.join(ROOT, "docs", "guide.md"), encoding="utf-8") as f:
            guide = f.read()
        start = guide.index("### The classic report, worked through (scaled)")
        block = guide[start:guide.index("```\n\n", guide.index("```\nevents: sink catch-up", start))]
        quoted = [x for x in block.split("```\nevents: sink catch-up", 1)[1].splitlines()[1:] if x.strip() != "..."]
        for line in quoted:
            self.assertIn(line + "\n", out)
        # and the figures are the model's: ~25 open files a partition, 20 GiB for 32
        peaks = [sink_model.expect_dir(d, 600000, 1000, schedule=6000)["sim"]["peak"] for d in dirs]
        self.assertEqual(len(peaks), 32)
        self.assertIn("at most %d open files = %s of upload buffers" % (sum(peaks), fmt_bytes(sum(peaks) * 25 * MIB)),
                      out)
        self.assertTrue(all(24 <= p <= 27 for p in peaks), peaks)
        self.assertIn("exceeds the 16.0 GiB heap", out)
        # the schedule (6000 records) never comes before flush.size (1000): no effect
        plain = [sink_model.expect_dir(d, 600000, 1000)["sim"]["peak"] for d in dirs[:4]]
        self.assertEqual(plain, peaks[:4])


class FromGroup(TempDirTest):
    """A data dir with the sink fixtures' partitions and a __consumer_offsets
    partition (gen_offsets' builders) holding the connector's commits."""
    GROUP = "connect-s3"
    T = 1700000000000

    def setUp(self):
        super().setUp()
        self.dd = os.path.join(self.tmp, "dd")
        for name in ("events-0", "events-1", "events-2", "legacy-0"):
            shutil.copytree(os.path.join(FIX, "sink/datadir", name), os.path.join(self.dd, name))
        g = self.GROUP
        log = go.PartLog("__consumer_offsets", go.partition_for(g))
        log.data([go.OC(g, "events", 0, 3, 150, self.T), go.OC(g, "events", 1, 3, 100, self.T)], self.T)
        log.data([go.OC("other", "events", 2, 3, 5, self.T + 1)], self.T + 1)
        log.data([go.OC(g, "events", 0, 3, 210, self.T + 2), go.OC(g, "events", 1, 3, 320, self.T + 2)],
                 self.T + 2)
        self.offsets_dir = go.Writer(self.tmp).partition("dd", log, "AAAAAAAAAAAAAAAAAAAAAA")["path"]
        # the last commit of each partition wins; events-2 has none of this group
        self.committed = {("events", 0): 210, ("events", 1): 320}

    def test_each_partition_resumes_at_the_groups_commit(self):
        code, out, err = run(*sink("--from-group", self.GROUP), self.dd)
        self.assertEqual(code, 0, err)
        lines = jsonl(out)
        parts = {(p["topic"], p["partition"]): p for p in of_type(lines, "sink_partition")}
        # __consumer_offsets is where the commits come from, not what the connector reads
        self.assertEqual(sorted(parts), [("events", 0), ("events", 1), ("events", 2), ("legacy", 0)])
        # the same offsets as `kfsck offsets` rebuilds
        code, oout, _ = run("offsets", "--json", "--group", self.GROUP, self.dd)
        self.assertEqual(code, 0)
        rows = {(r["topic"], r["partition"]): r["offset"] for r in of_type(jsonl(oout), "offset")
                if r["group"] == self.GROUP}
        self.assertEqual(rows, self.committed)
        for key, p in parts.items():
            with self.subTest(partition=key):
                rel = os.path.join(self.dd, "%s-%d" % key)
                e = sink_model.expect_dir(rel, 600000, 50, from_offset=self.committed.get(key))
                self.assertEqual(p["resume_offset"], e["resume"])
                self.assertEqual((p["records"], p["files_committed"], p["peak_open_files"], p["peak_at_offset"]),
                                 (e["records"], e["sim"]["committed"], e["sim"]["peak"], e["sim"]["peak_at"]))
        self.assertEqual(parts[("events", 0)]["resume_offset"], 210)
        self.assertEqual(parts[("events", 2)]["resume_offset"], 0)   # no commit: the log start
        # a topic the group never committed: said, and read from its log start
        self.assertIn("no committed offset for topic 'legacy': its partitions start at their log start", err)
        self.assertNotIn("'events'", err)

    def test_text_names_the_group(self):
        code, out, _ = run("stats", "--sink-partition-duration", "10m", "--flush-size", "50",
                           "--from-group", self.GROUP, self.dd)
        self.assertEqual(code, 0)
        self.assertIn("from the commits of group connect-s3", out)

    def test_a_group_with_no_commit_is_an_error(self):
        code, out, err = run(*sink("--from-group", "connect-s4"), self.dd)
        self.assertEqual(code, 3)
        self.assertEqual(of_type(jsonl(out), "sink_partition"), [])
        self.assertIn("kfsck: --from-group connect-s4: the group has no committed offset", err)
        self.assertIn("closest: 'connect-s3'", err)

    def test_no_offsets_topic_among_the_inputs_is_an_error(self):
        shutil.rmtree(os.path.join(self.tmp, self.offsets_dir))
        code, out, err = run(*sink("--from-group", self.GROUP), self.dd)
        self.assertEqual(code, 3)
        self.assertEqual(out, "")
        self.assertIn("kfsck: --from-group connect-s3: no __consumer_offsets partition among the given paths", err)

    def test_damage_in_the_offsets_topic_is_exit_1(self):
        # the first batch (the first commits) bit-flipped: a commit may be missing
        seg = os.path.join(self.tmp, self.offsets_dir, "00000000000000000000.log")
        with open(seg, "r+b") as f:
            f.seek(70)
            b = f.read(1)[0]
            f.seek(70)
            f.write(bytes([b ^ 0x10]))
        code, out, err = run(*sink("--from-group", self.GROUP), self.dd)
        self.assertEqual(code, 1, err)
        self.assertIn("crc_mismatch", {p["code"] for p in of_type(jsonl(out), "problem")})
        # the later commits still hold
        parts = {(p["topic"], p["partition"]): p for p in of_type(jsonl(out), "sink_partition")}
        self.assertEqual(parts[("events", 0)]["resume_offset"], 210)

    def test_exclusive_with_the_other_resume_points(self):
        for other in (["--from-offset", "3"], ["--from-time", "1700000000000"], ["--from-group", "x"]):
            for args in (["--from-group", self.GROUP] + other, other + ["--from-group", self.GROUP]):
                with self.subTest(args=args):
                    code, out, err = run(*sink(*args), self.dd)
                    self.assertEqual(code, 2)
                    self.assertIn("give one of --from-offset, --from-time and --from-group", err)
        code, _, err = run("stats", "--from-group", self.GROUP, self.dd)
        self.assertEqual(code, 2)
        self.assertIn("needs --sink-partition-duration", err)
        code, _, err = run(*sink("--from-group", ""), self.dd)
        self.assertEqual(code, 2)


if __name__ == "__main__":
    unittest.main()
