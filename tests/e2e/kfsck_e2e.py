"""kfsck_e2e: what the end-to-end tests share: where the binary and the
fixtures are, running kfsck, reading its --json lines, and comparing them
with a manifest. Not a test file itself (tests/run.sh runs test_*.py only);
the test files put this directory on sys.path before importing it.

Env: KFSCK (the binary, default ROOT/kfsck), KFSCK_ROOT (the repo root,
default two levels above this file); tests/run.sh sets both.
"""
import json
import os
import subprocess

ROOT = os.environ.get("KFSCK_ROOT", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
KFSCK = os.path.abspath(os.environ.get("KFSCK", os.path.join(ROOT, "kfsck")))
FIX = os.path.join(ROOT, "fixtures")


def run(*args, cwd=FIX, env=None, timeout=120, prefix=(), errors="strict"):
    """Runs kfsck with args in cwd (None: this process's), env added to this
    process's environment, prefix before the binary (e.g. setpriv ...);
    returns (exit code, stdout, stderr), decoded as UTF-8 with `errors`."""
    e = None
    if env:
        e = dict(os.environ)
        e.update(env)
    p = subprocess.run([*prefix, KFSCK, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout, env=e)
    return p.returncode, p.stdout.decode("utf-8", errors), p.stderr.decode("utf-8", errors)


def jsonl(text, t=None):
    """The JSON lines of text; only those of "type" t when t is given."""
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [r for r in rows if t is None or r["type"] == t]


def of_type(rows, t):
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
