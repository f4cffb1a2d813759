#!/usr/bin/python3
"""Unit tests of the broker suite's harness that need no broker (tests/run.sh
runs them once, with the normal build): what `make check-broker` says when
Maven cannot fetch Kafka. A fresh Debian behind a TLS-intercepting proxy
whose CA Java does not trust printed only "No plugin found for prefix
'dependency'" under mvn -q; the issue asks for one line that says Maven
Central cannot be reached.
"""
import os
import sys
import unittest

ROOT = os.environ.get("KFSCK_ROOT", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "tests", "broker"))

import harness  # noqa: E402

UNREACHABLE = "Maven Central cannot be reached to fetch Kafka (4.4.0)"


class MavenFailure(unittest.TestCase):
    def test_each_way_a_download_fails_is_unreachable(self):
        outputs = [
            "[ERROR] No plugin found for prefix 'dependency' in the current project and in the plugin groups "
            "[org.apache.maven.plugins, org.codehaus.mojo] available from the repositories [local (/p/.m2repo), "
            "central (https://repo.maven.apache.org/maven2)] -> [Help 1]",
            "[ERROR] Failed to execute goal on project x: Could not resolve dependencies for project k:x:jar:1",
            "[WARNING] Failed to read artifact descriptor for org.apache.maven.plugins:maven-compiler-plugin:jar:3.13.0",
            "Caused by: sun.security.validator.ValidatorException: PKIX path building failed",
            "[ERROR] ... Unknown host repo.maven.apache.org: Temporary failure in name resolution",
        ]
        for out in outputs:
            with self.subTest(out=out[:40]):
                self.assertTrue(harness.maven_failure(out, "4.4.0").startswith(UNREACHABLE))

    def test_another_failure_is_said_as_maven_said_it(self):
        out = "[INFO] x\n[ERROR] COMPILATION ERROR : Driver.java:[12,5] cannot find symbol\n[ERROR] more"
        self.assertEqual(harness.maven_failure(out, "4.4.0"),
                         "mvn failed: [ERROR] COMPILATION ERROR : Driver.java:[12,5] cannot find symbol")


if __name__ == "__main__":
    unittest.main()
