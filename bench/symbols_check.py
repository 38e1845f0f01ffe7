#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""What the option `symbols` changes in simhash_dedup's groups, and what it
costs: `n=3 weight=binary` with symbols dropped, `keep` and `strict`.

- the demo's files: every regular text file under /usr/share/doc and
  /usr/share/common-licenses, read as sql/demo.sql reads them (no
  compressed file, none with a NUL byte), in path order;
- the docstrings of Python's `operator` module ("Same as a < b.");
- the judged keep-one removals (tests/data/keep_one): how many pairs of each
  label the check still puts at 0.8 or more;
- CPU: every 8th text of translations.db (bench/corpus/fetch_translations.sh),
  runs of the settings interleaved, user+sys of this process.

Usage: /usr/bin/python3 bench/symbols_check.py build/simhash.so [translations.db] [--runs N]
"""
import argparse
import json
import operator
import os
import resource
import sqlite3
import statistics

SETTINGS = ("n=3 weight=binary", "n=3 weight=binary symbols=keep", "n=3 weight=binary symbols=strict")
COMPRESSED = (".gz", ".xz", ".bz2", ".zst", ".z", ".zip")
JUDGED = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "keep_one", "judged_pairs.jsonl")


def connect(extension, path=":memory:"):
    conn = sqlite3.connect(path)
    conn.enable_load_extension(True)
    conn.load_extension(extension)
    return conn


def demo_files():
    paths = []
    for root in ("/usr/share/doc", "/usr/share/common-licenses"):
        for folder, _, names in os.walk(root):
            for name in names:
                path = os.path.join(folder, name)
                lower = name.lower()
                if os.path.islink(path) or not os.path.isfile(path) or lower.endswith(COMPRESSED) \
                        or ".lz" in lower:
                    continue
                with open(path, "rb") as f:
                    data = f.read()
                if b"\0" not in data:
                    paths.append((path, data.decode("utf-8", "replace")))
    return sorted(paths)


def removals(conn, table, options):
    return conn.execute(
        f"SELECT count(DISTINCT cluster), coalesce(sum(id <> cluster), 0) FROM simhash_dedup("
        f"'SELECT id, body FROM {table} ORDER BY id', 0.8, NULL, ?, 1)", (options,)).fetchone()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("extension")
    parser.add_argument("translations", nargs="?")
    parser.add_argument("--runs", type=int, default=6)
    args = parser.parse_args()
    conn = connect(args.extension)
    conn.execute("CREATE TABLE files(id INTEGER PRIMARY KEY, body TEXT)")
    conn.executemany("INSERT INTO files(body) VALUES (?)", [(body,) for _, body in demo_files()])
    docs = sorted({getattr(operator, n).__doc__ for n in dir(operator)
                   if not n.startswith("_") and getattr(getattr(operator, n), "__doc__", None)})
    conn.execute("CREATE TABLE docstrings(id INTEGER PRIMARY KEY, body TEXT)")
    conn.executemany("INSERT INTO docstrings(body) VALUES (?)", [(d,) for d in docs])
    files = conn.execute("SELECT count(*) FROM files").fetchone()[0]
    pairs = [json.loads(line) for line in open(JUDGED, encoding="utf-8")]
    for options in SETTINGS:
        groups, removed = removals(conn, "files", options)
        _, removed_docs = removals(conn, "docstrings", options)
        grouped = {label: 0 for label in ("same", "borderline", "different")}
        for pair in pairs:
            similarity = conn.execute("SELECT simhash_jaccard(?, ?, ?)",
                                      (pair["removed_text"], pair["kept_text"], options)).fetchone()[0]
            grouped[pair["label"]] += similarity is not None and similarity >= 0.8
        print(f"{options}: {files} files -> {groups} groups, {removed} removed; "
              f"{len(docs)} operator docstrings -> {removed_docs} removed; judged pairs still grouped: "
              + ", ".join(f"{label} {count}" for label, count in grouped.items()))
    if args.translations:
        data = connect(args.extension, args.translations)
        data.execute("CREATE TEMP TABLE sample AS SELECT rowid AS id, body FROM texts WHERE rowid % 8 = 0")
        count, megabytes = data.execute("SELECT count(*), sum(length(body)) / 1e6 FROM sample").fetchone()
        cpu = {options: [] for options in SETTINGS[1:]}
        for _ in range(args.runs):
            for options in cpu:
                before = resource.getrusage(resource.RUSAGE_SELF)
                removals(data, "temp.sample", options)
                after = resource.getrusage(resource.RUSAGE_SELF)
                cpu[options].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        for options, seconds in cpu.items():
            print(f"{count} texts ({megabytes:.1f} MB), {options}: median {statistics.median(seconds):.3f} s "
                  f"CPU over {args.runs} runs")


if __name__ == "__main__":
    main()
