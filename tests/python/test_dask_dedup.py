# SPDX-License-Identifier: MIT
"""sqlite_simhash.dask_dedup on a dask.distributed LocalCluster of two worker
processes: the same rows (ids, kept ids, distances, similarities) as
simhash_dedup on one connection, over one file and over the same rows split
into two files, with chunks small enough for many parts, in memory and
within a task's memory budget; NULL, empty, wordless and identical texts
included.

Usage: python3 tests/python/test_dask_dedup.py path/to/simhash.so
(Debian's python3-distributed; without it the test says so and passes.)
"""
import os
import random
import sqlite3
import sys
import tempfile
import unittest

EXTENSION = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else "build/simhash")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

try:
    from dask.distributed import Client, LocalCluster
except ImportError:  # pragma: no cover: CI installs it (scripts/install-deps.sh --tests)
    Client = None

from sqlite_simhash.dask_dedup import Source, dedup  # noqa: E402

WORDS = ("alpha beta gamma delta license software free copy the of and program river stone "
         "window paper seven orange lamp north").split()


def texts(count, seed):
    """Families of a base text and edited copies, exact copies, and odd texts."""
    rng = random.Random(seed)
    bodies = []
    while len(bodies) < count:
        base = [rng.choice(WORDS) for _ in range(rng.randint(6, 40))]
        bodies.append(" ".join(base))
        for _ in range(rng.randint(0, 5)):
            copy = list(base)
            for _ in range(rng.randint(0, 4)):
                copy[rng.randrange(len(copy))] = rng.choice(WORDS)
            bodies.append(" ".join(copy) if rng.random() < 0.8 else " ".join(base))
        if rng.random() < 0.1:
            bodies.extend([None, "", "!!! ??? ...", "★★★★★"])
    rng.shuffle(bodies)
    return bodies[:count]


def connect(path):
    conn = sqlite3.connect(path)
    conn.enable_load_extension(True)
    conn.load_extension(EXTENSION)
    conn.enable_load_extension(False)
    return conn


@unittest.skipIf(Client is None, "dask.distributed is not installed (python3-distributed)")
class DaskDedupTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
        cls.client = Client(cls.cluster)
        cls.folder = tempfile.TemporaryDirectory()
        bodies = texts(600, 7)
        rng = random.Random(8)
        ids = rng.sample(range(1, 100000), len(bodies))
        cls.paths = [os.path.join(cls.folder.name, name) for name in ("all.db", "a.db", "b.db")]
        for path, rows in zip(cls.paths, (list(zip(ids, bodies)), list(zip(ids, bodies))[:250],
                                          list(zip(ids, bodies))[250:])):
            conn = sqlite3.connect(path)
            conn.execute("CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)")
            conn.executemany("INSERT INTO docs VALUES (?, ?)", rows)
            conn.commit()
            conn.close()

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()
        cls.folder.cleanup()

    def expected(self, query, threshold):
        conn = connect(self.paths[0])
        conn.execute(f"ATTACH '{self.paths[1]}' AS a")
        conn.execute(f"ATTACH '{self.paths[2]}' AS b")
        rows = conn.execute("SELECT id, cluster, distance, similarity FROM simhash_dedup(?, ?, NULL)",
                            (query, threshold)).fetchall()
        conn.close()
        self.assertGreater(len(rows), 100)
        return rows

    def test_one_file_in_many_parts(self):
        for threshold, chunk_rows in ((0.8, 70), (0.5, 1000), (1.0, 111)):
            got = dedup(self.client, [Source(self.paths[0], "SELECT id, body FROM docs ORDER BY body, id")],
                        threshold=threshold, chunk_rows=chunk_rows, extension=EXTENSION)
            self.assertEqual([(row[1], row[3], row[4], row[5]) for row in got],
                             self.expected("SELECT id, body FROM main.docs ORDER BY body, id", threshold),
                             f"threshold {threshold}, chunks of {chunk_rows}")

    def test_within_a_memory_budget(self):
        # A byte: each task's join in its least parts; "worker": a share of
        # the worker's memory limit.
        query = "SELECT id, body FROM docs ORDER BY id"
        expected = self.expected("SELECT id, body FROM main.docs ORDER BY id", 0.7)
        for memory in (1, "worker"):
            got = dedup(self.client, [Source(self.paths[0], query)], threshold=0.7, chunk_rows=150,
                        extension=EXTENSION, memory=memory)
            self.assertEqual([(row[1], row[3], row[4], row[5]) for row in got], expected,
                             f"memory {memory}")

    def test_two_files_are_one_visit_order(self):
        got = dedup(self.client, [Source(self.paths[1], "SELECT id, body FROM docs ORDER BY id"),
                                  Source(self.paths[2], "SELECT id, body FROM docs ORDER BY id DESC")],
                    threshold=0.7, chunk_rows=90, extension=EXTENSION)
        expected = self.expected(
            "SELECT id, body FROM (SELECT 0 AS s, id AS o, id, body FROM a.docs UNION ALL "
            "SELECT 1, -id, id, body FROM b.docs) ORDER BY s, o", 0.7)
        self.assertEqual([(row[1], row[3], row[4], row[5]) for row in got], expected)
        kept_sources = {row[2] for row in got}
        self.assertEqual(kept_sources, {0, 1})
        self.assertTrue(all(row[0] >= row[2] for row in got), "kept rows come first")


if __name__ == "__main__":
    unittest.main()
