"""report_screenshot.py KFSCK OUT.png: the picture of a damaged cluster's
report in docs/ and the README. Writes the three-broker cluster of the
report's tests (tests/e2e/report_e2e.build_cluster: broker 2's copy short,
broker 3's damaged in its middle, a group committed past the log end) into
a temporary directory named like copied log dirs, runs `KFSCK report` on it
and takes a 1280-pixel-wide screenshot of the page's top in headless
Chromium (the tests' DevTools client). Run from the repository root:
    /usr/bin/python3 tools/dev/report_screenshot.py build/kfsck docs/report-screenshot.png
"""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
os.environ.setdefault("KFSCK", os.path.abspath(sys.argv[1]))
import report_e2e as rep  # noqa: E402


def main(kfsck, out):
    top = tempfile.mkdtemp(prefix="kfsck-incident-")
    try:
        dirs = rep.build_cluster(os.path.join(top, "copies"))
        page = os.path.join(top, "incident.html")
        subprocess.run([kfsck, "report", "--now", rep.NOW, "--title", "orders cluster, after the power cut",
                        "-o", page, *dirs], check=False, stdout=subprocess.DEVNULL)
        c = rep.Chromium()
        try:
            c.open(page)
            c.page("Emulation.setDeviceMetricsOverride",
                   {"width": 1280, "height": 1400, "deviceScaleFactor": 1, "mobile": False})
            png = c.screenshot()
        finally:
            c.close()
        with open(out, "wb") as f:
            f.write(png)
    finally:
        shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    main(os.path.abspath(sys.argv[1]), sys.argv[2])
