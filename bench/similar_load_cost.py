# SPDX-License-Identifier: MIT
"""What filling a simhash_similar table costs beside SQLite's FTS5 index of
the same texts. ROWS package descriptions of translations.db
(bench/corpus/fetch_translations.sh; every language, in a fixed shuffled
order) go into docs(id INTEGER PRIMARY KEY,
body TEXT) of a fresh database file, one INSERT a row in one transaction,
in these ways:

  plain          no index: the table alone
  similar        sql/recipes/similar_follow_table.sql's triggers
  similar-bulk   docs filled first, then the recipe run (its last statement
                 fills the table in one INSERT ... SELECT): the documented
                 bulk path
  fts5           an external-content FTS5 table (the unicode61 tokenizer)
                 kept by an AFTER INSERT trigger of the same kind
  fts5-bulk      docs filled first, then INSERT INTO docs_fts(docs_fts)
                 VALUES ('rebuild')

Each way runs in a child process of its own, ROUNDS times, the ways in turn,
and each EXTENSION given (several builds side by side); the figure is the
child's CPU time (user + system: SQLite runs in it) past the texts' reading,
least and median of the rounds; the file's size beside it.

Usage: /usr/bin/python3 bench/similar_load_cost.py CORPUS.db ROWS ROUNDS EXTENSION...
"""
import os
import resource
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RECIPE = os.path.join(HERE, "..", "sql", "recipes", "similar_follow_table.sql")
WAYS = ("plain", "similar", "similar-bulk", "fts5", "fts5-bulk")

FTS5 = """
CREATE VIRTUAL TABLE docs_fts USING fts5(body, content='docs', content_rowid='id');
CREATE TRIGGER docs_fts_insert AFTER INSERT ON docs BEGIN
  INSERT INTO docs_fts(rowid, body) VALUES (new.id, new.body);
END;
"""


def child(corpus, rows, way, extension, path):
    import sqlite3
    texts = [r[0] for r in sqlite3.connect(corpus).execute(
        "SELECT body FROM texts ORDER BY (id * 2654435761) % 4294967296 LIMIT ?", (rows,))]
    conn = sqlite3.connect(path, isolation_level=None)
    conn.enable_load_extension(True)
    conn.load_extension(extension)
    recipe = open(RECIPE, encoding="utf-8").read()
    start = resource.getrusage(resource.RUSAGE_SELF)
    conn.execute("CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)")
    if way == "similar":
        conn.executescript(recipe)
    elif way == "fts5":
        conn.executescript(FTS5)
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO docs(id, body) VALUES (?, ?)",
                     ((i + 1, text) for i, text in enumerate(texts)))
    conn.execute("COMMIT")
    if way == "similar-bulk":
        conn.executescript(recipe)
    elif way == "fts5-bulk":
        conn.executescript("CREATE VIRTUAL TABLE docs_fts USING fts5(body, content='docs', "
                           "content_rowid='id'); INSERT INTO docs_fts(docs_fts) VALUES ('rebuild');")
    end = resource.getrusage(resource.RUSAGE_SELF)
    cpu = end.ru_utime - start.ru_utime + end.ru_stime - start.ru_stime
    conn.close()
    print(f"{cpu:.3f} {os.path.getsize(path)}")


def main(corpus, rows, rounds, *extensions):
    rows, rounds = int(rows), int(rounds)
    results = {}
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(rounds):
            for way in WAYS:
                for extension in extensions:
                    path = os.path.join(scratch, "load.db")
                    if os.path.exists(path):
                        os.remove(path)
                    out = subprocess.run([sys.executable, __file__, "--child", corpus, str(rows), way,
                                          extension, path], check=True, capture_output=True,
                                         text=True).stdout.split()
                    results.setdefault((way, extension), []).append((float(out[0]), int(out[1])))
    print(f"{rows} rows, {rounds} rounds; CPU s least / median, file MB")
    for extension in extensions:
        print(f"\n{extension}")
        fts5 = min(cpu for cpu, _ in results[("fts5", extension)])
        for way in WAYS:
            runs = results[(way, extension)]
            cpus = [cpu for cpu, _ in runs]
            print(f"  {way:<13} {min(cpus):7.2f} / {statistics.median(cpus):7.2f}"
                  f"  {runs[-1][1] / 1e6:7.1f} MB  {min(cpus) / fts5:5.2f}x fts5")


if __name__ == "__main__":
    if sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6])
    else:
        main(*sys.argv[1:])
