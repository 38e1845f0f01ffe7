# SPDX-License-Identifier: MIT
"""The manual's size and links. Run by ctest as layout.docs:

    /usr/bin/python3 tests/layout/docs_check.py <source dir>

Checks:
  1. docs/ holds at most 30,000 words (as `wc -w` counts them) and
     bench/BENCH.md at most 1,000 lines: the manual stays one a reader can
     take in, and the results file holds what is true now, not its history.
  2. Every relative link of README.md, ARCHITECTURE.md, CHANGELOG.md,
     RELIABILITY.md, bench/BENCH.md and docs/*.md names a file of the tree,
     and its `#anchor`, if any, a heading of that file (GitHub's slugs:
     lower case, punctuation dropped, spaces as dashes, -1, -2 for repeats).
  3. No page names an issue or pull request by number ("issue 52", "#52"):
     the pages say what is true, and history lives in git.
"""
import functools
import glob
import os
import re
import sys

MAX_DOCS_WORDS = 30000
MAX_RESULTS_LINES = 1000

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
ISSUE_NUMBER = re.compile(r"\b(?:[Ii]ssues?|PR|[Pp]ull request)\s+#?\d+|(?<![\w&/])(?<!UAX )#\d{2,}\b")


def without_code_blocks(text):
    """The lines of a page outside its fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def slug(heading):
    text = re.sub(r"[^\w\- ]", "", heading.lower())
    return text.replace(" ", "-")


@functools.lru_cache(maxsize=None)
def anchors(path):
    seen, result = {}, set()
    with open(path, encoding="utf-8") as page:
        for line in without_code_blocks(page.read()):
            match = HEADING.match(line)
            if not match:
                continue
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            result.add(base if count == 0 else f"{base}-{count}")
    return result


def link_problems(root, page):
    problems = []
    with open(os.path.join(root, page), encoding="utf-8") as text:
        lines = without_code_blocks(text.read())
    for number, line in enumerate(lines, 1):
        line = re.sub(r"`[^`]*`", "", line)
        for target in LINK.findall(line):
            if re.match(r"[a-z]+:", target):
                continue
            file_part, _, anchor = target.partition("#")
            path = os.path.normpath(os.path.join(root, os.path.dirname(page), file_part)) \
                if file_part else os.path.join(root, page)
            if not os.path.exists(path):
                problems.append(f"{page}: link to {target}: no such file")
            elif anchor and path.endswith(".md") and anchor not in anchors(path):
                problems.append(f"{page}: link to {target}: no heading #{anchor}")
        if ISSUE_NUMBER.search(line):
            problems.append(f"{page}:{number}: names an issue by number: {line.strip()}")
    return problems


def main(root):
    problems = []
    words = sum(len(open(p, encoding="utf-8").read().split())
                for p in glob.glob(os.path.join(root, "docs", "*.md")))
    if words > MAX_DOCS_WORDS:
        problems.append(f"docs/ has {words} words, more than {MAX_DOCS_WORDS}")
    with open(os.path.join(root, "bench", "BENCH.md"), encoding="utf-8") as results:
        lines = sum(1 for _ in results)
    if lines > MAX_RESULTS_LINES:
        problems.append(f"bench/BENCH.md has {lines} lines, more than {MAX_RESULTS_LINES}")
    pages = ["README.md", "ARCHITECTURE.md", "CHANGELOG.md", "RELIABILITY.md", "bench/BENCH.md"]
    pages += sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "*.md")))
    for page in pages:
        problems += link_problems(root, page)
    for problem in problems:
        print(problem)
    print(f"docs/: {words} words; bench/BENCH.md: {lines} lines; {len(pages)} pages' links checked")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
