# SPDX-License-Identifier: MIT
"""simhash_similar measured on real text: the Debian changelog entries of this
machine (/usr/share/doc/*/changelog.Debian.gz, one entry per text) and, when
CORPUS names it, the package descriptions of translations.db (every
language; bench/corpus/fetch_translations.sh), topped up to ROWS with copies
edited in a few words (seeded). Loads them into a table
in one transaction (the insert rate), states the bytes per row (the file
over the rows, and the shadow tables one by one from dbstat), then times
QUERIES queries one by one after an untimed pass: half edited copies of
stored texts, half texts not stored; median, p90, p99 and max in
microseconds at thresholds 0.8 and 0.6, with the rows found. A sample of
the queries is checked against a simhash_jaccard scan of the stored texts
(recall and precision must both be 1), CHECKED queries a threshold. Then a
10 MB query text (real texts joined) at t=0.8, its CPU time, twice (the
first pays for the extension's buffers). With INSERTS=N in the
environment, N real texts not stored are inserted one statement each
through the refuse recipe into a copy of the database (work.db beside it,
or SIMILAR_WORK),
in a transaction rolled back (twice: a first round on cold pages, a second
of other texts on warm ones) and in autocommit: the checked insert's CPU,
wall, and the pages it read and wrote (/proc/self/io's bytes through read
and write calls over the page size: pages from the OS, cached or not).
INSERTS_ONLY=1 skips the query table (a kept SIMILAR_DB only); KEEP_WORK=1
reuses the copy when it is there and keeps it (the rolled-back rounds leave
it as it was; with AUTOCOMMIT=0 nothing is committed); JOURNAL=wal sets the
copy's journal mode before the rounds; SLOWEST=N lists the N slowest
inserts of each rolled-back round (CPU, pages, words, rows at 0.8).
The scan check compares the first CHECKED queries' answers at both
thresholds with one simhash_jaccard scan of every stored text. Then the
radius-10 recipe on the same texts and queries (a simhash_index over docs,
candidates verified by simhash_jaccard): its times and its recall against
the exact answers (RADIUS=0 skips it); and SCAN_QUERIES (3) queries each
answered by a scan of simhash_jaccard over every stored text, its CPU time.

With PG=1, PostgreSQL 15's pg_trgm on the same texts side by side: a
private cluster (initdb in a temporary directory, run as the user nobody,
listening on 127.0.0.1 only, started and stopped here), a GIN trigram
index, and the first PG_QUERIES queries as `body % q` with set_limit(t). pg_trgm's
similarity is the Jaccard of character trigram sets, not the word-shingle
Jaccard simhash_similar answers, so its recall against our exact answers
measures how far the two notions agree, not a fault of either. Its times
are the server's (clock_timestamp around each query in a PL/pgSQL loop, no
client round trip) and the backend's CPU time over all the queries.

Usage: /usr/bin/python3 bench/similar_latency.py [ROWS=100000] [QUERIES=1000]
       [OPTIONS='n=3 weight=binary'] [EXTENSION=build/simhash] [CACHE_MIB=1024]
       [CORPUS=''] [PG=0] [CHECKED=20] [PG_QUERIES=100]
With SIMILAR_FORMAT1=1 in the environment the table is made as format 1
(no sim_counts), to compare the two rankings on one build. With
SIMILAR_DB=PATH the database is made at PATH and kept; a later run with the
same PATH, ROWS, OPTIONS and CORPUS reuses it (the load is skipped: at 1M
rows it takes a quarter of an hour or more).
"""
import csv
import glob
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

import debian_changelogs

rows = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
query_count = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
options = sys.argv[3] if len(sys.argv) > 3 else "n=3 weight=binary"
extension = sys.argv[4] if len(sys.argv) > 4 else "build/simhash"
cache_mib = int(sys.argv[5]) if len(sys.argv) > 5 else 1024
corpus = sys.argv[6] if len(sys.argv) > 6 else ""
with_pg = len(sys.argv) > 7 and sys.argv[7] == "1"
checked = int(sys.argv[8]) if len(sys.argv) > 8 else 20
pg_queries = int(sys.argv[9]) if len(sys.argv) > 9 else 100
inserts = int(os.environ.get("INSERTS", "0"))
PG_BIN = "/usr/lib/postgresql/15/bin"

def changelog_entries():
    """The bodies of five words or more (debian_changelogs.py reads them)."""
    return [body.strip() for _, _, body in debian_changelogs.changelog_entries()
            if len(body.split()) >= 5]


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
    changelog_count = len(real)
    if corpus:
        source = sqlite3.connect(corpus)
        real += [body for (body,) in source.execute(
            "SELECT DISTINCT body FROM texts WHERE length(body) > 0 ORDER BY id")]
        source.close()
    generator.shuffle(real)
    held_out = real[: query_count // 2]
    stored_real = real[query_count // 2:]
    words = [w for t in stored_real[:2000] for w in t.split()]
    texts = stored_real[:rows]
    while len(texts) < rows:
        texts.append(edited(generator.choice(stored_real), generator, words))
    print(f"{len(real)} real texts ({changelog_count} changelog entries); {rows} rows ({min(rows, len(stored_real))} real), "
          f"median {statistics.median(len(t.split()) for t in texts[:10000])} words; "
          f"options '{options}'")

    kept = os.environ.get("SIMILAR_DB", "")
    path = kept or os.path.join(tempfile.gettempdir(), f"similar_latency_{os.getpid()}.db")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.enable_load_extension(True)
    conn.load_extension(extension)
    # A page cache as large as the file: the postings are written and read
    # at random places (the default 2 MB spills to the file mid-transaction).
    conn.execute(f"PRAGMA cache_size = -{cache_mib * 1024}")
    if kept and reusable(conn):
        print(f"reusing {path} (made by an earlier run with these rows)")
        if os.environ.get("INSERTS_ONLY") == "1":
            conn.close()
            checked_inserts(path, real, held_out)
            return
        measure(conn, path, rows, texts, real, generator, words, held_out)
        return
    if kept:
        conn.close()
        os.remove(path)
        conn = sqlite3.connect(path, isolation_level=None)
        conn.enable_load_extension(True)
        conn.load_extension(extension)
        conn.execute(f"PRAGMA cache_size = -{cache_mib * 1024}")
    conn.execute(f"CREATE VIRTUAL TABLE sim USING simhash_similar(threshold=0.5, options='{options}')")
    conn.execute("CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)")
    if os.environ.get("SIMILAR_FORMAT1") == "1":
        # As a table made before sim_counts: the search counts postings to
        # rank (the comparison of the two rankings on the same build).
        conn.execute("DROP TABLE sim_counts")
        conn.execute("UPDATE sim_config SET value = 1 WHERE key = 'format'")
        conn.close()
        conn = sqlite3.connect(path, isolation_level=None)
        conn.enable_load_extension(True)
        conn.load_extension(extension)
        conn.execute(f"PRAGMA cache_size = -{cache_mib * 1024}")
        print("format 1: no sim_counts, ranked by counting postings")
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
    if kept:
        conn.execute("CREATE TABLE bench_made(rows, options, corpus)")
        conn.execute("INSERT INTO bench_made VALUES (?, ?, ?)", (rows, options, corpus))
    measure(conn, path, rows, texts, real, generator, words, held_out)


def check_against_scan(conn, sample, thresholds):
    """Every sample query's answers at each threshold against a scan of
    simhash_jaccard over every stored text. One scan serves all the queries:
    each stored text is tokenized once and compared with every query (the
    functions keep the queries' features), which makes a sample of hundreds
    affordable at 1M rows where a scan per query would take hours."""
    if not sample:
        return
    low = min(thresholds)
    start = time.perf_counter()
    cpu = time.process_time()
    # The rows any sample query may keep; their similarities one by one below.
    test = " OR ".join(f"simhash_jaccard(?{i + 2}, body, ?1) >= {low!r}"
                       for i in range(len(sample)))
    candidates = conn.execute(f"SELECT id, body FROM docs WHERE {test}",
                              (options, *sample)).fetchall()
    truth = []
    for q in sample:
        row = []
        for id_, body in candidates:
            (s,) = conn.execute("SELECT simhash_jaccard(?, ?, ?)", (q, body, options)).fetchone()
            if s is not None and s >= low:
                row.append((id_, s))
        truth.append(row)
    print(f"  the scan: {len(sample)} queries over every stored text in "
          f"{time.process_time() - cpu:.1f} s of CPU, {time.perf_counter() - start:.1f} s wall")
    statement = "SELECT rowid, similarity FROM sim(?, ?)"
    for threshold in thresholds:
        equal = expected_rows = returned = 0
        for q, row in zip(sample, truth):
            expected = sorted(((i, s) for i, s in row if s >= threshold),
                              key=lambda pair: (-pair[1], pair[0]))
            got = conn.execute(statement, (q, threshold)).fetchall()
            equal += expected == got
            expected_rows += len(expected)
            returned += len({i for i, _ in expected} & {i for i, _ in got})
        print(f"  t={threshold} checked against a simhash_jaccard scan: {equal} of {len(sample)} "
              f"answers equal; recall {returned} of {expected_rows} rows "
              f"({returned / max(1, expected_rows):.4f})")


def timed_queries(conn, label, statement, bindings):
    """Runs `statement` once for each of `bindings` untimed (the cache warm,
    as in a running application), then timed one by one; prints the wall
    and CPU median, p90, p99 and max in microseconds under `label` and
    returns each query's rowids (the first column) as a set. On a shared
    machine the wall clock includes waiting for a core; the thread's CPU
    time does not."""
    for binding in bindings:
        conn.execute(statement, binding).fetchall()
    times = []
    cpu_times = []
    found = []
    for binding in bindings:
        start = time.perf_counter()
        cpu = time.thread_time()
        found.append({r for (r, *_) in conn.execute(statement, binding)})
        cpu_times.append(1e6 * (time.thread_time() - cpu))
        times.append(1e6 * (time.perf_counter() - start))
    for name, values in (("wall", times), ("cpu", cpu_times)):
        print(f"{label} {name}: median {statistics.median(values):.0f} us, p90 "
              f"{percentile(values, 0.9):.0f}, p99 {percentile(values, 0.99):.0f}, max "
              f"{max(values):.0f}")
    return found


def radius_recipe(conn, queries, answers):
    """The per-row recipe the index had before simhash_similar, on the same
    texts and queries: candidates within 10 bits of simhash(q) from a
    simhash_index over docs (k=3, as sql/recipes/follow_table.sql makes it),
    verified by simhash_jaccard with the table's options (the shape of
    sql/recipes/near_duplicate_of.sql). Its recall is taken against
    simhash_similar's answers, which the scan check above shows exact. The
    index is made once in a kept database (bench_near)."""
    (made,) = conn.execute(
        "SELECT count(*) FROM sqlite_schema WHERE name = 'bench_near'").fetchone()
    if not made:
        start = time.perf_counter()
        cpu = time.process_time()
        conn.execute("BEGIN")
        conn.execute("CREATE VIRTUAL TABLE bench_near USING simhash_index(k=3)")
        conn.execute("INSERT INTO bench_near(rowid, fp) SELECT id, fp FROM "
                     "(SELECT id, simhash(body) AS fp FROM docs) WHERE fp IS NOT NULL")
        conn.execute("COMMIT")
        print(f"radius recipe: simhash_index over docs made in {time.process_time() - cpu:.1f} s "
              f"of CPU, {time.perf_counter() - start:.1f} s wall")
    (near_bytes,) = conn.execute(
        "SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'bench_near_%'").fetchone()
    (near_rows,) = conn.execute("SELECT count(*) FROM bench_near").fetchone()
    print(f"radius recipe: the index {near_bytes / max(1, near_rows):.0f} bytes a row")
    candidates = "SELECT count(*) FROM bench_near(simhash(?1), 10)"
    statement = ("SELECT d.id FROM bench_near(simhash(?1), 10) AS n JOIN docs AS d ON d.id = n.rowid "
                 "WHERE simhash_jaccard(?1, d.body, ?3) >= ?2")
    mean_candidates = statistics.mean(conn.execute(candidates, (q,)).fetchone()[0] for q in queries)
    for threshold in (0.8, 0.6):
        found = timed_queries(conn, f"radius recipe t={threshold}", statement,
                              [(q, threshold, options) for q in queries])
        exact = answers[threshold]
        both = sum(len(a & b) for a, b in zip(exact, found))
        extra = sum(len(b - a) for a, b in zip(exact, found))
        total = sum(map(len, exact))
        print(f"  {mean_candidates:.1f} candidates a query (within 10 bits); of the "
              f"{total} rows at >= {threshold} it found {both} (recall {both / max(1, total):.3f}), "
              f"and {extra} rows simhash_similar did not return")


def scan_per_query(conn, sample):
    """What one query costs as a plain scan (every stored text compared with
    it by simhash_jaccard): the baseline an exact per-row answer replaces."""
    if not sample:
        return
    times = []
    for q in sample:
        cpu = time.thread_time()
        conn.execute("SELECT count(*) FROM docs WHERE simhash_jaccard(?, body, ?) >= 0.8",
                     (q, options)).fetchone()
        times.append(time.thread_time() - cpu)
    print(f"a simhash_jaccard scan, one query at a time: median {statistics.median(times):.2f} s "
          f"of CPU ({len(sample)} queries)")


def checked_inserts(path, real, held_out):
    """INSERTS real texts not stored, one statement each, into a copy of the
    database through the recipes (similar_follow_table.sql and
    similar_refuse.sql with `alike` named sim): the checked insert's CPU
    time. Half are the held-out texts (the corpus's texts not loaded), half
    paragraphs of /usr/share/doc/*/copyright files (real text not in the
    corpus; some are licences already seen, and refused: a refusal is a
    checked insert too)."""
    # SIMILAR_WORK names the copy (two sessions sharing one kept database
    # must not write the same copy).
    work = os.environ.get("SIMILAR_WORK") or os.path.join(os.path.dirname(path), "work.db")
    keep_work = os.environ.get("KEEP_WORK") == "1"
    if not (keep_work and os.path.exists(work)):
        shutil.copyfile(path, work)
    conn = sqlite3.connect(work, isolation_level=None)
    conn.enable_load_extension(True)
    conn.load_extension(extension)
    conn.execute(f"PRAGMA cache_size = -{cache_mib * 1024}")
    journal = os.environ.get("JOURNAL", "")
    if journal:
        print(f"journal_mode {conn.execute(f'PRAGMA journal_mode = {journal}').fetchone()[0]}")
    recipes = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sql", "recipes")
    follow = open(os.path.join(recipes, "similar_follow_table.sql")).read()
    # The final backfill adds rows sim lacks; it has them all (loaded as docs).
    follow = follow[: follow.rindex("INSERT INTO alike(rowid, text)")]
    for name in ("similar_refuse.sql",):
        follow += open(os.path.join(recipes, name)).read()
    conn.executescript(follow.replace("alike", "sim"))
    texts = list(held_out)
    for doc in sorted(glob.glob("/usr/share/doc/*/copyright")):
        if len(texts) >= 2 * max(inserts, len(held_out)):
            break
        try:
            paragraphs = open(doc, errors="replace").read().split("\n\n")
        except OSError:
            continue
        texts += [p for p in paragraphs if len(p.split()) >= 5]
    # Two rounds: the first reads the copy's pages into SQLite's cache (a
    # fresh connection), the second, of other unseen texts, finds them there
    # as a running application would: page reads against the work itself.
    rounds = (texts[:inserts], texts[inserts:2 * inserts])
    (top,) = conn.execute("SELECT max(id) FROM docs").fetchone()
    for text in rounds[0][:50]:  # untimed: the cache warm
        conn.execute("SELECT count(*) FROM sim(?, 0.8)", (text,)).fetchall()
    modes = [("in one transaction, rolled back, first round (cold pages)", rounds[0]),
             ("in one transaction, rolled back, second round (warm)", rounds[1])]
    if os.environ.get("AUTOCOMMIT", "1") == "1":
        modes.append(("autocommit", rounds[0]))
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    for mode, group in modes:
        if not group:
            continue
        if mode != "autocommit":
            conn.execute("BEGIN")
        times = []
        walls = []
        # Pages read from and written to the files (SQLite's reads and writes
        # go through read/pwrite: /proc/self/io counts their bytes).
        pages_read = []
        pages_written = []
        refused = 0
        for i, text in enumerate(group, top + 1):
            io = process_io()
            wall = time.perf_counter()
            cpu = time.thread_time()
            try:
                conn.execute("INSERT INTO docs(id, body) VALUES (?, ?)", (i, text))
            except sqlite3.IntegrityError:
                refused += 1
            times.append(1e6 * (time.thread_time() - cpu))
            walls.append(1e6 * (time.perf_counter() - wall))
            after = process_io()
            pages_read.append((after["rchar"] - io["rchar"]) / page_size)
            pages_written.append((after["wchar"] - io["wchar"]) / page_size)
        if mode != "autocommit":
            conn.execute("ROLLBACK")
        slowest = int(os.environ.get("SLOWEST", "0"))
        if slowest and mode != "autocommit":
            # What the slowest inserts were: their words, their pages, the
            # rows at 0.8 (asked after the round, on a warm cache).
            order = sorted(range(len(group)), key=lambda k: -times[k])[:slowest]
            for k in order:
                (found,) = conn.execute("SELECT count(*) FROM sim(?, 0.8)", (group[k],)).fetchone()
                print(f"    slow: {times[k]:.0f} us, {pages_read[k]:.0f} pages, "
                      f"{len(group[k].split())} words, {found} rows at 0.8: {group[k][:60]!r}")
        print(f"checked insert through the refuse recipe, {len(group)} real texts not stored, "
              f"{mode}: cpu median {statistics.median(times):.0f} us, p90 "
              f"{percentile(times, 0.9):.0f}, p99 {percentile(times, 0.99):.0f}, max "
              f"{max(times):.0f}; wall median {statistics.median(walls):.0f} us, p99 "
              f"{percentile(walls, 0.99):.0f}; {refused} refused")
        print(f"  pages read: {sum(pages_read):.0f} in all, median {statistics.median(pages_read):.0f}"
              f", p99 {percentile(pages_read, 0.99):.0f}; pages written: median "
              f"{statistics.median(pages_written):.0f}, p90 {percentile(pages_written, 0.9):.0f}")
    conn.close()
    if not keep_work:
        os.remove(work)


def process_io():
    """This process's /proc/self/io counters (rchar, wchar: bytes through
    read and write calls, the OS cache's included)."""
    with open("/proc/self/io") as io:
        return {k: int(v) for k, v in (line.split(": ") for line in io)}


def reusable(conn):
    """Whether the kept file was made by a run with these rows and options."""
    try:
        made = conn.execute("SELECT rows, options, corpus FROM bench_made").fetchone()
    except sqlite3.Error:
        return False
    return made == (rows, options, corpus)


def measure(conn, path, rows, texts, real, generator, words, held_out):
    sizes = dict(conn.execute(
        "SELECT name, sum(pgsize) FROM dbstat WHERE name LIKE 'sim_%' GROUP BY name").fetchall())
    total = sum(sizes.values())
    print(f"bytes per row: {total / rows:.0f} in all ("
          + ", ".join(f"{name} {size / rows:.0f}" for name, size in sorted(sizes.items()))
          + f"); the texts themselves {sizes_of_docs(conn) / rows:.0f}")
    (postings,) = conn.execute("SELECT count(*) FROM sim_postings").fetchone()
    if "entries" in [c[1] for c in conn.execute("PRAGMA table_info(sim_postings)")]:
        # Format 3: a row of sim_postings is a blob of postings.
        print(f"postings blobs: {postings} ({rows / postings:.1f} rows a blob)")
    else:
        print(f"postings: {postings} ({postings / rows:.1f} a row)")

    queries = []
    for i in range(query_count):
        if i % 2 == 0:
            queries.append(edited(texts[generator.randrange(rows)], generator, words))
        else:
            queries.append(held_out[i // 2 % len(held_out)])

    answers = {}
    for threshold in (0.8, 0.6):
        answers[threshold] = timed_queries(conn, f"t={threshold}",
                                           "SELECT rowid, similarity FROM sim(?, ?)",
                                           [(q, threshold) for q in queries])
        print(f"  {sum(map(len, answers[threshold])) / len(queries):.2f} rows a query")
    check_against_scan(conn, queries[:checked], (0.8, 0.6))
    if os.environ.get("RADIUS", "1") != "0":
        radius_recipe(conn, queries, answers)
    scan_per_query(conn, queries[:int(os.environ.get("SCAN_QUERIES", "3"))])

    huge = ""
    for text in real:
        if len(huge) >= 10 << 20:
            break
        huge += text + "\n"
    # Python makes a str's UTF-8 form at its first binding (0.17 s of CPU
    # for this text) and keeps it: made before the clock starts, the time is
    # SQLite's and the extension's, as for a program that holds UTF-8.
    conn.execute("SELECT length(?)", (huge,)).fetchall()
    for attempt in ("first", "second"):
        start = time.perf_counter()
        cpu = time.thread_time()
        found = len(conn.execute("SELECT rowid FROM sim(?, 0.8)", (huge,)).fetchall())
        print(f"a {len(huge) / 1e6:.1f} MB query text at t=0.8 ({attempt}): "
              f"{time.thread_time() - cpu:.2f} s of CPU, {time.perf_counter() - start:.2f} s wall, "
              f"{found} rows")
    conn.close()
    if inserts:
        checked_inserts(path, real, held_out)
    if not os.environ.get("SIMILAR_DB"):
        os.remove(path)
    if with_pg:
        pg_trgm(texts, queries, answers)


def pg_trgm(texts, queries, answers):
    """pg_trgm on the same texts: a private cluster, started and stopped here."""
    work = tempfile.mkdtemp(prefix="similar_pg_")
    os.chmod(work, 0o777)
    data = os.path.join(work, "data")
    as_nobody = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []
    port = str(54000 + os.getpid() % 1000)
    subprocess.run(as_nobody + [f"{PG_BIN}/initdb", "-D", data, "-A", "trust", "-U", "bench",
                                "--no-sync"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(as_nobody + [f"{PG_BIN}/pg_ctl", "-D", data, "-l", os.path.join(work, "log"),
                                "-w", "-o", f"-c listen_addresses=127.0.0.1 -c port={port} "
                                f"-c unix_socket_directories={work} -c shared_buffers=1GB "
                                "-c fsync=off -c maintenance_work_mem=1GB", "start"],
                   check=True, stdout=subprocess.DEVNULL)
    try:
        psql = [f"{PG_BIN}/psql", "-h", "127.0.0.1", "-p", port, "-U", "bench", "-d", "postgres",
                "-v", "ON_ERROR_STOP=1", "-q", "-A", "-t"]
        texts_file = os.path.join(work, "texts.csv")
        with open(texts_file, "w", newline="") as out:
            writer = csv.writer(out)
            writer.writerows(enumerate(texts, 1))
        queries_file = os.path.join(work, "queries.csv")
        with open(queries_file, "w", newline="") as out:
            csv.writer(out).writerows(enumerate(queries[:pg_queries]))
        os.chmod(texts_file, 0o644)
        os.chmod(queries_file, 0o644)

        def run(sql):
            return subprocess.run(psql, input=sql, text=True, check=True,
                                  capture_output=True).stdout
        run("CREATE EXTENSION pg_trgm; CREATE TABLE docs(id int PRIMARY KEY, body text);"
            "CREATE TABLE queries(i int, q text);"
            "CREATE TABLE timings(i int, t real, us float8, ids int[]);"
            f"COPY docs FROM '{texts_file}' CSV; COPY queries FROM '{queries_file}' CSV;")
        start = time.perf_counter()
        run("CREATE INDEX docs_trgm ON docs USING gin (body gin_trgm_ops); ANALYZE;")
        print(f"pg_trgm: GIN index built in {time.perf_counter() - start:.1f} s wall")
        index, table = map(int, run(
            "SELECT pg_relation_size('docs_trgm'), pg_total_relation_size('docs') - "
            "pg_relation_size('docs_trgm')").split("|"))
        print(f"pg_trgm: GIN index {index / len(texts):.0f} bytes a row; the table (texts, "
              f"TOAST, primary key) {table / len(texts):.0f}")
        for threshold in (0.8, 0.6):
            loop = (f"SELECT set_limit({threshold}); DELETE FROM timings; DO $$ DECLARE r record; "
                    "t0 timestamptz; found int[]; BEGIN FOR r IN SELECT * FROM queries ORDER BY i "
                    "LOOP t0 := clock_timestamp(); SELECT array_agg(id) INTO found FROM docs "
                    "WHERE body % r.q; INSERT INTO timings VALUES (r.i, "
                    f"{threshold}, extract(epoch FROM clock_timestamp() - t0) * 1e6, found); "
                    "END LOOP; END $$;")
            session = subprocess.Popen(psql, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       text=True)
            session.stdin.write("SELECT pg_backend_pid();\n")
            session.stdin.flush()
            backend = int(session.stdout.readline())
            session.stdin.write(loop + "\n")  # untimed pass: the cache warm
            session.stdin.write("SELECT 'warm';\n")
            session.stdin.flush()
            while session.stdout.readline().strip() != "warm":
                pass
            cpu = backend_cpu(backend)
            session.stdin.write(loop + "\nSELECT 'done';\n")
            session.stdin.flush()
            while session.stdout.readline().strip() != "done":
                pass
            cpu = backend_cpu(backend) - cpu
            session.stdin.close()
            session.wait()
            rows = [line.split("|", 2) for line in run(
                "SELECT i, us, coalesce(array_to_string(ids, ','), '') FROM timings ORDER BY i"
            ).splitlines()]
            times = [float(us) for _, us, _ in rows]
            found = [{int(x) for x in ids.split(",") if x} for _, _, ids in rows]
            ours = answers[threshold][:len(found)]
            both = sum(len(a & b) for a, b in zip(ours, found))
            print(f"pg_trgm t={threshold} server wall: median {statistics.median(times):.0f} us, "
                  f"p90 {percentile(times, 0.9):.0f}, p99 {percentile(times, 0.99):.0f}, max "
                  f"{max(times):.0f}; backend CPU {1e6 * cpu / len(times):.0f} us a query "
                  f"(mean)")
            print(f"  {sum(map(len, found)) / len(found):.2f} rows a query; of our "
                  f"{sum(map(len, ours))} exact answers it returned {both} "
                  f"(recall {both / max(1, sum(map(len, ours))):.3f}), and "
                  f"{sum(map(len, found)) - both} rows ours did not")
    finally:
        subprocess.run(as_nobody + [f"{PG_BIN}/pg_ctl", "-D", data, "-m", "fast", "stop"],
                       stdout=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)


def backend_cpu(pid):
    """User and system CPU seconds of a process, from /proc."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def sizes_of_docs(conn):
    (size,) = conn.execute("SELECT sum(pgsize) FROM dbstat WHERE name = 'docs'").fetchone()
    return size


if __name__ == "__main__":
    main()
