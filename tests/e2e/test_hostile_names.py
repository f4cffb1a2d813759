#!/usr/bin/python3
"""Names that try to drive the terminal (issue 37 item 2): topic and
partition dir names, group and transactional ids, and the directory the
data dirs live in, holding ESC[2J (clear the screen), an OSC title
sequence, BEL, CR, newlines that would fake a report line, a C1 control,
a reordering control and bytes that are not UTF-8. Every command's text
output and standard error goes through one escaping rule (src/cli/escape.c:
C-style \\xNN, \\n, \\r, \\t, \\\\): no raw control character, no invalid
UTF-8, no reordering control, no line that starts where a name's newline
would put it; the names in the commands kfsck suggests
(kafka-leader-election.sh --topic, kafka-transactions.sh --topic,
kafka-consumer-groups.sh --group, kfsck merge's paths) are shell-quoted, a
paste naming them exactly; JSON keeps JSON's escapes and the exact names.

The cluster is report_e2e's (three brokers, a damaged orders-0, a hostile
topic and group), under a hostile directory name, plus partitions and
commits and an open transaction with the names below, written by
tools/gen's encoders."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_e2e as rep  # noqa: E402
from kfsck_e2e import KFSCK, ROOT  # noqa: E402

go = rep.go

# each ends in a line kfsck would never print, to catch a faked report line
NAMES = [
    "\x1b[2Jclear\nFAKE: a line of the name's own",
    "\x1b]0;pwned\x07title",
    "bell\x07ring",
    "cr\rFAKE",
    "c1\u009b31mcsi",
    "\u202egnp.exe",
    os.fsdecode(b"bad\xff\xfeutf8"),
    "back\\slash's",
]
DIRNAME = "evil \x1b[31mdir\n'q'"
CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]")
C1_OR_BIDI = re.compile("[\u0080-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
T = rep.T


def bash_words(cmd):
    """The words bash makes of cmd (a command kfsck suggests), as bytes."""
    p = subprocess.run(["bash", "-c", 'f() { for a; do printf "%s\\0" "$a"; done; }; f ' + cmd],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
    return [w for w in p.stdout.split(b"\0")][:-1]


def build(top):
    dirs = rep.build_cluster(top, hostile=True)
    # without broker 1's orders-0 the best candidate misses acknowledged
    # offsets that broker 3's files still hold: replicas suggests a merge
    shutil.rmtree(os.path.join(dirs[0], "orders-0"))
    w = go.Writer(top)
    b1 = os.path.relpath(dirs[0], top)
    recs = []
    for i, name in enumerate(NAMES):
        w.partition(b1, rep.topic_log(name, 0, 20, T), "AQEBAQEBAQEBAQEBAQEB%02d" % i)
        if "\udcff" not in name:  # a Kafka string is UTF-8: the encoder writes no other
            recs.append(go.OC(name, name, 0, 3, 30, T + 1000))  # past the log end: a finding about it
    log = go.PartLog("__consumer_offsets", 1)
    log.data(recs, T + 2000)
    w.partition(b1, log, "BBBBBBBBBBBBBBBBBBBBBB")
    # a transaction begun long ago and never ended, in a hostile topic
    tx = go.PartLog(NAMES[0], 1)
    tx.data([(b"k", b"v", None)], T, pid=77, epoch=0, txn=True)
    tx.data([(b"k2", b"v", None)], T + 3600000)  # an hour later: it hangs
    w.partition(b1, tx, "AQEBAQEBAQEBAQEBAQEB99")
    return dirs


def commands(dirs, out):
    b1 = dirs[0]
    part = os.path.join(b1, NAMES[0] + "-0")
    seg = os.path.join(part, "00000000000000000000.log")
    return [
        ["scan"] + dirs, ["scan", "--format", "prometheus", b1], ["verify"] + dirs, ["predict", b1],
        ["replicas"] + dirs, ["compaction", b1], ["txns", b1], ["stats", b1],
        ["offsets", b1], ["groups", b1], ["metadata", b1], ["remote", "--now", rep.NOW, b1],
        ["dump", "--records", "--payload", part], ["dump", part + "/partition.metadata"],
        ["dump", os.path.join(b1, "__consumer_offsets-1")], ["repair", "-o", out + "/r", part],
        ["merge", "-o", out + "/m", os.path.join(dirs[1], "orders-0"), os.path.join(dirs[2], "orders-0")],
        ["verify", os.path.join(b1, "nonexistent\x1b[2J")], ["dump", seg + ".no\x07such"],
        ["report", "-o", out + "/report.html", b1],
    ]


class HostileNames(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kfsck-hostile-names-")
        cls.top = os.path.join(cls.tmp, DIRNAME)
        cls.dirs = build(cls.top)
        cls.out = os.path.join(cls.tmp, "out")
        cls.runs = {}
        for args in commands(cls.dirs, cls.out):
            p = subprocess.run([KFSCK, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300,
                               env=dict(os.environ, LC_ALL="C"))
            cls.runs[" ".join(a.replace(cls.tmp, "T") for a in args)] = (p.returncode, p.stdout, p.stderr)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_no_raw_control_in_any_text_output(self):
        for what, (code, out, err) in self.runs.items():
            for stream, data in (("stdout", out), ("stderr", err)):
                with self.subTest(run=what, stream=stream):
                    self.assertNotIn(code, (-6, -11), err)  # no crash
                    m = CONTROL.search(data)
                    self.assertIsNone(m, data[max(0, m.start() - 80):m.start() + 40] if m else None)
                    text = data.decode("utf-8")  # strict: no byte that is not UTF-8
                    self.assertIsNone(C1_OR_BIDI.search(text), text[:2000])
                    for line in text.splitlines():
                        self.assertFalse(line.startswith("FAKE"), line)

    def test_the_names_are_there_escaped(self):
        code, out, err = self.runs["scan " + " ".join(d.replace(self.tmp, "T") for d in self.dirs)]
        text = out.decode()
        self.assertIn("\\x1b[2Jclear\\nFAKE: a line of the name's own-0", text)
        self.assertIn("\\x1b]0;pwned\\x07title-0", text)
        self.assertIn("bad\\xff\\xfeutf8-0", text)
        self.assertIn("\\xe2\\x80\\xaegnp.exe-0", text)
        self.assertIn("back\\\\slash's-0", text)
        self.assertIn("evil \\x1b[31mdir\\n'q'", text)

    def test_suggested_commands_paste_the_exact_names(self):
        code, out, err = self.runs["replicas " + " ".join(d.replace(self.tmp, "T") for d in self.dirs)]
        text = out.decode()
        elections = [l.split("to elect it: ", 1)[1] for l in text.splitlines() if "kafka-leader-election.sh" in l]
        topics = [words[words.index(b"--topic") + 1] for words in map(bash_words, elections)]
        self.assertIn(b"orders", topics)
        for name in [rep.HOSTILE_TOPIC] + [n for n in NAMES if "\udcff" not in n]:
            self.assertIn(os.fsencode(name), topics)
        merges = [l.strip() for l in text.splitlines() if l.strip().startswith("kfsck merge -o OUTDIR")]
        self.assertTrue(merges, text)
        for line in merges:
            paths = [os.fsdecode(x) for x in bash_words(line)[4:]]
            self.assertTrue(paths and all(x.startswith(self.top) and os.path.isdir(x) for x in paths), paths)
        code, out, err = self.runs["txns %s" % self.dirs[0].replace(self.tmp, "T")]
        aborts = [l.split("on the live cluster: ", 1)[1] for l in out.decode().splitlines() if "kafka-transactions.sh" in l]
        self.assertTrue(aborts, out.decode())
        words = bash_words(aborts[0])
        self.assertEqual(words[words.index(b"--topic") + 1], os.fsencode(NAMES[0]))

    def test_json_keeps_the_exact_names(self):
        p = subprocess.run([KFSCK, "scan", "--json", self.dirs[0]], stdout=subprocess.PIPE, timeout=300)
        topics = {json.loads(l).get("topic") for l in p.stdout.decode().splitlines() if '"partition"' in l}
        for name in NAMES:
            if "\udcff" not in name:  # bytes that are not UTF-8 become U+FFFD in JSON
                self.assertIn(name, topics)


class OnePlace(unittest.TestCase):
    """The rule is applied in one place: no printer of src/cli writes a
    string argument but escape.c's (tprintf, tvprintf, tputs, esc_write;
    shell_arg's words through traw/out_raw). out.c's JSON writer prints
    only numbers and its own escapes with fprintf."""

    def test_no_printf_of_a_string_outside_escape_c(self):
        cli = os.path.join(ROOT, "src", "cli")
        call = re.compile(r"(?<![A-Za-z0-9_])(v?f?printf|puts)\s*\(")
        for name in sorted(os.listdir(cli)):
            if not name.endswith(".c") or name == "escape.c":
                continue
            with open(os.path.join(cli, name)) as f:
                for n, line in enumerate(f, 1):
                    if call.search(line):
                        with self.subTest(file=name, line=n):
                            self.assertEqual(name, "out.c", line)
                            self.assertNotRegex(line, r"%[-0-9.*]*[sc]", line)


if __name__ == "__main__":
    unittest.main()
