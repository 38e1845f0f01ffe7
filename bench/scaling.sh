#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# simhash_dedup's scaling over threads (issue 33), for a many-core machine
# with no network and nothing installed beyond python3 (with its sqlite3
# module) and bash: the exact threshold join at threads 1, 2, 4, 8 and 16 on
# the 336K real texts and on 3.4M rows (the texts and edited copies, as
# bench/dedup_benchmark.py builds its --growth sets), each run a process of
# its own; prints wall, CPU, cores busy per phase and peak RSS
# (bench/dedup_phases.py). Made to finish within 8 minutes on 16 cores:
# the larger set runs from 16 threads down and stops before a run that
# would not end in time (it says so).
#
#   bash bench/scaling.sh DIR CORPUS.db.xz [WORK]
#
# DIR holds build/simhash.so and the shared libraries it needs (in DIR/lib,
# DIR/build or DIR itself: all go on LD_LIBRARY_PATH); CORPUS.db.xz is the
# corpus database (bench/corpus/fetch_translations.sh's translations.db,
# compressed with xz); WORK (default /tmp/simhash-scaling) gets the
# decompressed corpus and the two datasets (about 0.3 and 2 GB), reused
# when run again. Needs bench/dedup_phases.py and bench/dedup_benchmark.py
# beside this script.
set -euo pipefail
if [[ $# -lt 2 ]]; then
  sed -n '2,21p' "$0"
  exit 2
fi
dir=$(cd "$1" && pwd)
corpus_xz=$2
work=${3:-/tmp/simhash-scaling}
here=$(cd "$(dirname "$0")" && pwd)
budget=${BUDGET_S:-470}   # seconds for everything
factor=${LARGE_FACTOR:-10}  # the larger set: this many times the corpus's rows
start=$SECONDS
ext="$dir/build/simhash.so"
export LD_LIBRARY_PATH="$dir/lib:$dir/build:$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
py=${PYTHON:-python3}
mkdir -p "$work"
[[ -f $ext ]] || { echo "no $ext" >&2; exit 1; }

echo "== machine: $(nproc) cores; $($py --version); $(uname -m)"
"$py" - "$ext" <<'EOF'
import sqlite3, sys
conn = sqlite3.connect(":memory:")
conn.enable_load_extension(True)
conn.load_extension(sys.argv[1])
print("== sqlite", sqlite3.sqlite_version, "; extension loads; simhash('a b c') =",
      conn.execute("SELECT simhash('a b c')").fetchone()[0])
EOF

corpus="$work/translations.db"
if [[ ! -f $corpus ]]; then
  echo "== decompressing $corpus_xz"
  "$py" -c '
import lzma, shutil, sys
with lzma.open(sys.argv[1]) as src, open(sys.argv[2] + ".partial", "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
' "$corpus_xz" "$corpus"
  mv "$corpus.partial" "$corpus"
fi

# The two sets: every corpus row, and ten times as many rows (the corpus
# then edited copies), made by dedup_benchmark.py's own dataset().
read -r small large < <("$py" - "$here" "$corpus" "$work" "$factor" <<'EOF'
import sqlite3, sys
sys.path.insert(0, sys.argv[1])
import dedup_benchmark as b
corpus, work, factor = sys.argv[2], sys.argv[3], int(sys.argv[4])
total = sqlite3.connect(corpus).execute("SELECT count(*) FROM texts").fetchone()[0]
print(b.dataset(corpus, work, total), b.dataset(corpus, work, factor * total))
EOF
)
echo "== sets ready after $((SECONDS - start)) s: $small $large"

echo
echo "== $(basename "$small"): threads 1 2 4 8 16"
"$py" "$here/dedup_phases.py" --ext "$ext" --db "$small" --threads 1,2,4,8,16 \
  --json "$work/scaling-small.json"

echo
echo "== $(basename "$large"): threads 16 8 4 2 1, while time is left (budget ${budget} s)"
last=0
first=1
for threads in 16 8 4 2 1; do
  elapsed=$((SECONDS - start))
  # Halving the threads at most doubles the time, plus a margin.
  if [[ $last -gt 0 ]] && ((elapsed + last * 23 / 10 > budget)); then
    echo "(threads $threads and fewer left out: $elapsed s spent, the last run took $last s)"
    break
  fi
  t0=$SECONDS
  if [[ $first -eq 1 ]]; then
    "$py" "$here/dedup_phases.py" --ext "$ext" --db "$large" --threads "$threads" \
      --json "$work/scaling-large-$threads.json"
    first=0
  else
    "$py" "$here/dedup_phases.py" --ext "$ext" --db "$large" --threads "$threads" \
      --json "$work/scaling-large-$threads.json" | tail -n 1
  fi
  last=$((SECONDS - t0))
done
echo
echo "== done in $((SECONDS - start)) s"
