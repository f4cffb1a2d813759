#!/usr/bin/python3
"""Every problem code kfsck prints is one the library's header lists
(include/kfsck/common.h, KF_P_*), so a program linking libkfsck can know them
all; and the library names its codes through those macros, not loose strings.
Runs every command over every fixture with --json and collects the codes."""
import glob
import json
import os
import re
import subprocess
import unittest

ROOT = os.environ.get("KFSCK_ROOT", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
KFSCK = os.path.abspath(os.environ.get("KFSCK", os.path.join(ROOT, "kfsck")))
FIX = os.path.join(ROOT, "fixtures")


def header_codes():
    with open(os.path.join(ROOT, "include", "kfsck", "common.h")) as f:
        text = f.read()
    return dict(re.findall(r'#define (KF_P_[A-Z0-9_]+) "([a-z0-9_]+)"', text))


def codes_of(*args):
    p = subprocess.run([KFSCK, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=300)
    codes = set()
    for line in p.stdout.decode().splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if row.get("type") == "problem":
            codes.add(row["code"])
    return codes


class ProblemCodes(unittest.TestCase):
    def test_codes_printed_are_in_the_header(self):
        known = set(header_codes().values())
        dirs = sorted(d for d in glob.glob(os.path.join(FIX, "**"), recursive=True) if os.path.isdir(d))
        seen = set()
        seen |= codes_of("verify", "--json", *dirs)
        seen |= codes_of("dump", "--json", "--records", *[d for d in dirs if d != FIX])
        for d in dirs:
            if glob.glob(os.path.join(d, "*-[0-9]*")) and not glob.glob(os.path.join(d, "*.log")):
                seen |= codes_of("scan", "--json", d)
        seen |= codes_of("offsets", "--json", *dirs)
        seen |= codes_of("groups", "--json", *dirs)
        seen |= codes_of("stats", "--json", *dirs)
        self.assertGreater(len(seen), 10)  # the fixtures show plenty of damage
        self.assertEqual(sorted(seen - known), [])

    def test_library_uses_the_macros(self):
        loose = []
        for path in glob.glob(os.path.join(ROOT, "src", "**", "*.c"), recursive=True):
            with open(path) as f:
                text = f.read()
            for m in re.finditer(r'(?:\.code\s*=|kf_report\([^;]*?,[^;]*?,)\s*"([a-z][a-z0-9_]*)"', text):
                loose.append((os.path.relpath(path, ROOT), m.group(1)))
        self.assertEqual(loose, [])

    def test_codes_are_unique(self):
        values = list(header_codes().values())
        self.assertEqual(len(values), len(set(values)))


if __name__ == "__main__":
    unittest.main()
