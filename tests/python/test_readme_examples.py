# SPDX-License-Identifier: MIT
"""Runs every `sqlite>` example of README.md and of every page of docs/ and
compares its printed output.

Each page is run alone, on a fresh in-memory database, in the order its
examples appear (a page is read alone, so it sets up what it uses). A page
shows shell sessions: a statement after `sqlite> ` (continued on
`   ...> ` lines), then what the shell printed, up to the next prompt or the
end of the code block. This test runs each statement through Python's
sqlite3 module with the extension loaded and prints the rows the way the
shell does: `list` mode joins columns with `|`; after `.mode column` the
header and its dashes are skipped and columns are compared word by word.
An error prints as `Runtime error: <message>`; a NULL prints as nothing, as
the shell prints it; a value's newlines start new lines, as in the shell.

Usage: python3 tests/python/test_readme_examples.py path/to/simhash.so
(run from the repository root, as ctest does).
"""
import glob
import re
import sqlite3
import sys
import unittest

EXTENSION = sys.argv.pop(1) if len(sys.argv) > 1 else "build/simhash"
PAGES = ["README.md"] + sorted(glob.glob("docs/*.md"))


def shell_examples(text):
    """(statement, mode, expected output lines) for each `sqlite>` example."""
    examples = []
    for block in re.findall(r"```\n(sqlite> .*?)```", text, flags=re.S):
        mode = "list"
        lines = block.splitlines()
        i = 0
        while i < len(lines):
            statement = lines[i][len("sqlite> "):]
            i += 1
            while i < len(lines) and lines[i].startswith("   ...> "):
                statement += "\n" + lines[i][len("   ...> "):]
                i += 1
            output = []
            while i < len(lines) and not lines[i].startswith("sqlite> "):
                output.append(lines[i])
                i += 1
            if statement.startswith(".mode "):
                mode = statement.split()[1]
            else:
                examples.append((statement, mode, output))
    return examples


def shown(value):
    """A value as the shell prints it: REALs with 15 significant digits."""
    if value is None:
        return ""
    if isinstance(value, float):
        text = "%.15g" % value
        return text if any(c in text for c in ".en") else text + ".0"
    return str(value)


def printed(conn, statement, mode):
    """The lines the shell prints for `statement` in `mode`."""
    try:
        rows = conn.execute(statement).fetchall()
    except sqlite3.Error as error:
        return ["Runtime error: %s" % error]
    if mode == "column":
        return [" ".join(shown(value) for value in row) for row in rows]
    # A value with newlines (simhash_first_difference) prints on several
    # lines, as the shell prints it in list mode.
    return [line for row in rows
            for line in "|".join(shown(value) for value in row).split("\n")]


class ReadmeExamplesTest(unittest.TestCase):
    def check_page(self, page):
        """Runs one page's examples on a fresh database; returns how many."""
        with open(page, encoding="utf-8") as handle:
            examples = shell_examples(handle.read())
        conn = sqlite3.connect(":memory:")
        conn.enable_load_extension(True)
        conn.load_extension(EXTENSION)
        conn.enable_load_extension(False)
        for statement, mode, output in examples:
            with self.subTest(page=page, statement=statement):
                if mode == "column":
                    # Header and dashes first, then one line per row.
                    expected = [" ".join(line.split()) for line in output[2:]]
                else:
                    expected = output
                self.assertEqual(printed(conn, statement, mode), expected)
        conn.close()
        return len(examples)

    def test_every_shell_example_prints_what_the_page_shows(self):
        counts = {page: self.check_page(page) for page in PAGES}
        # The SQL reference has an example for every function and its errors;
        # finding few means the parser no longer understands the pages.
        self.assertGreater(counts.get("docs/sql-reference.md", 0), 40, counts)
        self.assertGreater(sum(counts.values()), 60, counts)


if __name__ == "__main__":
    unittest.main()
