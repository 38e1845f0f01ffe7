#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Find near-duplicate text files in a folder with the simhash SQLite extension.

Usage:
    python3 examples/dedup_folder.py FOLDER [--extension PATH]
                                     [--threshold 0.8] [--radius R]
                                     [--database dedup.db]

Reads every regular text file under FOLDER (compressed files, binary files
containing a NUL byte, and symlinks are skipped) and finds the near-duplicates
in one statement, simhash_dedup: every pair whose exact word-3-shingle
Jaccard similarity is at least THRESHOLD (all of them, by an exact
set-similarity join; --radius R takes only the candidates within R bits
instead), grouped so that every member is verified similar to the file its
group keeps. Prints the groups, largest first. Nothing is deleted: the "keep" line of each group names the file a
keep-one policy would keep (the first by path), and every other line shows
its distance and similarity to that file.

Uses Python's own sqlite3 module; Debian's /usr/bin/python3 allows
load_extension (some other builds of Python do not). The extension is the
installed wheel's (sqlite_simhash) when there is one, else the build of the
checkout this script is in (build/simhash beside examples/), from any
working directory; --extension names another.
"""
import argparse
import os
import sqlite3
import sys

COMPRESSED = (".gz", ".xz", ".bz2", ".zst", ".lz", ".lzma", ".z", ".zip", ".7z", ".tgz")


def text_files(folder):
    """(path, text) for every regular, uncompressed, non-binary file, by path."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            if name.lower().endswith(COMPRESSED):
                continue
            try:
                with open(path, "rb") as handle:
                    data = handle.read()
            except OSError as error:
                print(f"skipped {path}: {error}", file=sys.stderr)
                continue
            if b"\0" in data:
                continue  # binary
            found.append((path, data.decode("utf-8", errors="replace")))
    return found


def default_extension():
    """The installed wheel's module, else this checkout's build/simhash."""
    try:
        import sqlite_simhash
    except ImportError:
        checkout = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        return os.path.join(checkout, "build", "simhash")
    return sqlite_simhash.loadable_path()


def open_database(extension, database=":memory:"):
    conn = sqlite3.connect(database)
    if not hasattr(conn, "enable_load_extension"):
        sys.exit(f"{sys.executable}: this Python's sqlite3 module cannot load extensions; "
                 "run the example with Debian's /usr/bin/python3")
    conn.enable_load_extension(True)
    conn.load_extension(extension)
    conn.enable_load_extension(False)
    return conn


def find_near_duplicates(folder, extension=None, radius=None, threshold=0.8,
                         database=":memory:"):
    """Returns (number of text files, groups): each group a list of
    (path, size, bits, jaccard) with the file kept first (bits and jaccard
    None for it), groups largest first."""
    conn = open_database(extension or default_extension(), database)
    with conn:
        conn.executescript(
            """
            DROP TABLE IF EXISTS docs;
            DROP TABLE IF EXISTS groups;
            CREATE TABLE docs(id INTEGER PRIMARY KEY, path TEXT UNIQUE, size INTEGER, body TEXT);
            """
        )
        files = text_files(folder)  # sorted by path: the first of a group is kept
        conn.executemany(
            "INSERT INTO docs(path, size, body) VALUES (?1, length(CAST(?2 AS BLOB)), ?2)",
            files,
        )
        # The query's ORDER BY is the keep policy: the first row of a group is kept.
        conn.execute(
            "CREATE TABLE groups AS SELECT id, cluster, distance, similarity FROM "
            "simhash_dedup('SELECT id, body FROM docs ORDER BY path', ?1, ?2, "
            "'n=3 weight=binary')",
            (threshold, radius),
        )
    rows = conn.execute(
        """
        WITH sizes AS (SELECT cluster, count(*) AS files FROM groups
                       GROUP BY cluster HAVING count(*) > 1)
        SELECT sizes.cluster, docs.path, docs.size, groups.distance, groups.similarity,
               groups.id = groups.cluster AS kept
        FROM sizes
        JOIN groups USING (cluster)
        JOIN docs ON docs.id = groups.id
        ORDER BY sizes.files DESC, sizes.cluster, kept DESC, docs.path
        """
    ).fetchall()
    conn.close()
    groups = {}
    for cluster, path, size, bits, jaccard, kept in rows:
        groups.setdefault(cluster, []).append(
            (path, size, None if kept else bits, None if kept else jaccard))
    return len(files), list(groups.values())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder")
    parser.add_argument("--extension", default=None,
                        help="path of the extension without .so (default: the installed "
                             "sqlite_simhash wheel's, else this checkout's build/simhash)")
    parser.add_argument("--radius", type=int, default=None,
                        help="only candidates within this many bits (default: every pair "
                             "at the threshold, by an exact join)")
    parser.add_argument("--threshold", type=float, default=0.8,
                        help="smallest word-3-shingle Jaccard similarity of a verified pair "
                             "(default 0.8)")
    parser.add_argument("--database", default=":memory:",
                        help="keep the files and their groups in this SQLite file (default: in memory)")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.folder):
        parser.error(f"{args.folder} is not a folder")

    count, groups = find_near_duplicates(args.folder, args.extension, args.radius,
                                         args.threshold, args.database)
    duplicates = sum(len(members) - 1 for members in groups)
    print(f"{count} text files under {args.folder}")
    candidates = ("every pair" if args.radius is None
                  else f"candidates within {args.radius} bits")
    print(f"{len(groups)} groups of near-duplicates ({candidates}, "
          f"verified Jaccard >= {args.threshold}), "
          f"{duplicates} files that keeping one per group would remove")
    for number, members in enumerate(groups, 1):
        print(f"\ngroup {number}: {len(members)} files")
        for path, size, bits, jaccard in members:
            role = "keep" if bits is None else f"{bits} bits, Jaccard {jaccard:.2f}"
            print(f"  {role:>24}  {size:>9}  {os.path.relpath(path, args.folder)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
