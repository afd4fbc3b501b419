"""Reads the fenced blocks, tables and doc-test directives of README.md and docs/*.md.

Shared by tools/check-docs-format.py and tools/doc-commands.py; the conventions are in
docs/doc-tests.md. A directive is an HTML comment on the line(s) right before a fenced
block or a Markdown table:

    <!-- doc-test: not run: REASON -->
    <!-- doc-test: exit 1; limit --max-nodes 300 -->
    <!-- doc-test: output of: build/ckptdp scenarios instances/paper_2048gpu.json; rows: ours -->
"""
import glob
import os
import re

DIRECTIVE = re.compile(r"^\s*<!--\s*doc-test:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)\s*$")
SHELL_LANGS = ("sh", "bash", "shell", "console")


class Block:
    """A fenced block (lang = its info string, "" if none) or a table (lang "table")."""

    def __init__(self, path, line, lang, body, directives):
        self.path = path  # relative to the repository root
        self.line = line  # 1-based line of the opening fence or of the table's first row
        self.lang = lang
        self.body = body  # the lines inside the fence, or the table's rows
        self.directives = directives  # list of (key, value) pairs, in order

    def where(self):
        return "%s:%d" % (self.path, self.line)

    def directive(self, key):
        """The value of the last directive named key, or None."""
        values = [v for k, v in self.directives if k == key]
        return values[-1] if values else None

    def is_shell(self):
        return self.lang in SHELL_LANGS


def doc_files(repo):
    """README.md and docs/*.md, relative to repo, in a fixed order."""
    files = ["README.md"] if os.path.isfile(os.path.join(repo, "README.md")) else []
    files += sorted(os.path.relpath(p, repo) for p in glob.glob(os.path.join(repo, "docs", "*.md")))
    return files


def parse_directive(text):
    """'exit 1; limit --max-nodes 300' -> [("exit", "1"), ("limit", "--max-nodes 300")].
    'not run: REASON' and 'output of: COMMAND' keep everything after the colon (a reason
    or a command may contain ';' only in the last position of the directive)."""
    out = []
    rest = text
    while rest:
        rest = rest.strip()
        m = re.match(r"(not run|output of)\s*:\s*(.*)$", rest)
        if m and m.group(1) == "not run":
            out.append(("not run", m.group(2).strip()))
            break
        if m:  # output of: COMMAND[; more directives]
            command, _, rest = m.group(2).partition(";")
            out.append(("output of", command.strip()))
            continue
        item, _, rest = rest.partition(";")
        item = item.strip()
        if not item:
            continue
        key, _, value = item.partition(" ")
        # "rows: REGEX" and "rows REGEX" both work (docs/doc-tests.md shows the colon form).
        out.append((key.strip().rstrip(":"), value.strip()))
    return out


def read_blocks(repo, path):
    """All fenced blocks of one file, plus the tables that carry a directive."""
    lines = open(os.path.join(repo, path), encoding="utf-8").read().split("\n")
    blocks = []
    pending = []
    i = 0
    while i < len(lines):
        line = lines[i]
        d = DIRECTIVE.match(line)
        if d:
            pending.extend(parse_directive(d.group(1)))
            i += 1
            continue
        f = FENCE.match(line)
        if f:
            fence = f.group(2)
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(fence):
                j += 1
            blocks.append(Block(path, i + 1, f.group(3), lines[i + 1:j], pending))
            pending = []
            i = j + 1
            continue
        if line.lstrip().startswith("|") and pending:
            j = i
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                j += 1
            blocks.append(Block(path, i + 1, "table", lines[i:j], pending))
            pending = []
            i = j
            continue
        if line.strip():
            pending = []
        i += 1
    return blocks


def prose_lines(repo, path):
    """(line number, text) of the lines outside fenced blocks."""
    out = []
    in_fence = None
    for n, line in enumerate(open(os.path.join(repo, path), encoding="utf-8").read().split("\n"), 1):
        f = FENCE.match(line)
        if f and in_fence is None:
            in_fence = f.group(2)
            continue
        if in_fence is not None:
            if line.strip().startswith(in_fence):
                in_fence = None
            continue
        out.append((n, line))
    return out
