# SPDX-License-Identifier: MIT
"""Query latency of an existing simhash_index (built by another benchmark,
e.g. build/batch_benchmark's /tmp/batch100m.db): 1,000 radius-k probes
through one statement, half near stored rows (0-3 bits flipped), half
random, timed one by one after an untimed warm-up pass, with SQLite's
default page cache and then with a cache as large as the file. Prints
medians and p99 in microseconds, and the same for `SELECT 1` (the cost of
Python's call around every statement, included in both).

Usage: /usr/bin/python3 bench/probe_latency.py DATABASE [INDEX=near] [EXTENSION=build/simhash]
"""
import os
import random
import sqlite3
import statistics
import sys
import time

database = sys.argv[1]
index = sys.argv[2] if len(sys.argv) > 2 else "near"
extension = sys.argv[3] if len(sys.argv) > 3 else "build/simhash"


def connect(cache_kib):
    conn = sqlite3.connect(database)
    conn.enable_load_extension(True)
    conn.load_extension(extension)
    conn.execute(f"PRAGMA cache_size = -{cache_kib}")
    return conn


def to_signed(value):
    return value - (1 << 64) if value >= 1 << 63 else value


def queries(conn):
    generator = random.Random(20261123)
    (max_id,) = conn.execute(f"SELECT max(id) FROM {index}_data").fetchone()
    found = []
    for _ in range(500):
        row = conn.execute(f"SELECT fp FROM {index}_data WHERE id >= ? LIMIT 1",
                           (generator.randrange(1, max_id + 1),)).fetchone()
        fp = row[0] & ((1 << 64) - 1)
        for _ in range(generator.randrange(4)):
            fp ^= 1 << generator.randrange(64)
        found.append(to_signed(fp))
    found += [to_signed(generator.getrandbits(64)) for _ in range(500)]
    generator.shuffle(found)
    return found


def timed(conn, sql, parameters):
    statement_times = []
    for values in parameters:
        start = time.perf_counter_ns()
        conn.execute(sql, values).fetchall()
        statement_times.append((time.perf_counter_ns() - start) / 1000)
    statement_times.sort()
    return statistics.median(statement_times), statement_times[int(len(statement_times) * 0.99)]


def main():
    size_kib = os.path.getsize(database) // 1024
    probe = f"SELECT rowid, distance FROM {index} WHERE fp MATCH ?"
    for label, cache_kib in (("default cache (2 MB)", 2000), ("cache >= file", size_kib + 65536)):
        conn = connect(cache_kib)
        probes = [(q,) for q in queries(conn)]
        timed(conn, probe, probes)  # warm-up pass
        median, p99 = timed(conn, probe, probes)
        one_median, one_p99 = timed(conn, "SELECT 1", [()] * 1000)
        print(f"{label}: probe median {median:.1f} us, p99 {p99:.1f} us; "
              f"SELECT 1 median {one_median:.1f} us, p99 {one_p99:.1f} us")
        conn.close()


main()
