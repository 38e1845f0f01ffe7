#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# No function of src/ or ext/ is longer than 150 lines, counted as
# clang-tidy's readability-function-size counts them: the line of the
# body's closing brace less the line of its opening one, comments and blank
# lines included. Run by ctest as layout.function_lines; a file not yet
# committed is checked too, so a long function fails before it lands.
# Skipped (77) without python3.
#
#   function_lines.sh <source dir> [most lines, 150]
#
# A parse of braces, not of C++: comments, string and character literals
# (raw strings too) and preprocessor lines are taken out, then each `{`
# outside a function body opens a body when the token before it is `)`
# (parameters, or a constructor's last initializer, with `const`,
# `noexcept`, `override` and the like after it), `}` (a constructor's last
# initializer in braces), a lambda's `]`, or ends a trailing return type
# (`-> T`); any other `{` (a namespace, a class, an enum, an initializer)
# is looked into for the functions inside. A lambda counts in the
# function that holds it, as clang-tidy counts it. A file whose braces do
# not pair up fails, rather than pass unread.
set -euo pipefail
source_dir=${1:?usage: function_lines.sh <source dir> [most lines]}
most=${2:-150}
if ! command -v python3 >/dev/null; then
  echo "python3 not found: layout.function_lines skipped" >&2
  exit 77
fi
exec python3 - "$source_dir" "$most" <<'PYTHON'
import os
import re
import subprocess
import sys

source_dir, most = sys.argv[1], int(sys.argv[2])

TOKEN = re.compile(
    r"(?P<space>\s+)"
    r"|(?P<comment>//[^\n]*|/\*.*?\*/)"
    # Raw strings: R"delimiter( ... )delimiter", with any encoding prefix.
    r'|(?P<raw>(?:u8|u|U|L)?R"(?P<delimiter>[^()\\\s]{0,16})\(.*?\)(?P=delimiter)")'
    r'|(?P<string>(?:u8|u|U|L)?"(?:[^"\\\n]|\\.)*")'
    # A number, digit separators (1'000) included, before a character literal.
    r"|(?P<number>\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.']|')*)"
    r"|(?P<char>(?:u8|u|U|L)?'(?:[^'\\\n]|\\.)+')"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<punct>->|::|&&|.)",
    re.S,
)
# What may stand between a function's parameters and its body.
SPECIFIERS = {"const", "volatile", "noexcept", "override", "final", "mutable", "constexpr",
              "consteval", "&", "&&", "throw"}
# Names that are keywords before an expression: a `[` after them opens a lambda.
KEYWORDS = {"return", "co_return", "co_yield", "throw", "case", "else", "do"}
# Names before parentheses that name no function.
NOT_NAMES = {"noexcept", "throw", "decltype", "alignas", "requires", "sizeof", "alignof"}
# Tokens that end a statement or open or close a block: a trailing return
# type is never looked for past them.
BOUNDARY = {";", "{", "}"}


def tokens(text):
    """(kind, text, line) of each token of a C++ file, without its
    comments and preprocessor lines."""
    out = []
    line = 1
    at_line_start = True
    in_directive = False
    for match in TOKEN.finditer(text):
        kind = match.lastgroup if match.lastgroup != "delimiter" else "raw"
        token = match.group(0)
        if kind == "space":
            if "\n" in token:
                # A directive ends at a newline not escaped by a backslash.
                if in_directive and not text[match.start() - 1 : match.start()] == "\\":
                    in_directive = False
                at_line_start = "\n" in token and not in_directive
            line += token.count("\n")
            continue
        if kind == "comment":
            line += token.count("\n")
            continue
        if at_line_start and token == "#":
            in_directive = True
        at_line_start = False
        if not in_directive:
            out.append((kind, token, line))
        line += token.count("\n")
    return out


def matching_open(toks, close_index, open_text, close_text):
    """The index of the bracket that `toks[close_index]` closes."""
    depth = 0
    for i in range(close_index, -1, -1):
        if toks[i][1] == close_text:
            depth += 1
        elif toks[i][1] == open_text:
            depth -= 1
            if depth == 0:
                return i
    return None


def lambda_introducer(toks, start):
    """Whether the `[` at toks[start] opens a lambda: an array's bound or a
    subscript follows a name, a `]` or a `)`."""
    if start == 0:
        return True
    kind, text, _ = toks[start - 1]
    return (kind != "name" or text in KEYWORDS) and text not in ("]", ")")


def opens_body(toks, i):
    """Whether the `{` at toks[i], outside any function body, opens one."""
    j = i - 1
    # Specifiers after the parameters, `noexcept(...)` and `throw()` included.
    while j >= 0:
        if toks[j][1] in SPECIFIERS:
            j -= 1
        elif toks[j][1] == ")":
            before = matching_open(toks, j, "(", ")")
            if before is not None and before > 0 and toks[before - 1][1] in ("noexcept", "throw"):
                j = before - 2
            else:
                break
        else:
            break
    if j < 0:
        return False
    previous = toks[j][1]
    if previous in (")", "}"):
        # Parameters, or a constructor's last initializer; `}` before `{`
        # outside a body is nothing else that compiles.
        return True
    if previous == "]":
        start = matching_open(toks, j, "[", "]")
        return start is not None and lambda_introducer(toks, start)
    # `-> type {`: an arrow at paren depth 0 in the same statement, after
    # a `)`.
    depth = 0
    for k in range(j, max(-1, j - 64), -1):
        text = toks[k][1]
        if text in BOUNDARY and depth == 0:
            return False
        if text in (")", "]"):
            depth += 1
        elif text in ("(", "["):
            depth -= 1
        elif text == "->" and depth == 0:
            return k > 0 and (toks[k - 1][1] == ")" or toks[k - 1][1] in SPECIFIERS)
    return False


def name_of(toks, i):
    """A readable name for the function whose body opens at toks[i]: the
    name before the first group of parentheses, going back, that is no
    initializer of a constructor (after ',' or ':') and no specifier."""
    k = i - 1
    while k >= 0 and toks[k][1] not in (";", "{"):
        text = toks[k][1]
        if text == "]":
            start = matching_open(toks, k, "[", "]")
            if start is None:
                break
            if lambda_introducer(toks, start):
                return "a lambda"
            k = start
        elif text == "}":
            start = matching_open(toks, k, "{", "}")
            if start is None:
                break
            k = start
        elif text == ")":
            start = matching_open(toks, k, "(", ")")
            if start is None:
                break
            # A name, qualified (a::b), a destructor's (~a) or an operator's.
            n, name = start - 1, []
            while n >= 0 and toks[n][0] == "name":
                name.append(toks[n][1])
                n -= 1
                if n >= 0 and toks[n][1] == "~":
                    name.append("~")
                    n -= 1
                if n < 0 or toks[n][1] != "::":
                    break
                name.append("::")
                n -= 1
            # After ',' or ':' (not an access label's), a constructor's initializer.
            initializer = n >= 0 and (toks[n][1] == "," or toks[n][1] == ":" and not (
                n > 0 and toks[n - 1][1] in ("public", "protected", "private")))
            if name and name[0] not in NOT_NAMES and not initializer:
                return "".join(reversed(name))
            k = start
        k -= 1
    return "a function"


def long_functions(path):
    """(line, name, lines) of each function of the file over `most` lines;
    raises ValueError where the braces do not pair up."""
    with open(path, encoding="utf-8") as handle:
        toks = tokens(handle.read())
    found = []
    body_start = None  # the index of the `{` of the body being read
    depth = 0          # braces open inside that body, its own included
    scopes = 0         # other braces open outside any body
    for i, (_, text, line) in enumerate(toks):
        if text == "{":
            if body_start is not None:
                depth += 1
            elif opens_body(toks, i):
                body_start, depth = i, 1
            else:
                scopes += 1
        elif text == "}":
            if body_start is not None:
                depth -= 1
                if depth == 0:
                    lines = line - toks[body_start][2]
                    if lines > most:
                        found.append((toks[body_start][2], name_of(toks, body_start), lines))
                    body_start = None
            elif scopes > 0:
                scopes -= 1
            else:
                raise ValueError("line %d: a '}' closes nothing" % line)
    if body_start is not None or scopes != 0:
        raise ValueError("the braces do not pair up (a '{' left open)")
    return found


def source_files():
    """The C and C++ files of src/ and ext/: those git tracks or would (a
    new file too), or, outside a git checkout, every one there."""
    try:
        listed = subprocess.run(
            ["git", "-C", source_dir, "ls-files", "-z", "--cached", "--others",
             "--exclude-standard", "--", "src", "ext"],
            check=True, capture_output=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        listed = [os.path.relpath(os.path.join(root, name), source_dir)
                  for folder in ("src", "ext")
                  for root, _, names in os.walk(os.path.join(source_dir, folder))
                  for name in names]
    return sorted(f for f in listed if f.endswith((".cpp", ".h", ".c", ".cc", ".hpp"))
                  and os.path.isfile(os.path.join(source_dir, f)))


def main():
    files = source_files()
    if len(files) < 50:
        print("found %d files under src/ and ext/: the check no longer reads the tree" % len(files),
              file=sys.stderr)
        return 1
    failures = []
    for name in files:
        try:
            for line, function, lines in long_functions(os.path.join(source_dir, name)):
                failures.append("%s:%d: %s is %d lines long (at most %d): split it into "
                                "functions that each do one part" % (name, line, function, lines,
                                                                      most))
        except ValueError as error:
            failures.append("%s: %s; tests/layout/function_lines.sh cannot read it" % (name, error))
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


sys.exit(main())
PYTHON
