#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Template siblings and idf weighting: does a
weighted Jaccard with inverse document frequency weights, taken from the
collection itself, separate template siblings (texts that differ in one
identifier) from true edits of one text better than the default check?

Texts, real and written by nobody here, distinct after exact deduplication:
  changelog  each entry of /usr/share/doc/*/changelog.Debian.gz with its
             header line ("libxtst (2:1.2.3-1.1) unstable; urgency=medium"),
             without the trailer line (maintainer and date);
  man        each section of the man pages in man2, man3, man5, man7, man8 and
             --man1 pages of man1 (zcat and a small roff stripper), headed by
             the page's name;
  doc        the docstrings of the standard library's modules, classes and
             functions (inspect.getdoc), headed by the object's qualified name.
Each text has a name (package, page, object): a template sibling pair is two
texts of different names.

Truth, stated as rules (not by our tokenizer):
  sibling    a pair found in the collection (below) whose word diff
             (whitespace tokens, difflib) is non-empty and every differing
             token, on both sides, is identifier-like (texts of at most 400
             words; longer pairs count as other): it has a digit, one of
             _ . ( ) : / < > [ ] = - #, an upper-case letter after its first
             character (a full stop or colon at its end does not count), or
             it is a name of the collection (a package, page or object name,
             or a part of a dotted one; not the few everyday words in COMMON:
             other page names that are words, "time", "test", still count).
             The texts are different facts about different things.
  other      a pair found in the collection whose diff has an ordinary word:
             revisions, siblings differing in a word, boilerplate; not labeled.
  same-name  a pair of one name (two entries of a package, two sections of a
             page): counted, left out of the tables.
  edit       a true edit, by construction: --edits texts drawn with --seed,
             each edited once by one of: a typo (a letter of a word replaced),
             punctuation (a comma or full stop added or removed), a swap of two
             adjacent words, one word dropped, one word doubled; the edited copy
             is added to the collection (so it counts in the frequencies).
The collection's pairs: simhash_verified_pairs at --floor under the default
check's features (exact: every pair with binary Jaccard >= floor), of which
at most --pairs per source (changelog, man, doc, mixed) drawn with --seed
are labeled (templated man sections make millions). The idf
check is computed in Python for those pairs only, so a pair whose binary
Jaccard is below --floor but whose idf Jaccard is above a threshold is not
seen (the table says how many pairs sit just above the floor).

Features: simhash_features(text, 'n=3 weight=binary symbols=strict'), the
default check's; idf(f) = ln(N / df(f)), N the texts in the collection, df
the texts having f; idf Jaccard = sum over shared features of idf / sum over
the union of idf.

Usage: python3 bench/template_check.py build/simhash.so [--edits N] [--seed S]
  [--man1 N] [--floor F] [--pairs N] [--show N]
Prints the corpus sizes, a table per threshold, --show sibling pairs per
source for reading, and the CPU and wall time.
"""

import argparse
import difflib
import glob
import gzip
import importlib
import inspect
import math
import pkgutil
import random
import re
import sqlite3
import sys
import time
import warnings

import debian_changelogs

OPTIONS = "n=3 weight=binary symbols=strict"


def changelog_entries():
    """Entries of eight words or more with their header line, which names the
    package and version (debian_changelogs.py reads them)."""
    out = []
    for package, header, body in debian_changelogs.changelog_entries():
        text = (header + "\n" + body).strip()
        if len(text.split()) >= 8:
            out.append((package, "changelog", text))
    return out


ROFF_ESCAPE = re.compile(r"\\f(\(..|\[[^]]*\]|.)|\\\*(\(..|\[[^]]*\]|.)|\\\(..|\\[&|^%]|\\s[-+]?\d")
ROFF_REPLACE = {"\\(em": "-", "\\(en": "-", "\\(aq": "'", "\\(dq": '"', "\\(lq": '"', "\\(rq": '"',
                "\\(bu": "*", "\\(co": "(c)"}


def roff_text(line):
    line = line.replace("\\-", "-").replace("\\e", "\\").replace("\\ ", " ")
    line = ROFF_ESCAPE.sub(lambda m: ROFF_REPLACE.get(m.group(0), ""), line)
    return line


def man_sections(man1, rng):
    pages = []
    for section in ("man2", "man3", "man5", "man7", "man8"):
        pages += sorted(glob.glob(f"/usr/share/man/{section}/*.gz"))
    ones = sorted(glob.glob("/usr/share/man/man1/*.gz"))
    pages += rng.sample(ones, min(man1, len(ones)))
    out = []
    for path in pages:
        try:
            raw = gzip.open(path, "rt", errors="replace").read()
        except OSError:
            continue
        if raw.lstrip().startswith(".so "):
            continue  # a link to another page
        name = path.rsplit("/", 1)[1].split(".")[0]
        heading, lines = None, []

        def flush():
            if heading and heading not in ("NAME", "SEE ALSO", "COLOPHON", "SYNOPSIS"):
                body = " ".join(" ".join(lines).split())
                if len(body.split()) >= 8:
                    out.append((name, "man", f"{name} {heading}: {body}"))

        for line in raw.splitlines():
            if line.startswith(('.\\"', "'\\\"")):
                continue
            if line.startswith(".SH"):
                flush()
                heading, lines = line[3:].strip().strip('"').upper(), []
            elif line.startswith((".", "'")):
                macro, _, rest = line[1:].partition(" ")
                if macro in ("B", "I", "BR", "IR", "RB", "BI", "IB", "RI", "SM", "SB", "Nm", "Fn", "Xr"):
                    lines.append(roff_text(rest.replace('"', "")))
            else:
                lines.append(roff_text(line))
        flush()
    return out


def docstrings():
    skip = ("test", "idlelib", "tkinter", "turtle", "antigravity", "this", "lib2to3", "ensurepip", "pydoc_data",
            "__main__", "venv", "xxsubtype")
    out, seen = [], set()
    warnings.simplefilter("ignore")
    names = sorted(m.name for m in pkgutil.iter_modules() if m.module_finder.path.startswith(sys.base_prefix)
                   and "site-packages" not in m.module_finder.path and "dist-packages" not in m.module_finder.path)
    names += sorted(sys.builtin_module_names)
    for modname in names:
        if modname.split(".")[0].lstrip("_") in skip or modname.startswith("_test"):
            continue
        try:
            module = importlib.import_module(modname)
        except BaseException:
            continue
        stack = [(modname, module, 0)]
        while stack:
            qual, obj, depth = stack.pop()
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            doc = obj.__doc__ if isinstance(getattr(obj, "__doc__", None), str) else None
            if doc:
                doc = inspect.cleandoc(doc)
                if len(doc.split()) >= 8:
                    out.append((qual, "doc", f"{qual}: {doc}"))
            if depth < 2 and (inspect.ismodule(obj) or inspect.isclass(obj)):
                for attr, value in sorted(vars(obj).items()):
                    if attr.startswith("__") or not (inspect.isclass(value) or inspect.isroutine(value)):
                        continue
                    if inspect.ismodule(obj) and getattr(value, "__module__", modname) != modname:
                        continue
                    stack.append((f"{qual}.{attr}", value, depth + 1))
    return out


IDENT = re.compile(r"\d|[_.():/<>\[\]=#-]|^.+[A-Z]")
COMMON = {"release", "upload", "version", "new", "update", "the", "a", "an", "of", "to", "and", "or", "in", "is"}


def identifier_like(token, names):
    bare = token.strip(",;'\"`").rstrip(".:")  # a sentence's full stop is no identifier
    if bare.lower() in COMMON:
        return False  # page or package names that are also everyday words
    return bool(IDENT.search(bare)) or bare in names or bare.lower() in names


def label(a, b, names):
    ta, tb = a.split(), b.split()
    if max(len(ta), len(tb)) > 400:
        return "other", None  # difflib is quadratic; siblings are short
    differing = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, ta, tb, autojunk=False).get_opcodes():
        if op != "equal":
            differing += ta[i1:i2] + tb[j1:j2]
    if differing and all(identifier_like(t, names) for t in differing):
        return "sibling", differing
    return "other", differing


def typo(words, rng):
    spots = [i for i, w in enumerate(words) if re.fullmatch(r"[A-Za-z]{3,}", w)]
    if not spots:
        return None
    i = rng.choice(spots)
    w = words[i]
    k = rng.randrange(len(w))
    words[i] = w[:k] + rng.choice([c for c in "abcdefghijklmnopqrstuvwxyz" if c != w[k].lower()]) + w[k + 1 :]
    return words


def punctuation(words, rng):
    i = rng.randrange(len(words))
    if words[i][-1] in ",.":
        words[i] = words[i][:-1] or words[i]
    else:
        words[i] += rng.choice(",.")
    return words


def swap(words, rng):
    i = rng.randrange(len(words) - 1)
    words[i], words[i + 1] = words[i + 1], words[i]
    return words


def drop(words, rng):
    del words[rng.randrange(len(words))]
    return words


def double(words, rng):
    i = rng.randrange(len(words))
    words.insert(i, words[i])
    return words


EDITS = {"typo": typo, "punctuation": punctuation, "swap": swap, "drop": drop, "double": double}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("extension")
    parser.add_argument("--edits", type=int, default=3000)
    parser.add_argument("--man1", type=int, default=2000, help="man1 pages drawn (there are ~18K)")
    parser.add_argument("--floor", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--pairs", type=int, default=40000, help="real pairs labeled per source, a uniform draw")
    parser.add_argument("--show", type=int, default=15, help="sibling pairs printed per source for reading")
    args = parser.parse_args()
    cpu0, wall0 = time.process_time(), time.time()
    rng = random.Random(args.seed)

    texts, seen = [], set()
    for name, source, text in changelog_entries() + man_sections(args.man1, rng) + docstrings():
        if text not in seen:
            seen.add(text)
            texts.append((name, source, text))
    names = set()
    for name, _, _ in texts:
        names.add(name)
        names.add(name.lower())
        names.update(name.split("."))
    counts = {s: sum(1 for _, src, _ in texts if src == s) for s in ("changelog", "man", "doc")}
    real = len(texts)

    edited = []
    for i in rng.sample(range(real), args.edits):
        kind = rng.choice(sorted(EDITS))
        words = texts[i][2].split()
        if len(words) < 3:
            continue
        new = EDITS[kind](list(words), rng)
        if new is None or " ".join(new) in seen:
            continue
        text = " ".join(new)
        seen.add(text)
        texts.append((texts[i][0], "edit:" + kind, text))
        edited.append((i, len(texts) - 1, kind))
    print(f"texts: {real} real distinct ({counts['changelog']} changelog entries, {counts['man']} man sections,"
          f" {counts['doc']} docstrings) + {len(edited)} edited copies")

    conn = sqlite3.connect(":memory:")
    conn.enable_load_extension(True)
    conn.load_extension(args.extension)
    conn.execute("CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)")
    conn.executemany("INSERT INTO docs VALUES (?, ?)", ((i, t) for i, (_, _, t) in enumerate(texts)))

    features = [set() for _ in texts]
    for i, f in conn.execute("SELECT d.id, f.feature FROM docs AS d, simhash_features(d.body, ?) AS f", (OPTIONS,)):
        features[i].add(f)
    df = {}
    for fs in features:
        for f in fs:
            df[f] = df.get(f, 0) + 1
    n = len(texts)
    idf = {f: math.log(n / c) for f, c in df.items()}

    total = [sum(idf[f] for f in fs) for fs in features]

    def weighted(a, b):
        shared = sum(idf[f] for f in features[a] & features[b])
        union = total[a] + total[b] - shared
        return shared / union if union > 0 else 0.0

    def binary(a, b):
        fa, fb = features[a], features[b]
        return len(fa & fb) / len(fa | fb) if fa or fb else 0.0

    t0 = time.process_time()
    found = conn.execute("SELECT a, b, similarity FROM simhash_verified_pairs('SELECT id, body FROM docs', ?)",
                         (args.floor,)).fetchall()
    join_cpu = time.process_time() - t0
    print(f"{len(found)} pairs found in {join_cpu:.1f} s CPU", flush=True)
    strata = {}  # by source: templated man sections would crowd out the rest
    for a, b, sim in found:
        if a < real and b < real:
            src = texts[a][1] if texts[a][1] == texts[b][1] else "mixed"
            strata.setdefault(src, []).append((a, b, sim))
    real_pairs = []
    for src in sorted(strata):
        print(f"  {src}: {len(strata[src])} real pairs, {min(args.pairs, len(strata[src]))} labeled")
        pick = strata[src]
        if len(pick) > args.pairs:
            pick = random.Random(args.seed).sample(pick, args.pairs)
        real_pairs += pick
    random.Random(args.seed).shuffle(real_pairs)  # the pairs printed for reading are a random draw
    rows = []  # (class, source, binary, idf)
    shown = {}
    for a, b, sim in real_pairs:  # pairs with an edited copy are measured below, by construction
        if texts[a][0] == texts[b][0]:
            cls, differing = "same-name", None
        else:
            cls, differing = label(texts[a][2], texts[b][2], names)
        src = texts[a][1] if texts[a][1] == texts[b][1] else "mixed"
        w = weighted(a, b)
        rows.append((cls, src, sim, w))
        if cls != "same-name" and sim >= 0.7 and len(shown.get((cls, src), [])) < args.show:
            shown.setdefault((cls, src), []).append((sim, w, texts[a][0], texts[b][0], (differing or [])[:6]))
    for a, b, kind in edited:
        rows.append(("edit", texts[a][1], binary(a, b), weighted(a, b), kind))
    print(f"pairs at binary Jaccard >= {args.floor}: {len(found)} (join {join_cpu:.1f} s CPU); of the"
          f" {len(real_pairs)} real ones labeled:",
          ", ".join(f"{c} {sum(1 for r in rows if r[0] == c)}" for c in ("sibling", "other", "same-name")),
          f"; edits: {len(edited)}")
    for src in ("changelog", "man", "doc", "mixed"):
        print(f"siblings by source, {src}: {sum(1 for r in rows if r[0] == 'sibling' and r[1] == src)}")

    for src in ("changelog", "man", "doc", None):
        sel = [r for r in rows if src is None or r[1] == src]
        print(f"\n{src or 'all sources'}: siblings kept, other real pairs kept, true edits caught (of "
              f"{sum(1 for r in sel if r[0] == 'edit')} edits of this source's texts)")
        print("| t | siblings: binary / idf | other pairs: binary / idf | true edits: binary / idf |")
        print("| --- | --- | --- | --- |")
        for t in (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95):
            cells = []
            for cls in ("sibling", "other", "edit"):
                group = [r for r in sel if r[0] == cls]
                kb = sum(1 for r in group if r[2] >= t)
                kw = sum(1 for r in group if r[3] >= t)
                if cls == "edit":
                    cells.append(f"{100 * kb / max(1, len(group)):.1f}% / {100 * kw / max(1, len(group)):.1f}%")
                else:
                    cells.append(f"{kb} / {kw}")
            print(f"| {t} | " + " | ".join(cells) + " |")
    print()
    print("| edit kind | caught at 0.8: binary / idf | at 0.7: binary / idf | median similarity: binary / idf |")
    print("| --- | --- | --- | --- |")
    for kind in sorted(EDITS):
        sel = [r for r in rows if r[0] == "edit" and r[4] == kind]
        b8 = sum(r[2] >= 0.8 for r in sel) / len(sel)
        w8 = sum(r[3] >= 0.8 for r in sel) / len(sel)
        b7 = sum(r[2] >= 0.7 for r in sel) / len(sel)
        w7 = sum(r[3] >= 0.7 for r in sel) / len(sel)
        mb = sorted(r[2] for r in sel)[len(sel) // 2]
        mw = sorted(r[3] for r in sel)[len(sel) // 2]
        print(f"| {kind} ({len(sel)}) | {100 * b8:.1f}% / {100 * w8:.1f}% | {100 * b7:.1f}% / {100 * w7:.1f}%"
              f" | {mb:.3f} / {mw:.3f} |")
    print()
    for (cls, src), items in sorted(shown.items()):
        print(f"{cls} pairs at binary >= 0.7, {src} (binary, idf, names, differing tokens):")
        for sim, w, na, nb, d in items:
            print(f"  {sim:.3f} {w:.3f} {na} | {nb} | {d}")
    print(f"\nCPU {time.process_time() - cpu0:.1f} s, wall {time.time() - wall0:.1f} s"
          " (shared machine: wall inflated)")


if __name__ == "__main__":
    main()
