#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""CPU time of single-row INSERTs into a loaded simhash_similar table, each
its own transaction (autocommit): the pattern of an application that
commits every insert. LOADED.db is a database whose `docs(id, body)` is
followed by sql/recipes/similar_follow_table.sql (for instance the file
`SIMILAR_DB=LOADED.db bench/similar_latency.py ROWS ...` leaves); each
EXTENSION gets a fresh copy of it, then INSERTS texts of the corpus not
stored (OFFSET SKIP in a fixed shuffled order), one INSERT each, and the
CPU of each (time.process_time: SQLite runs in this process) is printed as
median / p90 / p99 / max. With PRAGMAS="journal_mode=wal;synchronous=normal"
in the environment the copy's connection runs those first; with
CHECKPOINT_EVERY=N too (and `wal_autocheckpoint=0` among the pragmas)
another connection checkpoints the WAL after every N inserts, untimed: an
application that keeps checkpoints off its writer. TRANSACTION=1 makes all
the inserts one transaction instead (each INSERT timed, the COMMIT
printed apart): the figure beside which to read the others.

Usage: [PRAGMAS=...] [CHECKPOINT_EVERY=N] /usr/bin/python3 bench/similar_commit_latency.py
           CORPUS.db LOADED.db INSERTS SKIP EXTENSION...
"""
import os
import shutil
import sqlite3
import statistics
import sys
import time


def texts_of(corpus, count, skip):
    with sqlite3.connect(corpus) as conn:
        return [row[0] for row in conn.execute(
            "SELECT body FROM texts ORDER BY (id * 2654435761) % 4294967296 LIMIT ? OFFSET ?",
            (count, skip))]


def committed_inserts(loaded, extension, texts):
    work = loaded + ".work"
    shutil.copy(loaded, work)
    try:
        conn = sqlite3.connect(work, isolation_level=None)
        conn.enable_load_extension(True)
        conn.load_extension(extension)
        for pragma in filter(None, os.environ.get("PRAGMAS", "").split(";")):
            conn.execute("PRAGMA " + pragma).fetchall()
        every = int(os.environ.get("CHECKPOINT_EVERY", "0"))
        checkpointer = sqlite3.connect(work, isolation_level=None) if every else None
        inside = os.environ.get("TRANSACTION") == "1"
        if inside:
            conn.execute("BEGIN")
        seconds = []
        for i, text in enumerate(texts):
            start = time.process_time()
            conn.execute("INSERT INTO docs(id, body) VALUES (?, ?)", (10_000_000 + i, text))
            seconds.append(time.process_time() - start)
            if every and (i + 1) % every == 0:
                checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        if inside:
            start = time.process_time()
            conn.execute("COMMIT")
            print(f"COMMIT of the transaction: {(time.process_time() - start) * 1000:.1f} ms CPU")
        if checkpointer:
            checkpointer.close()
        conn.close()
        return sorted(seconds)
    finally:
        os.remove(work)


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    corpus, loaded, inserts, skip = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    texts = texts_of(corpus, inserts, skip)
    for extension in sys.argv[5:]:
        times = committed_inserts(loaded, os.path.abspath(extension), texts)
        at = lambda share: times[min(len(times) - 1, int(share * len(times)))] * 1000  # noqa: E731
        print(f"{extension}: {len(times)} inserts, CPU ms median {statistics.median(times) * 1000:.3f}"
              f" p90 {at(0.9):.3f} p99 {at(0.99):.3f} max {times[-1] * 1000:.3f}", flush=True)


if __name__ == "__main__":
    main()
