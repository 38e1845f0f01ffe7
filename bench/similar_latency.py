"""simhash_similar measured on real text: the Debian changelog entries of this
machine (/usr/share/doc/*/changelog.Debian.gz, one entry per text), topped up
to ROWS with copies edited in a few words (seeded). Loads them into a table
in one transaction (the insert rate), states the bytes per row (the file
over the rows, and the shadow tables one by one from dbstat), then times
QUERIES queries one by one after an untimed pass: half edited copies of
stored texts, half texts not stored; median, p90, p99 and max in
microseconds at thresholds 0.8 and 0.6, with the rows found. A sample of
the queries is checked against a simhash_jaccard scan of the stored texts
(recall and precision must both be 1).

Usage: /usr/bin/python3 bench/similar_latency.py [ROWS=100000] [QUERIES=1000]
       [OPTIONS='n=3 weight=binary'] [EXTENSION=build/simhash] [CACHE_MIB=1024]
"""
import glob
import gzip
import os
import random
import re
import sqlite3
import statistics
import sys
import tempfile
import time

rows = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
query_count = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
options = sys.argv[3] if len(sys.argv) > 3 else "n=3 weight=binary"
extension = sys.argv[4] if len(sys.argv) > 4 else "build/simhash"
cache_mib = int(sys.argv[5]) if len(sys.argv) > 5 else 1024

HEADER = re.compile(r"^\S.*\(.*\).*;.*urgency=", re.M)


def changelog_entries():
    entries = []
    for path in sorted(glob.glob("/usr/share/doc/*/changelog.Debian.gz")):
        try:
            text = gzip.open(path, "rt", errors="replace").read()
        except OSError:
            continue
        starts = [m.start() for m in HEADER.finditer(text)] + [len(text)]
        for a, b in zip(starts, starts[1:]):
            body = "\n".join(
                line for line in text[a:b].splitlines()[1:] if not line.startswith(" -- "))
            if len(body.split()) >= 5:
                entries.append(body.strip())
    return entries


def edited(text, generator, words):
    tokens = text.split()
    for _ in range(generator.randint(1, 3)):
        tokens[generator.randrange(len(tokens))] = generator.choice(words)
    return " ".join(tokens)


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def main():
    generator = random.Random(20261126)
    real = changelog_entries()
    generator.shuffle(real)
    held_out = real[: query_count // 2]
    stored_real = real[query_count // 2:]
    words = [w for t in stored_real[:2000] for w in t.split()]
    texts = stored_real[:rows]
    while len(texts) < rows:
        texts.append(edited(generator.choice(stored_real), generator, words))
    print(f"{len(real)} real changelog entries; {rows} rows ({min(rows, len(stored_real))} real), "
          f"median {statistics.median(len(t.split()) for t in texts[:10000])} words; "
          f"options '{options}'")

    path = os.path.join(tempfile.gettempdir(), f"similar_latency_{os.getpid()}.db")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.enable_load_extension(True)
    conn.load_extension(extension)
    # A page cache as large as the file: the postings are written and read
    # at random places (the default 2 MB spills to the file mid-transaction).
    conn.execute(f"PRAGMA cache_size = -{cache_mib * 1024}")
    conn.execute(f"CREATE VIRTUAL TABLE sim USING simhash_similar(threshold=0.5, options='{options}')")
    conn.execute("CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)")
    start = time.perf_counter()
    cpu = time.process_time()
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO sim(rowid, text) VALUES (?, ?)", enumerate(texts, 1))
    conn.execute("COMMIT")
    load = time.perf_counter() - start
    cpu = time.process_time() - cpu
    print(f"insert: {rows} rows in one transaction {load:.2f} s ({cpu:.2f} s of CPU), "
          f"{1e6 * load / rows:.0f} us a row ({1e6 * cpu / rows:.0f} of CPU)")
    start = time.perf_counter()
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO docs(id, body) VALUES (?, ?)", enumerate(texts, 1))
    conn.execute("COMMIT")
    print(f"  (the same texts into a plain table: {time.perf_counter() - start:.2f} s)")

    sizes = dict(conn.execute(
        "SELECT name, sum(pgsize) FROM dbstat WHERE name LIKE 'sim_%' GROUP BY name").fetchall())
    total = sum(sizes.values())
    print(f"bytes per row: {total / rows:.0f} in all ("
          + ", ".join(f"{name} {size / rows:.0f}" for name, size in sorted(sizes.items()))
          + f"); the texts themselves {sizes_of_docs(conn) / rows:.0f}")
    (postings,) = conn.execute("SELECT count(*) FROM sim_postings").fetchone()
    print(f"postings: {postings} ({postings / rows:.1f} a row)")

    queries = []
    for i in range(query_count):
        if i % 2 == 0:
            queries.append(edited(texts[generator.randrange(rows)], generator, words))
        else:
            queries.append(held_out[i // 2 % len(held_out)])

    for threshold in (0.8, 0.6):
        statement = "SELECT rowid, similarity FROM sim(?, ?)"
        for q in queries:  # untimed pass: the cache warm, as in a running application
            conn.execute(statement, (q, threshold)).fetchall()
        times = []
        cpu_times = []
        found = 0
        for q in queries:
            start = time.perf_counter()
            cpu = time.thread_time()
            found += len(conn.execute(statement, (q, threshold)).fetchall())
            cpu_times.append(1e6 * (time.thread_time() - cpu))
            times.append(1e6 * (time.perf_counter() - start))
        # On a shared machine the wall clock includes waiting for a core; the
        # thread's CPU time does not.
        for name, values in (("wall", times), ("cpu", cpu_times)):
            print(f"t={threshold} {name}: median {statistics.median(values):.0f} us, p90 "
                  f"{percentile(values, 0.9):.0f}, p99 {percentile(values, 0.99):.0f}, max "
                  f"{max(values):.0f}")
        print(f"  {found / len(queries):.2f} rows a query")
        sample = queries[:20]
        agree = 0
        for q in sample:
            expected = conn.execute(
                "SELECT id, s FROM (SELECT id, simhash_jaccard(?1, body, ?3) AS s FROM docs) "
                "WHERE s >= ?2 ORDER BY s DESC, id", (q, threshold, options)).fetchall()
            got = conn.execute(statement, (q, threshold)).fetchall()
            agree += expected == got
        print(f"  checked against a simhash_jaccard scan: {agree} of {len(sample)} answers equal")
    conn.close()
    os.remove(path)


def sizes_of_docs(conn):
    (size,) = conn.execute("SELECT sum(pgsize) FROM dbstat WHERE name = 'docs'").fetchone()
    return size


if __name__ == "__main__":
    main()
