#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Verification across languages: does the exact check
of simhash_dedup and of the dedup recipe, `simhash_jaccard(a, b, options)
>= threshold`, accept the pairs a reader calls the same text, in every
language and script?

Truth (independent of the extension's tokenizer): the normalized
character-level edit similarity of the two texts,

    sim(a, b) = 1 - levenshtein(A, B) / max(len(A), len(B))

where A and B are the texts NFKC-casefolded (Python's
unicodedata.normalize('NFKC', t).casefold(), applied twice so that it is
stable) with every run of whitespace collapsed to one space and the ends
trimmed, compared code point by code point (exact Levenshtein distance,
bit-parallel algorithm of Myers/Hyyro). A pair is a near-duplicate when
sim >= --truth (default 0.8: at most a fifth of the characters inserted,
deleted or substituted; BENCH.md shows the samples that chose it).

Pairs, per language (texts of one language only, as a deduplicated table
would hold them):
  versions    every pair of distinct descriptions of one package in two
              releases (naturally edited versions), at most --pairs of them
              drawn with --seed;
  candidates  pairs of different packages that simhash_dedup would verify:
              within 10 bits of each other under simhash()'s defaults,
              among at most --sample texts of the language drawn with --seed;
              at most --pairs of them drawn with --seed.
Each candidate setting's check, simhash_jaccard(a, b, setting) >= t, is
scored against the truth on the union: precision = checked pairs that are
near-duplicates / checked pairs; recall = near-duplicates checked /
near-duplicates.

Usage (from the repository root; one core, about 3 minutes):
  /usr/bin/python3 bench/multilingual_verification.py \
      /tmp/simhash-corpus/translations.db --extension build-lang/simhash

--samples N prints N pairs per band of the truth (to read), --timing times
simhash_jaccard per setting, --dedup runs simhash_dedup with the default and
the recommended options on each language.
"""
import argparse
import random
import re
import sqlite3
import sys
import time
import unicodedata

SETTINGS = [
    ("word n=3", "unit=word n=3 weight=binary"),
    ("word n=2", "unit=word n=2 weight=binary"),
    ("word n=1", "unit=word n=1 weight=binary"),
    ("char n=3", "unit=char n=3 weight=binary"),
    ("char n=4", "unit=char n=4 weight=binary"),
    ("char n=5", "unit=char n=5 weight=binary"),
]
THRESHOLDS = [0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.9]
DEFAULT = ("word n=3", 0.8)
# The checks compared side by side in the summary (the first is the default).
SUMMARY = [DEFAULT, ("word n=1", 0.8), ("char n=3", 0.7), ("char n=4", 0.7),
           ("char n=4", 0.75)]
# The checks --dedup runs simhash_dedup with (the first is the default).
DEDUP = [DEFAULT, ("char n=3", 0.7), ("char n=4", 0.75)]
CLEARLY_DIFFERENT = 0.6
LANGS = "en,de,fr,ru,ja,ko,zh_CN"
RADIUS = 10


def normalized(text):
    t = unicodedata.normalize("NFKC", text).casefold()
    t = unicodedata.normalize("NFKC", t).casefold()
    return re.sub(r"\s+", " ", t).strip()


def levenshtein(a, b):
    """Exact edit distance (unit costs), bit-parallel over the shorter text."""
    if len(a) < len(b):
        a, b = b, a
    m = len(b)
    if m == 0:
        return len(a)
    peq = {}
    for i, c in enumerate(b):
        peq[c] = peq.get(c, 0) | (1 << i)
    mask = (1 << m) - 1
    high = 1 << (m - 1)
    pv, mv, score = mask, 0, m
    for c in a:
        eq = peq.get(c, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = (mv | ~(xh | pv)) & mask
        mh = pv & xh
        if ph & high:
            score += 1
        elif mh & high:
            score -= 1
        ph = ((ph << 1) | 1) & mask
        mh = (mh << 1) & mask
        pv = (mh | ~(xv | ph)) & mask
        mv = ph & xv
    return score


def similarity(a, b):
    if not a and not b:
        return 1.0
    return 1.0 - levenshtein(a, b) / max(len(a), len(b))


def connect(extension):
    conn = sqlite3.connect(":memory:")
    conn.enable_load_extension(True)
    conn.load_extension(extension)
    return conn


def language_pairs(db, conn, lang, args):
    """[(kind, id_a, id_b)] for one language, and {id: (package, release, body)}."""
    rows = db.execute(
        "SELECT id, package, release, body FROM texts WHERE lang = ? ORDER BY id",
        (lang,)).fetchall()
    texts = {r[0]: (r[1], r[2], r[3]) for r in rows}
    rng = random.Random(f"{args.seed}-{lang}-versions")
    by_package = {}
    for r in rows:
        by_package.setdefault(r[1], []).append(r[0])
    versions = [(a, b) for ids in by_package.values()
                for i, a in enumerate(ids) for b in ids[i + 1:]]
    if len(versions) > args.pairs:
        versions = rng.sample(versions, args.pairs)
    rng = random.Random(f"{args.seed}-{lang}-candidates")
    ids = [r[0] for r in rows]
    sample = ids if len(ids) <= args.sample else rng.sample(ids, args.sample)
    conn.execute("DROP TABLE IF EXISTS near")
    conn.execute("CREATE VIRTUAL TABLE near USING simhash_index(k=3)")
    conn.executemany("INSERT INTO near(rowid, fp) VALUES (?, simhash(?))",
                     [(i, texts[i][2]) for i in sample])
    found = sorted(conn.execute(
        f"SELECT a, b FROM simhash_pairs('near', {RADIUS})").fetchall())
    found = [(a, b) for a, b in found if texts[a][0] != texts[b][0]]
    candidates = found
    if len(found) > args.pairs:
        candidates = rng.sample(found, args.pairs)
    pairs = [("versions", a, b) for a, b in versions] + \
            [("candidates", a, b) for a, b in candidates]
    return pairs, texts, len(sample), len(found)


def measure(conn, pairs, texts):
    """[(kind, a, b, truth, {setting: jaccard})]"""
    out = []
    norm = {}
    for kind, a, b in pairs:
        for i in (a, b):
            if i not in norm:
                norm[i] = normalized(texts[i][2])
        truth = similarity(norm[a], norm[b])
        jac = {}
        for name, options in SETTINGS:
            jac[name] = conn.execute("SELECT simhash_jaccard(?, ?, ?)",
                                     (texts[a][2], texts[b][2], options)).fetchone()[0]
        out.append((kind, a, b, truth, jac))
    return out


def scores(measured, truth_threshold, setting, threshold):
    tp = fp = fn = 0
    for _, _, _, truth, jac in measured:
        predicted = jac[setting] is not None and jac[setting] >= threshold
        actual = truth >= truth_threshold
        tp += predicted and actual
        fp += predicted and not actual
        fn += actual and not predicted
    precision = tp / (tp + fp) if tp + fp else float("nan")
    recall = tp / (tp + fn) if tp + fn else float("nan")
    return precision, recall


def cell(p, r):
    return f"{p:.2f} / {r:.2f}"


def print_samples(measured, texts, count, rng):
    bands = [(0.6, 0.7), (0.7, 0.8), (0.8, 0.9), (0.9, 1.0)]
    for lo, hi in bands:
        chosen = [m for m in measured if lo <= m[3] < hi]
        for kind, a, b, truth, jac in rng.sample(chosen, min(count, len(chosen))):
            print(f"--- truth {truth:.3f} [{lo}, {hi}) {kind} ids {a} {b} "
                  f"word3 {jac['word n=3']:.3f} char4 {jac['char n=4']:.3f}")
            print("A:", texts[a][2][:500].replace("\n", " / "))
            print("B:", texts[b][2][:500].replace("\n", " / "))


def timing(extension, measured, texts):
    """Microseconds per simhash_jaccard call of each setting over the measured
    pairs: the best of 3 passes, each on a new connection, so that every text
    is tokenized once per pass (simhash_jaccard keeps the feature vectors of
    recent texts in a per-connection cache, as a verification of many pairs
    over the same texts would use it)."""
    n = len(measured)
    result = {}
    for name, options in SETTINGS:
        best = None
        for _ in range(3):
            conn = connect(extension)
            conn.execute("CREATE TABLE timed(a TEXT, b TEXT)")
            conn.executemany("INSERT INTO timed VALUES (?, ?)",
                             [(texts[a][2], texts[b][2]) for _, a, b, _, _ in measured])
            start = time.perf_counter()
            conn.execute("SELECT sum(simhash_jaccard(a, b, ?)) FROM timed",
                         (options,)).fetchone()
            elapsed = time.perf_counter() - start
            conn.close()
            best = elapsed if best is None else min(best, elapsed)
        result[name] = best / n
    return result


def dedup(db, conn, lang, options_list, truth_threshold):
    """Rows simhash_dedup removes (keep-one) on the whole language, per options:
    (removed, of them below the truth threshold against the row kept, seconds)."""
    rows = db.execute("SELECT id, body FROM texts WHERE lang = ? ORDER BY id",
                      (lang,)).fetchall()
    conn.execute("DROP TABLE IF EXISTS lang_docs")
    conn.execute("CREATE TABLE lang_docs(id INTEGER PRIMARY KEY, body TEXT)")
    conn.executemany("INSERT INTO lang_docs VALUES (?, ?)", rows)
    body = dict(rows)
    out = []
    for options, threshold in options_list:
        start = time.perf_counter()
        got = conn.execute(
            "SELECT id, cluster FROM simhash_dedup("
            "'SELECT id, body FROM lang_docs ORDER BY id', ?, 10, ?) WHERE id <> cluster",
            (threshold, options)).fetchall()
        elapsed = time.perf_counter() - start
        below = sum(similarity(normalized(body[i]), normalized(body[c])) < truth_threshold
                    for i, c in got)
        out.append((len(got), below, elapsed))
    return len(rows), out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("db", help="translations.db (bench/corpus/fetch_translations.sh)")
    ap.add_argument("--extension", default="build-lang/simhash")
    ap.add_argument("--langs", default=LANGS)
    ap.add_argument("--pairs", type=int, default=1000,
                    help="at most this many pairs per population and language")
    ap.add_argument("--sample", type=int, default=10000,
                    help="texts per language searched for candidate pairs")
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--truth", type=float, default=0.8)
    ap.add_argument("--dedup-langs", default="de,ru,ja,ko,zh_CN",
                    help="languages --dedup runs on (all their texts)")
    ap.add_argument("--samples", type=int, default=0)
    ap.add_argument("--timing", action="store_true")
    ap.add_argument("--dedup", action="store_true")
    args = ap.parse_args()

    db = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
    conn = connect(args.extension)
    langs = args.langs.split(",")
    all_measured = {}
    print(f"truth: normalized character edit similarity >= {args.truth}; "
          f"seed {args.seed}; at most {args.pairs} pairs per population; "
          f"candidates within {RADIUS} bits among at most {args.sample} texts\n")
    print("| language | texts | version pairs | candidate pairs (of found) | "
          "near-duplicates (versions / candidates) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for lang in langs:
        pairs, texts, sampled, found = language_pairs(db, conn, lang, args)
        measured = measure(conn, pairs, texts)
        all_measured[lang] = (measured, texts)
        nv = sum(m[0] == "versions" for m in measured)
        nc = len(measured) - nv
        pv = sum(m[0] == "versions" and m[3] >= args.truth for m in measured)
        pc = sum(m[0] == "candidates" and m[3] >= args.truth for m in measured)
        print(f"| {lang} | {len(texts):,} | {nv:,} | {nc:,} ({found:,} among {sampled:,}) "
              f"| {pv:,} / {pc:,} |", flush=True)

    for lang in langs:
        measured, _ = all_measured[lang]
        print(f"\n{lang}: precision / recall of simhash_jaccard(a, b, setting) >= t\n")
        print("| setting | " + " | ".join(f"t = {t}" for t in THRESHOLDS) + " |")
        print("| --- | " + " | ".join("---" for _ in THRESHOLDS) + " |")
        for name, _ in SETTINGS:
            cells = [cell(*scores(measured, args.truth, name, t)) for t in THRESHOLDS]
            print(f"| {name} | " + " | ".join(cells) + " |")

    # Summary: the default check against the candidates for a default, per
    # language; and, for the same checks, the share of accepted pairs that are
    # clearly different texts (truth below CLEARLY_DIFFERENT).
    def summary(truth):
        print("| language | " + " | ".join(f"{n} >= {t}" for n, t in SUMMARY) + " |")
        print("| --- | " + " | ".join("---" for _ in SUMMARY) + " |")
        for lang in langs:
            measured, _ = all_measured[lang]
            print(f"| {lang} | " + " | ".join(
                cell(*scores(measured, truth, n, t)) for n, t in SUMMARY) + " |")
    print(f"\nsummary: precision / recall, truth >= {args.truth}\n")
    summary(args.truth)
    for other in (0.7, 0.9):
        print(f"\nthe same with the truth at {other} instead of {args.truth}\n")
        summary(other)
    print(f"\naccepted pairs that are clearly different texts (truth below "
          f"{CLEARLY_DIFFERENT}): count / accepted\n")
    print("| language | " + " | ".join(f"{n} >= {t}" for n, t in SUMMARY) + " |")
    print("| --- | " + " | ".join("---" for _ in SUMMARY) + " |")
    for lang in langs:
        measured, _ = all_measured[lang]
        cells = []
        for n, t in SUMMARY:
            accepted = [m for m in measured if m[4][n] is not None and m[4][n] >= t]
            bad = sum(m[3] < CLEARLY_DIFFERENT for m in accepted)
            cells.append(f"{bad} / {len(accepted)}")
        print(f"| {lang} | " + " | ".join(cells) + " |")

    def f1(p, r):
        return 2 * p * r / (p + r) if p + r else 0.0
    ranking = []
    for name, _ in SETTINGS:
        for t in [x / 20 for x in range(6, 20)]:
            per = [scores(all_measured[l][0], args.truth, name, t) for l in langs]
            ranking.append((min(f1(p, r) for p, r in per),
                            min(p for p, _ in per), min(r for _, r in per), name, t))
    ranking.sort(reverse=True)
    print("\nbest settings by their worst language's F1 (thresholds 0.30 to 0.95 by 0.05)\n")
    print("| setting | t | worst F1 | worst precision | worst recall |")
    print("| --- | --- | --- | --- | --- |")
    for worst_f1, worst_p, worst_r, name, t in ranking[:12]:
        print(f"| {name} | {t:.2f} | {worst_f1:.3f} | {worst_p:.2f} | {worst_r:.2f} |")

    if args.samples:
        rng = random.Random(args.seed)
        for lang in langs:
            print(f"\n===== samples: {lang}")
            print_samples(*all_measured[lang], args.samples, rng)

    if args.timing:
        print("\nsimhash_jaccard, microseconds per call (best of 3 passes over "
              "each language's measured pairs, a new connection each)\n")
        print("| language | mean chars | " + " | ".join(n for n, _ in SETTINGS) + " |")
        print("| --- | ---: | " + " | ".join("---:" for _ in SETTINGS) + " |")
        for lang in langs:
            measured, texts = all_measured[lang]
            chars = sum(len(texts[a][2]) + len(texts[b][2])
                        for _, a, b, _, _ in measured) / (2 * len(measured))
            t = timing(args.extension, measured, texts)
            print(f"| {lang} | {chars:.0f} | " +
                  " | ".join(f"{t[n] * 1e6:.1f}" for n, _ in SETTINGS) + " |", flush=True)

    if args.dedup:
        print(f"\nsimhash_dedup(query, t, 10, options) over every text of the language, "
              f"keep-one: rows removed (of them below the truth {args.truth} against "
              f"the row kept), seconds\n")
        print("| language | texts | " + " | ".join(
            f"{n} >= {t}" for n, t in DEDUP) + " |")
        print("| --- | ---: | " + " | ".join("---" for _ in DEDUP) + " |")
        for lang in args.dedup_langs.split(","):
            n, results = dedup(db, conn, lang,
                               [(dict(SETTINGS)[name], t) for name, t in DEDUP], args.truth)
            print(f"| {lang} | {n:,} | " + " | ".join(
                f"{r:,} ({b:,} below), {sec:.2f} s" for r, b, sec in results) + " |",
                flush=True)


if __name__ == "__main__":
    main()
