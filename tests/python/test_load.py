"""Loads the extension into Python's sqlite3 module, as the README shows.

Usage: python3 tests/python/test_load.py path/to/simhash.so
"""
import sqlite3
import sys
import unittest

EXTENSION = sys.argv.pop(1) if len(sys.argv) > 1 else "build/simhash"


class LoadTest(unittest.TestCase):
    def test_load_extension_and_call_version(self):
        conn = sqlite3.connect(":memory:")
        conn.enable_load_extension(True)
        conn.load_extension(EXTENSION)
        conn.enable_load_extension(False)
        (version,) = conn.execute("SELECT simhash_version()").fetchone()
        self.assertRegex(version, r"^\d+\.\d+\.\d+")


if __name__ == "__main__":
    unittest.main()
