#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""sqlite_simhash.dask_dedup on a LocalCluster of N worker processes (one
thread each) over bench/partitioned_dedup.py's database, timed, with the
answer's sums printed as bench/partitioned_dedup.py prints simhash_dedup's
(row count, sum of ids, of kept ids, of distances, total similarity), so the
two can be compared.

    /usr/bin/python3 bench/dask_dedup_bench.py --ext build/simhash.so
        --db /tmp/simhash-part-bench/docs-1000000.db [--workers 2,4]
        [--chunk-rows 250000] [--threshold 0.8]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from dask.distributed import Client, LocalCluster  # noqa: E402

from sqlite_simhash.dask_dedup import Source, dedup  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ext", required=True)
    parser.add_argument("--db", required=True)
    parser.add_argument("--workers", default="2,4")
    parser.add_argument("--chunk-rows", type=int, default=250000)
    parser.add_argument("--threshold", type=float, default=0.8)
    args = parser.parse_args()
    ext = os.path.abspath(args.ext)
    for workers in (int(w) for w in args.workers.split(",")):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            start = time.monotonic()
            rows = dedup(client, [Source(args.db, "SELECT id, body FROM docs ORDER BY id")],
                         threshold=args.threshold, chunk_rows=args.chunk_rows, threads=1,
                         extension=ext)
            seconds = time.monotonic() - start
        answer = (len(rows), sum(r[1] for r in rows), sum(r[3] for r in rows),
                  sum(r[4] or 0 for r in rows), f"{sum(r[5] for r in rows):.6f}",
                  len({r[3] for r in rows}))
        print(f"{workers} workers, chunks of {args.chunk_rows:,}: {seconds:.1f} s; answer "
              + "|".join(str(v) for v in answer), flush=True)


if __name__ == "__main__":
    main()
