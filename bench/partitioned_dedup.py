#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""simhash_dedup's exact join in memory against the same join within a memory
budget (its sixth argument: the join in parts, the features in a temporary
file): each run in a process of its own under GNU time (/usr/bin/time), so
that its wall time and peak RSS are its own, and the answers compared (the
row count and sums over id, cluster, distance and similarity, and a checksum
of the (id, cluster) pairs). The data is bench/dedup_benchmark.py's: Debian's
package description translations, and above the corpus size edited copies
of its rows. With --function pairs the same for simhash_verified_pairs (its
fifth argument; the pairs streamed from disk): the pair count, sums over a,
b, distance and similarity, and a checksum of the (a, b) pairs.

    /usr/bin/python3 bench/partitioned_dedup.py --ext build-part/simhash.so
        [--corpus /tmp/simhash-corpus/translations.db] [--work /tmp/simhash-part-bench]
        [--size 1000000] [--budgets none,268435456] [--threads 2] [--threshold 0.8]
        [--function dedup|pairs]

A budget of "none" is the join in memory (the argument NULL, no soft heap
limit). Needs a Python whose sqlite3 allows load_extension (Debian's
/usr/bin/python3).
"""
import argparse
import os
import sqlite3
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import dedup_benchmark  # noqa: E402  (the data)

QUERY = "SELECT id, body FROM docs ORDER BY id"


def child(db, ext, threshold, threads, budget, function):
    conn = sqlite3.connect(db)
    conn.enable_load_extension(True)
    conn.load_extension(ext)
    memory = "NULL" if budget == "none" else budget
    start = time.monotonic()
    if function == "pairs":
        sql = ("SELECT count(*), sum(a), sum(b), sum(distance), printf('%.6f', total(similarity)), "
               "sum((a * 1000003 + b) % 2147483647) "
               f"FROM simhash_verified_pairs('{QUERY}', {threshold}, NULL, {threads}, {memory})")
    else:
        sql = ("SELECT count(*), sum(id), sum(cluster), sum(distance), "
               "printf('%.6f', total(similarity)), sum((id * 1000003 + cluster) % 2147483647), "
               "count(DISTINCT cluster) "
               f"FROM simhash_dedup('{QUERY}', {threshold}, NULL, NULL, {threads}, {memory})")
    row = conn.execute(sql).fetchone()
    print("answer", "|".join(str(v) for v in row))
    print("seconds", f"{time.monotonic() - start:.1f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ext", required=True)
    parser.add_argument("--corpus", default="/tmp/simhash-corpus/translations.db")
    parser.add_argument("--work", default="/tmp/simhash-part-bench")
    parser.add_argument("--size", type=int, default=1000000)
    parser.add_argument("--budgets", default="none,268435456")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--threshold", default="0.8")
    parser.add_argument("--function", choices=("dedup", "pairs"), default="dedup")
    parser.add_argument("--child", nargs=2, metavar=("DB", "BUDGET"))
    args = parser.parse_args()
    ext = os.path.abspath(args.ext)
    if args.child:
        child(args.child[0], ext, args.threshold, args.threads, args.child[1], args.function)
        return
    dedup_benchmark.ensure_corpus(args.corpus)
    os.makedirs(args.work, exist_ok=True)
    db = dedup_benchmark.dataset(args.corpus, args.work, args.size)
    answers = set()
    print(f"{args.function}: {args.size:,} rows, threshold {args.threshold}, {args.threads} "
          f"threads, {db}")
    for budget in args.budgets.split(","):
        run = subprocess.run(
            ["/usr/bin/time", "-f", "rss_kb %M wall %e cpu %U+%S", sys.executable, __file__,
             "--ext", ext, "--threads", str(args.threads), "--threshold", args.threshold,
             "--function", args.function, "--child", db, budget],
            capture_output=True, text=True, check=False)
        fields = {}
        for line in (run.stdout + run.stderr).splitlines():
            key, _, value = line.partition(" ")
            fields[key] = value
        if run.returncode != 0 or "answer" not in fields:
            print(f"budget {budget}: failed\n{run.stdout}{run.stderr}")
            continue
        answers.add(fields["answer"])
        rss = int(fields["rss_kb"].split()[0]) / 1024
        print(f"budget {budget}: {fields['seconds']} s in the statement, peak RSS {rss:,.0f} MiB, "
              f"process {fields['rss_kb'].split(' ', 1)[1]}; answer {fields['answer']}",
              flush=True)
    print("same answers" if len(answers) == 1 else f"DIFFERENT answers: {answers}")


if __name__ == "__main__":
    main()
