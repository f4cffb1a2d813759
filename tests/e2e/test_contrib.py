"""test_contrib: the systemd units of contrib/systemd/. `systemd-analyze
verify` accepts them (with kfsck's man page on MANPATH for their
Documentation=); the script each service runs, taken from its ExecStart= as
systemd reads it ($$ and %% unescaped, continuation lines joined), does its
job when run with the unit's environment and the kfsck under test on PATH:
the nightly scan writes kfsck.prom that promtool accepts, replaced whole
also when damage is found and kept when the scan cannot run; the offsets
backup writes the day's reset-csv of every group (what `kfsck offsets
--format reset-csv` prints) with its problems beside it, and removes
backups older than the days to keep.
"""
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, KFSCK, ROOT, copy_in_cluster, run  # noqa: E402

UNITS = os.path.join(ROOT, "contrib", "systemd")


def exec_start_script(unit):
    """The shell script of a unit's `ExecStart=/bin/sh -c '...'`."""
    with open(os.path.join(UNITS, unit)) as f:
        text = f.read().replace("\\\n", " ")
    value = re.search(r"^ExecStart=(.*)$", text, re.M).group(1)
    assert value.startswith("/bin/sh -c '") and value.endswith("'"), value
    return value[len("/bin/sh -c '"):-1].replace("$$", "$").replace("%%", "%")


def run_unit(unit, env):
    e = {"PATH": os.path.dirname(KFSCK) + ":/usr/bin:/bin", "LANG": "C.UTF-8", **env}
    return subprocess.run(["/bin/sh", "-c", exec_start_script(unit)], cwd=FIX, env=e, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=120)


class SystemdUnitsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_systemd_analyze_verify(self):
        units = sorted(os.path.join(UNITS, u) for u in os.listdir(UNITS) if u.endswith((".service", ".timer")))
        self.assertEqual(len(units), 4)
        env = dict(os.environ)
        args = ["systemd-analyze", "verify"]
        if shutil.which("man"):
            os.makedirs(os.path.join(self.tmp, "man", "man1"))
            shutil.copy(os.path.join(ROOT, "docs", "kfsck.1"), os.path.join(self.tmp, "man", "man1"))
            env["MANPATH"] = os.path.join(self.tmp, "man")
        else:
            args.append("--man=no")
        p = subprocess.run(args + units, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout.decode())
        self.assertEqual(p.stdout.decode(), "")

    def test_scan_writes_the_textfile(self):
        # two log dirs of one host (of one cluster: kraft/node1's copy names datadir's)
        node = copy_in_cluster(os.path.join(FIX, "kraft", "node1"), os.path.join(self.tmp, "dirs", "node1"),
                               os.path.join(FIX, "datadir"))
        textfiles = os.path.join(self.tmp, "textfiles")
        os.mkdir(textfiles)
        out = os.path.join(textfiles, "kfsck.prom")
        p = run_unit("kfsck-scan.service", {"KFSCK_DATADIRS": "datadir " + node, "KFSCK_TEXTFILE_DIR": textfiles})
        self.assertEqual(p.returncode, 0, p.stderr)  # damage found (kfsck exit 1) is no failure of the unit
        self.assertEqual(os.listdir(textfiles), ["kfsck.prom"])
        with open(out) as f:
            text = f.read()
        self.assertIn('kfsck_partition_errors{datadir="datadir",topic="clicks",partition="0"} 1', text)
        self.assertIn("kfsck_scan_partitions 12", text)
        self.assertEqual(os.stat(out).st_mode & 0o777, 0o644)
        c = subprocess.run(["promtool", "check", "metrics"], input=text.encode(), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=60)
        self.assertEqual(c.returncode, 0, c.stdout.decode())
        # a scan that cannot run keeps the last file and fails the unit
        p = run_unit("kfsck-scan.service", {"KFSCK_DATADIRS": "no-such-dir", "KFSCK_TEXTFILE_DIR": textfiles})
        self.assertEqual(p.returncode, 3)
        with open(out) as f:
            self.assertEqual(f.read(), text)
        self.assertEqual(os.listdir(textfiles), ["kfsck.prom"])
        # no data dirs configured: the unit says so
        p = run_unit("kfsck-scan.service", {"KFSCK_TEXTFILE_DIR": self.tmp})
        self.assertNotEqual(p.returncode, 0)
        self.assertIn(b"set KFSCK_DATADIRS", p.stderr)

    def test_offsets_backup(self):
        day = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
        old = os.path.join(self.tmp, "2000-01-01.csv")
        recent = os.path.join(self.tmp, "2000-01-02.csv")
        for f, age_days in ((old, 40), (recent, 3)):
            open(f, "w").close()
            t = time.time() - age_days * 86400
            os.utime(f, (t, t))
        p = run_unit("kfsck-offsets-backup.service", {"KFSCK_DATADIRS": "offsets/datadir",
                                                       "STATE_DIRECTORY": self.tmp})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b"may be incomplete", p.stderr)  # the fixture's skipped records: kfsck exit 1
        rc, want, _ = run("offsets", "--format", "reset-csv", "offsets/datadir")
        self.assertEqual(rc, 1)
        with open(os.path.join(self.tmp, day + ".csv")) as f:
            self.assertEqual(f.read(), want)
        self.assertIn("my-group,orders,0,55\n", want)
        with open(os.path.join(self.tmp, day + ".problems.txt")) as f:
            self.assertIn("unknown_record_type", f.read())
        self.assertEqual(sorted(os.listdir(self.tmp)), ["2000-01-02.csv", day + ".csv", day + ".problems.txt"])
        # a run that cannot read its input keeps no csv and fails
        os.remove(os.path.join(self.tmp, day + ".csv"))
        p = run_unit("kfsck-offsets-backup.service", {"KFSCK_DATADIRS": "no-such-dir", "STATE_DIRECTORY": self.tmp})
        self.assertEqual(p.returncode, 3)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, day + ".csv")))
        self.assertFalse(os.path.exists(os.path.join(self.tmp, day + ".csv.tmp")))


if __name__ == "__main__":
    unittest.main()
