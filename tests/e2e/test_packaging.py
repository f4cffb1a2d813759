"""test_packaging: the Debian packaging (debian/) agrees with the source.
debian/libkfsck0.symbols is exactly what tools/build/deb_symbols.sh writes from
the export list and the built shared library (a function added to or
removed from the public headers without it fails here, not only in `make
deb`); debian/changelog's version is KFSCK_VERSION; every file `make
install` writes is in one package's .install list.
"""
import fnmatch
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import KFSCK, ROOT  # noqa: E402


def kfsck_version():
    with open(os.path.join(ROOT, "include", "kfsck", "kfsck.h")) as f:
        return re.search(r'^#define KFSCK_VERSION "(.*)"', f.read(), re.M).group(1)


# The shared library of the build whose kfsck is tested (normal builds only).
SHLIB = os.path.join(os.path.dirname(KFSCK), "libkfsck.so." + kfsck_version())


class PackagingTest(unittest.TestCase):
    @unittest.skipUnless(os.path.exists(SHLIB), "no shared library in this build")
    def test_symbols_file_is_the_export_list(self):
        p = subprocess.run(["sh", os.path.join(ROOT, "tools", "build", "deb_symbols.sh"), "--check", SHLIB],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        with open(os.path.join(ROOT, "debian", "libkfsck0.symbols")) as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[0], "libkfsck.so.0 libkfsck0 #MINVER#")
        self.assertIn(" kf_crc32c@KFSCK_0 0.2.0", lines)

    @unittest.skipUnless(os.path.exists(SHLIB), "no shared library in this build")
    def test_symbols_check_fails_on_a_difference(self):
        d = tempfile.mkdtemp()
        try:
            # A copy of the tree's inputs with one symbol dropped from the file.
            for sub in ("tools", "include", "debian"):
                shutil.copytree(os.path.join(ROOT, sub), os.path.join(d, sub))
            path = os.path.join(d, "debian", "libkfsck0.symbols")
            with open(path) as f:
                kept = [line for line in f if "kf_crc32c@" not in line]
            with open(path, "w") as f:
                f.writelines(kept)
            p = subprocess.run(["sh", os.path.join(d, "tools", "build", "deb_symbols.sh"), "--check", SHLIB],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
            self.assertEqual(p.returncode, 1)
            self.assertIn("kf_crc32c@KFSCK_0", p.stderr.decode())
        finally:
            shutil.rmtree(d)

    def test_changelog_version(self):
        with open(os.path.join(ROOT, "debian", "changelog")) as f:
            first = f.readline()
        self.assertEqual(re.match(r"kfsck \(([^)]*)\)", first).group(1), kfsck_version())

    @unittest.skipUnless(os.path.exists(SHLIB), "no shared library in this build")
    def test_install_lists_cover_make_install(self):
        d = tempfile.mkdtemp()
        try:
            lib = "/usr/lib/x86_64-linux-gnu"
            p = subprocess.run(["make", "-s", "-C", ROOT, "install", "DESTDIR=" + d, "PREFIX=/usr",
                                "LIBDIR=" + lib, "ZSHCOMPDIR=/usr/share/zsh/vendor-completions"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
            self.assertEqual(p.returncode, 0, p.stdout.decode())
            installed = set()
            for top, _, files in os.walk(d):
                installed.update(os.path.relpath(os.path.join(top, n), d) for n in files)
            patterns = []
            for f in glob.glob(os.path.join(ROOT, "debian", "*.install")):
                with open(f) as fh:
                    patterns += [line.split()[0].replace("${DEB_HOST_MULTIARCH}", "x86_64-linux-gnu")
                                 for line in fh if line.strip()]
            uncovered = [i for i in sorted(installed)
                         if not any(i == pat or i.startswith(pat + "/") or fnmatch.fnmatch(i, pat)
                                    for pat in patterns)]
            self.assertEqual(uncovered, [])
            self.assertIn("usr/share/bash-completion/completions/kfsck", installed)
        finally:
            shutil.rmtree(d)


if __name__ == "__main__":
    unittest.main()
