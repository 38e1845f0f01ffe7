# SPDX-License-Identifier: MIT
"""Runs examples/dedup_folder.py on a small folder with known near-duplicates.

Usage: python3 tests/python/test_dedup_folder.py path/to/simhash.so
"""
import contextlib
import gzip
import importlib.util
import io
import os
import random
import sqlite3
import sys
import tempfile
import unittest
from pathlib import Path

EXTENSION = sys.argv.pop(1) if len(sys.argv) > 1 else "build/simhash"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dedup_folder.py"

spec = importlib.util.spec_from_file_location("dedup_folder", EXAMPLE)
dedup_folder = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dedup_folder)


def words(seed, count=3000):
    """A reproducible text of `count` words from a large made-up vocabulary."""
    rng = random.Random(seed)
    vocabulary = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9)))
                  for _ in range(5000)]
    return [rng.choice(vocabulary) for _ in range(count)]


class DedupFolderTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        root = Path(self.folder.name)
        base = words(1)
        edited = list(base)
        edited[1500] = "different"
        (root / "report.txt").write_text(" ".join(base))
        (root / "report-copy.txt").write_text(" ".join(base))
        (root / "report-edited.txt").write_text(" ".join(edited))
        (root / "sub").mkdir()
        (root / "sub" / "report-again.txt").write_text(" ".join(base) + "\n")
        (root / "other.txt").write_text(" ".join(words(2)))
        (root / "another.txt").write_text(" ".join(words(3)))
        # Skipped: binary (a NUL byte), compressed, symlink.
        (root / "binary.dat").write_bytes(b"\0" + " ".join(base).encode())
        with gzip.open(root / "report.txt.gz", "wt") as handle:
            handle.write(" ".join(base))
        os.symlink(root / "report.txt", root / "link.txt")
        self.root = root

    def tearDown(self):
        self.folder.cleanup()

    def test_the_planted_edit_is_near(self):
        # The fixture's premise, checked independently of the example.
        conn = dedup_folder.open_database(EXTENSION)
        base = (self.root / "report.txt").read_text()
        edited = (self.root / "report-edited.txt").read_text()
        other = (self.root / "other.txt").read_text()
        (near,) = conn.execute("SELECT hamming(simhash(?1), simhash(?2))", (base, edited)).fetchone()
        (far,) = conn.execute("SELECT hamming(simhash(?1), simhash(?2))", (base, other)).fetchone()
        self.assertLessEqual(near, 3)
        self.assertGreater(far, 3)

    def test_finds_the_near_duplicates_and_skips_the_rest(self):
        count, clusters = dedup_folder.find_near_duplicates(str(self.root), EXTENSION)
        self.assertEqual(count, 6)  # the six text files; binary, .gz and symlink skipped
        self.assertEqual(len(clusters), 1)
        paths = [os.path.relpath(path, self.root) for path, _, _, _ in clusters[0]]
        # The file kept first (the first by path), then the rest by path.
        self.assertEqual(paths, ["report-copy.txt", "report-edited.txt", "report.txt",
                                 os.path.join("sub", "report-again.txt")])
        self.assertEqual(clusters[0][0][2:], (None, None))  # the kept file
        for _, size, bits, jaccard in clusters[0][1:]:
            self.assertLessEqual(bits, 3)
            self.assertGreaterEqual(jaccard, 0.99)
            self.assertGreater(size, 10000)

    def test_a_candidate_below_the_threshold_is_not_grouped(self):
        # Half the words replaced: far in Jaccard, whatever the distance.
        base = (self.root / "report.txt").read_text().split()
        half = base[:1500] + words(4, 1500)
        (self.root / "report-half.txt").write_text(" ".join(half))
        _, clusters = dedup_folder.find_near_duplicates(str(self.root), EXTENSION, radius=64)
        paths = [os.path.basename(path) for members in clusters for path, _, _, _ in members]
        self.assertNotIn("report-half.txt", paths)
        self.assertEqual(len(clusters), 1)

    def test_radius_zero_keeps_only_identical_texts(self):
        _, clusters = dedup_folder.find_near_duplicates(str(self.root), EXTENSION, radius=0)
        names = sorted(sorted(os.path.basename(path) for path, _, _, _ in members)
                       for members in clusters)
        # "report-again" has a trailing newline only: the same words, so the same fingerprint.
        self.assertEqual(names, [["report-again.txt", "report-copy.txt", "report.txt"]])

    def test_main_prints_a_report(self):
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            status = dedup_folder.main([str(self.root), "--extension", EXTENSION])
        self.assertEqual(status, 0)
        text = output.getvalue()
        self.assertIn("6 text files", text)
        self.assertIn("1 groups of near-duplicates", text)
        self.assertIn("keep", text)
        self.assertIn("report-edited.txt", text)

    def test_a_database_file_can_be_kept(self):
        database = self.root / "dedup.db"
        dedup_folder.find_near_duplicates(str(self.root), EXTENSION, database=str(database))
        conn = sqlite3.connect(database)
        (rows,) = conn.execute("SELECT count(*) FROM docs").fetchone()
        self.assertEqual(rows, 6)


if __name__ == "__main__":
    unittest.main()
