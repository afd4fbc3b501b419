#!/usr/bin/env python3
"""Runs every shell command that README.md and docs/*.md show, and checks their figures.

The conventions (docs/doc-tests.md, in short):
  - Commands live in fenced blocks tagged ```sh. Each one is run, in order, from a copy of
    the repository root (instances/ and examples/ copied, the rest linked, build/ = the
    directory of --binary), one scratch directory for all files, so that a block may use a
    file that an earlier block wrote. A command that appears twice is run once. `ckptdp` at the start of a
    command means build/ckptdp. A line ending in '\\' continues on the next; '#' lines are
    comments.
  - A directive right before a block or table changes how it is tested:
      <!-- doc-test: not run: REASON -->      the block is not run (the reason is printed)
      <!-- doc-test: exit N -->               the block's last command exits N (others 0)
      <!-- doc-test: limit --time-limit 5 --> on every ckptdp solve/scenarios/sweep
                                              command, replace or append this option
      <!-- doc-test: needs PATH -->           run only if PATH (from the repository root)
                                              exists, else report the block as skipped
      <!-- doc-test: output -->               this block shows output of the last block
                                              run before it in the same file
      <!-- doc-test: output of: COMMAND -->   this block or table shows COMMAND's output
      <!-- doc-test: rows: REGEX -->          compare only the lines that match REGEX
      <!-- doc-test: tolerance 2% -->         relative tolerance (default: the printed
                                              digits, i.e. half a unit of the last digit)
      <!-- doc-test: output of: C; generated --> --regenerate rewrites the block or table
                                              with C's output (tools/regenerate-docs.sh)
    Several directives can share one comment, separated by ';'.
  - Output is compared by figures, not by layout: every line of the shown output that
    holds numbers must find one line of the real output (stdout and stderr) holding the
    same numbers in the same order, possibly among others, and every option (--name) it
    shows must occur in the output. Durations (a number followed
    by s, ms or min) and thread counts are not compared.

Usage (from anywhere; needs a built ckptdp, except for --self-test):
  /usr/bin/python3 tools/doc-commands.py [--binary build/ckptdp] [--file docs/cli.md] [--list]
  /usr/bin/python3 tools/doc-commands.py --self-test
Exit 0 if every command exited as documented and every shown figure matched, 1 otherwise,
2 on a usage error.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc_blocks  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
COPIED = ("instances", "examples")  # commands may write next to these; the rest is linked
CKPTDP_AT_START = re.compile(r"(^|[;&|(]\s*|\btime -v\s+)ckptdp(?=\s)")
SOLVING = re.compile(r"\b(?:build/)?ckptdp\s+(?:solve|scenarios|sweep)\b")
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?!\w)(?!\.\d)")
NOT_COMPARED_AFTER = re.compile(r"^\s*(?:s|ms|min|threads?)\b")
COMMAND_TIMEOUT_S = 240


def commands_of(block):
    """The block's commands: continuation lines joined, comments and blanks dropped."""
    out, current = [], ""
    for line in block.body:
        stripped = line.strip()
        if not current and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("$ "):
            stripped = stripped[2:]
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
            continue
        out.append(current + stripped)
        current = ""
    if current.strip():
        out.append(current.strip())
    return out


def normalise(command):
    """`ckptdp ...` -> `build/ckptdp ...`, so the same command shares one cached run."""
    return CKPTDP_AT_START.sub(lambda m: m.group(1) + "build/ckptdp", command)


def apply_limits(command, limits):
    """Replace or append each `--option value` of limits on ckptdp's solving commands."""
    if not SOLVING.search(command):
        return command
    for option, value in limits:
        pattern = re.compile(r"(\s%s)(?:\s+|=)\S+" % re.escape(option))
        if pattern.search(command):
            command = pattern.sub(lambda m: m.group(1) + " " + value, command)
        else:  # before a redirection, if any
            head, sep, tail = command.partition(" >")
            command = head + " %s %s" % (option, value) + (sep + tail if sep else "")
    return command


def numbers(line):
    """The numbers of a line that are compared: not durations and not thread counts."""
    out = []
    for m in NUMBER.finditer(line):
        if NOT_COMPARED_AFTER.match(line[m.end():]):
            continue
        text = m.group(0)
        decimals = len(text.split(".")[1].split("e")[0].split("E")[0]) if "." in text else 0
        out.append((float(text), decimals))
    return out


def close(doc, real, relative):
    (d, d_dec), (r, r_dec) = doc, real
    tolerance = 0.5 * 10 ** -min(d_dec, r_dec) + 1e-9
    if relative is not None:
        tolerance = max(tolerance, relative * abs(d))
    return abs(d - r) <= tolerance


FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")


def line_matches(doc_numbers, real_numbers, relative):
    """doc_numbers is an in-order subsequence of real_numbers (greedy is exact here)."""
    k = 0
    for real in real_numbers:
        if k < len(doc_numbers) and close(doc_numbers[k], real, relative):
            k += 1
    return k == len(doc_numbers)


def compare(block, output):
    """Problems of a shown output against the real one: one per unmatched line."""
    rows = block.directive("rows")
    tolerance = block.directive("tolerance")
    relative = float(tolerance.rstrip("%")) / 100 if tolerance else None
    real_lines = [numbers(l) for l in output.split("\n")]
    real_lines = [n for n in real_lines if n]
    real_flags = set(FLAG.findall(output))
    problems, compared = [], 0
    for k, line in enumerate(block.body):
        if rows and not re.search(rows, line):
            continue
        if re.match(r"^\s*\|[\s:|-]*\|\s*$", line):  # a table's separator row
            continue
        doc = numbers(line)
        flags = [f for f in FLAG.findall(line) if f not in real_flags]
        compared += len(doc) + len(FLAG.findall(line))
        if flags:
            n = block.line + (k if block.lang == "table" else k + 1)
            problems.append("%s:%d: options not in the output: %s" % (block.path, n, " ".join(flags)))
        if doc and not any(line_matches(doc, real, relative) for real in real_lines):
            n = block.line + (k if block.lang == "table" else k + 1)
            problems.append("%s:%d: figures not in the output: %s" % (block.path, n, line.strip()))
    if compared == 0:
        problems.append("%s: an output check that compares no figures" % block.where())
    return problems


class Runner:
    def __init__(self, binary, scratch):
        self.binary = binary
        self.scratch = scratch
        self.cache = {}  # command -> (exit code, output)
        self.env = dict(os.environ)
        self.env["PATH"] = os.path.dirname(binary) + os.pathsep + self.env.get("PATH", "")
        self.env["DOC_TABLE_CACHE"] = os.path.join(scratch, "doc-table-cache")
        os.makedirs(self.env["DOC_TABLE_CACHE"])

        self.root = self._sandbox()

    def _sandbox(self):
        """A copy of the repository root (see the module comment)."""
        root = os.path.join(self.scratch, "repo")
        os.makedirs(root)
        # Tools find data next to the repository (<repo>/../shared), as in a checkout.
        shared = os.path.join(os.path.dirname(REPO), "shared")
        if os.path.isdir(shared):
            os.symlink(shared, os.path.join(self.scratch, "shared"))
        for entry in os.listdir(REPO):
            if entry.startswith(".") or entry.startswith("build"):
                continue
            source = os.path.join(REPO, entry)
            if entry in COPIED:
                shutil.copytree(source, os.path.join(root, entry))
            else:
                os.symlink(source, os.path.join(root, entry))
        os.symlink(os.path.dirname(self.binary), os.path.join(root, "build"))
        return root

    def run(self, command):
        key = command
        if key not in self.cache:
            start = time.time()
            # Its own process group, so that a timeout also stops what the command started.
            p = subprocess.Popen(["bash", "-o", "pipefail", "-c", command], cwd=self.root, env=self.env,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 start_new_session=True)
            try:
                output, _ = p.communicate(timeout=COMMAND_TIMEOUT_S)
                result = (p.returncode, output)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                output, _ = p.communicate()
                result = (None, output)
            print("    %6.1f s  exit %s  %s" % (time.time() - start, result[0], command), flush=True)
            self.cache[key] = result
        return self.cache[key]


def rewrite(path, replacements):
    """Replace block bodies in a Markdown file: replacements = [(first line index, old lines,
    new lines)]. Refuses if the file changed since it was read."""
    full = os.path.join(REPO, path)
    lines = open(full, encoding="utf-8").read().split("\n")
    for first, old, new in sorted(replacements, key=lambda r: r[0], reverse=True):
        if lines[first:first + len(old)] != old:
            sys.exit("doc-commands: %s changed while it was regenerated; nothing written" % path)
        lines[first:first + len(old)] = new
    with open(full, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def test_file(runner, path, problems, counts, regenerate=False):
    blocks = doc_blocks.read_blocks(REPO, path)
    if not any(b.is_shell() or b.directive("output") is not None or b.directive("output of") for b in blocks):
        return
    print("== %s" % path, flush=True)
    last_output = None  # output of the last block run in this file
    replacements = []  # generated blocks to rewrite (regenerate mode)
    for block in blocks:
        reason = block.directive("not run")
        needs = block.directive("needs")
        if block.is_shell() and reason is not None:
            print("  %s: not run: %s" % (block.where(), reason))
            counts["not run"] += 1
            last_output = None
            continue
        if needs is not None and not os.path.exists(os.path.normpath(os.path.join(REPO, needs))):
            print("  %s: SKIPPED: %s does not exist" % (block.where(), needs))
            counts["skipped"] += 1
            last_output = None
            continue
        if block.is_shell():
            limits = [tuple(v.split(None, 1)) for k, v in block.directives if k == "limit"]
            expected_last = int(block.directive("exit") or 0)
            commands = commands_of(block)
            outputs = []
            for k, command in enumerate(commands):
                command = apply_limits(normalise(command), limits)
                code, output = runner.run(command)
                outputs.append(output)
                expected = expected_last if k == len(commands) - 1 else 0
                counts["commands"] += 1
                if code != expected:
                    problems.append("%s: `%s` exited %s, the doc says %d\n%s" % (
                        block.where(), command, "timeout" if code is None else code, expected,
                        "\n".join("      | " + l for l in output.strip().split("\n")[-15:])))
            last_output = "\n".join(outputs)
        shown_of = block.directive("output of")
        if shown_of is not None:
            command = normalise(shown_of)
            code, output = runner.run(command)
            expected = int(block.directive("exit") or 0)
            if code != expected:
                problems.append("%s: `%s` exited %s, the doc says %d" % (block.where(), command, code, expected))
            elif regenerate and block.directive("generated") is not None:
                new = output.rstrip("\n").split("\n")
                first = block.line - 1 if block.lang == "table" else block.line
                replacements.append((first, list(block.body), new))
                block.body = new
            problems.extend(compare(block, output))
            counts["outputs"] += 1
        elif block.directive("output") is not None:
            if last_output is None:
                problems.append("%s: shows the output of a block that is not run" % block.where())
            else:
                problems.extend(compare(block, last_output))
                counts["outputs"] += 1
    if replacements:
        rewrite(path, replacements)
        print("  rewrote %d generated block(s) of %s" % (len(replacements), path))


def self_test():
    """The checks this script makes can fail: a stale figure, a missing option, a wrong limit.
    Run by CTest (docs_commands_self_test) in seconds; returns the number of failures."""
    real = ("objective  283.78 USD  bound 282.29 USD  gap 0.5264%\n"
            "status     feasible  (1.20 s, 400 iterations, 20000 nodes, 1 threads)\n"
            "  --neighbourhood-stall FLOAT:FLOAT in [0 - 1e+06]\n"
            "      after the Lagrangian phase ... (default 100, range [0, 1e+06])\n"
            "S3   Idealized 3D only   244.93   48.22   7.880   1399.0   2048 feasible   4.1534%\n")
    cases = [  # (shown lines, how many problems compare() must report)
        (["objective  283.78 USD  bound 282.29 USD  gap 0.5264%"], 0),
        (["objective 283.78 USD, gap 0.5264 %"], 0),  # another layout, the same figures
        (["status feasible (9.81 s, 400 iterations, 20000 nodes, 2 threads)"], 0),  # time, threads
        (["| S3 | Idealized 3D only | 244.93 | 48.22 | 7.880 | 1399.0 | 2048 | 4.15% |"], 0),
        (["| S3 | Idealized 3D only | 245.27 | 48.15 | 7.920 | 1399.0 | 2048 | 4.32% |"], 1),  # stale
        (["objective  283.78 USD  bound 282.29 USD  gap 4.3567%"], 1),
        (["  --neighbourhood-stall FLOAT  (default 20, range [0, 1e+06])"], 1),
        (["  --neighbourhood-stal FLOAT  (default 100, range [0, 1e+06])"], 1),  # unknown option
        (["no figures here"], 1),
    ]
    failures = 0
    for shown, expected in cases:
        got = compare(doc_blocks.Block("self-test.md", 1, "text", shown, []), real)
        if len(got) != expected:
            failures += 1
            print("self-test: %r: expected %d problem(s), got %r" % (shown, expected, got))
    limits = [("--time-limit", "5")]
    for command, expected in [
            ("build/ckptdp solve x.json --time-limit 60 --out r.json", "build/ckptdp solve x.json --time-limit 5 --out r.json"),
            ("build/ckptdp sweep x.json --json > s.json", "build/ckptdp sweep x.json --json --time-limit 5 > s.json"),
            ("build/ckptdp check x.json r.json", "build/ckptdp check x.json r.json")]:
        if apply_limits(command, limits) != expected:
            failures += 1
            print("self-test: limits on %r gave %r" % (command, apply_limits(command, limits)))
    if normalise("ckptdp solve x.json | head") != "build/ckptdp solve x.json | head":
        failures += 1
        print("self-test: `ckptdp` is not mapped to build/ckptdp")
    print("doc-commands self-test: %s" % ("ok" if failures == 0 else "%d failure(s)" % failures))
    return failures


def main():
    ap = argparse.ArgumentParser(description="Run the commands of README.md and docs/*.md.")
    ap.add_argument("--binary", default=os.path.join(REPO, "build", "ckptdp"),
                    help="the ckptdp to test (default: <repo>/build/ckptdp)")
    ap.add_argument("--file", action="append", help="only this Markdown file (repeatable)")
    ap.add_argument("--list", action="store_true", help="list the commands and exit")
    ap.add_argument("--keep", help="keep the scratch directory here (default: removed)")
    ap.add_argument("--regenerate", action="store_true",
                    help="first rewrite every block marked 'generated' with its command's output")
    ap.add_argument("--self-test", action="store_true", help="check this script's own checks, then exit")
    args = ap.parse_args()
    if args.self_test:
        return 1 if self_test() else 0
    binary = os.path.abspath(args.binary)
    if os.path.basename(binary) != "ckptdp" or not os.access(binary, os.X_OK):
        print("doc-commands: no ckptdp binary at %s (build first, or pass --binary)" % binary, file=sys.stderr)
        return 2
    files = args.file or doc_blocks.doc_files(REPO)
    if args.list:
        for path in files:
            for block in doc_blocks.read_blocks(REPO, path):
                if block.is_shell():
                    state = "not run: " + block.directive("not run") if block.directive("not run") else "run"
                    print("%s [%s]" % (block.where(), state))
                    for c in commands_of(block):
                        print("    " + c)
        return 0
    scratch = args.keep or tempfile.mkdtemp(prefix="doc-commands.")
    os.makedirs(scratch, exist_ok=True)
    problems = []
    counts = {"commands": 0, "outputs": 0, "not run": 0, "skipped": 0}
    start = time.time()
    try:
        runner = Runner(binary, scratch)
        for path in files:
            test_file(runner, path, problems, counts, args.regenerate)
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    print("doc-commands: %d commands run, %d outputs compared, %d blocks not run (marked), "
          "%d skipped (missing data), %.0f s" % (counts["commands"], counts["outputs"], counts["not run"],
                                                 counts["skipped"], time.time() - start))
    for p in problems:
        print("FAIL " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
