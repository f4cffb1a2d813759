"""report_e2e: what the tests of `kfsck report` share (test_report.py,
test_report_browser.py): a damaged three-broker cluster written by the
project's independent encoders (tools/gen: kafkafmt's batches, gen_offsets'
__consumer_offsets records), optionally with names that try to break out of
HTML; the page's parts read back with Python's own HTML parser; the commands
the report runs, each run alone, to compare with what the page embeds; and
a small client of Chromium's DevTools protocol over --remote-debugging-pipe
(no library: the browser is Debian's chromium). Not a test file itself.
"""
import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import ROOT, run  # noqa: E402

sys.path[:0] = [os.path.join(ROOT, "tools", "gen")]
import gen_offsets as go  # noqa: E402

T = 1700000000000
NOW = "2023-11-20T00:00:00Z"
CLUSTER = "rEpOrTtEsTcLuStEr0001w"
TOPIC_ID = "AAECAwQFBgcICQoLDA0ODw"
HOSTILE_TOPIC = "<img src=x onerror=alert(1)>\x1b[31m\u202egnp.exe"
HOSTILE_GROUP = "</script><img src=x onerror=alert(1)>\x07<!--"


def checkpoint(entries):
    return "0\n%d\n" % len(entries) + "".join("%s %d %d\n" % e for e in entries)


def flip(path, where):
    """Flips a bit of the byte at where (negative: from the end) of the file at path."""
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        data[where] ^= 0x40
        f.seek(0)
        f.write(bytes(data))


def read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def topic_log(topic, part, n, ts, per=10):
    log = go.PartLog(topic, part)
    for b in range(0, n, per):
        log.data([(b"k%d" % (b + i), b"v" * 40, None) for i in range(min(per, n - b))], ts + b * 60000)
    return log


def build_cluster(top, hostile=False):
    """Three brokers' data dirs under top (b1, b2, b3; one cluster): orders-0
    on all three, broker 2's copy 20 offsets short and broker 3's damaged in
    its middle (its recovery cuts there), every high watermark at 100;
    orders-1 alike on all; __consumer_offsets-0 on broker 1 with a group
    whose commit is past the log end. hostile: also a topic and a group
    named to break out of HTML. Returns the data dirs."""
    w = go.Writer(top)
    dirs = []
    for b in (1, 2, 3):
        dd = "b%d" % b
        dirs.append(os.path.join(top, dd))
        w.write(dd + "/meta.properties", "version=0\nbroker.id=%d\ncluster.id=%s\n" % (b, CLUSTER))
        facts = w.partition(dd, topic_log("orders", 0, 80 if b == 2 else 100, T), TOPIC_ID)
        if b == 3:  # a bit flipped inside the sixth batch: recovery cuts there
            seg = facts["segments"][0]
            batch = seg["batches"][5]
            flip(os.path.join(top, seg["path"]), batch["position"] + batch["size"] - 5)
        w.partition(dd, topic_log("orders", 1, 50, T), TOPIC_ID)
        entries = [("orders", 0, 100), ("orders", 1, 50)]
        w.write(dd + "/replication-offset-checkpoint", checkpoint(entries))
        w.write(dd + "/recovery-point-offset-checkpoint", checkpoint([("orders", 0, 0), ("orders", 1, 0)]))
        w.write(dd + "/log-start-offset-checkpoint", checkpoint([("orders", 0, 0), ("orders", 1, 0)]))
    log = go.PartLog("__consumer_offsets", 0)
    recs = [go.OC("payments", "orders", 0, 3, 150, T + 1000), go.OC("payments", "orders", 1, 3, 20, T + 1000)]
    if hostile:
        recs.append(go.OC(HOSTILE_GROUP, "orders", 1, 3, 10, T + 2000))
        recs.append(go.OC("g2", HOSTILE_TOPIC, 0, 3, 5, T + 2000))
    log.data(recs, T + 3000)
    w.partition("b1", log, "AAAAAAAAAAAAAAAAAAAAAA")
    if hostile:
        w.partition("b1", topic_log(HOSTILE_TOPIC, 0, 30, T), "AQEBAQEBAQEBAQEBAQEBAQ")
    return dirs


class Page(HTMLParser):
    """The page's elements as Python's HTML parser reads them: every start
    tag, the JSON script elements' text by id, the last script's text, the
    Content-Security-Policy, every URL in src or href."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags, self.json, self.scripts, self.urls = [], {}, [], []
        self.csp = None
        self._in = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        for k in ("src", "href"):
            if k in a:
                self.urls.append(a[k])
        if tag == "meta" and a.get("http-equiv", "").lower() == "content-security-policy":
            self.csp = a.get("content")
        if tag == "script":
            self._in = a
            self._text = ""

    def handle_data(self, data):
        if self._in is not None:
            self._text += data

    def handle_endtag(self, tag):
        if tag == "script" and self._in is not None:
            if self._in.get("type") == "application/json":
                self.json[self._in.get("id")] = [json.loads(l) for l in self._text.splitlines() if l.strip()]
            else:
                self.scripts.append(self._text)
            self._in = None


def report(paths, out, *extra):
    """kfsck report over paths into out; (exit code, stdout, stderr, page text or None)."""
    code, so, se = run("report", "--now", NOW, "-o", out, *extra, *paths, cwd=None)
    text = read_text(out) if os.path.exists(out) else None
    return code, so, se, text


def json_lines(text):
    return [json.loads(l) for l in text.splitlines() if l.strip()]


def command_outputs(page, datadirs_by_broker, paths):
    """Each command whose lines the page embeds, run alone on the same
    inputs: {block id: (exit code, lines)}; predict once per broker."""
    flat = [d for ds in datadirs_by_broker for d in ds]
    runs = {"kfsck-scan": [("scan", "--json", "--jobs", "1", *flat)],
            "kfsck-predict": [("predict", "--json", "--now", NOW, *ds) for ds in datadirs_by_broker],
            "kfsck-replicas": [("replicas", "--json", *flat)],
            "kfsck-offsets": [("offsets", "--json", *paths)],
            "kfsck-txns": [("txns", "--json", *paths)],
            "kfsck-compaction": [("compaction", "--json", "--now", NOW, *paths)],
            "kfsck-metadata": [("metadata", "--json", *paths)],
            "kfsck-remote": [("remote", "--json", "--now", NOW, *paths)],
            "kfsck-stats": [("stats", "--json", *paths)]}
    out = {}
    for block in page.json:
        code, lines = 0, []
        for args in runs[block]:
            c, so, _ = run(*args, cwd=None)
            code = max(code, c)
            lines += json_lines(so)
        out[block] = (code, lines)
    return out


def canon(lines, types):
    return sorted(json.dumps(l, sort_keys=True) for l in lines if l["type"] in types)


def in_order(lines, types):
    return [json.dumps(l, sort_keys=True) for l in lines if l["type"] in types]


# ---- a DevTools client over --remote-debugging-pipe ---------------------------------

CHROMIUM = "/usr/lib/chromium/chromium"


def chromium_missing():
    return None if os.access(CHROMIUM, os.X_OK) else "Debian's chromium is not installed (make deps installs it)"


class Chromium:
    """Headless Chromium on a fresh profile, driven over its DevTools pipe
    (fd 3 it reads, fd 4 it writes: NUL-separated JSON messages)."""

    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="kfsck-chromium-")
        r1, w1 = os.pipe()
        r2, w2 = os.pipe()
        a, b = os.dup(r1), os.dup(w2)  # above 3 and 4, which the redirections below fill
        os.close(r1)
        os.close(w2)
        cmd = 'exec "$0" "$@" 3<&%d 4>&%d %d<&- %d>&-' % (a, b, a, b)
        self.proc = subprocess.Popen(
            ["/bin/bash", "-c", cmd, CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
             "--disable-default-apps", "--disable-extensions", "--user-data-dir=" + self.profile,
             "--remote-debugging-pipe", "about:blank"],
            pass_fds=(a, b), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(a)
        os.close(b)
        self.w, self.r = w1, r2
        self.buf, self.id, self.events = b"", 0, []
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

    def _read(self, timeout):
        while b"\0" not in self.buf:
            ready, _, _ = select.select([self.r], [], [], timeout)
            if not ready:
                raise TimeoutError("chromium did not answer")
            d = os.read(self.r, 1 << 20)
            if not d:
                raise EOFError("chromium exited")
            self.buf += d
        m, self.buf = self.buf.split(b"\0", 1)
        return json.loads(m)

    def wait(self, pred, timeout=60):
        end = time.time() + timeout
        while True:
            m = self._read(max(0.1, end - time.time()))
            if pred(m):
                return m
            self.events.append(m)

    def send(self, method, params=None, session=False):
        self.id += 1
        msg = {"id": self.id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        m = self.wait(lambda x: x.get("id") == self.id)
        if "error" in m:
            raise RuntimeError("%s: %s" % (method, m["error"]))
        return m["result"]

    def page(self, method, params=None):
        return self.send(method, params, session=True)

    def open(self, path, javascript=True):
        for m in ("Runtime.enable", "Log.enable", "Network.enable", "Page.enable"):
            self.page(m)
        self.page("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
        self.page("Emulation.setScriptExecutionDisabled", {"value": not javascript})
        self.events = []
        self.page("Page.navigate", {"url": "file://" + os.path.abspath(path)})
        self.wait(lambda m: m.get("method") == "Page.loadEventFired")

    def eval(self, expr):
        r = self.page("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError(json.dumps(r["exceptionDetails"]))
        return r["result"].get("value")

    def screenshot(self):
        return base64.b64decode(self.page("Page.captureScreenshot", {"format": "png"})["data"])

    def pdf(self):
        return base64.b64decode(self.page("Page.printToPDF", {"paperWidth": 8.27, "paperHeight": 11.69,
                                                              "printBackground": True})["data"])

    def complaints(self, page_url):
        """Console errors, uncaught exceptions, error log entries (a CSP
        violation is one) and every request for anything but the page itself
        or a data: URL, among the events seen since open."""
        bad = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                bad.append("console: %s" % json.dumps(p.get("args"))[:300])
            elif m == "Runtime.exceptionThrown":
                bad.append("exception: %s" % json.dumps(p)[:300])
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                bad.append("log: %s" % p["entry"].get("text", "")[:300])
            elif m == "Network.requestWillBeSent":
                url = p.get("request", {}).get("url", "")
                if url != page_url and not url.startswith("data:"):
                    bad.append("request: %s" % url[:300])
        return bad

    def close(self):
        try:
            self.send("Browser.close")
        except (EOFError, TimeoutError, OSError, RuntimeError):
            pass
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.w)
        os.close(self.r)
        shutil.rmtree(self.profile, ignore_errors=True)
