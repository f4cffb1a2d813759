"""test_codec_load: libsnappy is loaded only when a snappy batch needs it
(src/bytes/codec_load.c), and an installation where it cannot be loaded
gets a run that says so and exits 3, never a run that calls the batches
damaged and writes outputs without them.

The library that cannot be loaded is faked: a shared object with
libsnappy's soname put first on LD_LIBRARY_PATH, built here with cc (the
test is skipped without one). One has neither function (dlsym fails), one
needs a symbol nothing defines (dlopen fails under RTLD_NOW).
"""
import os
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import KFSCK, TempDirTest, run  # noqa: E402

SNAPPY_SEG = "segments/v2-snappy/00000000000000000000.log"
LZ4_SEG = "segments/v2-lz4/00000000000000000000.log"


def needed(binary):
    """The NEEDED entries of binary's dynamic section."""
    p = subprocess.run(["readelf", "-d", binary], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", p.stdout.decode())


def soname_loaded(binary):
    """The soname the binary dlopens for snappy (compiled in from the Makefile)."""
    with open(binary, "rb") as f:
        m = re.search(rb"libsnappy\.so\.[0-9]+", f.read())
    return m.group(0).decode() if m else None


class CodecLoadTest(TempDirTest):
    def test_binary_does_not_link_snappy_or_libstdcxx(self):
        if not shutil.which("readelf"):
            self.skipTest("no readelf")
        libs = needed(KFSCK)
        self.assertTrue(libs, "no dynamic section read from %s" % KFSCK)
        for lib in libs:
            self.assertFalse(lib.startswith(("libsnappy", "libstdc++", "libxxhash")), libs)
        self.assertIsNotNone(soname_loaded(KFSCK))

    def test_snappy_batches_are_read_when_the_library_loads(self):
        rc, out, err = run("verify", "--json", SNAPPY_SEG)
        self.assertEqual((rc, err), (0, ""), out)
        self.assertIn('"records":24', out.replace(" ", ""))

    def fake(self, name, source):
        """A directory holding a fake libsnappy built from source."""
        cc = shutil.which("cc") or shutil.which("gcc")
        if not cc:
            self.skipTest("no C compiler")
        d = os.path.join(self.tmp, name)
        os.mkdir(d)
        src = os.path.join(d, "fake.c")
        with open(src, "w") as f:
            f.write(source)
        so = soname_loaded(KFSCK)
        subprocess.run([cc, "-shared", "-fPIC", "-Wl,-soname," + so, "-o", os.path.join(d, so), src], check=True,
                       timeout=120)
        return {"LD_LIBRARY_PATH": d}

    def fakes(self):
        return [("no functions", self.fake("nofns", "int kf_fake_snappy;\n")),
                ("cannot load", self.fake("unloadable", "extern int kf_symbol_nothing_defines(void);\n"
                                          "int snappy_uncompress(void) { return kf_symbol_nothing_defines(); }\n"))]

    def test_a_run_meeting_snappy_without_the_library_exits_3(self):
        for what, env in self.fakes():
            with self.subTest(what):
                rc, out, err = run("verify", SNAPPY_SEG, env=env)
                self.assertEqual(rc, 3, out + err)
                last = err.strip().splitlines()[-1]
                self.assertRegex(last, r"^kfsck: snappy: libsnappy\.so\.\d+ could not be loaded, so snappy batches "
                                       r"could not be read \(.+\)$")
                self.assertIn("decompress_error", out)

    def test_a_run_meeting_no_snappy_batch_never_loads_it(self):
        for what, env in self.fakes():
            with self.subTest(what):
                rc, out, err = run("verify", "--json", LZ4_SEG, env=env)
                self.assertEqual((rc, err), (0, ""), out)
                rc, out, err = run("verify", "segments/v2-zstd", "segments/v1-gzip", env=env)
                self.assertEqual((rc, err), (0, ""), out)

    def test_no_output_is_written_without_the_library(self):
        for what, env in self.fakes():
            with self.subTest(what):
                seg_out = os.path.join(self.tmp, "seg-" + what.replace(" ", "-"))
                os.mkdir(seg_out)
                rc, out, err = run("repair", "--salvage", "-o", seg_out, SNAPPY_SEG, env=env)
                self.assertEqual(rc, 3, out + err)
                self.assertEqual(os.listdir(seg_out), [])
                part_out = os.path.join(self.tmp, "part-" + what.replace(" ", "-"))
                os.mkdir(part_out)
                rc, out, err = run("repair", "--salvage", "-o", part_out, os.path.dirname(SNAPPY_SEG), env=env)
                self.assertEqual(rc, 3, out + err)
                self.assertEqual(os.listdir(part_out), [])
                # the same with the real library: written
                rc, out, err = run("repair", "--salvage", "--force", "-o", part_out, os.path.dirname(SNAPPY_SEG))
                self.assertEqual(rc, 0, out + err)
                self.assertNotEqual(os.listdir(part_out), [])


if __name__ == "__main__":
    unittest.main()
