#!/usr/bin/python3
"""Find near-duplicate text files in a folder with the simhash SQLite extension.

Usage:
    python3 examples/dedup_folder.py FOLDER [--extension build/simhash]
                                     [--radius 3] [--database dedup.db]

Reads every regular text file under FOLDER (compressed files, binary files
containing a NUL byte, and symlinks are skipped), fingerprints each with
simhash(), indexes the fingerprints in a simhash_index and prints the clusters
of near-duplicates found by simhash_clusters(), largest first. Nothing is
deleted: the "keep" line of each cluster names the file a keep-one-per-cluster
policy would keep (the first by path).

Uses Python's own sqlite3 module; Debian's /usr/bin/python3 allows
load_extension (some other builds of Python do not).
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


def open_database(extension, database=":memory:"):
    conn = sqlite3.connect(database)
    conn.enable_load_extension(True)
    conn.load_extension(extension)
    conn.enable_load_extension(False)
    return conn


def find_near_duplicates(folder, extension="build/simhash", radius=3, database=":memory:"):
    """Returns (number of text files, clusters): each cluster a list of
    (path, size, bits from the cluster's first file), clusters largest first."""
    conn = open_database(extension, database)
    with conn:
        conn.executescript(
            """
            DROP TABLE IF EXISTS docs;
            DROP TABLE IF EXISTS near;
            CREATE TABLE docs(id INTEGER PRIMARY KEY, path TEXT UNIQUE, size INTEGER,
                              fp INTEGER);
            CREATE VIRTUAL TABLE near USING simhash_index(k=3);
            """
        )
        files = text_files(folder)
        conn.executemany(
            "INSERT INTO docs(path, size, fp) VALUES (?1, length(CAST(?2 AS BLOB)), simhash(?2))",
            files,
        )
        conn.execute("INSERT INTO near(rowid, fp) SELECT id, fp FROM docs WHERE fp IS NOT NULL")
    rows = conn.execute(
        """
        WITH clusters AS (SELECT id, cluster FROM simhash_clusters('near', ?1)),
             sizes AS (SELECT cluster, count(*) AS files FROM clusters
                       GROUP BY cluster HAVING count(*) > 1)
        SELECT sizes.cluster, docs.path, docs.size, hamming(docs.fp, first.fp)
        FROM sizes
        JOIN clusters USING (cluster)
        JOIN docs ON docs.id = clusters.id
        JOIN docs AS first ON first.id = sizes.cluster
        ORDER BY sizes.files DESC, sizes.cluster, docs.path
        """,
        (radius,),
    ).fetchall()
    conn.close()
    clusters = {}
    for cluster, path, size, bits in rows:
        clusters.setdefault(cluster, []).append((path, size, bits))
    return len(files), list(clusters.values())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder")
    parser.add_argument("--extension", default="build/simhash",
                        help="path of the extension without .so (default: build/simhash)")
    parser.add_argument("--radius", type=int, default=3,
                        help="largest Hamming distance of near-duplicates (default 3)")
    parser.add_argument("--database", default=":memory:",
                        help="keep the fingerprints in this SQLite file (default: in memory)")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.folder):
        parser.error(f"{args.folder} is not a folder")

    count, clusters = find_near_duplicates(args.folder, args.extension, args.radius, args.database)
    duplicates = sum(len(members) - 1 for members in clusters)
    print(f"{count} text files under {args.folder}")
    print(f"{len(clusters)} clusters of near-duplicates (within {args.radius} bits), "
          f"{duplicates} files that keeping one per cluster would remove")
    for number, members in enumerate(clusters, 1):
        print(f"\ncluster {number}: {len(members)} files")
        for index, (path, size, bits) in enumerate(members):
            role = "keep" if index == 0 else f"{bits} bits"
            print(f"  {role:>8}  {size:>9}  {os.path.relpath(path, args.folder)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
