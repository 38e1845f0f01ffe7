#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The n nearest as short-lived connections see them: for each of a few fresh
# connections, the CPU time of its first random 10-nearest query and of its
# first 30 (bench/BENCH.md, "The n nearest": when the cached codes are loaded).
# usage: /usr/bin/python3 bench/nearest_connection.py MODULE DB [TABLE]
# (DB: an index table named TABLE, default "near", as nearest_benchmark makes.)
import random
import sqlite3
import sys
import time


def main():
    module, db = sys.argv[1], sys.argv[2]
    table = sys.argv[3] if len(sys.argv) > 3 else "near"
    random.seed(5)
    firsts, totals = [], []
    for _ in range(6):
        connection = sqlite3.connect(db)
        connection.enable_load_extension(True)
        connection.load_extension(module)
        times = []
        for _ in range(30):
            query = random.getrandbits(64) - (1 << 63)
            start = time.process_time()
            connection.execute(
                f'SELECT rowid, distance FROM "{table}" WHERE query = ? AND nearest = 10',
                (query,)).fetchall()
            times.append((time.process_time() - start) * 1e3)
        firsts.append(times[0])
        totals.append(sum(times))
        connection.close()
    print("first query ms:", " ".join("%.0f" % t for t in firsts))
    print("30 queries total ms:", " ".join("%.0f" % t for t in totals))


if __name__ == "__main__":
    main()
