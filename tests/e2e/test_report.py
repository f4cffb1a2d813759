"""kfsck report: one HTML file of every command that applies (issue 39).
The page embeds each command's JSON lines, which must be the lines the
command prints when it runs alone on the same inputs, and its exit code is
the highest of theirs; text from the data never escapes into markup or
script; the file is written whole or not at all and never over or into an
input; its size stays bounded. The cluster comes from tools/gen's encoders
(report_e2e.build_cluster); the browser's view is test_report_browser.py."""
import base64
import hashlib
import os
import re
import sys
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, TempDirTest, run, tree_digest  # noqa: E402
import report_e2e as rep  # noqa: E402
import test_remote as tr  # noqa: E402


class Embedded(TempDirTest):
    """Each embedded block equals the command's own JSON output, line for line."""

    def check(self, brokers, paths):
        out = os.path.join(self.tmp, "r.html")
        code, _, err, text = rep.report(paths, out)
        self.assertIsNotNone(text, err)
        page = rep.Page(text)
        self.assertTrue(page.json, "no command's JSON embedded")
        outs = rep.command_outputs(page, brokers, paths)
        for block, (_, lines) in outs.items():
            emb = [l for l in page.json[block] if l["type"] != "omitted"]
            self.assertFalse([l for l in page.json[block] if l["type"] == "omitted"], block)
            # scan's problems are its own lines; the other commands' problems
            # are the readers' and can come in another order or be cut shorter
            types = {l["type"] for l in emb} | ({"problem"} if block == "kfsck-scan" else set())
            if block != "kfsck-scan":
                types.discard("problem")
            self.assertEqual(rep.canon(emb, types), rep.canon(lines, types), block)
            # and in the command's order (its problems aside)
            self.assertEqual(rep.in_order(emb, types - {"problem"}), rep.in_order(lines, types - {"problem"}), block)
            self.assertEqual({l["type"] for l in lines} - {"problem"}, {l["type"] for l in emb} - {"problem"}, block)
        self.assertEqual(code, max(c for c, _ in outs.values()), "the highest of the commands' exit codes")
        return page, outs

    def test_damaged_cluster(self):
        dirs = rep.build_cluster(os.path.join(self.tmp, "c"))
        page, outs = self.check([[d] for d in dirs], dirs)
        for b in ("kfsck-scan", "kfsck-predict", "kfsck-replicas", "kfsck-offsets", "kfsck-txns", "kfsck-stats"):
            self.assertIn(b, page.json)

    def test_fixtures(self):
        cases = [["datadir"], ["replicas/broker-1", "replicas/broker-2", "replicas/broker-3", "replicas/broker-4"],
                 ["offsets/datadir"], ["txns/datadir"], ["kraft/node1"], ["partition/orders-0"]]
        for case in cases:
            with self.subTest(case=case):
                paths = [os.path.join(FIX, c) for c in case]
                datadirs = [[p] for p in paths if not os.path.basename(p).startswith("orders-")]
                self.check(datadirs, paths)


    def test_tiered_partition_and_topics_of_stats(self):
        """remote's segment and index-cache lines and stats' summaries after
        every topic's buckets: the lines --json prints, in its order."""
        c = tr.Cluster(self.tmp)
        c.seg("s1", 0, 99, tr.rf.COPY_FINISHED)
        c.seg("s2", 100, 149, tr.rf.COPY_STARTED, ts=1700000000000)  # days before rep.NOW: stuck
        c.metadata()
        c.local(100, 80)
        cache = os.path.join(c.dir, "remote-log-index-cache")
        os.makedirs(cache)
        tr.rf.index_cache_entry(cache, 200, tr.rf.uid("broken"), offsets=[(220, 0), (150, 10)], times=[(5, 220)])
        page, outs = self.check([[c.dir]], [c.dir])
        kinds = [l["type"] for l in page.json["kfsck-remote"]]
        self.assertIn("remote_segment", kinds)
        self.assertIn("remote_index", kinds)
        stats = [l["type"] for l in page.json["kfsck-stats"]]
        self.assertGreater(stats.count("summary"), 1)  # orders and the metadata topic
        self.assertEqual(stats, sorted(stats, key=lambda t: t == "summary"))


class Counts(TempDirTest):
    """The figures at the top of the page are the commands' figures."""

    def test_counts_are_the_commands(self):
        dirs = rep.build_cluster(os.path.join(self.tmp, "c"))
        out = os.path.join(self.tmp, "r.html")
        code, _, _, text = rep.report(dirs, out)
        page = rep.Page(text)
        counts = {a["data-count"]: None for t, a in page.tags if "data-count" in a}
        for key in counts:
            m = re.search(r'data-count="%s">([0-9,-]+)<' % key, text)
            counts[key] = int(m.group(1).replace(",", ""))
        outs = rep.command_outputs(page, [[d] for d in dirs], dirs)
        scan = outs["kfsck-scan"][1]
        summary = [l for l in scan if l["type"] == "summary"][0]
        self.assertEqual(counts["partitions"], summary["partitions"])
        damaged = {l["file"] for l in scan if l["type"] == "problem" and l["severity"] == "error"
                   and l["file"].endswith(".log")}
        self.assertEqual(counts["damaged-segments"], len(damaged))
        self.assertGreater(counts["damaged-segments"], 0)
        out_of_range = {l["group"] for l in outs["kfsck-offsets"][1] if l["type"] == "offset" and l.get("out_of_range")}
        self.assertEqual(counts["groups-out-of-range"], len(out_of_range))
        self.assertEqual(counts["groups-out-of-range"], 1)
        lost = sum(l["offsets_lost"] for l in outs["kfsck-predict"][1] if l["type"] == "summary")
        self.assertEqual(counts["offsets-lost"], lost)
        self.assertEqual(code, 1)


class Hostile(TempDirTest):
    """Names from a damaged disk: a group and a topic that try to close the
    script element, open an img with an onerror, hide behind an ANSI escape
    and a right-to-left override."""

    def test_names_stay_text(self):
        dirs = rep.build_cluster(os.path.join(self.tmp, "c"), hostile=True)
        out = os.path.join(self.tmp, "r.html")
        code, _, err, text = rep.report(dirs, out)
        self.assertIsNotNone(text, err)
        page = rep.Page(text)
        self.assertNotIn("img", [t for t, _ in page.tags])
        self.assertNotIn("<img", text)
        self.assertNotIn("</script><", text.replace("</script>\n<script", ""))
        for ch in ("\x1b", "\x07", "\u202e"):
            self.assertNotIn(ch, text)
        scripts = [a for t, a in page.tags if t == "script"]
        self.assertTrue(all(a.get("type") == "application/json" for a in scripts[:-1]))
        self.assertEqual(len(page.scripts), 1, "one script that runs: the page's own")
        # the names come back out of the JSON exactly, and show escaped in the text
        groups = {l["group"] for l in page.json["kfsck-offsets"]}
        self.assertIn(rep.HOSTILE_GROUP, groups)
        topics = {l["topic"] for l in page.json["kfsck-scan"] if l["type"] == "partition"}
        self.assertIn(rep.HOSTILE_TOPIC, topics)
        self.assertIn("&lt;img src=x onerror=alert(1)&gt;\\x1b[31m\\u{202e}gnp.exe", text)
        self.assertIn("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;\\x07&lt;!--", text)
        self.assertNotIn("<!--", text)


class Secrets(TempDirTest):
    """Every value `metadata` redacts without --show-secrets stays out of the page."""

    def test_secrets_redacted(self):
        node = os.path.join(FIX, "kraft", "node1")
        _, shown, _ = run("metadata", "--json", "--show-secrets", node, cwd=None)
        _, hidden, _ = run("metadata", "--json", node, cwd=None)
        secrets = []
        for a, b in zip(rep.json_lines(shown), rep.json_lines(hidden)):
            secrets += [a[k] for k in b if b[k] == "<redacted>" and isinstance(a[k], str) and len(a[k]) > 3]
        self.assertGreaterEqual(len(secrets), 3)
        out = os.path.join(self.tmp, "r.html")
        _, _, err, text = rep.report([node], out)
        self.assertIsNotNone(text, err)
        for v in secrets:
            for form in (v, v.replace('"', "&quot;"), v.replace('"', '\\"')):
                self.assertNotIn(form, text)
        page = rep.Page(text)
        redacted = [l for l in page.json["kfsck-metadata"] if "<redacted>" in l.values()]
        self.assertEqual(len(redacted), len([l for l in rep.json_lines(hidden) if "<redacted>" in l.values()]))
        self.assertIn("&lt;redacted&gt;", text)


class Page(TempDirTest):
    def test_self_contained(self):
        out = os.path.join(self.tmp, "r.html")
        _, _, _, text = rep.report([os.path.join(FIX, "datadir")], out)
        page = rep.Page(text)
        self.assertTrue(all(u.startswith("#") or u.startswith("data:") for u in page.urls), page.urls)
        self.assertIn("default-src 'none'", page.csp)
        digest = base64.b64encode(hashlib.sha256(page.scripts[0].encode()).digest()).decode()
        self.assertIn("'sha256-%s'" % digest, page.csp, "the CSP allows the page's own script")
        self.assertNotRegex(text, r"(?i)\b(src|href)=\"(https?:)?//")

    def test_reset_csv_link_is_offsets_reset_csv(self):
        dirs = rep.build_cluster(os.path.join(self.tmp, "c"))
        out = os.path.join(self.tmp, "r.html")
        rep.report(dirs, out)
        page = rep.Page(rep.read_text(out))
        link = [a["href"] for t, a in page.tags if t == "a" and a.get("id") == "reset-csv"][0]
        prefix = "data:text/csv;charset=utf-8,"
        self.assertTrue(link.startswith(prefix))
        _, csv, _ = run("offsets", "--format", "reset-csv", *dirs, cwd=None)
        self.assertEqual(urllib.parse.unquote(link[len(prefix):]), csv)
        self.assertIn("payments,orders,0,150\n", csv)


class Output(TempDirTest):
    """Whole or not at all; never over an input nor inside one; usage."""

    def test_inputs_unchanged_and_no_stray_files(self):
        dirs = rep.build_cluster(os.path.join(self.tmp, "c"))
        before = tree_digest(os.path.join(self.tmp, "c"))
        out = os.path.join(self.tmp, "o", "r.html")
        os.makedirs(os.path.dirname(out))
        with open(out, "w") as f:
            f.write("an earlier report")
        code, _, _, text = rep.report(dirs, out)
        self.assertIn(code, (0, 1))
        self.assertTrue(text.startswith("<!DOCTYPE html>"))
        self.assertEqual(os.listdir(os.path.dirname(out)), ["r.html"])
        self.assertEqual(before, tree_digest(os.path.join(self.tmp, "c")))

    def test_refusals(self):
        dd = os.path.join(self.tmp, "dd")
        rep.build_cluster(dd)
        inside = os.path.join(dd, "b1", "r.html")
        code, _, err, text = rep.report([os.path.join(dd, "b1")], inside)
        self.assertEqual(code, 2, err)
        self.assertIn("inside", err)
        self.assertFalse(os.path.exists(inside))
        seg = os.path.join(dd, "b1", "orders-0", "00000000000000000000.log")
        size = os.path.getsize(seg)
        code, _, err = run("report", "-o", seg, seg, cwd=None)
        self.assertEqual(code, 2, err)
        self.assertIn("over", err)
        self.assertEqual(os.path.getsize(seg), size)
        code, _, err, _ = rep.report([os.path.join(dd, "b1")], os.path.join(self.tmp, "no", "such", "r.html"))
        self.assertEqual(code, 3, err)
        self.assertRegex(err, r"^kfsck: .*r\.html: cannot write the report")
        code, _, err = run("report", "-o", self.tmp, os.path.join(dd, "b1"), cwd=None)
        self.assertEqual(code, 2, err)

    def test_unreadable_path_is_3_and_the_page_is_written(self):
        out = os.path.join(self.tmp, "r.html")
        code, _, err, text = rep.report([os.path.join(FIX, "datadir"), os.path.join(self.tmp, "missing")], out)
        self.assertEqual(code, 3)
        self.assertIn("missing", err)
        self.assertIsNotNone(text)

    def test_nothing_to_report_writes_nothing(self):
        """Only PATHs that cannot be used, or hold nothing kfsck reads: exit 3, no page."""
        for paths in ([os.path.join(self.tmp, "missing")], [os.path.join(FIX, "MANIFEST.json")]):
            with self.subTest(paths=paths):
                code, _, err = run("report", *paths, cwd=self.tmp)
                self.assertEqual(code, 3, err)
                self.assertEqual(os.listdir(self.tmp), [])

    def test_usage(self):
        self.assertEqual(run("report", cwd=self.tmp)[0], 2)
        self.assertEqual(run("report", "--bogus", "x", cwd=self.tmp)[0], 2)
        code, so, _ = run("report", "--help")
        self.assertEqual(code, 0)
        self.assertIn("usage: kfsck report", so)

    def test_json_line(self):
        out = os.path.join(self.tmp, "r.html")
        code, so, _, _ = rep.report([os.path.join(FIX, "datadir")], out, "--json", "--title", "incident <42>")
        line = rep.json_lines(so)[0]
        self.assertEqual((line["type"], line["file"], line["exit"]), ("report", out, code))
        self.assertEqual(line["bytes"], os.path.getsize(out))
        self.assertIn("<title>incident &lt;42&gt;</title>", rep.read_text(out))


class Bounded(TempDirTest):
    """Many damaged partitions: the page keeps its size and says what it left out."""

    def test_many_damaged_partitions(self):
        import gen_offsets as go
        w = go.Writer(self.tmp)
        for p in range(600):
            f = w.partition("dd", rep.topic_log("t%03d" % (p % 7), p, 20, rep.T, per=5), rep.TOPIC_ID)
            seg = os.path.join(self.tmp, f["segments"][0]["path"])
            rep.flip(seg, os.path.getsize(seg) // 2)
        out = os.path.join(self.tmp, "r.html")
        code, _, err, text = rep.report([os.path.join(self.tmp, "dd")], out)
        self.assertEqual(code, 1, err)
        self.assertLess(len(text.encode()), 2 << 20)
        page = rep.Page(text)
        self.assertTrue(any(l["type"] == "omitted" for l in page.json["kfsck-scan"]))
        self.assertIn("more partition copies with something to say are not drawn", text)
        self.assertIn('data-count="damaged-partitions">600<', text)


if __name__ == "__main__":
    unittest.main()
