# SPDX-License-Identifier: MIT
"""Builds translations.db from apt's Translation-XX.lz4 lists: one row per
distinct description (the first release and language it was seen in), in a
fixed order (release, language, package), so every run numbers them alike.

    python3 build_corpus.py LISTS_DIR OUT.db
"""
import glob
import os
import re
import sqlite3
import subprocess
import sys

RELEASE_ORDER = ["bullseye", "bookworm", "trixie", "forky", "sid"]


def descriptions(path):
    """(package, lang, body) of each record of one Translation list."""
    data = subprocess.run(["lz4cat", path], capture_output=True, check=True).stdout
    for record in data.decode("utf-8", "replace").split("\n\n"):
        package = None
        lines = record.split("\n")
        for i, line in enumerate(lines):
            if line.startswith("Package: "):
                package = line[len("Package: "):].strip()
            elif line.startswith("Description-") and not line.startswith("Description-md5"):
                lang, first = line[len("Description-"):].split(":", 1)
                rest = [l[1:] for l in lines[i + 1:] if l.startswith(" ")]
                # " ." is Debian's empty line inside a description.
                rest = ["" if l == "." else l for l in rest]
                yield package, lang, "\n".join([first.strip()] + rest)
                break


def main(lists_dir, out_path):
    pattern = re.compile(r"dists_([a-z]+)_main_i18n_Translation-(.+)\.lz4$")
    files = []
    for path in glob.glob(os.path.join(lists_dir, "*_i18n_Translation-*.lz4")):
        match = pattern.search(path)
        if match and match.group(1) in RELEASE_ORDER:
            files.append((RELEASE_ORDER.index(match.group(1)), match.group(2), match.group(1), path))
    if not files:
        sys.exit(f"no Translation lists in {lists_dir}")
    files.sort()
    if os.path.exists(out_path):
        os.remove(out_path)
    conn = sqlite3.connect(out_path)
    conn.execute("CREATE TABLE texts(id INTEGER PRIMARY KEY, release TEXT, lang TEXT,"
                 " package TEXT, body TEXT NOT NULL)")
    seen = set()
    rows = []
    for _, _, release, path in files:
        for package, lang, body in sorted(descriptions(path)):
            if body not in seen:
                seen.add(body)
                rows.append((release, lang, package, body))
    conn.executemany("INSERT INTO texts(release, lang, package, body) VALUES (?, ?, ?, ?)", rows)
    conn.commit()
    by_lang = conn.execute("SELECT lang, count(*) FROM texts GROUP BY lang ORDER BY 2 DESC").fetchall()
    print(f"{out_path}: {len(rows)} distinct descriptions from {len(files)} lists;",
          ", ".join(f"{lang} {count}" for lang, count in by_lang))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
