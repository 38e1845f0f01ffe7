# SPDX-License-Identifier: MIT
"""Loads the extension into Python's sqlite3 module, as docs/python.md shows.

Usage: python3 tests/python/test_load.py path/to/simhash.so
"""
import sqlite3
import sys
import unittest

EXTENSION = sys.argv.pop(1) if len(sys.argv) > 1 else "build/simhash"


def connect():
    """An in-memory connection with the extension loaded, as docs/python.md shows."""
    conn = sqlite3.connect(":memory:")
    conn.enable_load_extension(True)
    conn.load_extension(EXTENSION)
    conn.enable_load_extension(False)
    return conn


class LoadTest(unittest.TestCase):
    def test_load_extension_and_call_version(self):
        conn = connect()
        (version,) = conn.execute("SELECT simhash_version()").fetchone()
        self.assertRegex(version, r"^\d+\.\d+\.\d+")

    def test_fingerprint_and_compare(self):
        conn = connect()
        conn.execute("CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)")
        conn.executemany(
            "INSERT INTO docs(body) VALUES (?)",
            [("Hello, World",), ("hello world",), ("something else entirely",)],
        )
        fingerprints = [fp for (fp,) in conn.execute("SELECT simhash(body) FROM docs ORDER BY id")]
        self.assertTrue(all(isinstance(fp, int) for fp in fingerprints))
        self.assertEqual(fingerprints[0], fingerprints[1])  # normalization
        ((distance, hex_digits),) = conn.execute(
            "SELECT hamming(?, ?), simhash_hex(?)", (fingerprints[0], fingerprints[2], fingerprints[0])
        )
        self.assertEqual(distance, bin((fingerprints[0] ^ fingerprints[2]) & (2**64 - 1)).count("1"))
        self.assertEqual(int(hex_digits, 16), fingerprints[0] & (2**64 - 1))
        with self.assertRaisesRegex(sqlite3.OperationalError, "got TEXT and INTEGER"):
            conn.execute("SELECT hamming('5', 5)").fetchone()


if __name__ == "__main__":
    unittest.main()
