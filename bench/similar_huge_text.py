#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""How long one huge text holds a simhash_similar table's write lock.

Fills (once; kept at --db) a table of N Debian package descriptions
(translations.db, bench/corpus/fetch_translations.sh) in WAL mode, then,
each in its own write transaction (BEGIN IMMEDIATE ... COMMIT, or ROLLBACK
when refused), inserts texts made of other descriptions joined: about
100,000 distinct features (at the default max_features), and 10 MB, first
under the table's limit (the default, unless --db holds a table made with
another) and then with max_features=0. Prints the
wall time the lock was held (BEGIN IMMEDIATE to the end) and the CPU of
this process, the median of --runs.

Usage: /usr/bin/python3 bench/similar_huge_text.py build/simhash.so translations.db
       [--rows N] [--db PATH] [--runs R]
"""
import argparse
import os
import resource
import sqlite3
import statistics
import time

OPTIONS = "n=3 weight=binary symbols=strict"


def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def joined(source, offset, most_bytes):
    parts, size = [], 0
    for (body,) in source.execute("SELECT body FROM texts WHERE lang = 'en' ORDER BY rowid DESC "
                                  "LIMIT -1 OFFSET ?", (offset,)):
        parts.append(body)
        size += len(body.encode())
        if size >= most_bytes:
            break
    return "\n\n".join(parts).encode()[:most_bytes].decode("utf-8", "ignore")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("extension")
    parser.add_argument("translations")
    parser.add_argument("--rows", type=int, default=300000)
    parser.add_argument("--db", default="/tmp/similar-huge/sim.db")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.makedirs(os.path.dirname(args.db), exist_ok=True)
    conn = sqlite3.connect(args.db, isolation_level=None)
    conn.enable_load_extension(True)
    conn.load_extension(args.extension)
    conn.execute("PRAGMA journal_mode=wal")
    conn.execute("PRAGMA cache_size=-262144")
    stored = conn.execute("SELECT count(*) FROM sqlite_schema WHERE name = 'sim'").fetchone()[0]
    if not stored:
        started = time.time()
        conn.execute(f"CREATE VIRTUAL TABLE sim USING simhash_similar(options='{OPTIONS}')")
        conn.execute("ATTACH ? AS src", (args.translations,))
        conn.execute("BEGIN")
        conn.execute("INSERT INTO sim(rowid, text) SELECT rowid, body FROM src.texts ORDER BY rowid "
                     "LIMIT ?", (args.rows,))
        conn.execute("COMMIT")
        conn.execute("DETACH src")
        print(f"filled {args.rows} rows in {time.time() - started:.0f} s")
    rows = conn.execute("SELECT count(*) FROM sim_sizes").fetchone()[0]
    source = sqlite3.connect(args.translations)
    texts = {"250 KB": joined(source, 0, 250_000), "800 KB": joined(source, 0, 800_000),
             "1 MB": joined(source, 0, 1_000_000),
             "10 MB": joined(source, 0, 10_000_000)}
    default = conn.execute("SELECT value FROM sim_config WHERE key = 'max_features'").fetchone()[0]
    for name, text in texts.items():
        features = conn.execute("SELECT count(*) FROM simhash_features(?, ?)", (text, OPTIONS)).fetchone()[0]
        print(f"{name} text: {len(text.encode()):,} bytes, {features:,} distinct features")
    print(f"{rows:,} stored rows; lock held (wall) and CPU, median of {args.runs}:")
    for name, limit in [(name, str(default)) for name in texts] + [(name, "0") for name in texts]:
        walls, cpus, outcome = [], [], ""
        for run in range(args.runs):
            conn.execute("BEGIN IMMEDIATE")
            start, start_cpu = time.time(), cpu()
            conn.execute("INSERT INTO sim(sim) VALUES (?)", (f"max_features={limit}",))
            try:
                conn.execute("INSERT INTO sim(rowid, text) VALUES (-1, ?)", (texts[name],))
                conn.execute("COMMIT")
                outcome = "stored"
            except sqlite3.Error as error:
                conn.execute("ROLLBACK")
                outcome = "refused: " + str(error)[:60] + "..."
            walls.append(time.time() - start)
            cpus.append(cpu() - start_cpu)
            conn.execute("DELETE FROM sim WHERE rowid = -1")
        print(f"  {name}, max_features={limit}: {statistics.median(walls):.3f} s wall, "
              f"{statistics.median(cpus):.3f} s CPU ({outcome})")


if __name__ == "__main__":
    main()
