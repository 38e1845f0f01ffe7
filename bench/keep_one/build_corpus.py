# SPDX-License-Identifier: MIT
"""Builds the real, templated texts that keep-one is judged on: one table
texts(id, source, name, body) of distinct texts nobody here wrote, read from
this machine and from Debian's description translations.

  man        paragraphs of the man pages in sections 2, 3, 5 and 7 (roff
             macros dropped, the source's line breaks kept);
  doc        blank-line paragraphs of the plain-text files under
             /usr/share/doc (README, NEWS, *.txt, *.md, gzipped or not);
  py         the docstrings of the Python standard library;
  changelog  the entries of /usr/share/doc/*/changelog.Debian.gz;
  deb        Debian package descriptions in twelve languages and four scripts
             (bench/corpus/fetch_translations.sh makes translations.db).

Every source keeps texts of eight words or more (four for scripts written
without spaces), in a fixed order, so every run on the same machine numbers
them alike.

    python3 bench/keep_one/build_corpus.py TRANSLATIONS.db OUT.db
"""
import glob
import gzip
import os
import re
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import debian_changelogs  # noqa: E402
import template_check  # noqa: E402

DEB_LANGUAGES = ("en", "de", "fr", "it", "da", "pl", "ru", "uk", "ja", "zh_CN", "ko", "cs")
DEB_PER_LANGUAGE = 4000
ROFF_BREAKS = (".PP", ".P", ".LP", ".TP", ".IP", ".SH", ".SS", ".HP", ".sp", ".br", ".in", ".RS", ".RE",
               ".EX", ".EE", ".nf", ".fi", ".TH", ".TS", ".TE")
ROFF_TEXT_MACROS = ("B", "I", "BR", "IR", "RB", "BI", "IB", "RI", "SM", "SB", "Nm", "Fn", "Xr", "Fa", "Ar")


def long_enough(text):
    words = text.split()
    return len(words) >= 8 or (len(words) >= 1 and len(text) >= 24 and not text.isascii())


def read_text(path):
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt", errors="replace") as f:
            return f.read(2_000_000)
    except (OSError, EOFError, UnicodeError):
        return ""


def man_paragraphs():
    out = []
    for section in ("man2", "man3", "man5", "man7"):
        for path in sorted(glob.glob(f"/usr/share/man/{section}/*.gz")):
            raw = read_text(path)
            if raw.lstrip().startswith(".so "):
                continue
            name = os.path.basename(path).split(".")[0]
            lines = []

            def flush():
                body = "\n".join(line for line in lines if line.strip()).strip()
                if long_enough(body):
                    out.append(("man", name, body))
                lines.clear()

            for line in raw.splitlines():
                if line.startswith(('.\\"', "'\\\"")):
                    continue
                if line.startswith(ROFF_BREAKS) or not line.strip():
                    flush()
                    if line.startswith((".SH", ".SS")):
                        continue
                if line.startswith((".", "'")):
                    macro, _, rest = line[1:].partition(" ")
                    if macro in ROFF_TEXT_MACROS:
                        lines.append(template_check.roff_text(rest.replace('"', "")))
                else:
                    lines.append(template_check.roff_text(line))
            flush()
    return out


def doc_paragraphs():
    out = []
    patterns = ("README*", "NEWS*", "*.txt", "*.md", "*.txt.gz", "*.md.gz")
    paths = set()
    for pattern in patterns:
        paths.update(glob.glob(f"/usr/share/doc/*/{pattern}"))
    for path in sorted(paths):
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        package = path.split("/")[4]
        for paragraph in re.split(r"\n\s*\n", read_text(path)):
            paragraph = paragraph.strip("\n")
            if long_enough(paragraph) and len(paragraph) < 20_000:
                out.append(("doc", package, paragraph))
    return out


def python_docstrings():
    out = []
    for qual, _, text in template_check.docstrings():
        out.append(("py", qual, text.split(": ", 1)[1]))
    return out


def changelog_entries():
    out = []
    for package, header, body in debian_changelogs.changelog_entries():
        text = (header + "\n" + body).strip()
        if long_enough(text):
            out.append(("changelog", package, text))
    return out


def debian_descriptions(translations):
    conn = sqlite3.connect(translations)
    out = []
    for lang in DEB_LANGUAGES:
        rows = conn.execute(
            "SELECT package, body FROM texts WHERE lang = ? ORDER BY release, package LIMIT ?",
            (lang, DEB_PER_LANGUAGE)).fetchall()
        out += [(f"deb-{lang}", package, body) for package, body in rows if long_enough(body)]
    return out


def main(translations, out_path):
    rows, seen = [], set()
    for source in (man_paragraphs(), doc_paragraphs(), python_docstrings(), changelog_entries(),
                   debian_descriptions(translations)):
        for row in source:
            if row[2] not in seen:
                seen.add(row[2])
                rows.append(row)
    if os.path.exists(out_path):
        os.remove(out_path)
    conn = sqlite3.connect(out_path)
    conn.execute("CREATE TABLE texts(id INTEGER PRIMARY KEY, source TEXT, name TEXT, body TEXT NOT NULL)")
    conn.executemany("INSERT INTO texts(source, name, body) VALUES (?, ?, ?)", rows)
    conn.commit()
    for source, count in conn.execute("SELECT source, count(*) FROM texts GROUP BY 1 ORDER BY 1"):
        print(f"{source}\t{count}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
