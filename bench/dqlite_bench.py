#!/usr/bin/env python3
"""What replication costs the index: a 3-node dqlite cluster on 127.0.0.1
(examples/dqlite/), one client on the same machine.

Measures, for a simhash_index table against a plain rowid table
(id INTEGER PRIMARY KEY, fp INTEGER), both already holding --rows rows:
  - single-row inserts per second, each its own transaction (one Raft commit);
  - batched inserts per second: --batch rows per transaction, sent as
    multi-row INSERT statements of 100 rows;
  - the pages each commit replicates, read from the Raft log of node 1
    (every commit is one log entry holding the transaction's WAL frames:
    page number and page content, so pages = entry bytes // (page size + 8));
  - MATCH queries per second at radius 3, and a brute-force hamming() scan
    of the plain table for comparison.
Fingerprints are random 64-bit values made here, so simhash() costs nothing.

Usage: python3 bench/dqlite_bench.py build/simhash_dqlite_node [--rows 20000]
       [--single 300] [--batch 1000] [--batches 5] [--queries 1000]
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
ROWS_PER_STATEMENT = 100  # 200 parameters, under the protocol's 255


def signed(value):
    """A 64-bit pattern as SQLite's INTEGER holds it."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >> 63 else value


def raft_log_commands(directory):
    """(entries, bytes) of the COMMAND entries in a node's Raft log, closed
    and open segments alike. A segment is a format word, then batches: two
    CRC32s, an entry count, 16 bytes of header per entry (term, type, size),
    then each entry's data padded to 8 bytes; an open segment ends in
    zeros."""
    entries = 0
    total = 0
    for name in os.listdir(directory):
        if not (name.startswith("open-") or ("-" in name and name.split("-")[0].isdigit())):
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
            sizes = []
            for i in range(count):
                _term, kind, size = struct.unpack_from("<QB3xI", data, headers + 16 * i)
                sizes.append((kind, size))
            if body + sum(size + (-size % 8) for _, size in sizes) > len(data):
                break  # a batch still being written
            for kind, size in sizes:
                if kind == RAFT_COMMAND:
                    entries += 1
                    total += size
                body += size + (-size % 8)
            offset = body
    return entries, total


class LogMeter:
    """Raft COMMAND entries and bytes appended since the last reading."""

    def __init__(self, directory):
        self.directory = directory
        self.last = raft_log_commands(directory)

    def read(self):
        time.sleep(0.3)  # the log write of the last commit, on this node
        now = raft_log_commands(self.directory)
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


def main():
    parser = argparse.ArgumentParser(description="dqlite replication benchmark")
    parser.add_argument("node", help="path to simhash_dqlite_node")
    parser.add_argument("--rows", type=int, default=20000, help="rows preloaded in each table")
    parser.add_argument("--single", type=int, default=300, help="single-row inserts measured")
    parser.add_argument("--batch", type=int, default=1000, help="rows per batched transaction")
    parser.add_argument("--batches", type=int, default=5, help="batched transactions measured")
    parser.add_argument("--queries", type=int, default=1000, help="MATCH queries measured")
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()

    rng = random.Random(arguments.seed)

    def fingerprint():
        return rng.getrandbits(64) - (1 << 63)

    directory = tempfile.mkdtemp(prefix="simhash-dqlite-bench-")
    # No snapshots during the run: they would truncate the log being read.
    cluster = dqlite_cluster.Cluster(
        arguments.node, directory, size=3, port=rng.randrange(20000, 60000),
        extra_args=["--snapshot-threshold", "1000000", "--snapshot-trailing", "1000000"])
    try:
        cluster.start()
        client = dqlite_wire.Client(cluster.servers)
        client.exec("CREATE TABLE plain(id INTEGER PRIMARY KEY, fp INTEGER NOT NULL);"
                    "CREATE VIRTUAL TABLE near USING simhash_index(k=3)")
        _, rows = client.query("PRAGMA page_size")
        page_size = rows[0][0]
        meter = LogMeter(os.path.join(directory, "1"))
        tables = {"plain table": ("plain", "id"), "simhash_index": ("near", "rowid")}
        results = {}
        fingerprints = []
        for label, (table, column) in tables.items():
            preload = [(i + 1, fingerprint()) for i in range(arguments.rows)]
            if table == "near":
                fingerprints = [fp for _, fp in preload]
            batched(client, table, column, preload, arguments.batch)
            meter.read()
            result = results[label] = {}
            rows = [(arguments.rows + i + 1, fingerprint())
                    for i in range(arguments.batch * arguments.batches)]
            result["batched"] = batched(client, table, column, rows, arguments.batch)
            commits, size = meter.read()
            result["batched pages/row"] = size // (page_size + 8) / len(rows)
            result["batched commits"] = commits
            rows = [(arguments.rows + len(rows) + i + 1, fingerprint())
                    for i in range(arguments.single)]
            result["single"] = single(client, table, column, rows)
            commits, size = meter.read()
            result["single commits"] = commits
            result["single pages/commit"] = size / commits / (page_size + 8)
            _, count = client.query(f"SELECT count(*) FROM {table}")
            result["rows"] = count[0][0]

        # Each query one bit away from a stored fingerprint: at least one hit.
        queries = [signed(fp ^ (1 << rng.randrange(64)))
                   for fp in rng.sample(fingerprints, arguments.queries)]
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

    print(f"3 nodes on 127.0.0.1, page size {page_size}; "
          f"{arguments.rows} rows preloaded per table")
    print("| table | rows | single-row inserts/s | pages per single-row commit "
          f"| batched inserts/s ({arguments.batch} rows/commit) | pages per batched row |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for label, r in results.items():
        print(f"| {label} | {r['rows']} | {r['single']:.0f} | {r['single pages/commit']:.2f} "
              f"| {r['batched']:.0f} | {r['batched pages/row']:.3f} |")
    print(f"MATCH at radius 3: {match_qps:.0f} queries/s ({found} rows found in "
          f"{len(queries)} queries); hamming() scan of the plain table: {scan_qps:.1f} queries/s")
    print(f"commits seen in the log: single {results['simhash_index']['single commits']} "
          f"and {results['plain table']['single commits']}, batched "
          f"{results['simhash_index']['batched commits']} and "
          f"{results['plain table']['batched commits']} (index, plain)")


if __name__ == "__main__":
    main()
