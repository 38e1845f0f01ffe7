# SPDX-License-Identifier: MIT
"""The entries of this machine's Debian changelogs
(/usr/share/doc/*/changelog.Debian.gz), text nobody here wrote: the one
reader of them for the benchmarks that use them (similar_latency.py,
similar_trigger_cost.py, template_check.py)."""

import glob
import gzip
import re

HEADER = re.compile(r"^(\S+) \(.*\).*;.*urgency=", re.M)


def changelog_entries():
    """(package, header line, body) of every entry, in file order: the body
    is the entry's lines after its header without the maintainer's sign-off
    line (" -- name <mail>  date"), which differs between packages' copies."""
    entries = []
    for path in sorted(glob.glob("/usr/share/doc/*/changelog.Debian.gz")):
        try:
            text = gzip.open(path, "rt", errors="replace").read()
        except OSError:
            continue
        marks = list(HEADER.finditer(text))
        for mark, following in zip(marks, marks[1:] + [None]):
            lines = text[mark.start() : following.start() if following else len(text)].splitlines()
            body = "\n".join(line for line in lines[1:] if not line.startswith(" -- "))
            entries.append((mark.group(1), lines[0], body))
    return entries
