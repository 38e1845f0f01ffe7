#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""simhash_dedup's CPU by thread role (the serial share), from a perf
profile with call stacks of one bench/dedup_phases.py child run:

    perf record -F 149 --call-graph dwarf,16384 -o run.data -- \
        /usr/bin/python3 bench/dedup_phases.py --child SO DOCS.db 2 0.8
    perf script -i run.data | /usr/bin/python3 bench/dedup_perf_roles.py

Each sample is one of: parallel work (a parallel_for body on any thread, or
a tokenizing thread's laying out of its rows); the caller's reading and
adding of rows while the other threads build (parallel_for's meanwhile:
one core, but overlapped); or a serial piece the caller runs while nothing
else does, named by the first known frame from the leaf outward. Samples
whose stacks perf truncated (deep sqlite3_step stacks) may lose the frame
that says they overlapped: they count as serial reading, an upper bound.
The process's own start (python, the connection, loading the extension)
counts as "other"; it is outside the statement dedup_phases.py times.
"""
import collections, sys
blocks = sys.stdin.read().split("\n\n")
serial = [
    ("table fills (slot counts, prefixes, postings)", "fill_with_checks"),
    ("table fills (slot counts, prefixes, postings)", "PostingIndex::PostingIndex"),
    ("adding rows (identical-row lookup, feature copy)", "FeatureRows::"),
    ("adding rows (identical-row lookup, feature copy)", "VerifiedDedup::add"),
    ("repeated-id check", "find_repeated_id"),
    ("join's in-order settling (block pass)", "groups_by_threshold_join"),
    ("grouping (rows of groups)", "rows_of_groups"),
    ("reading (SQLite stepping, batches)", "read_text_rows"),
    ("output (vtab rows to SQL)", "x_next"),
    ("output (vtab rows to SQL)", "x_column"),
]
count = collections.Counter()
total = 0
caller = None
for b in blocks:
    lines = [l.strip() for l in b.split("\n") if l.strip()]
    if len(lines) < 2:
        continue
    tid = lines[0].split()[1]
    if caller is None:
        caller = tid
    frames = lines[1:]
    total += 1
    if any("(unsigned int, unsigned long, unsigned long)" in f or "Worker::lay_out" in f
           for f in frames):
        count["parallel (bodies, lay_out)"] += 1
        continue
    # A team's loop: parallel_for's, or ThreadTeam's (whose meanwhile the
    # caller runs and whose aside worker 1 runs before its ranges).
    in_loop = any("parallel_for" in f or "ThreadTeam::for_each_range" in f or
                  "ThreadTeam::work" in f for f in frames)
    if tid != caller:
        if in_loop and any("VerifiedDedup::add" in f or "FeatureRows::" in f for f in frames):
            count["other thread, overlapped with the building: handing over (aside)"] += 1
        else:
            count["other thread, outside bodies (start, join)"] += 1
        continue
    if in_loop and any("read_text_rows" in f for f in frames):
        # meanwhile(): reading the next batch, adding the last one's rows
        sub = "reading" if not any("dedup_vtab" in f and "lambda" in f for f in frames) else "adding rows"
        if any("VerifiedDedup::add" in f or "FeatureRows::" in f for f in frames):
            sub = "adding rows"
        count["caller, overlapped with the building: " + sub] += 1
        continue
    name = "serial: other (python, sqlite setup, unattributed stacks)"
    done = False
    for frame in frames:
        for cat, key in serial:
            if key in frame:
                name = "serial: " + cat
                done = True
                break
        if done:
            break
    count[name] += 1
for k, v in sorted(count.items(), key=lambda kv: -kv[1]):
    print(f"| {k} | {v} | {100*v/total:.1f}% |")
print(f"| samples | {total} | |")
