#!/usr/bin/python3
"""End-to-end tests of what every command shares: usage errors, --help and
--version, a missing path (exit 3, one `kfsck: <path>: <what>` line), and the
man page naming the program's version."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import ROOT, TempDirTest, run  # noqa: E402


class Cli(TempDirTest):
    def test_missing_path_is_exit_3_one_line(self):
        missing = os.path.join(self.tmp, "nope.log")
        for cmd in ("dump", "verify"):
            code, out, err = run(cmd, missing)
            self.assertEqual(code, 3)
            self.assertEqual(err.splitlines(), [f"kfsck: {missing}: no such file or directory"])

    def test_usage_errors(self):
        self.assertEqual(run()[0], 2)
        self.assertEqual(run("frobnicate")[0], 2)
        self.assertEqual(run("verify")[0], 2)
        self.assertEqual(run("verify", "--bogus", "x")[0], 2)
        self.assertEqual(run("dump", "--max-bytes")[0], 2)
        self.assertEqual(run("dump", "--max-bytes", "zero", "x")[0], 2)
        self.assertEqual(run("--help")[0], 0)
        self.assertEqual(run("verify", "--help")[0], 0)
        code, out, _ = run("--version")
        self.assertEqual(code, 0)
        self.assertTrue(out.startswith("kfsck "))

    def test_man_page_names_the_programs_version(self):
        code, out, err = run("--version")
        self.assertEqual(code, 0, err)
        version = out.split()[1]
        with open(os.path.join(ROOT, "docs", "kfsck.1"), encoding="utf-8") as f:
            th = next(l for l in f if l.startswith(".TH "))
        self.assertIn(f'"kfsck {version}"', th)


if __name__ == "__main__":
    unittest.main()
