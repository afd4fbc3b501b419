#!/usr/bin/env python3
"""Checks that README.md and docs/*.md render the commands they show.

A C++ formatter once ran over docs/cli.md and turned `instances/paper_2048gpu.json --json`
into `instances / paper_2048gpu.json-- json` and `# Title` into `#Title`. This script fails
on such damage, in fenced blocks, inline code and headings, and on command blocks that
tools/doc-commands.py would not see (docs/doc-tests.md):
  - a heading without a space after its '#'s, or a heading broken into '## #';
  - a path split by spaces around '/', a flag split into '- -x', '-- x' or 'word--';
  - a file name split from its extension ('s6\n.json', 's6 .json');
  - sentences glued together ('solver.It') outside code;
  - a fence with text after it ('``` ckptdp ...');
  - an untagged fenced block whose first line is a shell command (tag it ```sh);
  - a doc-test directive with an unknown key, or 'not run' without a reason.
Usage: /usr/bin/python3 tools/check-docs-format.py [REPO]   (exit 1 if anything is found)
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc_blocks  # noqa: E402

TOP_DIRS = r"(?:instances|docs|tools|build|include|src|examples|tests|bench|img|ckptdp|dispatch|report)"
CODE_DAMAGE = [
    (re.compile(r"\b" + TOP_DIRS + r" / \S"), "path split by spaces around '/'"),
    (re.compile(r"\S / [\w.-]+\.(?:json|csv|h|cc|md|py|sh|png|mps|lp|sol)\b"), "path split by spaces around '/'"),
    (re.compile(r"(?:^|\s)- -[A-Za-z]"), "flag split into '- -'"),
    (re.compile(r"\w-- [A-Za-z]"), "flag glued to the previous word ('word-- flag')"),
    (re.compile(r"(?:^|\s)-- [a-z][\w-]*"), "flag split into '-- name'"),
    (re.compile(r"(?:^|\s)\.(?:json|csv|mps|lp|sol|png|svg)\b"), "file name split from its extension"),
]
PROSE_DAMAGE = [
    (re.compile(r"^\s*#{1,6}[^#\s]"), "heading without a space after '#'"),
    (re.compile(r"^\s*#{1,6} #"), "heading broken into '## #'"),
    (re.compile(r"[a-z)]\.[A-Z][a-z]+ "), "sentences glued together ('word.Next')"),
    (re.compile(r"\]\([^)\s]* [^)]*\)"), "link target with spaces"),
    (re.compile(r"^\s*(```|~~~)(?!\s*[\w+-]*\s*$)"), "fence with text after it"),
    CODE_DAMAGE[0],
    CODE_DAMAGE[1],
]
INLINE_CODE = re.compile(r"`([^`]+)`")
COMMAND_START = re.compile(r"^\s*(?:\$\s+)?(?:ckptdp|build/|tools/|cmake|bash|/usr/bin/|cbc|sudo|ctest)\b")
KNOWN_KEYS = {"not run", "exit", "limit", "needs", "output", "output of", "rows", "tolerance", "generated"}
CODE_LANGS_SKIPPED = {"cpp", "c++", "cmake", "json"}  # their syntax is checked by their own tools


def check_file(repo, path):
    problems = []

    def report(line, what, text):
        problems.append("%s:%d: %s: %s" % (path, line, what, text.strip()))

    for n, line in doc_blocks.prose_lines(repo, path):
        for rx, what in PROSE_DAMAGE:
            if rx.search(line):
                report(n, what, line)
        for code in INLINE_CODE.findall(line):
            for rx, what in CODE_DAMAGE:
                if rx.search(code):
                    report(n, what + " in inline code", code)
    for block in doc_blocks.read_blocks(repo, path):
        for key, value in block.directives:
            if key not in KNOWN_KEYS:
                report(block.line, "unknown doc-test directive '%s'" % key, key + " " + value)
            if key == "not run" and not value:
                report(block.line, "'not run' needs a reason", key)
        if block.lang in CODE_LANGS_SKIPPED or block.lang == "table":
            continue
        for k, line in enumerate(block.body):
            for rx, what in CODE_DAMAGE:
                if rx.search(line):
                    report(block.line + 1 + k, what + " in a code block", line)
        first = next((l for l in block.body if l.strip()), "")
        if block.lang == "" and COMMAND_START.match(first):
            report(block.line, "untagged block of commands: tag it ```sh (run by tools/doc-commands.py) "
                   "or ```text", first)
    return problems


def main():
    repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    problems = []
    for path in doc_blocks.doc_files(repo):
        problems += check_file(repo, path)
    for p in problems:
        print(p)
    if problems:
        print("check-docs-format: %d problem(s); Markdown must not be run through a code formatter"
              % len(problems), file=sys.stderr)
        return 1
    print("check-docs-format: %d files ok" % len(doc_blocks.doc_files(repo)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
