# SPDX-License-Identifier: MIT
"""Precision and recall of the README's keep-one recipe against the judged
pairs (tests/data/keep_one/judged_pairs.jsonl): each pair is a removal that
simhash_dedup makes at its defaults on real templated text, read and
labelled same, different or borderline by a reader. The recipe deletes a
removal unread when simhash_change() gives one of the kinds it deletes
(DELETED, the README's default) and lists the rest for review.

Prints, for the development part and the held-out part apart: the kinds'
counts by label, the share of pairs judged different that the recipe
deletes (the target is at most 2 in 100), the share of pairs judged same
that it deletes (at least 75 in 100), and the precision of its deletions.

    /usr/bin/python3 bench/keep_one/judged_recipe.py build/simhash [KIND,KIND...]
"""
import collections
import json
import os
import sqlite3
import sys

DELETED = ("identical", "formatting")
KINDS = ("identical", "formatting", "spelling", "added", "dropped", "symbols", "substituted", "rewritten")
DATA = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "keep_one", "judged_pairs.jsonl")


def report(title, pairs, deleted):
    print(f"\n{title}: {len(pairs)} pairs")
    table = collections.Counter((p["kind"], p["label"]) for p in pairs)
    print(f"{'kind':<12} {'same':>5} {'borderline':>10} {'different':>9}")
    for kind in KINDS:
        row = [table[(kind, label)] for label in ("same", "borderline", "different")]
        if any(row):
            print(f"{kind:<12} {row[0]:>5} {row[1]:>10} {row[2]:>9}")
    same = [p for p in pairs if p["label"] == "same"]
    different = [p for p in pairs if p["label"] == "different"]
    gone_same = sum(p["kind"] in deleted for p in same)
    gone_different = sum(p["kind"] in deleted for p in different)
    share = lambda part, whole: f"{part}/{whole} = {100 * part / whole:.1f}%" if whole else "n/a"
    print(f"different pairs deleted unread: {share(gone_different, len(different))} (target <= 2%)")
    print(f"same pairs deleted unread:      {share(gone_same, len(same))} (target >= 75%)")
    print(f"precision of the deletions:     {share(gone_same, gone_same + gone_different)}")


def main(module, deleted=",".join(DELETED)):
    deleted = tuple(deleted.split(","))
    conn = sqlite3.connect(":memory:")
    conn.enable_load_extension(True)
    conn.load_extension(module)
    pairs = [json.loads(line) for line in open(DATA, encoding="utf-8")]
    for pair in pairs:
        pair["kind"] = conn.execute("SELECT simhash_change(?, ?)",
                                    (pair["removed_text"], pair["kept_text"])).fetchone()[0]
    print(f"deleted unread: {', '.join(deleted)}")
    report("development", [p for p in pairs if not p["held_out"]], deleted)
    report("held out", [p for p in pairs if p["held_out"]], deleted)
    report("both parts", pairs, deleted)
    intl = [p for p in pairs if p["source"].startswith("deb-") and p["source"] != "deb-en"]
    report("non-English descriptions (both parts)", intl, deleted)


if __name__ == "__main__":
    main(*sys.argv[1:])
