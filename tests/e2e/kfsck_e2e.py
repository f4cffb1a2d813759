"""kfsck_e2e: what the end-to-end tests share: where the binary and the
fixtures are, running kfsck (and the Python models of tools/model/), reading
its --json lines, the fixtures' manifests, comparing output with a manifest,
a digest of a tree (inputs must stay unmodified) and a test case with its own
temporary directory. Not a test file itself (tests/run.sh runs test_*.py
only); the test files put this directory on sys.path before importing it.

Env: KFSCK (the binary, default ROOT/kfsck), KFSCK_ROOT (the repo root,
default two levels above this file); tests/run.sh sets both.
"""
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.environ.get("KFSCK_ROOT", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
KFSCK = os.path.abspath(os.environ.get("KFSCK", os.path.join(ROOT, "kfsck")))
FIX = os.path.join(ROOT, "fixtures")
PY = "/usr/bin/python3"


def run(*args, cwd=FIX, env=None, timeout=300, prefix=(), errors="strict", stdout=None):
    """Runs kfsck with args in cwd (None: this process's), env added to this
    process's environment, prefix before the binary (e.g. setpriv ...),
    stdout into the file `stdout` when given (then returned as "");
    returns (exit code, stdout, stderr), decoded as UTF-8 with `errors`."""
    e = None
    if env:
        e = dict(os.environ)
        e.update(env)
    p = subprocess.run([*prefix, KFSCK, *args], cwd=cwd, stdout=stdout or subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout, env=e)
    return p.returncode, (p.stdout or b"").decode("utf-8", errors), p.stderr.decode("utf-8", errors)


def run_model(script, *args):
    """Runs tools/model/<script> (an independent reference builder) with
    args; returns (exit code, stdout, stderr)."""
    p = subprocess.run([PY, os.path.join(ROOT, "tools", "model", script), *args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def read(path):
    with open(path, "rb") as f:
        return f.read()


def manifest(*parts):
    """fixtures/<parts...>/MANIFEST.json, what the generator that wrote those
    fixtures computed."""
    return json.loads(read(os.path.join(FIX, *parts, "MANIFEST.json")))


def tree_digest(top):
    """A digest of every file under top: names, contents and modification
    times (a command that rewrote a file in place changes it)."""
    h = hashlib.sha256()
    for d, _, files in sorted(os.walk(top)):
        for f in sorted(files):
            p = os.path.join(d, f)
            h.update(p.encode())
            h.update(str(os.stat(p).st_mtime_ns).encode())
            h.update(read(p))
    return h.hexdigest()


# fixtures/MANIFEST.json (tools/gen/gen_fixtures.py): its segments, the
# healthy ones (clicks-0 of the data dir carries damage of its own) and the
# damaged copies
MANIFEST = manifest()
LOGS = MANIFEST["logs"]
HEALTHY = [l for l in LOGS if "damage" not in l and not l["path"].startswith("datadir/clicks-0")]
DAMAGED = [l for l in LOGS if "damage" in l]


def drop_root(test):
    """The prefix that runs kfsck as nobody (uid 65534) when root, who reads
    any file; none when not root. Skips test when root cannot be dropped."""
    if os.geteuid() != 0:
        return ()
    if shutil.which("setpriv"):
        return ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")
    if shutil.which("runuser"):
        return ("runuser", "-u", "nobody", "--")
    test.skipTest("setpriv or runuser is needed to drop root")


class TempDirTest(unittest.TestCase):
    """A test case with a fresh temporary directory self.tmp."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kfsck-e2e-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, name, data):
        """Writes bytes data to self.tmp/name; its path."""
        p = os.path.join(self.tmp, name)
        with open(p, "wb") as f:
            f.write(data)
        return p


def copy_in_cluster(src, dst, like):
    """Copies the data dir src to dst with its meta.properties naming the
    cluster.id of the data dir like's (data dirs of different clusters are
    refused together: tests that want several data dirs of one host use
    this); returns dst."""
    shutil.copytree(src, dst)
    with open(os.path.join(like, "meta.properties")) as f:
        cid = next(l for l in f.read().splitlines() if l.startswith("cluster.id="))
    mp = os.path.join(dst, "meta.properties")
    with open(mp) as f:
        lines = [cid if l.startswith("cluster.id=") else l for l in f.read().splitlines()]
    with open(mp, "w") as f:
        f.write("\n".join(lines) + "\n")
    return dst


def jsonl(text, t=None):
    """The JSON lines of text; only those of "type" t when t is given."""
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [r for r in rows if t is None or r["type"] == t]


def of_type(rows, t):
    """The rows of "type" t."""
    return [r for r in rows if r["type"] == t]


def subset(got, want, path=""):
    """Every field of want is in got with the same value (recursively)."""
    if isinstance(want, dict):
        assert isinstance(got, dict), f"{path}: {got!r} is not an object"
        for k, v in want.items():
            assert k in got, f"{path}/{k} missing in {sorted(got)}"
            subset(got[k], v, f"{path}/{k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{path}: {got!r} != {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            subset(g, w, f"{path}[{i}]")
    else:
        assert got == want, f"{path}: {got!r} != {want!r}"
