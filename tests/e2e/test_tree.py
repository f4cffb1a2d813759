#!/usr/bin/python3
"""The tree names itself as it is: every fixtures MANIFEST.json names a
generator that exists in tools/, and no file of the project points at the
reference material gathered beside the checkout (../shared, which a clone
does not have): code and generators cite docs/formats.md, docs/kfsck.1 and
Kafka's own classes instead. tools/dev/outputs.sh alone reads ../shared's
real-data, when it is there."""
import glob
import json
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import ROOT  # noqa: E402


def tracked(*patterns):
    """The files git tracks under ROOT matching the pathspecs (relative paths)."""
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "--", *patterns], capture_output=True, text=True)
    return [p for p in out.stdout.splitlines() if p]


class Tree(unittest.TestCase):
    def test_every_manifest_names_a_generator_that_exists(self):
        manifests = sorted(glob.glob(os.path.join(ROOT, "fixtures", "**", "MANIFEST.json"), recursive=True))
        self.assertTrue(manifests)
        for m in manifests:
            with open(m) as f:
                gen = json.load(f).get("generator")
            if gen is None:
                continue
            path = gen.split(" ")[0]
            with self.subTest(manifest=os.path.relpath(m, ROOT)):
                self.assertTrue(os.path.isfile(os.path.join(ROOT, path)), gen)
                self.assertTrue(path.startswith("tools/"), gen)

    def test_nothing_points_outside_the_repository(self):
        if not os.path.isdir(os.path.join(ROOT, ".git")) and not os.path.isfile(os.path.join(ROOT, ".git")):
            self.skipTest("not a git checkout")
        files = tracked("src", "include", "tools", "tests", "docs", "contrib", "debian", "Makefile", ".ci")
        self.assertTrue(files)
        outside = re.compile(r"\.\./shared|/work/shared|shared/spec/")
        found = []
        for rel in files:
            if rel in ("tools/dev/outputs.sh", "tests/e2e/test_tree.py"):
                continue
            try:
                with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
                    for n, line in enumerate(f, 1):
                        if outside.search(line):
                            found.append("%s:%d" % (rel, n))
            except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
                continue
        self.assertEqual(found, [])


if __name__ == "__main__":
    unittest.main()
