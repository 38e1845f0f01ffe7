#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The n nearest as connections see them (bench/BENCH.md, "The n nearest").
#
# Fresh connections: for each of a few, the CPU time of its first random
# 10-nearest query and of its first 30 (when the cached codes are loaded).
#   usage: /usr/bin/python3 bench/nearest_connection.py MODULE DB [TABLE]
#
# Cold and warm: one connection per MODULE (builds to compare, in one
# process), each asked the same random 10-nearest queries in turn, with
# TRAFFIC MB of other memory written before each query (the application's
# other work, which evicts the codes and SQLite's pages from the caches):
# QUERIES timed on the fresh connections ("cold"), then WARMUP untimed
# (where a connection that keeps asking loads the cached codes), then the
# same QUERIES timed again ("warm"). Per module and phase, the median, mean and
# p99 of each query's CPU time, and the dearest query of the warm-up.
#   usage: /usr/bin/python3 bench/nearest_connection.py warm DB MODULE... \
#            [traffic=64] [queries=200] [warmup=500] [table=near] [query=nearest]
# (query=radius10 asks `radius = 10` instead of the 10 nearest.)
# DB: an index table named TABLE, default "near", as nearest_benchmark makes.
import ctypes
import random
import sqlite3
import sys
import time


def fresh_connections(module, db, table):
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


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def cold_and_warm(db, modules, options):
    traffic_mb = int(options.get("traffic", "64"))
    count = int(options.get("queries", "200"))
    warmup = int(options.get("warmup", "500"))
    table = options.get("table", "near")
    where = "radius = 10" if options.get("query") == "radius10" else "nearest = 10"
    sql = f'SELECT rowid, distance FROM "{table}" WHERE query = ? AND {where}'
    traffic = bytearray(traffic_mb << 20)
    traffic_view = (ctypes.c_char * len(traffic)).from_buffer(traffic)
    connections = []
    for module in modules:
        connection = sqlite3.connect(db)
        connection.enable_load_extension(True)
        connection.load_extension(module)
        connections.append(connection)
    rng = random.Random(11)
    answers = {}

    def run(phase, queries):
        times = [[] for _ in modules]
        for number, query in enumerate(queries):
            # Alternate which connection goes first: neither always follows
            # the other's pages.
            order = list(range(len(modules)))
            if number % 2:
                order.reverse()
            for which in order:
                if traffic_mb:
                    ctypes.memset(traffic_view, number & 0xFF, len(traffic))
                start = time.process_time()
                rows = connections[which].execute(sql, (query,)).fetchall()
                times[which].append((time.process_time() - start) * 1e3)
                answer = sorted(rows, key=lambda row: (row[1], row[0]))
                if answers.setdefault((phase, number), answer) != answer:
                    print("WRONG: the modules disagree on query", number, "of", phase)
        return times

    def queries(n):
        return [rng.getrandbits(64) - (1 << 63) for _ in range(n)]

    print(f"{sql}; {traffic_mb} MB between queries; {count} timed cold, "
          f"{warmup} untimed, {count} timed warm")
    # The warm phase asks the cold phase's queries again: the phases differ
    # only in what the connections hold.
    timed = queries(count)
    cold = run("cold", timed)
    middle = run("warmup", queries(warmup))
    warm = run("warm", timed)
    for which, module in enumerate(modules):
        print("%-32s cold median %6.3f mean %6.3f p99 %6.3f ms | warm median %6.3f mean %6.3f "
              "p99 %6.3f ms | warm-up dearest %6.1f ms, total %6.0f ms" %
              (module, percentile(cold[which], 0.5), sum(cold[which]) / count,
               percentile(cold[which], 0.99), percentile(warm[which], 0.5),
               sum(warm[which]) / count, percentile(warm[which], 0.99), max(middle[which]),
               sum(middle[which])))
    for connection in connections:
        connection.close()


def main():
    if sys.argv[1] == "warm":
        db = sys.argv[2]
        modules = [arg for arg in sys.argv[3:] if "=" not in arg]
        options = dict(arg.split("=", 1) for arg in sys.argv[3:] if "=" in arg)
        cold_and_warm(db, modules, options)
        return
    fresh_connections(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "near")


if __name__ == "__main__":
    main()
