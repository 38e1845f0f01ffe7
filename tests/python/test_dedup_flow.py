# SPDX-License-Identifier: MIT
"""The look-then-delete flow of docs/dedup.md
(sql/recipes/dedup_look_then_delete.sql, run as it is): one simhash_dedup
run kept in a temp table with each removal's kind, its summary by kind
(removals, whether deleted unread, bytes, the least similar) and the list of
removals to review, each checked against brute force over every pair (and
the leader grouping docs/dedup.md describes) on random texts with near
copies and copies that differ only in layout (fixed seeds); then its DELETE
removes exactly the removals of the kinds it deletes unread.

Usage: python3 tests/python/test_dedup_flow.py path/to/simhash.so
(run from the repository root, as ctest does).
"""
import os
import random
import sqlite3
import sys
import unittest

EXTENSION = sys.argv.pop(1) if len(sys.argv) > 1 else "build/simhash"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RECIPE = os.path.join(ROOT, "sql", "recipes", "dedup_look_then_delete.sql")


def statements(script):
    """The script's statements, one by one (executescript drops results)."""
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            yield pending
            pending = ""


def texts(seed):
    """Random texts, each with 0-3 copies that change a few words (some
    above the 0.8 threshold, some below) and 0-1 copies in another layout
    (case, line breaks, a full stop), and an empty one."""
    rng = random.Random(seed)
    out = [""]
    for _ in range(40):
        words = [f"w{rng.randrange(3000)}" for _ in range(rng.randrange(20, 80))]
        out.append(" ".join(words))
        for _ in range(rng.randrange(4)):
            copy = list(words)
            for _ in range(rng.randrange(1, 5)):
                copy[rng.randrange(len(copy))] = f"x{rng.randrange(100)}"
            out.append(" ".join(copy))
        if rng.random() < 0.5:
            out.append("\n".join(words).upper() + ".")
    rng.shuffle(out)
    return out


class LookThenDelete(unittest.TestCase):
    def test_summary_and_delete_match_brute_force(self):
        for seed in (1, 2, 3):
            with self.subTest(seed=seed):
                self.check(seed)

    def check(self, seed):
        conn = sqlite3.connect(":memory:")
        conn.enable_load_extension(True)
        conn.load_extension(EXTENSION)
        conn.enable_load_extension(False)
        conn.execute("CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)")
        conn.executemany("INSERT INTO docs(body) VALUES (?)", [(t,) for t in texts(seed)])
        bodies = dict(conn.execute("SELECT id, body FROM docs"))

        # Brute force: every pair at 0.8, then the leader grouping
        # simhash_dedup documents: in id order each row joins the most similar
        # leader before it (ties: the smallest id), else leads; groups of one
        # are left out.
        partners = {i: {} for i in bodies}
        for a, b, similarity in conn.execute(
            "SELECT a.id, b.id, simhash_jaccard(a.body, b.body, 'n=3 weight=binary') AS j"
            " FROM docs AS a JOIN docs AS b ON a.id < b.id WHERE j >= 0.8"
        ):
            partners[a][b] = partners[b][a] = similarity
        leader = {}
        for i in sorted(bodies):
            leaders = [(-s, o) for o, s in partners[i].items() if o < i and leader[o] == o]
            leader[i] = min(leaders)[1] if leaders else i
        sizes = {}
        for i, kept in leader.items():
            sizes[kept] = sizes.get(kept, 0) + 1
        cluster = {i: kept for i, kept in leader.items() if sizes[kept] > 1}
        removed = sorted(i for i, kept in cluster.items() if i != kept)
        self.assertGreater(len(removed), 5)
        similarity = {
            i: conn.execute(
                "SELECT simhash_jaccard(?, ?, 'n=3 weight=binary')", (bodies[i], bodies[cluster[i]])
            ).fetchone()[0]
            for i in removed
        }

        kind = {
            i: conn.execute("SELECT simhash_change(?, ?)", (bodies[i], bodies[cluster[i]])).fetchone()[0]
            for i in removed
        }
        unread = {i for i in removed if kind[i] in ("identical", "formatting")}
        self.assertTrue(unread and unread != set(removed))

        with open(RECIPE, encoding="utf-8") as f:
            results = [conn.execute(s).fetchall() for s in statements(f.read())]
        summary, review = [r for r in results if r]
        expected_summary = []
        for k in sorted(set(kind.values())):
            members = [i for i in removed if kind[i] == k]
            expected_summary.append((k, len(members), int(k in ("identical", "formatting")),
                                     sum(len(bodies[i].encode()) for i in members),
                                     round(min(similarity[i] for i in members), 3)))
        expected_summary.sort(key=lambda row: (-row[2], -row[1], row[0]))
        self.assertEqual(summary, expected_summary)
        to_review = sorted((i for i in removed if i not in unread), key=lambda i: (similarity[i], i))
        self.assertEqual([(r[0], r[1], r[2]) for r in review], [(i, cluster[i], kind[i]) for i in to_review])
        for r in review:
            self.assertEqual(r[4], conn.execute("SELECT simhash_changed_words(?, ?)",
                                                (bodies[r[0]], bodies[r[1]])).fetchone()[0])
        self.assertEqual(sorted(conn.execute("SELECT id, cluster FROM temp.dupes")), sorted(cluster.items()))
        self.assertEqual(
            sorted(i for (i,) in conn.execute("SELECT id FROM docs")), sorted(set(bodies) - unread)
        )


if __name__ == "__main__":
    unittest.main()
