# SPDX-License-Identifier: MIT
"""The Python client, as docs/python.md shows it: sqlite_simhash.load() on a
connection whose sqlite3 module cannot load extensions (a fake connection
object stands in for pyenv's builds) says what is wrong and what to do; the
refuse flow (sql/recipes/ run as they are, the IntegrityError, the rows the
text duplicates); and the locking rule: under Python's default transaction
handling a refused INSERT leaves the implicit transaction open, so the write
lock stays until rollback() (another writer gets "database is locked"), and
`with conn:` releases it by itself.

Usage: python3 tests/python/test_python_client.py path/to/simhash.so
(run from the repository root, as ctest does).
"""
import os
import random
import sqlite3
import sys
import tempfile
import unittest

EXTENSION = sys.argv.pop(1) if len(sys.argv) > 1 else "build/simhash"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

import sqlite_simhash  # noqa: E402  (the package from the checkout)


def recipe(name):
    with open(os.path.join(ROOT, "sql", "recipes", name), encoding="utf-8") as f:
        return f.read()


class NoEnableLoadExtension:
    """A connection as an interpreter without extension loading has it:
    everything but enable_load_extension and load_extension."""

    def execute(self, *args):
        raise AssertionError("load() must not run SQL on a connection it cannot load into")


class Recorder:
    """A connection that can load: records the calls load() makes."""

    def __init__(self):
        self.calls = []

    def enable_load_extension(self, on):
        self.calls.append(("enable", on))

    def load_extension(self, path):
        self.calls.append(("load", path))
        raise sqlite3.OperationalError("cannot open shared object file")


class LoadErrors(unittest.TestCase):
    def test_missing_extension_loading_names_the_cause_and_the_fix(self):
        with self.assertRaises(sqlite_simhash.ExtensionLoadingUnavailable) as raised:
            sqlite_simhash.load(NoEnableLoadExtension())
        message = str(raised.exception)
        self.assertIn("cannot load extensions", message)
        self.assertIn("NoEnableLoadExtension", message)  # which object it was
        self.assertIn("--enable-loadable-sqlite-extensions", message)  # the fix
        self.assertIn("/usr/bin/python3", message)
        # Still a RuntimeError, never the bare AttributeError.
        self.assertIsInstance(raised.exception, RuntimeError)
        self.assertNotIsInstance(raised.exception, AttributeError)

    def test_something_else_than_a_connection_is_named(self):
        for wrong in (None, "docs.db"):
            with self.assertRaisesRegex(TypeError, "expected a database connection, got " + type(wrong).__name__):
                sqlite_simhash.load(wrong)

    def test_loading_is_disabled_again_when_the_load_fails(self):
        conn = Recorder()
        with self.assertRaisesRegex(sqlite3.OperationalError, "cannot open"):
            sqlite_simhash.load(conn)
        self.assertEqual(conn.calls, [("enable", True), ("load", sqlite_simhash.loadable_path()), ("enable", False)])

    def test_load_into_a_real_connection(self):
        original = sqlite_simhash.loadable_path
        sqlite_simhash.loadable_path = lambda: os.path.splitext(os.path.abspath(EXTENSION))[0]
        try:
            conn = sqlite3.connect(":memory:")
            sqlite_simhash.load(conn)
            self.assertRegex(conn.execute("SELECT simhash_version()").fetchone()[0], r"^\d+\.\d+\.\d+")
            # Loading is off again: a second load_extension call is refused.
            with self.assertRaisesRegex(sqlite3.OperationalError, "not authorized"):
                conn.load_extension(EXTENSION)
        finally:
            sqlite_simhash.loadable_path = original


def words(rng, count):
    return " ".join(f"w{rng.randrange(5000)}" for _ in range(count))


class RefuseFlow(unittest.TestCase):
    """docs/python.md's refuse flow on a file database, with a second
    connection as the other writer."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "docs.db")
        self.conn = self.connect()
        self.conn.executescript(recipe("similar_follow_table.sql") + recipe("similar_refuse.sql"))
        rng = random.Random(35)
        self.texts = [words(rng, 60) for _ in range(40)]
        with self.conn:
            self.conn.executemany("INSERT INTO docs(body) VALUES (?)", [(t,) for t in self.texts])

    def tearDown(self):
        self.conn.close()
        self.dir.cleanup()

    def connect(self):
        conn = sqlite3.connect(self.path, timeout=0)  # no busy wait: "locked" at once
        conn.enable_load_extension(True)
        conn.load_extension(EXTENSION)
        conn.enable_load_extension(False)
        return conn

    def near_copy(self, i):
        # One word changed of 60: word-3-shingle Jaccard well above 0.8.
        tokens = self.texts[i].split()
        tokens[30] = "changed"
        return " ".join(tokens)

    def duplicates_of(self, conn, body):
        return [row[0] for row in conn.execute(recipe("similar_near_duplicate_of.sql"), {"body": body})]

    def test_a_refused_insert_names_the_row_and_changes_nothing(self):
        body = self.near_copy(7)
        with self.assertRaisesRegex(sqlite3.IntegrityError, r"near-duplicate of docs row 8 \(similarity"):
            self.conn.execute("INSERT INTO docs(body) VALUES (?)", (body,))
        self.assertEqual(self.duplicates_of(self.conn, body), [8])
        self.conn.rollback()
        self.assertEqual(self.conn.execute("SELECT count(*) FROM docs").fetchone()[0], 40)
        # A text unlike every row goes in.
        with self.conn:
            self.conn.execute("INSERT INTO docs(body) VALUES (?)", ("something else entirely " * 5,))
        self.assertEqual(self.conn.execute("SELECT count(*) FROM alike").fetchone()[0], 41)

    def test_the_write_lock_stays_until_rollback(self):
        other = self.connect()
        try:
            with self.assertRaises(sqlite3.IntegrityError):
                self.conn.execute("INSERT INTO docs(body) VALUES (?)", (self.near_copy(3),))
            # Python opened a transaction before the INSERT; the refusal undid
            # the statement, not the transaction.
            self.assertTrue(self.conn.in_transaction)
            with self.assertRaisesRegex(sqlite3.OperationalError, "database is locked"):
                with other:
                    other.execute("INSERT INTO docs(body) VALUES ('another writer')")
            self.conn.rollback()
            self.assertFalse(self.conn.in_transaction)
            with other:
                other.execute("INSERT INTO docs(body) VALUES ('another writer')")
            self.assertEqual(self.conn.execute("SELECT count(*) FROM docs").fetchone()[0], 41)
        finally:
            other.close()

    def test_with_conn_releases_the_lock_on_a_refusal(self):
        other = self.connect()
        try:
            with self.assertRaises(sqlite3.IntegrityError):
                with self.conn:
                    self.conn.execute("INSERT INTO docs(body) VALUES (?)", (self.near_copy(5),))
            self.assertFalse(self.conn.in_transaction)
            with other:
                other.execute("INSERT INTO docs(body) VALUES ('another writer')")
        finally:
            other.close()


if __name__ == "__main__":
    unittest.main()
