#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Where simhash_dedup's time goes, per phase, and how many cores each phase
keeps busy: the exact threshold join (radius NULL) on
docs(id INTEGER PRIMARY KEY, body TEXT) at each thread count asked, each run
in a process of its own, so that its CPU time and peak RSS are its own.

    python3 bench/dedup_phases.py --ext build/simhash.so --db DOCS.db
        [--threads 1,2] [--repeat 1] [--threshold 0.8]
        [--radius NULL] [--options NULL]

--radius and --options are simhash_dedup's arguments as SQL (default NULL:
the exact join with the default options); e.g. --radius 10 --options
"'unit=char n=4'" times the radius path (block-permutation tables).

The phases are seen from outside the statement, through two SQL functions
this script registers (the extension is not changed for it):

  read+features  from the start to the read of the query's last row: reading
                 the texts and building their features (the last batch's
                 features are built after this mark: a few ms)
  join+grouping  from there to the first row simhash_dedup returns: the last
                 batch, the repeated-id check, the join with its
                 verification, and the grouping (which rows are kept)
  output         from there to the last row returned

At each mark the process's CPU time (user + system, every thread:
resource.getrusage(RUSAGE_SELF)) is read, so each phase shows its wall time,
CPU time and cores busy (CPU / wall): a phase on one core shows about 1.0.
Also the CPU time of the thread that steps SQLite (RUSAGE_THREAD): it reads
every row, runs every serial part and takes its share of the parallel
work, so on a machine with a free core per thread a phase cannot take less
wall time than that; on a busy machine, where wall times and cores busy say
little, it is the phase's critical path.
Prints one line per run and, with --json, the runs as JSON.

Needs only python3 (the sqlite3 module with load_extension) and the
extension; stdlib only, so a bare machine runs it (bench/scaling.sh).
"""
import argparse
import json
import os
import resource
import sqlite3
import subprocess
import sys
import time


def now():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    # The thread that steps SQLite: simhash_dedup's caller, worker 0 of its
    # loops, and the only one that reads rows and runs the serial parts.
    caller = resource.getrusage(resource.RUSAGE_THREAD)
    return (time.perf_counter(), usage.ru_utime + usage.ru_stime,
            caller.ru_utime + caller.ru_stime)


def child(ext, db, threads, threshold, radius, options):
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    if not hasattr(conn, "enable_load_extension"):
        sys.exit(f"{sys.executable}: its sqlite3 module cannot load extensions; "
                 "run this with a python3 that can (Debian's /usr/bin/python3 does)")
    conn.enable_load_extension(True)
    conn.load_extension(ext)
    last_id = conn.execute("SELECT max(id) FROM docs").fetchone()[0]
    marks = {}

    def mark(name, value):
        if name not in marks:
            marks[name] = now()
        return value

    conn.create_function("mark_read", 1, lambda body: mark("read", body), deterministic=False)
    conn.create_function("mark_out", 1, lambda value: mark("out", value), deterministic=False)
    query = (f"SELECT id, CASE WHEN id = {last_id} THEN mark_read(body) ELSE body END "
             "FROM docs ORDER BY id")
    sql = (f"SELECT count(mark_out(id)), count(*) - count(DISTINCT cluster) FROM simhash_dedup("
           f"'{query.replace(chr(39), chr(39) * 2)}', {threshold}, {radius}, {options}, {threads})")
    start = now()
    grouped, removed = conn.execute(sql).fetchone()
    end = now()
    read = marks.get("read", start)
    out = marks.get("out", end)
    phases = {}
    for name, (a, b) in (("read+features", (start, read)), ("join+grouping", (read, out)),
                         ("output", (out, end)), ("total", (start, end))):
        wall = b[0] - a[0]
        cpu = b[1] - a[1]
        phases[name] = {"wall": wall, "cpu": cpu, "busy": cpu / wall if wall > 0 else 0.0,
                        "caller_cpu": b[2] - a[2]}
    rows = conn.execute("SELECT count(*) FROM docs").fetchone()[0]
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"threads": threads, "rows": rows, "grouped": grouped, "removed": removed,
                      "phases": phases, "peak_mib": peak_kib / 1024}))


def run(ext, db, threads, threshold, radius, options):
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", ext, db,
                          str(threads), str(threshold), radius, options],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def line(result):
    p = result["phases"]
    cells = " | ".join(f"{p[name]['wall']:6.2f} s, {p[name]['cpu']:6.2f} cpu "
                       f"({p[name]['caller_cpu']:6.2f} caller), {p[name]['busy']:4.2f}x"
                       for name in ("read+features", "join+grouping", "output", "total"))
    return (f"| {result['threads']:>2} | {result['rows']:>9} | {cells} | "
            f"{result['peak_mib']:7.0f} MiB | {result['removed']} removed |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ext", default="build/simhash.so")
    parser.add_argument("--db")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--threshold", type=float, default=0.8)
    parser.add_argument("--radius", default="NULL", help="SQL: NULL, 10, 'default'")
    parser.add_argument("--options", default="NULL", help="SQL: NULL, 'unit=char n=4'")
    parser.add_argument("--json", help="also write the runs here")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        ext, db, threads, threshold, radius, options = (args.child + ["NULL", "NULL"])[:6]
        child(ext, db, int(threads), float(threshold), radius, options)
        return
    if not args.db:
        parser.error("--db is required")
    ext = os.path.abspath(args.ext)
    print("| threads | rows | read+features: wall, CPU (the caller thread's), cores busy | "
          "join+grouping | output | total | peak RSS | |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    results = []
    for _ in range(args.repeat):
        for threads in [int(t) for t in args.threads.split(",")]:
            result = run(ext, args.db, threads, args.threshold, args.radius, args.options)
            results.append(result)
            print(line(result), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
