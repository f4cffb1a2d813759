#!/usr/bin/python3
"""End-to-end tests of the sink catch-up simulation's planning options
(cli.md, "stats": --rotate-schedule-interval with --catch-up-rate,
--from-group, --tasks, --heap, sink_summary.tasks and the sink_verdict line,
the suggestion's levers and the model paragraph of the text output).

The expected figures come from tools/model/sink_model.py (the contract's
model, independent of kfsck) on the sink fixtures (fixtures/sink/) and on
data dirs built here with the Python encoders of tools/gen/.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, jsonl, of_type, run  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "model"))
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
        for args in bad:
            with self.subTest(args=args):
                code, out, err = run("stats", *args)
                self.assertEqual(code, 2, err)
                self.assertEqual(out, "")
                self.assertIn("kfsck stats:", err)


if __name__ == "__main__":
    unittest.main()
