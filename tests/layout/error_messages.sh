#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# docs/errors.md, the table of every message the extension raises, and the
# code agree. Run by ctest as layout.error_messages. Three checks:
#
#   1. code -> table: every string literal of ext/ and src/ that can be part
#      of a message is found, word for word, in the page's code spans (a
#      message of the table, or a placeholder's values listed there). A
#      literal "can be part of a message" when it has two words or more
#      (a space between two non-spaces), or when it is written in a
#      statement that raises (throw, sqlite3_result_error, set_error) and
#      has a letter. Adjacent literals count as one, as the compiler joins
#      them; a printf conversion (%s, %d, ...) in one stands for any text.
#      SQL text (it starts with an SQL keyword) and the texts listed below
#      under NOT_MESSAGES (EXPLAIN's plan texts, functions' output) are not
#      messages.
#   2. table -> code: every message of the table, its <placeholders> taken
#      out, is made of the code's literals, one after another (a number
#      stands for a limit the code writes from its constant; words of one
#      or two letters are not used); a message the code no longer builds
#      fails. Rows under a heading that says "from SQLite" are SQLite's
#      own messages and are not looked for. Both checks read the engine's
#      "simhash: " before an options message as "<function>: ", as the
#      glue writes it.
#   3. examples -> table: every `Runtime error: <message>` that README.md or
#      a page of docs/ shows matches a message of the table (its
#      placeholders matching any text; a row without a word of its own
#      outside them matches nothing). tests/python/test_readme_examples.py
#      runs those examples and compares the whole message.
#
# A message of the table is the first cell of a table row, in backticks;
# a placeholder is <lowercase words>.
set -euo pipefail
source_dir=${1:?usage: error_messages.sh <source dir>}
if ! command -v python3 >/dev/null; then
  echo "python3 not found: layout.error_messages skipped" >&2
  exit 77
fi
exec python3 - "$source_dir" <<'PYTHON'
import os
import re
import sys

source_dir = sys.argv[1]

# Literals of ext/ and src/ that read as prose but are no error message:
# each is shown to users another way (EXPLAIN QUERY PLAN, a function's
# result) or never reaches them (a static_assert's text).
NOT_MESSAGES = {
    # EXPLAIN QUERY PLAN of simhash_index (ext/index/index_vtab_plan.cpp)
    " bits; a scan below ",
    " buckets of ",
    ", the radius grown while a multi-probe beats a scan of the packed codes; then that scan)",
    "; above k a multi-probe or a scan",
    ", or a loop over the cached codes, chosen per query",
    ", sorted by distance",
    "nearest within the bound (",
    "; the radius grown to it while a multi-probe beats a scan of the packed codes)",
    "rowid lookup",
    "full scan",
    "%s %s",
    "nearest (index, k=",
    "multi-probe (",
    " UNION ALL ",
    " > k=",
    "scan (",
    "index (",
    ", k=",
    # EXPLAIN QUERY PLAN of the batch functions (ext/batch, src/batch)
    "the smaller k of the two indexes",
    "k of the index",
    ": block-permutation tables or every pair, by the rows",
    "radius given at run time: block-permutation tables or every pair, by the rows",
    "leader grouping over ",
    "single link over ",
    "two-index ",
    "%sbatch search, %s, exact%s",
    "; or over the rows of a table of pairs",
    "radius left out, for these options ",
    "every pair at the threshold (a set-similarity join)",
    "the set-similarity join's pairs within ",
    " (block-permutation tables)",
    "candidates by the radius and options given at run time (",
    "candidates within ",
    "dedup of the query's rows in its order: %s, each verified exactly, leader groups",
    "%s: every pair at the threshold (an exact set-similarity join), each verified",
    "pairs of the query's rows",
    "new rows against kept rows",
    "identical fingerprints only (radius 0)",
    "block permutation, ",
    " sorted tables (k=",
    "all pairs compared (radius ",
    "from 10^",
    ", blocks=",
    " fingerprints ",
    " at any size",
    # EXPLAIN QUERY PLAN of simhash_similar (ext/similar/similar_vtab.cpp)
    "similar to the query (postings of its rarest features)",
    "the most similar to the query, as many as LIMIT asks (a rising threshold)",
    "scan of the stored rows",
    # simhash_progress(1)'s lines on stderr (ext/common/progress_lines.cpp,
    # the phases of src/batch and the totals of the batch functions)
    "%llu min %llu s",
    ", about ",
    " left in this phase",
    ": done in ",
    "reading and tokenizing",
    "ranking features",
    "indexing prefixes",
    "finding candidates within the radius",
    "verifying candidates",
    "finding identical rows",
    " rows compared; ",
    " rows in ",
    " of two or more, ",
    " to remove",
    " pairs at the threshold",
    # simhash_first_difference's result (src/text/first_difference.cpp)
    "(end of text)",
    ", column ",
    " (no newline at the end)",
    # simhash_icu_version's result (ext/functions/functions.cpp)
    " unicode=",
    # the default check options (src/fingerprint/simhash_options.h)
    "n=3 weight=binary symbols=strict",
    # a static_assert's text (src/batch/leader_rule.h)
    "kBytesPerNode counts an offer as 16 bytes",
    # a static_assert's text (ext/functions/simhash_agg.cpp)
    "lives in zero-filled memory",
    "SQLite frees the aggregate context without running destructors",
    # std::logic_error of a caller's misuse, which no SQL can cause
    # (src/batch/feature_rows.cpp, verified_dedup.cpp, src/fingerprint/feature_extractor.cpp)
    "simhash: a row added after the rows were finished",
    "simhash: counted_feature_vector after a count that stopped early",
    "simhash: a block adopted after the rows were finished",
    "simhash: a row's features are not in the block adopted for it",
    # (src/batch/offer_runs.cpp, partitioned_pairs.cpp, size_parts.cpp, spill_file.cpp)
    "simhash: an offer added after the offers were read",
    "simhash: the offers were read already",
    "simhash: the pairs were found already",
    "simhash: a size part plan needs a cost for every row",
    "simhash: a size part plan needs the sizes ascending",
    "simhash: a read past the end of a spill file",
    # a std::length_error past 2^32 features in one tokenized batch, which the
    # batch's memory charge refuses long before (src/batch/feature_rows.cpp)
    "simhash: a block of features too large",
}

ENGINE_PREFIX = "simhash: "
SQL = re.compile(r"\s*(SELECT|INSERT|CREATE|UPDATE|DELETE|DROP|ALTER|WITH|PRAGMA|UNION)\b")
RAISES = re.compile(r"\bthrow\b|\bsqlite3_result_error\s*\(|\bset_error\s*\(")
CONVERSION = re.compile(r"%[-+ #0!]*[0-9]*(?:\.[0-9]+)?(?:ll|l|z)?[sdiuxXgfeqQwcp]")
PLACEHOLDER = re.compile(r"<[a-z][a-z0-9 _'/,.-]*>")
TOKEN = re.compile(
    r'//[^\n]*|/\*.*?\*/|R"\((?:.|\n)*?\)"|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\''
    r"|\s+|[A-Za-z_][A-Za-z0-9_]*|.",
    re.S,
)


def unescape(body):
    """A C string literal's body as the text it stands for."""
    simple = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "0": "\0"}
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt == "x":
            digits = re.match(r"[0-9A-Fa-f]+", body[i + 2:]).group(0)
            out.append(chr(int(digits, 16)))
            i += 2 + len(digits)
            continue
        out.append(simple.get(nxt, nxt))
        i += 2
    return "".join(out)


def literals(path):
    """(line, text, raises) of each string literal of a C++ file; adjacent
    literals are joined; raises: written in a statement that raises."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    found = []          # [line, text, statement index]
    statements = [""]   # the code of each statement, literals left out
    braces = []         # True for a block's brace, False for an initializer's
    previous = ""       # the last significant token
    joinable = False    # the last significant token was a literal
    at_line_start = True
    preprocessor = False
    for match in TOKEN.finditer(text):
        token = match.group(0)
        if token.isspace():
            if "\n" in token:
                at_line_start = True
                preprocessor = False
            continue
        if token.startswith("//") or token.startswith("/*"):
            continue
        if at_line_start and token == "#":
            preprocessor = True
        at_line_start = False
        if preprocessor:
            continue
        if token.startswith('"'):
            body = unescape(token[1:-1])
            if joinable:
                found[-1][1] += body
            else:
                line = text.count("\n", 0, match.start()) + 1
                found.append([line, body, len(statements) - 1])
            joinable = True
            previous = token
            continue
        joinable = False
        if token == "{":
            block = not (previous in ("(", ",", "=", "return", "{") or previous.startswith('"'))
            braces.append(block)
            if block:
                statements.append("")
        elif token == "}":
            if braces.pop() if braces else True:
                statements.append("")
        elif token == ";":
            statements[-1] += ";"
            statements.append("")
        else:
            statements[-1] += " " + token
        previous = token
    return [(line, body, bool(RAISES.search(statements[index]))) for line, body, index in found]


def pieces(literal):
    """The parts of a literal between its printf conversions."""
    return [part for part in CONVERSION.split(literal) if part]


def can_be_message(literal, raises):
    if SQL.match(literal) or literal in NOT_MESSAGES or "\n" in literal:
        return False
    if re.search(r"\S \S", literal):
        return True
    return raises and re.search(r"[A-Za-z]", literal) is not None


def covered(segment, atoms):
    """Whether `segment` is a run of atoms, one after another; a number
    counts as an atom (the code writes limits from their constants)."""
    reachable = [False] * (len(segment) + 1)
    reachable[0] = True
    for start in range(len(segment)):
        if not reachable[start]:
            continue
        digits = re.match(r"[0-9]+", segment[start:])
        if digits:  # a number, written by the code from a constant
            reachable[start + len(digits.group(0))] = True
        for atom in atoms:
            if segment.startswith(atom, start):
                reachable[start + len(atom)] = True
    return reachable[len(segment)]


def table_messages(path):
    """(line, message, from_sqlite) of each row of docs/errors.md's tables,
    and the text of every code span of the page (the placeholders' values
    are written there); a table cell writes | as \\|."""
    rows, spans, from_sqlite = [], [], False
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.startswith("#"):
                from_sqlite = "from SQLite" in line
            spans += [span.replace("\\|", "|") for span in re.findall(r"`([^`]+)`", line)]
            row = re.match(r"\|\s*`([^`]+)`\s*\|", line)
            if row:
                rows.append((number, row.group(1).replace("\\|", "|"), from_sqlite))
    return rows, spans


def main():
    failures = []
    sources = []
    for folder in ("ext", "src"):
        for root, _, files in os.walk(os.path.join(source_dir, folder)):
            sources += [os.path.join(root, name) for name in files if name.endswith((".cpp", ".h"))]
    code = []  # (where, literal, raises)
    for path in sorted(sources):
        where = os.path.relpath(path, source_dir)
        code += [("%s:%d" % (where, line), text, raises) for line, text, raises in literals(path)]

    table_path = os.path.join(source_dir, "docs", "errors.md")
    table, spans = table_messages(table_path)
    if len(table) < 50:
        failures.append("docs/errors.md: found %d messages; the check no longer reads its tables"
                        % len(table))
    written = "\n".join(spans)

    # 1. code -> table
    seen = set()
    for where, literal, raises in code:
        if literal in NOT_MESSAGES:
            seen.add(literal)
        if not can_be_message(literal, raises):
            continue
        for piece in pieces(literal):
            # The glue names the function called in place of the engine's
            # "simhash" (named_message, ext/common/sqlite_support.h).
            renamed = piece.startswith(ENGINE_PREFIX) and (
                "<function>: " + piece[len(ENGINE_PREFIX):] in written)
            if piece not in written and not renamed:
                failures.append(
                    "%s: %r is not in docs/errors.md: add the message it is part of there "
                    "(placeholders as <name>), or, if users never see it as an error, to "
                    "NOT_MESSAGES in tests/layout/error_messages.sh" % (where, piece))
    for stale in sorted(NOT_MESSAGES - seen):
        failures.append("tests/layout/error_messages.sh: NOT_MESSAGES lists %r, which no literal "
                        "of ext/ or src/ is any more: take it out" % stale)

    # 2. table -> code; one- and two-letter words are left out of the atoms,
    # so that they cannot spell a changed word.
    atoms = {piece for _, literal, _ in code for piece in pieces(literal)
             if not re.fullmatch(r"[A-Za-z]{1,2}", piece)}
    atoms |= {atom[len(ENGINE_PREFIX) - 2:] for atom in atoms if atom.startswith(ENGINE_PREFIX)}
    atoms = sorted(atoms, key=len, reverse=True)
    for number, message, from_sqlite in table:
        if from_sqlite:
            continue
        for segment in PLACEHOLDER.split(message):
            if segment and not covered(segment, atoms):
                failures.append(
                    "docs/errors.md:%d: %r of `%s` is not text the code writes: correct the row "
                    "(or mark the varying part as <placeholder>)" % (number, segment, message))

    # 3. examples -> table
    patterns = []
    for _, message, _ in table:
        parts = PLACEHOLDER.split(message)
        # A row with no word of its own (`<function>: <message>`) would
        # match any example.
        if re.search(r"[A-Za-z]", "".join(parts)):
            patterns.append(re.compile(".+?".join(re.escape(part) for part in parts) + r"\Z", re.S))
    pages = ["README.md"] + sorted(
        os.path.join("docs", name) for name in os.listdir(os.path.join(source_dir, "docs"))
        if name.endswith(".md"))
    # simhash_raise's message is the caller's own text.
    callers_text = {"name taken by row 2"}
    for page in pages:
        with open(os.path.join(source_dir, page), encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                shown = re.match(r"Runtime error: (.*)$", line.rstrip("\n"))
                if not shown or shown.group(1) in callers_text:
                    continue
                if not any(pattern.match(shown.group(1)) for pattern in patterns):
                    failures.append("%s:%d: the example's message %r is no message of "
                                    "docs/errors.md" % (page, number, shown.group(1)))

    for failure in failures:
        print(failure, file=sys.stderr)
    if failures:
        print("docs/errors.md and the code disagree (%d problems above)" % len(failures),
              file=sys.stderr)
        return 1
    return 0


sys.exit(main())
PYTHON
