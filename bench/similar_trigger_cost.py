# SPDX-License-Identifier: MIT
"""What following a content table through triggers costs simhash_similar at
insert (at most 2x an insert written to the index
directly). The same ROWS real changelog entries (bench/similar_latency.py
reads them) are inserted one statement a row inside one transaction, into a
fresh database file each time, in these ways:

  direct    INSERT INTO alike(rowid, text)           the index alone
  plain     INSERT INTO docs(id, body), no triggers  the content table alone
  both      the two statements above, one after the other, per row
  trigger   INSERT INTO docs(id, body) with sql/recipes/similar_follow_table.sql
  refuse    the same with sql/recipes/similar_refuse.sql as well (threshold 0.8)

Each way runs with SQLite's default temp_store (a statement journal that
spills to a temporary file past 64 KiB) and with PRAGMA temp_store=MEMORY.
Each runs ROUNDS times, in turn, and the least CPU time (of this process:
SQLite runs in it) is reported per row, since the machine is shared; the
wall clock of the same run is beside it.

With MODULE=index the same is measured for simhash_index through
sql/recipes/follow_table.sql (direct: INSERT INTO near(rowid, fp) VALUES
(?, simhash(?)); no refuse way).

Usage: /usr/bin/python3 bench/similar_trigger_cost.py [ROWS=10000] [ROUNDS=3]
       [EXTENSION=build/simhash] [MODULE=similar|index]
"""
import os
import sqlite3
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from similar_latency import changelog_entries  # noqa: E402

rows = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
extension = sys.argv[3] if len(sys.argv) > 3 else "build/simhash"
module = sys.argv[4] if len(sys.argv) > 4 else "similar"
assert module in ("similar", "index"), module
# Per module: the recipe, its triggers, the index's name and its direct write.
setups = {
    "similar": ("similar_follow_table.sql",
                ["docs_alike_insert", "docs_alike_update", "docs_alike_delete"], "alike",
                "INSERT INTO alike(rowid, text) VALUES (?, ?)"),
    "index": ("follow_table.sql", ["docs_near_insert", "docs_near_update", "docs_near_delete"],
              "near", "INSERT INTO near(rowid, fp) VALUES (?, simhash(?))"),
}
recipe_file, triggers, index_name, direct_sql = setups[module]
recipes = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sql", "recipes")


def recipe(name):
    with open(os.path.join(recipes, name)) as file:
        return file.read()


def run(way, temp_store, texts):
    path = os.path.join(tempfile.gettempdir(), f"similar_trigger_cost_{os.getpid()}.db")
    if os.path.exists(path):
        os.remove(path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.enable_load_extension(True)
    conn.load_extension(extension)
    conn.execute("PRAGMA cache_size = -1048576")  # as bench/similar_latency.py
    conn.execute(f"PRAGMA temp_store = {temp_store}")
    conn.executescript(recipe(recipe_file))
    if way in ("direct", "plain", "both"):
        conn.executescript("".join(f"DROP TRIGGER {name};" for name in triggers))
    if way == "refuse":
        conn.executescript(recipe("similar_refuse.sql"))
    statements = {
        "direct": [direct_sql],
        "plain": ["INSERT INTO docs(id, body) VALUES (?, ?)"],
        "both": ["INSERT INTO docs(id, body) VALUES (?, ?)",
                 direct_sql],
        "trigger": ["INSERT INTO docs(id, body) VALUES (?, ?)"],
        "refuse": ["INSERT INTO docs(id, body) VALUES (?, ?)"],
    }[way]
    refused = 0
    wall = time.perf_counter()
    cpu = time.process_time()
    conn.execute("BEGIN")
    for row in enumerate(texts, 1):
        for sql in statements:
            try:
                conn.execute(sql, row)
            except sqlite3.IntegrityError:
                refused += 1
    conn.execute("COMMIT")
    cpu = time.process_time() - cpu
    wall = time.perf_counter() - wall
    (count,) = conn.execute(f"SELECT count(*) FROM {index_name}").fetchone()
    if way != "plain":
        assert count == rows - refused, (way, count, refused)
    conn.close()
    os.remove(path)
    return cpu, wall, refused


def main():
    texts = changelog_entries()[:rows]
    assert len(texts) == rows, f"only {len(texts)} changelog entries"
    ways = ["direct", "plain", "both", "trigger"] + (["refuse"] if module == "similar" else [])
    stores = ["DEFAULT", "MEMORY"]
    best = {}
    for _ in range(rounds):
        for store in stores:
            for way in ways:
                cpu, wall, refused = run(way, store, texts)
                if (way, store) not in best or cpu < best[(way, store)][0]:
                    best[(way, store)] = (cpu, wall, refused)
    print(f"simhash_{module}: {rows} changelog entries, one INSERT a row in one transaction; "
          f"best of {rounds}")
    for store in stores:
        print(f"PRAGMA temp_store = {store}")
        direct = best[("direct", store)][0]
        for way in ways:
            cpu, wall, refused = best[(way, store)]
            note = f", {refused} refused" if way == "refuse" else ""
            print(f"  {way:8} {1e6 * cpu / rows:7.1f} us of CPU a row "
                  f"({1e6 * wall / rows:7.1f} wall)  {cpu / direct:.2f}x direct{note}")


if __name__ == "__main__":
    main()
