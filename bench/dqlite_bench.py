#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What replication costs the index: a 3-node dqlite cluster on 127.0.0.1
(examples/dqlite/), one client on the same machine.

Measures, for a simhash_index table against a plain rowid table
(id INTEGER PRIMARY KEY, fp INTEGER), both already holding --rows rows:
  - single-row inserts per second, each its own transaction (one Raft commit);
  - batched inserts per second at several --batches sizes (rows per
    transaction), sent as multi-row INSERT statements of 100 rows;
  - the commits and pages each phase replicated, read from the Raft log of
    node 1 (each commit is one log entry holding the transaction's WAL
    frames);
  - MATCH queries per second at radius 3, and a brute-force hamming() scan
    of the plain table for comparison.
Fingerprints are random 64-bit values made here, so simhash() costs nothing.

Usage: python3 bench/dqlite_bench.py build/simhash_dqlite_node [--rows 20000]
       [--single 300] [--batches 10,100,1000,10000] [--batch-rows 2000]
       [--queries 1000]
"""

import argparse
import os
import random
import shutil
import struct
import sys
import tempfile
import time

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples", "dqlite"))
import dqlite_cluster  # noqa: E402
import dqlite_wire  # noqa: E402

RAFT_COMMAND = 1
DQLITE_FRAMES = 2  # dqlite's command type for a transaction's WAL frames
ROWS_PER_STATEMENT = 100  # 200 parameters, under the protocol's 255


def signed(value):
    """A 64-bit pattern as SQLite's INTEGER holds it."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >> 63 else value


def raft_log_frames(directory, page_size):
    """(commits, pages) replicated so far, from a node's Raft log: the
    COMMAND entries holding dqlite FRAMES commands (one per committed
    transaction; checkpoints and membership changes are other entries).

    A segment file is a format word, then batches: two CRC32s, an entry
    count, 16 bytes of header per entry (term, type, 3 unused, data size),
    then each entry's data padded to 8 bytes; an open segment ends in zeros.
    A FRAMES command is a few words of header (format, type, database name,
    transaction) then, per page, its number (8 bytes) and its content, so
    its page count is its size // (page size + 8)."""
    commits = 0
    pages = 0
    for name in os.listdir(directory):
        if not (name.startswith("open-") or name.split("-")[0].isdigit()):
            continue
        with open(os.path.join(directory, name), "rb") as segment:
            data = segment.read()
        offset = 8
        while offset + 16 <= len(data):
            (count,) = struct.unpack_from("<Q", data, offset + 8)
            if count == 0:
                break
            headers = offset + 16
            body = headers + 16 * count
            entries = [struct.unpack_from("<QB3xI", data, headers + 16 * i)[1:]
                       for i in range(count)]
            if body + sum(size + (-size % 8) for _, size in entries) > len(data):
                break  # a batch still being written
            for kind, size in entries:
                if kind == RAFT_COMMAND and size > 1 and data[body + 1] == DQLITE_FRAMES:
                    commits += 1
                    pages += size // (page_size + 8)
                body += size + (-size % 8)
            offset = body
    return commits, pages


class LogMeter:
    """Commits and pages replicated since the last reading, from node 1's log
    (every node's log holds the same entries)."""

    def __init__(self, directory, page_size):
        self.directory = directory
        self.page_size = page_size
        self.last = raft_log_frames(directory, page_size)

    def read(self):
        time.sleep(0.3)  # the log write of the last commit, on this node
        now = raft_log_frames(self.directory, self.page_size)
        delta = (now[0] - self.last[0], now[1] - self.last[1])
        self.last = now
        return delta


def insert_rows(client, table, column, rows):
    """Multi-row INSERT statements of ROWS_PER_STATEMENT rows each."""
    for start in range(0, len(rows), ROWS_PER_STATEMENT):
        chunk = rows[start : start + ROWS_PER_STATEMENT]
        values = ", ".join(["(?, ?)"] * len(chunk))
        params = [value for row in chunk for value in row]
        client.exec(f"INSERT INTO {table}({column}, fp) VALUES {values}", params)


def batched(client, table, column, rows, batch):
    started = time.perf_counter()
    for start in range(0, len(rows), batch):
        client.exec("BEGIN")
        insert_rows(client, table, column, rows[start : start + batch])
        client.exec("COMMIT")
    return len(rows) / (time.perf_counter() - started)


def single(client, table, column, rows):
    started = time.perf_counter()
    for row in rows:
        client.exec(f"INSERT INTO {table}({column}, fp) VALUES (?, ?)", list(row))
    return len(rows) / (time.perf_counter() - started)


def measure(arguments, seed):
    """One fresh cluster: the insert phases, then the queries."""
    batch_sizes = [int(size) for size in arguments.batches.split(",")]
    rng = random.Random(seed)

    def fingerprint():
        return rng.getrandbits(64) - (1 << 63)

    directory = tempfile.mkdtemp(prefix="simhash-dqlite-bench-")
    # No snapshots during the run: they would truncate the log being read.
    # Ports below Linux's ephemeral range, which outgoing connections use.
    cluster = dqlite_cluster.Cluster(
        arguments.node, directory, size=3, port=rng.randrange(20000, 32000),
        extra_args=["--snapshot-threshold", "1000000", "--snapshot-trailing", "1000000"])
    results = []  # (table, transaction, rows, rows/s, commits, pages)
    try:
        cluster.start()
        client = dqlite_wire.Client(cluster.servers)
        client.exec("CREATE TABLE plain(id INTEGER PRIMARY KEY, fp INTEGER NOT NULL);"
                    "CREATE VIRTUAL TABLE near USING simhash_index(k=3)")
        _, rows = client.query("PRAGMA page_size")
        page_size = rows[0][0]
        meter = LogMeter(os.path.join(directory, "1"), page_size)
        fingerprints = []
        for label, table, column in [("plain table", "plain", "id"),
                                     ("simhash_index", "near", "rowid")]:
            next_id = 1

            def make_rows(count):
                nonlocal next_id
                made = [(next_id + i, fingerprint()) for i in range(count)]
                next_id += count
                return made

            preload = make_rows(arguments.rows)
            if table == "near":
                fingerprints = [fp for _, fp in preload]
            batched(client, table, column, preload, 10000)
            meter.read()
            rows = make_rows(arguments.single)
            rate = single(client, table, column, rows)
            results.append((label, "1 row (autocommit)", len(rows), rate) + meter.read())
            for batch in batch_sizes:
                rows = make_rows(max(arguments.batch_rows, 2 * batch))
                rate = batched(client, table, column, rows, batch)
                results.append((label, f"{batch} rows", len(rows), rate) + meter.read())

        # Each query one bit away from a stored fingerprint: at least one hit.
        queries = [signed(fp ^ (1 << rng.randrange(64)))
                   for fp in rng.sample(fingerprints, arguments.queries)]
        _, count = client.query("SELECT count(*) FROM near")
        index_rows = count[0][0]
        started = time.perf_counter()
        found = 0
        for q in queries:
            _, rows = client.query("SELECT rowid, distance FROM near WHERE fp MATCH ? "
                                   "AND distance <= 3", [q])
            found += len(rows)
        match_qps = len(queries) / (time.perf_counter() - started)
        scans = queries[: max(1, arguments.queries // 50)]
        started = time.perf_counter()
        for q in scans:
            client.query("SELECT id FROM plain WHERE hamming(fp, ?) <= 3", [q])
        scan_qps = len(scans) / (time.perf_counter() - started)
        client.exec("INSERT INTO near(near) VALUES ('integrity-check')")
        client.close()
    finally:
        cluster.stop()
        shutil.rmtree(directory, ignore_errors=True)
    return {"page_size": page_size, "results": results, "index_rows": index_rows,
            "found": found, "match_qps": match_qps, "scan_qps": scan_qps}


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def main():
    parser = argparse.ArgumentParser(description="dqlite replication benchmark")
    parser.add_argument("node", help="path to simhash_dqlite_node")
    parser.add_argument("--rows", type=int, default=20000, help="rows preloaded in each table")
    parser.add_argument("--single", type=int, default=300, help="single-row inserts measured")
    parser.add_argument("--batches", default="10,100,1000,10000",
                        help="rows per transaction of the batched inserts")
    parser.add_argument("--batch-rows", type=int, default=2000,
                        help="rows inserted per batch size (at least two transactions)")
    parser.add_argument("--queries", type=int, default=1000, help="MATCH queries measured")
    parser.add_argument("--runs", type=int, default=3,
                        help="fresh clusters measured; rates are their medians")
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()

    runs = [measure(arguments, arguments.seed + run) for run in range(arguments.runs)]
    first = runs[0]
    print(f"3 nodes on 127.0.0.1, one client, page size {first['page_size']}, "
          f"{arguments.rows} rows in each table before the measured inserts; "
          f"rates: median of {len(runs)} runs (min-max)")
    print("| table | rows per transaction | rows | rows/s | commits | pages per commit "
          "| pages per row |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for i, (label, transaction, count, _, commits, pages) in enumerate(first["results"]):
        rates = [run["results"][i][3] for run in runs]
        # Pages differ between runs only by the random fingerprints' layout.
        pages = median([run["results"][i][5] for run in runs])
        print(f"| {label} | {transaction} | {count} | {median(rates):.0f} "
              f"({min(rates):.0f}-{max(rates):.0f}) | {commits} "
              f"| {pages / max(commits, 1):.1f} | {pages / count:.3f} |")
    match = [run["match_qps"] for run in runs]
    scan = [run["scan_qps"] for run in runs]
    print(f"MATCH at radius 3 on {first['index_rows']} rows, one query at a time: "
          f"{median(match):.0f} queries/s ({min(match):.0f}-{max(match):.0f}; "
          f"{first['found']} rows found by {arguments.queries} queries); a hamming() scan "
          f"of the plain table: {median(scan):.1f} queries/s ({min(scan):.1f}-{max(scan):.1f})")


if __name__ == "__main__":
    main()
