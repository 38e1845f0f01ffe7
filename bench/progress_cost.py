#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""What simhash_progress(1) costs a long batch call: the same
simhash_dedup run with the progress report off and on, each run in a process
of its own, alternating, its CPU time (user + system, every thread:
getrusage(RUSAGE_CHILDREN) around the child) and wall time; the lines an
"on" run wrote to stderr are counted, and the last one shown.

    /usr/bin/python3 bench/progress_cost.py --ext build/simhash.so [--rows 50000]
        [--repeat 3] [--threads 1] [--options NULL] [--baseline OLD/simhash.so]

--baseline adds runs of another build of the module (one without
simhash_progress, to see that the switch off costs nothing); the call names
its arguments (hidden columns), which every version reads alike.

The texts are made here with a fixed seed (families of edited copies over a
vocabulary of made-up words, 20 to 80 words each), so no corpus is needed.
Needs a python3 whose sqlite3 loads extensions (Debian's does; the children
run under the same interpreter).
"""
import argparse
import os
import random
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time


def make_db(path, rows, seed=35):
    rng = random.Random(seed)
    vocabulary = ["w%d" % i for i in range(20000)]
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)")
    bodies = []
    while len(bodies) < rows:
        base = [rng.choice(vocabulary) for _ in range(rng.randint(20, 80))]
        bodies.append(" ".join(base))
        for _ in range(rng.randint(0, 3)):
            copy = list(base)
            for _ in range(rng.randint(0, 6)):
                copy[rng.randrange(len(copy))] = rng.choice(vocabulary)
            bodies.append(" ".join(copy))
    db.executemany("INSERT INTO docs(body) VALUES (?)", [(b,) for b in bodies[:rows]])
    db.commit()
    db.close()


CHILD = r"""
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.enable_load_extension(True)
db.load_extension(sys.argv[2])
if sys.argv[3] == "on":
    db.execute("SELECT simhash_progress(1)")
options = "" if sys.argv[5] == "NULL" else " AND options = " + sys.argv[5]
print(db.execute("SELECT count(*) FROM simhash_dedup WHERE query = "
                 "'SELECT id, body FROM docs ORDER BY id' AND threshold = 0.8 AND threads = "
                 + sys.argv[4] + options).fetchone()[0])
"""


def run(db, ext, mode, threads, options):
    switch = "on" if mode == "on" else "off"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, db, ext, switch, str(threads), options],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit("the %s run failed:\n%s" % (mode, done.stderr))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.stdout.strip(), done.stderr.splitlines()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ext", required=True)
    parser.add_argument("--rows", type=int, default=50000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--options", default="NULL", help="SQL for the options argument")
    parser.add_argument("--baseline", help="another build of the module, run with the switch off")
    args = parser.parse_args()
    ext = os.path.abspath(args.ext)
    with tempfile.TemporaryDirectory() as scratch:
        db = os.path.join(scratch, "docs.db")
        make_db(db, args.rows)
        modules = {"off": ext, "on": ext}
        if args.baseline:
            modules["baseline"] = os.path.abspath(args.baseline)
        results = {mode: [] for mode in modules}
        for _ in range(args.repeat):
            for mode, module in modules.items():
                results[mode].append(run(db, module, mode, args.threads, args.options))
    for mode in results:
        cpus = sorted(r[0] for r in results[mode])
        walls = sorted(r[1] for r in results[mode])
        lines = results[mode][-1][3]
        print("%-8s  CPU s: min %.2f median %.2f   wall s: min %.2f median %.2f   "
              "rows out %s   stderr lines %d" % (mode, cpus[0], cpus[len(cpus) // 2], walls[0],
                                                 walls[len(walls) // 2], results[mode][-1][2],
                                                 len(lines)))
        for line in lines:
            print("          " + line)


if __name__ == "__main__":
    main()
