#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Short texts and the exact check: how often
does `simhash_jaccard(a, b, options) >= t` catch a one-word or a
one-character edit of a short real text, and how often does it merge two
different short texts, for the default check and its alternatives?

Texts: Debian changelog bullet lines nobody here wrote, the first line of
each `  * ...` / `    - ...` item of /usr/share/doc/*/changelog.Debian.gz with
5 to 30 whitespace-separated words, deduplicated, sorted, drawn with --seed.

Edits (the truth is by construction, not by our tokenizer):
  word   one whitespace-separated word of letters replaced by another word of
         letters drawn from the other lines (a different word);
  char   one letter inside such a word replaced by another letter (a typo).
  An edit is caught when the check accepts the pair.

Merges: every pair among --sample lines that the check accepts, found by
simhash_verified_pairs (exact: none missed), and judged by a truth that does
not use our tokenizer: the normalized character edit similarity of the two
lines (bench/multilingual_verification.py: 1 - Levenshtein / longer length,
after NFKC casefolding and whitespace collapsing). A merged pair below
--different (default 0.7: more than 30% of the characters differ, more than
any one-word edit of these lines changes) is two different texts merged.

Deleted unread: the merged pairs whose kind of change (simhash_change, from
the later line to the earlier) is identical or formatting, the ones the
README's keep-one deletes without reading, and how many of those the truth
calls different.

Usage: python3 bench/short_text_check.py build/simhash.so [--sample N] ...
Prints one table row per setting and the total CPU and wall time.
"""

import argparse
import glob
import gzip
import os
import random
import re
import sqlite3
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from multilingual_verification import normalized, similarity  # noqa: E402  (one Levenshtein)

SETTINGS = [
    ("n=3 weight=binary symbols=strict", 0.8),  # the default check
    ("n=3 weight=binary symbols=strict", 0.6),
    ("n=3 weight=binary symbols=strict", 0.5),
    ("n=2 weight=binary symbols=strict", 0.8),
    ("n=2 weight=binary symbols=strict", 0.6),
    ("n=1 weight=binary symbols=strict", 0.8),
    ("n=1 weight=binary symbols=strict", 0.7),
    ("unit=char n=3 weight=binary", 0.8),
    ("unit=char n=3 weight=binary", 0.7),
    ("unit=char n=4 weight=binary", 0.8),
    ("unit=char n=4 weight=binary", 0.7),
    ("unit=char n=5 weight=binary", 0.7),
]

WORD = re.compile(r"^[A-Za-z]{2,}$")


def changelog_lines():
    lines = set()
    for path in sorted(glob.glob("/usr/share/doc/*/changelog.Debian.gz")):
        try:
            with gzip.open(path, "rt", errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        for line in text.splitlines():
            m = re.match(r"^    ?[*+-] (.*)$", line)
            if m and 5 <= len(m.group(1).split()) <= 30:
                lines.add(" ".join(m.group(1).split()))
    return sorted(lines)


def word_edit(line, vocabulary, rng):
    words = line.split(" ")
    spots = [i for i, w in enumerate(words) if WORD.match(w)]
    if not spots:
        return None
    i = rng.choice(spots)
    replacement = words[i]
    while replacement.lower() == words[i].lower():
        replacement = rng.choice(vocabulary)
    words[i] = replacement
    return " ".join(words)


def char_edit(line, rng):
    words = line.split(" ")
    spots = [i for i, w in enumerate(words) if WORD.match(w)]
    if not spots:
        return None
    i = rng.choice(spots)
    w = words[i]
    k = rng.randrange(len(w))
    letters = [c for c in "abcdefghijklmnopqrstuvwxyz" if c != w[k].lower()]
    words[i] = w[:k] + rng.choice(letters) + w[k + 1 :]
    return " ".join(words)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("extension")
    parser.add_argument("--edits", type=int, default=2000, help="lines edited per kind")
    parser.add_argument("--sample", type=int, default=10000, help="lines searched for merges")
    parser.add_argument("--judge", type=int, default=3000, help="merged pairs judged per setting")
    parser.add_argument("--different", type=float, default=0.7)
    parser.add_argument("--seed", type=int, default=34)
    args = parser.parse_args()
    cpu0, wall0 = time.process_time(), time.time()

    lines = changelog_lines()
    rng = random.Random(args.seed)
    vocabulary = sorted({w for line in lines for w in line.split(" ") if WORD.match(w)})
    edited = rng.sample(lines, args.edits)
    pairs = {"word": [], "char": []}
    for line in edited:
        for kind, edit in (("word", word_edit(line, vocabulary, rng)), ("char", char_edit(line, rng))):
            if edit is not None:
                pairs[kind].append((line, edit))
    sample = rng.sample(lines, args.sample)
    words = [len(line.split()) for line in sample]
    short = sum(1 for a, _ in pairs["word"] if len(a.split()) <= 8)
    print(f"edited lines of 5-8 words: {short}, of 9-30: {len(pairs['word']) - short}")
    print(f"lines: {len(lines)} distinct; edited: {len(pairs['word'])} word, {len(pairs['char'])} char;"
          f" merge sample: {len(sample)} lines, median {sorted(words)[len(words) // 2]} words")

    conn = sqlite3.connect(":memory:")
    conn.enable_load_extension(True)
    conn.load_extension(args.extension)
    conn.execute("CREATE TABLE lines(id INTEGER PRIMARY KEY, body TEXT)")
    conn.executemany("INSERT INTO lines VALUES (?, ?)", enumerate(sample))
    conn.execute("CREATE TABLE edits(kind TEXT, a TEXT, b TEXT, words INTEGER)")
    conn.executemany("INSERT INTO edits VALUES (?, ?, ?, ?)",
                     [(kind, a, b, len(a.split())) for kind in pairs for a, b in pairs[kind]])

    print("| options | t | 1-word edit caught (5-8 words / 9-30) | 1-char edit caught (5-8 / 9-30)"
          " | pairs merged | of them different (< %.2f) | lines in a different pair"
          " | deleted unread (identical, formatting) | of them different |" % args.different)
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for options, t in SETTINGS:
        caught = {}
        for kind in ("word", "char"):
            shares = []
            for low, high in ((5, 8), (9, 30)):
                hit, total = conn.execute(
                    "SELECT sum(coalesce(simhash_jaccard(a, b, ?), 0) >= ?), count(*) FROM edits "
                    "WHERE kind = ? AND words BETWEEN ? AND ?", (options, t, kind, low, high)).fetchone()
                shares.append(100.0 * hit / total)
            caught[kind] = "%.1f%% / %.1f%%" % tuple(shares)
        # Each pair with the kind of change from the later line (the one a
        # keep-one in id order removes) to the earlier.
        merged = conn.execute(
            "SELECT x.body, y.body, simhash_change(y.body, x.body) IN ('identical', 'formatting') "
            "FROM simhash_verified_pairs('SELECT id, body FROM lines', ?, ?) "
            "JOIN lines AS x ON x.id = min(a, b) JOIN lines AS y ON y.id = max(a, b)",
            (t, options)).fetchall()
        judged = merged if len(merged) <= args.judge else random.Random(args.seed).sample(merged, args.judge)
        different = [p for p in judged if similarity(normalized(p[0]), normalized(p[1])) < args.different]
        unread = sum(p[2] for p in merged)
        unread_different = sum(p[2] for p in different)
        share = len(different) / len(judged) if judged else 0.0
        lines_in = len({p[0] for p in different} | {p[1] for p in different})
        scale = len(merged) / len(judged) if judged else 0
        print(f"| `{options}` | {t} | {caught['word']} | {caught['char']} | {len(merged)} "
              f"| {100 * share:.1f}% | {lines_in * scale:.0f} ({100 * lines_in * scale / len(sample):.2f}%) "
              f"| {unread} | {unread_different} of {len(judged)} judged |")
        sys.stdout.flush()
    print(f"cpu {time.process_time() - cpu0:.1f} s, wall {time.time() - wall0:.1f} s")


if __name__ == "__main__":
    main()
