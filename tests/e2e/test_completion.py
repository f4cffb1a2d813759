"""test_completion: the shell completion (contrib/completion/kfsck.bash and
_kfsck) against the real options. Every option each command's --help lists
(its usage lines and its option column) is offered by the bash completion,
run in bash with the file sourced and COMP_WORDS set as bash sets them;
every option it offers is one the command accepts; the fixed values a usage
line gives (--decode a|b|..., --format a|b|...) are the values it offers;
-o offers directories only; and the zsh file names every option too.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import KFSCK, ROOT, run  # noqa: E402

BASH_COMPLETION = os.path.join(ROOT, "contrib", "completion", "kfsck.bash")
ZSH_COMPLETION = os.path.join(ROOT, "contrib", "completion", "_kfsck")
OPTION = re.compile(r"(?<![\w-])(--?[a-z][a-z-]*)")


def complete(words, cwd=None):
    """What _kfsck offers for the command line `words`, the last word being
    the one completed (COMP_WORDS and COMP_CWORD as bash sets them)."""
    script = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); '
              'COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; _kfsck; '
              'printf "%s\\n" "${COMPREPLY[@]}"')
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", script, "bash", BASH_COMPLETION, *words],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30, cwd=cwd)
    assert p.returncode == 0, p.stderr.decode()
    return [w for w in p.stdout.decode().splitlines() if w]


def commands():
    """The command names `kfsck --help` lists."""
    rc, out, _ = run("--help")
    assert rc == 0
    names, inside = [], False
    for line in out.splitlines():
        if line == "commands:":
            inside = True
        elif inside and line.startswith("  "):
            names.append(line.split()[0])
        elif inside:
            break
    assert len(names) >= 10, out
    return names


def help_of(cmd):
    rc, out, err = run(cmd, "--help")
    assert rc == 0, (cmd, err)
    return out


def usage_lines(text):
    """The usage block: from "usage:" to the first blank line."""
    block = []
    for line in text.splitlines():
        if not line.strip():
            break
        block.append(line)
    assert block and block[0].startswith("usage:"), text
    return block


def help_options(text):
    """The options of a command's --help: every option in its usage lines,
    and those that open a line of the option list (indented by two spaces):
    its first words up to a gap of two spaces, taken while each is an
    option, an option's placeholder (N, MS, a|b) or the '/' between two
    options (`--group G / --topic T`)."""
    opts = set()
    for line in usage_lines(text):
        opts.update(OPTION.findall(line))
    for line in text.splitlines():
        if not re.match(r"^  -", line):
            continue
        for word in re.split(r"\s{2,}", line.strip(), maxsplit=1)[0].split():
            if OPTION.fullmatch(word):
                opts.add(word)
            elif not (word == "/" or re.fullmatch(r"[A-Z]+|[a-z-]+(\|[a-z-]+)+", word)):
                break
    return opts


def usage_values(text):
    """{option: [values]} for each `--opt a|b|c` of the usage lines."""
    found = {}
    for line in usage_lines(text):
        for opt, vals in re.findall(r"(--[a-z-]+) ([a-z-]+(?:\|[a-z-]+)+)", line):
            found[opt] = vals.split("|")
    return found


class CompletionTest(unittest.TestCase):
    def test_commands_offered(self):
        offered = complete(["kfsck", ""])
        self.assertEqual(sorted(set(offered) - {"--help", "--version"}), sorted(commands()))
        self.assertEqual(complete(["kfsck", "me"]), ["merge", "metadata"])

    def test_every_help_option_offered(self):
        for cmd in commands():
            with self.subTest(cmd=cmd):
                want = help_options(help_of(cmd))
                self.assertIn("--json", want)  # the parse found the options
                offered = set(complete(["kfsck", cmd, "-"]))
                self.assertEqual(want - offered, set(), f"{cmd}: in --help but not completed")

    def test_every_offered_option_accepted(self):
        for cmd in commands():
            for opt in complete(["kfsck", cmd, "-"]):
                with self.subTest(cmd=cmd, opt=opt):
                    rc, _, err = run(cmd, opt, "1", "/nonexistent/kfsck-completion-test")
                    self.assertNotIn("unrecognized option", err)
                    self.assertNotIn("invalid option", err)

    def test_fixed_values(self):
        seen = 0
        for cmd in commands():
            for opt, values in usage_values(help_of(cmd)).items():
                with self.subTest(cmd=cmd, opt=opt):
                    seen += 1
                    self.assertEqual(sorted(complete(["kfsck", cmd, opt, ""])), sorted(values))
                    self.assertEqual(complete(["kfsck", cmd, opt, values[0][:len(values[0])]]),
                                     [v for v in values if v.startswith(values[0])])
                    # --opt=value as one word (COMP_WORDBREAKS without '=')
                    self.assertEqual(sorted(complete(["kfsck", cmd, opt + "=" + values[-1]])),
                                     sorted(opt + "=" + v for v in values if v.startswith(values[-1])))
        self.assertGreaterEqual(seen, 2)  # dump --decode and offsets --format at least
        self.assertIn("metadata", complete(["kfsck", "dump", "--decode", "me"]))

    def test_free_value_completes_nothing(self):
        self.assertEqual(complete(["kfsck", "offsets", "--group", ""]), [])
        self.assertEqual(complete(["kfsck", "scan", "--jobs", ""]), [])
        self.assertEqual(complete(["kfsck", "dump", "--offset", ""]), [])
        self.assertEqual(complete(["kfsck", "dump", "--to-offset", ""]), [])

    def test_schema_ids_takes_a_value_in_verify_only(self):
        self.assertEqual(sorted(complete(["kfsck", "verify", "--schema-ids", ""])), ["both", "key", "value"])
        d = tempfile.mkdtemp()
        try:
            os.mkdir(os.path.join(d, "orders-0"))
            # dump --schema-ids is a flag: a PATH comes next
            self.assertEqual(complete(["kfsck", "dump", "--schema-ids", "o"], cwd=d), ["orders-0"])
        finally:
            shutil.rmtree(d)

    def test_offsets_expiry_options(self):
        # --now and --offsets-retention-minutes are offered and take a value (no paths after them)
        self.assertEqual(complete(["kfsck", "offsets", "--offsets-r"]), ["--offsets-retention-minutes"])
        self.assertEqual(complete(["kfsck", "offsets", "--no"]), ["--now"])
        d = tempfile.mkdtemp()
        try:
            open(os.path.join(d, "a.log"), "w").close()
            self.assertEqual(complete(["kfsck", "offsets", "--now", ""], cwd=d), [])
            self.assertEqual(complete(["kfsck", "offsets", "--offsets-retention-minutes", ""], cwd=d), [])
        finally:
            shutil.rmtree(d)
        with open(ZSH_COMPLETION) as f:
            zsh = f.read()
        self.assertIn("'--now=[", zsh)
        self.assertIn("'--offsets-retention-minutes=[", zsh)

    def test_output_dir_and_paths(self):
        d = tempfile.mkdtemp()
        try:
            os.mkdir(os.path.join(d, "outdir"))
            open(os.path.join(d, "other.log"), "w").close()
            self.assertEqual(complete(["kfsck", "repair", "-o", ""], cwd=d), ["outdir"])
            self.assertEqual(complete(["kfsck", "merge", "--output", "o"], cwd=d), ["outdir"])
            self.assertEqual(sorted(complete(["kfsck", "verify", ""], cwd=d)), ["other.log", "outdir"])
            self.assertEqual(complete(["kfsck", "verify", "--json", "ot"], cwd=d), ["other.log"])
        finally:
            shutil.rmtree(d)

    def test_zsh_names_every_option(self):
        with open(ZSH_COMPLETION) as f:
            text = f.read()
        for cmd in commands():
            self.assertIn(f"\n{cmd})", text)
            for opt in help_options(help_of(cmd)):
                with self.subTest(cmd=cmd, opt=opt):
                    self.assertTrue(re.search(r"['{,()*]" + re.escape(opt) + r"[\[=,}]", text),
                                    f"{opt} of {cmd} not in {ZSH_COMPLETION}")
        if shutil.which("zsh"):
            p = subprocess.run(["zsh", "-n", ZSH_COMPLETION], stderr=subprocess.PIPE, timeout=30)
            self.assertEqual(p.returncode, 0, p.stderr.decode())


if __name__ == "__main__":
    unittest.main()
