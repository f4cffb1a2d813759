"""kfsck report in a real browser (issue 39): headless Chromium (Debian's
chromium, a fresh profile, no network, driven over its DevTools pipe by
report_e2e.Chromium) opens the report of the fixtures and of a generated
damaged cluster and must show no console error, exception or blocked load
and make no request but for the file itself; the DOM's counts (partitions,
damaged segments, groups out of range) are the commands' JSON; the page
prints to PDF; with JavaScript off every table row is still there. A
1280x800 screenshot of each page is kept in BUILD/report-screenshots/ (the
build directory of the binary under test) for a person to look at."""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, KFSCK, TempDirTest  # noqa: E402
import report_e2e as rep  # noqa: E402

SHOTS = os.path.join(os.path.dirname(KFSCK), "report-screenshots")

COUNTS_JS = ("JSON.stringify({counts: Object.fromEntries([...document.querySelectorAll('[data-count]')]"
             ".map(e => [e.dataset.count, parseInt(e.textContent.replace(/,/g, ''))])),"
             " parts: document.querySelectorAll('section.part').length,"
             " rows: [...document.querySelectorAll('table.pg tbody tr')].filter(r => !r.hidden).length,"
             " allrows: document.querySelectorAll('table.pg tbody tr').length,"
             " pagers: document.querySelectorAll('.pager').length,"
             " svgs: document.querySelectorAll('svg').length,"
             " title: document.title})")


@unittest.skipIf(rep.chromium_missing(), rep.chromium_missing() or "")
class Browser(TempDirTest):
    @classmethod
    def setUpClass(cls):
        cls.chrome = rep.Chromium()

    @classmethod
    def tearDownClass(cls):
        cls.chrome.close()

    def look(self, name, paths, brokers):
        out = os.path.join(self.tmp, name + ".html")
        code, _, err, text = rep.report(paths, out)
        self.assertIsNotNone(text, err)
        c = self.chrome
        c.open(out)
        self.assertEqual(c.complaints("file://" + os.path.abspath(out)), [])
        import json
        dom = json.loads(c.eval(COUNTS_JS))
        os.makedirs(SHOTS, exist_ok=True)
        png = c.screenshot()
        self.assertEqual(png[:8], b"\x89PNG\r\n\x1a\n")
        with open(os.path.join(SHOTS, name + ".png"), "wb") as f:
            f.write(png)
        pdf = c.pdf()
        self.assertTrue(pdf.startswith(b"%PDF"))
        self.assertGreater(len(re.findall(rb"/Type\s*/Page\b", pdf)), 0)
        self.assertEqual(c.complaints("file://" + os.path.abspath(out)), [])
        # the commands' own figures
        page = rep.Page(text)
        outs = rep.command_outputs(page, brokers, paths)
        if "kfsck-scan" in outs:
            scan = outs["kfsck-scan"][1]
            self.assertEqual(dom["counts"]["partitions"],
                             [l for l in scan if l["type"] == "summary"][0]["partitions"])
            damaged = {l["file"] for l in scan if l["type"] == "problem" and l["severity"] == "error"
                       and l["file"].endswith(".log")}
            self.assertEqual(dom["counts"]["damaged-segments"], len(damaged))
            self.assertEqual(dom["counts"]["damaged-partitions"],
                             len([l for l in scan if l["type"] == "partition" and l["errors"]]))
        if "kfsck-offsets" in outs:
            oor = {l["group"] for l in outs["kfsck-offsets"][1] if l["type"] == "offset" and l.get("out_of_range")}
            self.assertEqual(dom["counts"]["groups-out-of-range"], len(oor))
        # without JavaScript the tables are whole
        c.open(out, javascript=False)
        nojs = json.loads(c.eval(COUNTS_JS))
        self.assertEqual(nojs["rows"], nojs["allrows"])
        self.assertEqual(nojs["pagers"], 0)
        self.assertEqual(nojs["parts"], dom["parts"])
        self.assertEqual(c.complaints("file://" + os.path.abspath(out)), [])
        return dom, code

    def test_fixtures(self):
        for name, case in (("datadir", ["datadir"]), ("replicas", ["replicas/broker-%d" % b for b in (1, 2, 3, 4)]),
                           ("offsets", ["offsets/datadir"]), ("kraft", ["kraft/node1"]), ("txns", ["txns/datadir"])):
            with self.subTest(case=name):
                paths = [os.path.join(FIX, c) for c in case]
                self.look("fixture-" + name, paths, [[p] for p in paths])

    def test_damaged_cluster(self):
        dirs = rep.build_cluster(os.path.join(self.tmp, "c"), hostile=True)
        dom, code = self.look("damaged-cluster", dirs, [[d] for d in dirs])
        self.assertEqual(code, 1)
        self.assertEqual(dom["counts"]["groups-out-of-range"], 1)
        self.assertGreaterEqual(dom["counts"]["damaged-segments"], 1)
        self.assertGreaterEqual(dom["parts"], 3)
        # the hostile names are text: the DOM holds no element they would have made
        self.assertEqual(self.chrome.eval("document.querySelectorAll('img, iframe, object, embed').length"), 0)
        self.assertEqual(self.chrome.eval("document.querySelectorAll('script:not([type])').length"), 1)

    def test_pager(self):
        """A long table gets a pager with JavaScript; printing shows every row."""
        import gen_offsets as go
        w = go.Writer(self.tmp)
        for p in range(120):
            f = w.partition("dd", rep.topic_log("t", p, 10, rep.T, per=5), rep.TOPIC_ID)
            seg = os.path.join(self.tmp, f["segments"][0]["path"])
            rep.flip(seg, -3)
        dd = os.path.join(self.tmp, "dd")
        dom, _ = self.look("many-partitions", [dd], [[dd]])
        self.assertGreaterEqual(dom["pagers"], 1)
        self.assertLess(dom["rows"], dom["allrows"])
        self.chrome.eval("window.dispatchEvent(new Event('beforeprint'))")
        self.assertEqual(self.chrome.eval("[...document.querySelectorAll('table.pg tbody tr')]"
                                          ".filter(r => r.hidden).length"), 0)


if __name__ == "__main__":
    unittest.main()
