# SPDX-License-Identifier: MIT
"""Draws the pairs a reader judges: runs the README's dedup at its defaults
over the corpus that build_corpus.py makes, and samples the removals whose
text is not byte-identical to the row kept, stratified by source (man, doc,
py, changelog, English and other-language descriptions) and by similarity
band, with a fixed seed. Pairs whose texts are longer than 4,000 characters
are left out: a reader must be able to read both in full. Every sixth pair
is held out: the benchmark reports it apart and nothing is tuned on it.

    python3 bench/keep_one/sample_pairs.py build/simhash CORPUS.db OUT.jsonl [COUNT]
"""
import json
import random
import sqlite3
import sys

BANDS = ((0.8, 0.85), (0.85, 0.9), (0.9, 0.95), (0.95, 1.01))


def group_of(source):
    if source.startswith("deb-"):
        return "deb-en" if source == "deb-en" else "deb-intl"
    return source


def main(module, corpus, out_path, count=480):
    count = int(count)
    conn = sqlite3.connect(corpus)
    conn.enable_load_extension(True)
    conn.load_extension(module)
    rows = conn.execute(
        "SELECT x.id, x.cluster, x.similarity, r.source, r.body, k.body"
        "  FROM simhash_dedup('SELECT id, body FROM texts ORDER BY id') AS x"
        "  JOIN texts AS r ON r.id = x.id JOIN texts AS k ON k.id = x.cluster"
        " WHERE x.id <> x.cluster").fetchall()
    strata = {}
    identical = 0
    for removed, kept, similarity, source, removed_text, kept_text in rows:
        if removed_text == kept_text:
            identical += 1
            continue
        if max(len(removed_text), len(kept_text)) > 4000:
            continue
        band = next(i for i, (low, high) in enumerate(BANDS) if low <= similarity < high)
        strata.setdefault((group_of(source), band), []).append(
            {"removed": removed, "kept": kept, "similarity": round(similarity, 4), "source": source,
             "removed_text": removed_text, "kept_text": kept_text})
    rng = random.Random(52)
    keys = sorted(strata)
    for key in keys:
        rng.shuffle(strata[key])
    chosen = []
    while len(chosen) < count and any(strata[k] for k in keys):
        for key in keys:
            if strata[key] and len(chosen) < count:
                chosen.append(strata[key].pop())
    rng.shuffle(chosen)
    with open(out_path, "w", encoding="utf-8") as out:
        for number, pair in enumerate(chosen, 1):
            pair = {"pair": number, "held_out": number % 6 == 0, **pair}
            out.write(json.dumps(pair, ensure_ascii=False) + "\n")
    print(f"removals {len(rows)}, byte-identical {identical}, sampled {len(chosen)}")
    for key in keys:
        print(key, sum(1 for p in chosen if (group_of(p['source']), next(
            i for i, (lo, hi) in enumerate(BANDS) if lo <= p['similarity'] < hi)) == key))


if __name__ == "__main__":
    main(*sys.argv[1:])
