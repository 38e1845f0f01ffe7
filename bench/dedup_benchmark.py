#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""End-to-end dedup on real text: the three-step recipe of
docs/dedup.md, simhash_dedup with candidates within 10 bits (radius 10, the
recipe's), simhash_dedup's exact threshold join (radius NULL, the default),
and a Go MinHash-LSH peer (bench/peer), each in a process of its own run
under GNU time (/usr/bin/time), so that its wall time, CPU time (user + sys)
and peak RSS are its own, on Debian's package description translations
(bench/corpus/fetch_translations.sh: fetched when the database is missing).
Then how the recipe and the two simhash_dedup modes grow from 100K rows to 1M.

    /usr/bin/python3 bench/dedup_benchmark.py [--ext build-bench/simhash.so]
        [--corpus /tmp/simhash-corpus/translations.db] [--work /tmp/simhash-dedup-bench]
        [--modes recipe,radius,exact,default,exact1,peer] [--growth 100000,200000,full,1000000]
        [--growth-modes recipe,radius,exact,candidates] [--recipe-max 400000]
        [--threshold 0.8] [--peer-workers 2]

Everything goes through SQL (the extension's internals are not used) and the
Python sqlite3 module, which must allow load_extension (Debian's /usr/bin/python3
does). Each mode reads docs(id INTEGER PRIMARY KEY, body TEXT) from a database
of its own size under --work, made from the corpus once and reused:

  * up to the corpus size, a uniform sample of the corpus's rows (seed below),
    ids kept; "full" is every row;
  * above it, every corpus row (ids 1..N, the corpus order) followed by edited
    copies of corpus rows drawn uniformly (seed below), ids after the
    originals. An edited copy is, with odds 1 in 5, the text with two of its
    sentences (or lines) swapped; otherwise about 5% of its words (at least
    one) each dropped, replaced by another word of the same text or followed
    by one (equal odds). A text with fewer than one space per 20 characters
    (Chinese, Japanese) is edited by characters instead of words.

Modes (each child process loads the extension itself):

  recipe      docs/dedup.md's three statements on a copy of the database (the
              index is written into it): the index, the verified pairs
              (candidates within 10 bits joined to both bodies and checked by
              simhash_jaccard(a, b, 'n=3 weight=binary') >= threshold), and
              simhash_clusters('verified') stored in a temp table. After the
              timed steps, not in the total: the candidates counted alone
              (SELECT count(*) FROM simhash_pairs('near', 10)) and the recipe's
              two keep-one DELETEs.
  radius      CREATE TEMP TABLE groups AS SELECT id, cluster, distance, similarity
              FROM simhash_dedup('SELECT id, body FROM docs ORDER BY id', threshold, 10)
              (candidates within 10 bits, as the recipe takes them)
  exact       the same with simhash_dedup(..., threshold, NULL), the exact
              threshold join
  default     the same with simhash_dedup(..., threshold): the radius left
              out (the exact join since the join became the default)
  exact1      the exact join on one thread: simhash_dedup(..., threshold, NULL,
              NULL, 1) (the others use every core, the default)
  peer        bench/peer/minhash_lsh_peer.go (built here with Debian's Go and
              golang-github-ekzhu-minhash-lsh-dev, offline) on an export of the
              same rows (id<TAB>escaped text; the export is not timed)
  candidates  (growth) a simhash_index of the rows in a new database and
              SELECT count(*) FROM simhash_pairs('near', 10): the radius mode's
              candidates per row, through SQL

Checks (after the runs, in this process): the radius mode's groups equal the
recipe's row for row (id, cluster); the exact join removes at least as many
rows as the radius mode; no row a mode removes has simhash_jaccard below the
threshold with the row kept in its place (the peer's groups are audited the
same way, with the extension's tokenizer, for information).
"""
import argparse
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SEED = 20261125
RADIUS = 10
OPTIONS = "n=3 weight=binary"
QUERY = "SELECT id, body FROM docs ORDER BY id"
# simhash_dedup's arguments after the threshold, by mode.
DEDUP_ARGUMENTS = {"radius": f", {RADIUS}", "exact": ", NULL", "default": "",
                   "exact1": ", NULL, NULL, 1"}


def connect(path, ext):
    conn = sqlite3.connect(path)
    conn.enable_load_extension(True)
    conn.load_extension(ext)
    return conn


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


# ---------------------------------------------------------------- the data


def ensure_corpus(path):
    if os.path.exists(path):
        return
    directory = os.path.dirname(os.path.abspath(path))
    print(f"corpus {path} missing: fetching it (bench/corpus/fetch_translations.sh {directory})",
          flush=True)
    subprocess.run(["bash", os.path.join(HERE, "corpus", "fetch_translations.sh"), directory],
                   check=True)
    if not os.path.exists(path):
        sys.exit(f"fetch_translations.sh did not make {path}")


def edited_copy(rng, body):
    """A deterministic near copy of `body` (see the module comment)."""
    if rng.random() < 0.2:
        parts = re.split(r"(?<=[.!?。！？\n])\s*", body)
        parts = [p for p in parts if p]
        if len(parts) >= 2:
            i, j = rng.sample(range(len(parts)), 2)
            parts[i], parts[j] = parts[j], parts[i]
            return " ".join(parts)
    if body.count(" ") * 20 >= len(body):
        units, joiner = body.split(" "), " "
    else:
        units, joiner = list(body), ""
    edits = max(1, round(0.05 * len(units)))
    for _ in range(edits):
        position = rng.randrange(len(units))
        word = units[rng.randrange(len(units))]
        operation = rng.randrange(3)
        if operation == 0 and len(units) > 1:
            del units[position]
        elif operation == 1:
            units[position] = word
        else:
            units.insert(position + 1, word)
    return joiner.join(units)


def dataset(corpus, work, size):
    """The database of `size` rows (made once): its path."""
    path = os.path.join(work, f"docs-{size}.db")
    if os.path.exists(path):
        return path
    source = sqlite3.connect(f"file:{corpus}?mode=ro", uri=True)
    total = source.execute("SELECT count(*) FROM texts").fetchone()[0]
    partial = path + ".partial"
    if os.path.exists(partial):
        os.remove(partial)
    out = sqlite3.connect(partial)
    out.execute("PRAGMA journal_mode = OFF")
    out.execute("CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)")
    if size <= total:
        ids = sorted(random.Random(SEED).sample(
            [r[0] for r in source.execute("SELECT id FROM texts ORDER BY id")], size))
        rows = source.execute("SELECT id, body FROM texts ORDER BY id")
        wanted = set(ids)
        out.executemany("INSERT INTO docs VALUES (?, ?)", (r for r in rows if r[0] in wanted))
    else:
        originals = source.execute("SELECT id, body FROM texts ORDER BY id").fetchall()
        out.executemany("INSERT INTO docs VALUES (?, ?)", originals)
        rng = random.Random(SEED)
        first = originals[-1][0] + 1
        copies = ((first + k, edited_copy(rng, originals[rng.randrange(len(originals))][1]))
                  for k in range(size - len(originals)))
        out.executemany("INSERT INTO docs VALUES (?, ?)", copies)
    out.commit()
    count = out.execute("SELECT count(*) FROM docs").fetchone()[0]
    out.close()
    if count != size:
        sys.exit(f"{path}: {count} rows, expected {size}")
    os.rename(partial, path)
    return path


def export_tsv(db, path):
    if os.path.exists(path):
        return path
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    table = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})
    with open(path + ".partial", "w", encoding="utf-8", errors="surrogatepass") as f:
        for id_, body in conn.execute("SELECT id, body FROM docs ORDER BY id"):
            f.write(f"{id_}\t{(body or '').translate(table)}\n")
    os.rename(path + ".partial", path)
    return path


def build_peer(work):
    binary = os.path.join(work, "minhash_lsh_peer")
    source = os.path.join(HERE, "peer", "minhash_lsh_peer.go")
    if os.path.exists(binary) and os.path.getmtime(binary) >= os.path.getmtime(source):
        return binary
    env = dict(os.environ, GOPATH="/usr/share/gocode", GO111MODULE="off",
               GOCACHE=os.path.join(work, "gocache"), GOPROXY="off")
    subprocess.run(["go", "build", "-o", binary, source], check=True, env=env,
                   cwd=os.path.dirname(source))
    return binary


def warm(path):
    """Reads a file once so each mode starts with it in the page cache."""
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


# ---------------------------------------------------------------- children


def child(mode, db, out, ext, threshold):
    """Runs one mode in this process; prints RESULT {json}."""
    result = {"steps": {}}
    steps = result["steps"]

    def timed(name, conn, sql):
        start = time.perf_counter()
        conn.execute(sql)
        steps[name] = time.perf_counter() - start

    if mode == "candidates":
        if os.path.exists(out):
            os.remove(out)
        conn = connect(out, ext)
        conn.execute(f"ATTACH 'file:{db}?mode=ro' AS src")
        timed("index", conn, "CREATE VIRTUAL TABLE near USING simhash_index(k=3)")
        start = time.perf_counter()
        conn.execute("INSERT INTO near(rowid, fp) SELECT id, simhash(body) FROM src.docs"
                     " WHERE simhash(body) IS NOT NULL")
        conn.commit()
        steps["index"] += time.perf_counter() - start
        start = time.perf_counter()
        result["candidates"] = conn.execute(
            f"SELECT count(*) FROM simhash_pairs('near', {RADIUS})").fetchone()[0]
        steps["pairs"] = time.perf_counter() - start
        result["rows"] = conn.execute("SELECT count(*) FROM src.docs").fetchone()[0]
        result["total"] = steps["index"] + steps["pairs"]
        conn.close()
        os.remove(out)
        print("RESULT " + json.dumps(result), flush=True)
        return

    conn = connect(db, ext)
    if mode == "recipe":
        start = time.perf_counter()
        conn.execute("CREATE VIRTUAL TABLE near USING simhash_index(k=3)")
        conn.execute("INSERT INTO near(rowid, fp) SELECT id, simhash(body) FROM docs"
                     " WHERE simhash(body) IS NOT NULL")
        conn.commit()
        steps["index"] = time.perf_counter() - start
        timed("verified", conn, f"""
            CREATE TEMP TABLE verified AS
            SELECT * FROM (
              SELECT a, b, distance, simhash_jaccard(x.body, y.body, '{OPTIONS}') AS similarity
              FROM simhash_pairs('near', {RADIUS}) JOIN docs AS x ON x.id = a JOIN docs AS y ON y.id = b)
            WHERE similarity >= {threshold}""")
        timed("clusters", conn, "CREATE TEMP TABLE groups AS"
              " SELECT id, cluster, distance, similarity FROM simhash_clusters('verified')")
        result["total"] = steps["index"] + steps["verified"] + steps["clusters"]
        result["verified_pairs"] = conn.execute("SELECT count(*) FROM verified").fetchone()[0]
        # Not in the total: the candidates alone, and the keep-one DELETEs.
        start = time.perf_counter()
        result["candidates"] = conn.execute(
            f"SELECT count(*) FROM simhash_pairs('near', {RADIUS})").fetchone()[0]
        result["pairs_alone"] = time.perf_counter() - start
    elif mode in DEDUP_ARGUMENTS:
        timed("dedup", conn, "CREATE TEMP TABLE groups AS SELECT id, cluster, distance, similarity"
              f" FROM simhash_dedup('{QUERY}', {threshold}{DEDUP_ARGUMENTS[mode]})")
        result["total"] = steps["dedup"]
    else:
        sys.exit(f"unknown mode {mode}")
    result["rows"] = conn.execute("SELECT count(*) FROM docs").fetchone()[0]
    with open(out, "w") as f:
        for id_, cluster, similarity in conn.execute(
                "SELECT id, cluster, similarity FROM groups ORDER BY id"):
            f.write(f"{id_}\t{cluster}\t{similarity!r}\n")
    if mode == "recipe":
        start = time.perf_counter()
        conn.execute("DELETE FROM docs WHERE id IN"
                     " (SELECT id FROM simhash_clusters('verified') WHERE id <> cluster)")
        conn.execute("DELETE FROM near WHERE rowid NOT IN (SELECT id FROM docs)")
        conn.commit()
        result["delete"] = time.perf_counter() - start
    conn.close()
    print("RESULT " + json.dumps(result), flush=True)


def spawn(argv):
    """Runs argv; returns ({wall, user, sys, rss_mb, load}, stdout).

    Through GNU time (/usr/bin/time, Debian's `time`): the child is forked from
    that small process, not from this one. Linux keeps a process's peak RSS
    across exec, so a child forked from this process (which has held a
    dataset) would report this process's size as its own floor."""
    load_before = load_average()
    base = f"/tmp/dedup_benchmark_child_{os.getpid()}"
    with open(base + ".out", "w") as out, open(base + ".err", "w") as err:
        start = time.perf_counter()
        status = subprocess.run(["/usr/bin/time", "-o", base + ".time", "-f", "%e %U %S %M"] + argv,
                                stdout=out, stderr=err).returncode
        wall = time.perf_counter() - start
    outputs = {}
    for suffix in ("out", "err", "time"):
        with open(f"{base}.{suffix}") as f:
            outputs[suffix] = f.read()
        os.remove(f"{base}.{suffix}")
    if status != 0:
        sys.exit(f"{' '.join(argv)} failed ({status}):\n{outputs['out']}\n{outputs['err']}")
    _, user, system, rss_kb = outputs["time"].split()[-4:]
    return {"wall": wall, "user": float(user), "sys": float(system),
            "rss_mb": int(rss_kb) / 1024, "load": load_before}, outputs["out"]


# ---------------------------------------------------------------- groups and checks


def read_groups(path):
    """id -> (cluster, similarity) of every row of a group of two or more.

    simhash_clusters over a pairs table also lists, alone in its group, a row
    of a verified pair whose partner joined another group (pairs 1-2 and 2-3:
    2 joins 1, and 3, linked to no row that keeps a group, keeps its own);
    simhash_dedup returns groups of two or more only, so those are left out
    here (and counted as "singletons")."""
    groups = {}
    with open(path) as f:
        for line in f:
            id_, cluster, similarity = line.rstrip("\n").split("\t")
            groups[int(id_)] = (int(cluster), similarity)
    members = {}
    for cluster, _ in groups.values():
        members[cluster] = members.get(cluster, 0) + 1
    return {i: g for i, g in groups.items() if members[g[0]] >= 2}


def singletons(path):
    with open(path) as f:
        listed = sum(1 for _ in f)
    return listed - len(read_groups(path))


def summary(groups):
    kept = sum(1 for id_, (cluster, _) in groups.items() if id_ == cluster)
    return {"rows_in_groups": len(groups), "groups": kept, "removed": len(groups) - kept}


def audit(db, ext, groups, threshold):
    """Removed rows below the threshold against their kept row, and the least similar."""
    conn = connect(db, ext)
    conn.execute("CREATE TEMP TABLE removed(id INTEGER PRIMARY KEY, cluster INTEGER)")
    conn.executemany("INSERT INTO temp.removed VALUES (?, ?)",
                     ((i, c) for i, (c, _) in groups.items() if i != c))
    below, least = conn.execute(f"""
        SELECT count(*) FILTER (WHERE s < {threshold}), min(s) FROM (
          SELECT simhash_jaccard(x.body, y.body, '{OPTIONS}') AS s
          FROM temp.removed AS r JOIN docs AS x ON x.id = r.id JOIN docs AS y ON y.id = r.cluster)
    """).fetchone()
    conn.close()
    return below, least


# ---------------------------------------------------------------- the run


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ext", default=os.path.join(ROOT, "build-bench", "simhash.so"))
    parser.add_argument("--corpus", default="/tmp/simhash-corpus/translations.db")
    parser.add_argument("--work", default="/tmp/simhash-dedup-bench")
    parser.add_argument("--modes", default="recipe,radius,exact,default,exact1,peer",
                        help="modes on the whole corpus ('' for none)")
    parser.add_argument("--growth", default="100000,200000,full,1000000",
                        help="sizes of the growth runs ('full': the corpus; '' for none)")
    parser.add_argument("--growth-modes", default="recipe,radius,exact,candidates")
    parser.add_argument("--recipe-max", type=int, default=400000,
                        help="the largest growth size the recipe runs at")
    parser.add_argument("--threshold", type=float, default=0.8)
    parser.add_argument("--peer-workers", type=int, default=2)
    parser.add_argument("--child", nargs=3, metavar=("MODE", "DB", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    ext = os.path.abspath(args.ext)
    if args.child:
        child(args.child[0], args.child[1], args.child[2], ext, args.threshold)
        return

    if not os.path.exists(ext):
        sys.exit(f"{ext} not found: build it (bench/BENCH.md)")
    os.makedirs(args.work, exist_ok=True)
    ensure_corpus(args.corpus)
    full = sqlite3.connect(f"file:{args.corpus}?mode=ro", uri=True).execute(
        "SELECT count(*) FROM texts").fetchone()[0]
    size_of = lambda s: full if s == "full" else int(s)
    with open("/proc/cpuinfo") as f:
        cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "?")
    print(f"machine: {os.cpu_count()} cores, {cpu}; SQLite {sqlite3.sqlite_version};"
          f" extension {ext}; corpus {args.corpus} ({full} rows); threshold {args.threshold}",
          flush=True)
    try:
        head = subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%h %s"],
                              capture_output=True, text=True).stdout.strip()
        print(f"commit: {head}", flush=True)
    except OSError:
        pass

    runs = {}  # (size, mode) -> result

    def run(size, mode):
        if (size, mode) in runs:
            return runs[(size, mode)]
        db = dataset(args.corpus, args.work, size)
        out = os.path.join(args.work, f"groups-{mode}-{size}.tsv")
        if mode == "peer":
            tsv = export_tsv(db, os.path.join(args.work, f"docs-{size}.tsv"))
            binary = build_peer(args.work)
            warm(tsv)
            usage, stdout = spawn([binary, "-input", tsv, "-threshold", str(args.threshold),
                                   "-perm", "128", "-workers", str(args.peer_workers),
                                   "-groups", out])
            result = json.loads(stdout.strip().splitlines()[-1])
            result["total"] = result["seconds"]
        else:
            target = db
            if mode == "recipe":
                target = os.path.join(args.work, f"recipe-{size}.db")
                shutil.copyfile(db, target)
            elif mode == "candidates":
                target = os.path.join(args.work, f"candidates-{size}.db")
            warm(db)
            usage, stdout = spawn([sys.executable, os.path.abspath(__file__), "--ext", ext,
                                   "--threshold", str(args.threshold),
                                   "--child", mode, db if mode != "recipe" else target,
                                   target if mode == "candidates" else out])
            if mode == "recipe":
                os.remove(target)
            line = next(l for l in stdout.splitlines() if l.startswith("RESULT "))
            result = json.loads(line[len("RESULT "):])
        result.update(usage)
        result["size"] = size
        result["mode"] = mode
        if mode != "candidates":
            result["groups_path"] = out
            result.update(summary(read_groups(out)))
            result["singletons"] = singletons(out)
        runs[(size, mode)] = result
        print(f"  {mode} at {size}: {json.dumps({k: v for k, v in result.items() if k != 'groups_path'})}",
              flush=True)
        return result

    main_modes = [m for m in args.modes.split(",") if m]
    growth_sizes = [size_of(s) for s in args.growth.split(",") if s]
    growth_modes = [m for m in args.growth_modes.split(",") if m]

    # The datasets first, so that no mode's timing includes making them.
    for size in sorted(set(([full] if main_modes else []) + growth_sizes)):
        start = time.perf_counter()
        dataset(args.corpus, args.work, size)
        print(f"dataset {size}: ready ({time.perf_counter() - start:.1f} s)", flush=True)

    for mode in main_modes:
        run(full, mode)
    def growth_runs(size):
        """The growth modes that run at `size`: the recipe only up to
        --recipe-max rows, the candidates alone only where the recipe (which
        counts them too) does not run."""
        modes = [m for m in growth_modes if m != "recipe" or size <= args.recipe_max]
        if "recipe" in modes or (size, "recipe") in runs:
            modes = [m for m in modes if m != "candidates"]
        return modes

    for size in growth_sizes:
        for mode in growth_runs(size):
            run(size, mode)

    # Checks.
    checks = []
    for size in sorted({s for s, _ in runs}):
        db = dataset(args.corpus, args.work, size)
        recipe, radius, exact, default, exact1 = (
            runs.get((size, m)) for m in ("recipe", "radius", "exact", "default", "exact1"))
        for name, other in (("default", default), ("one-thread exact", exact1)):
            if exact and other:
                a = {i: c for i, (c, _) in read_groups(exact["groups_path"]).items()}
                b = {i: c for i, (c, _) in read_groups(other["groups_path"]).items()}
                checks.append(f"{size}: {name} mode's groups {'==' if a == b else '!='} the exact join's"
                              f" ({len(b)} and {len(a)} rows in groups)")
        if recipe and radius:
            a = {i: c for i, (c, _) in read_groups(recipe["groups_path"]).items()}
            b = {i: c for i, (c, _) in read_groups(radius["groups_path"]).items()}
            differ = sum(1 for i in set(a) | set(b) if a.get(i) != b.get(i))
            checks.append(f"{size}: radius mode's groups {'==' if differ == 0 else '!='} the recipe's"
                          f" ({len(b)} and {len(a)} rows in groups, {differ} rows differ)")
        if radius and exact:
            ok = exact["removed"] >= radius["removed"]
            checks.append(f"{size}: exact join removes {exact['removed']} rows, radius mode "
                          f"{radius['removed']}: {'at least as many' if ok else 'FEWER'}")
        for mode in ("recipe", "radius", "exact", "peer"):  # default, exact1: same groups as exact
            r = runs.get((size, mode))
            if r:
                below, least = audit(db, ext, read_groups(r["groups_path"]), args.threshold)
                r["below"], r["least"] = below, least
                checks.append(f"{size}: {mode}: {below} removed rows below {args.threshold}"
                              f" (simhash_jaccard with the kept row; least {least})")

    # Tables.
    def cpu(r):
        return r["user"] + r["sys"]

    print("\n## Results\n")
    if main_modes:
        print(f"All {full} rows, one process per mode:\n")
        print("| mode | wall s | CPU s (user+sys) | peak RSS MB | candidates | verified pairs |"
              " rows in groups | groups | rows removed | removed below threshold | load |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        names = {"recipe": "three-step recipe (docs/dedup.md)",
                 "radius": f"`simhash_dedup(q, {args.threshold}, 10)` (radius 10)",
                 "exact": f"`simhash_dedup(q, {args.threshold}, NULL)` (exact join)",
                 "default": f"`simhash_dedup(q, {args.threshold})` (the default)",
                 "exact1": f"`simhash_dedup(q, {args.threshold}, NULL, NULL, 1)` (exact, 1 thread)",
                 "peer": f"Go MinHash-LSH, 128 perm, {args.peer_workers} goroutines"}
        for mode in main_modes:
            r = runs[(full, mode)]
            print(f"| {names[mode]} | {r['total']:.1f} ({r['wall']:.1f}) | {cpu(r):.1f} |"
                  f" {r['rss_mb']:.0f} | {r.get('candidates', '-')} | {r.get('verified_pairs', '-')} |"
                  f" {r['rows_in_groups']} | {r['groups']} | {r['removed']} | {r.get('below', '-')} |"
                  f" {r['load']:.1f} |")
        print("\n(wall: the mode's own timed statements, then the child process's whole life"
              " in parentheses; CPU and RSS: the child's, from GNU time)")
        if "recipe" in main_modes:
            r = runs[(full, "recipe")]
            print(f"\nrecipe steps: index {r['steps']['index']:.1f} s, verified pairs"
                  f" {r['steps']['verified']:.1f} s (candidates counted alone: {r['pairs_alone']:.1f} s),"
                  f" clusters {r['steps']['clusters']:.1f} s; keep-one DELETEs {r['delete']:.1f} s"
                  " (not in the total)")
            for mode in ("radius", "exact", "default", "exact1", "peer"):
                if (full, mode) in runs:
                    m = runs[(full, mode)]
                    print(f"recipe / {mode}: {r['total'] / m['total']:.1f}x wall,"
                          f" {cpu(r) / cpu(m):.1f}x CPU")
        if (full, "peer") in runs:
            p = runs[(full, "peer")]
            print(f"peer: {p['bands']} bands of {p['rows_per_band']} rows; phases "
                  + ", ".join(f"{k} {v:.1f} s" for k, v in p["phases"].items()))
    if growth_sizes:
        print("\nGrowth (one process per mode and size):\n")
        print("| rows | mode | wall s | CPU s | peak RSS MB | rows in groups | groups | rows removed |"
              " candidates within 10 bits (per row) | load |")
        print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for size in growth_sizes:
            for mode in [m for m in growth_modes if (size, m) in runs]:
                r = runs[(size, mode)]
                if mode in ("candidates", "recipe"):
                    extra = f"{r['candidates']} ({r['candidates'] / size:.1f})"
                if mode == "candidates":
                    print(f"| {size} | index + count(simhash_pairs) | {r['total']:.1f} | {cpu(r):.1f} |"
                          f" {r['rss_mb']:.0f} | | | | {extra} |"
                          f" {r['load']:.1f} |")
                else:
                    print(f"| {size} | {mode} | {r['total']:.1f} | {cpu(r):.1f} | {r['rss_mb']:.0f} |"
                          f" {r['rows_in_groups']} | {r['groups']} | {r['removed']} |"
                          f" {extra if mode == 'recipe' else ''} | {r['load']:.1f} |")
    print("\nChecks:")
    for line in checks:
        print("- " + line)
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump({f"{s}/{m}": r for (s, m), r in runs.items()}, f, indent=1)


if __name__ == "__main__":
    main()
