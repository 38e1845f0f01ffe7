# SPDX-License-Identifier: MIT
"""simhash_progress(1)'s lines on a terminal and into a pipe: on a terminal
(a pseudo-terminal here) each line starts with a carriage return and erases
the rest of the line, so the lines overwrite each other, and only the final
line ends with a newline; into a pipe every line is a line.

Usage: python3 tests/python/test_progress_terminal.py path/to/simhash.so
"""
import os
import pty
import subprocess
import sys
import unittest

EXTENSION = sys.argv.pop(1) if len(sys.argv) > 1 else "build/simhash"

# A dedup long enough to report a step on most machines: the final line is
# checked always, step lines when there are any.
CHILD = r"""
import sqlite3, sys
conn = sqlite3.connect(":memory:")
conn.enable_load_extension(True)
conn.load_extension(sys.argv[1])
conn.execute("CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)")
import random
rng = random.Random(53)
words = ["w%d" % i for i in range(20000)]
conn.executemany("INSERT INTO docs(body) VALUES (?)",
                 ((" ".join(rng.choices(words, k=80)),) for _ in range(60000)))
conn.execute("SELECT simhash_progress(1)")
conn.execute("SELECT count(*) FROM simhash_dedup('SELECT id, body FROM docs ORDER BY id', 0.8, NULL, NULL, 1)").fetchone()
"""


def run_child(stderr):
    return subprocess.run([sys.executable, "-c", CHILD, EXTENSION], stderr=stderr,
                          stdout=subprocess.DEVNULL, timeout=300)


class ProgressTerminalTest(unittest.TestCase):
    def test_lines_overwrite_each_other_on_a_terminal(self):
        master, slave = pty.openpty()
        try:
            result = run_child(slave)
            os.close(slave)
            slave = None
            output = b""
            while True:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the child's side is closed
                    break
                if not chunk:
                    break
                output += chunk
        finally:
            os.close(master)
            if slave is not None:
                os.close(slave)
        self.assertEqual(result.returncode, 0)
        text = output.decode().replace("\r\n", "\n")  # the terminal turns \n into \r\n
        self.assertTrue(text.endswith("\x1b[K\n"), repr(text[-200:]))
        self.assertEqual(text.count("\n"), 1, repr(text[-400:]))
        pieces = [piece for piece in text.split("\r") if piece]
        for piece in pieces[:-1]:
            self.assertTrue(piece.startswith("simhash_dedup: ") and piece.endswith("\x1b[K"), repr(piece))
        self.assertTrue(pieces[-1].startswith("simhash_dedup: done in "), repr(pieces[-1]))

    def test_every_line_is_a_line_into_a_pipe(self):
        result = run_child(subprocess.PIPE)
        self.assertEqual(result.returncode, 0)
        text = result.stderr.decode()
        self.assertNotIn("\r", text)
        self.assertNotIn("\x1b", text)
        lines = text.splitlines()
        self.assertTrue(lines and lines[-1].startswith("simhash_dedup: done in "), repr(text[-300:]))
        self.assertTrue(all(line.startswith("simhash_dedup: ") for line in lines), repr(text[-300:]))


if __name__ == "__main__":
    unittest.main()
