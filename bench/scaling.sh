#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# simhash_dedup's scaling over threads, for a many-core machine
# with no network and nothing installed beyond python3 (with its sqlite3
# module), bash and xz: the exact threshold join (bench/dedup_phases.py:
# wall, CPU and cores busy per phase, peak RSS; each thread count a process
# of its own) of one or more builds of the module, on the corpus's texts and
# on ten times as many rows (the texts and edited copies, as
# bench/dedup_benchmark.py builds its --growth sets).
#
#   bash bench/scaling.sh PACK.tar.xz CORPUS.db.xz [BUDGET_S]
#
# PACK.tar.xz holds lib/ (the shared libraries the modules need: ICU's uc
# and data, xxHash; fallback/ may hold a libstdc++ for an older system) and
# a folder per build, each with its simhash.so. CORPUS.db.xz is a database
# with texts(id, body), compressed with xz (bench/corpus/fetch_translations.sh
# makes translations.db). RUNS says what to run, in order, as
# set:build:threads words (set small or large), e.g.
#   RUNS="small:new:1,2,4,8,16 small:old:1,2,4,8,16 large:new:16 large:new:1"
# Each runs only if its estimate fits in what is left of BUDGET_S (default
# 420 s, from the start, the sets' making included): the rest are skipped,
# and said so. WORK (default /tmp/simhash-scaling) gets the unpacked pack,
# the corpus and the two sets (about 0.2 and 1.7 GB; kept for a rerun) and
# the runs' JSON; OUT (default WORK/out) gets runs.json, all runs by name.
# bench/BENCH.md, "Threads" (16 cores), was made by this script.
set -uo pipefail
if [[ $# -lt 2 ]]; then
  sed -n '2,25p' "$0"
  exit 2
fi
start=$SECONDS
pack=$(realpath "$1")
corpus_xz=$(realpath "$2")
budget=${3:-420}
here=$(cd "$(dirname "$0")" && pwd)
work=${WORK:-/tmp/simhash-scaling}
out=${OUT:-$work/out}
mkdir -p "$out" "$work/json"
log() { echo "[$((SECONDS - start)) s] $*"; }
left() { echo $((budget - (SECONDS - start))); }

log "machine: $(nproc) cores, $(uname -m), $(free -g | awk '/Mem:/{print $2}') GiB"
grep -m1 "model name" /proc/cpuinfo
[[ -d $work/pack ]] || { mkdir -p "$work/pack" && xz -dc "$pack" | tar -xf - -C "$work/pack"; }
any_module=$(find "$work/pack" -mindepth 2 -maxdepth 2 -name simhash.so | head -n 1)
[[ -n $any_module ]] || { log "no */simhash.so in $pack"; exit 1; }

# A python3 whose sqlite3 loads the module (the fallback libstdc++ only if
# the system's is too old for it).
check='import sqlite3, sys
c = sqlite3.connect(":memory:"); c.enable_load_extension(True); c.load_extension(sys.argv[1])
print("sqlite", sqlite3.sqlite_version, "simhash(\x27a b c\x27) =",
      c.execute("SELECT simhash(\x27a b c\x27)").fetchone()[0])'
py=""
for libs in "$work/pack/lib" "$work/pack/lib:$work/pack/fallback"; do
  for candidate in python3 /usr/bin/python3 /usr/local/bin/python3; do
    command -v "$candidate" >/dev/null 2>&1 || continue
    if LD_LIBRARY_PATH=$libs "$candidate" -c "$check" "$any_module" 2>"$work/load-error.txt"; then
      py=$(command -v "$candidate")
      export LD_LIBRARY_PATH=$libs
      break 2
    fi
    log "$candidate cannot load it: $(tail -n 1 "$work/load-error.txt")"
  done
done
[[ -n $py ]] || { log "no python3 here loads the module"; exit 1; }
log "python: $py ($("$py" --version)); LD_LIBRARY_PATH=$LD_LIBRARY_PATH"

corpus=$work/corpus.db
[[ -f $corpus ]] || { xz -dc -T0 "$corpus_xz" >"$corpus.partial" && mv "$corpus.partial" "$corpus"; }
read -r small large < <("$py" - "$here" "$corpus" "$work" <<'EOF'
import sqlite3, sys
sys.path.insert(0, sys.argv[1])
import dedup_benchmark as b
corpus, work = sys.argv[2], sys.argv[3]
total = sqlite3.connect(corpus).execute("SELECT count(*) FROM texts").fetchone()[0]
print(b.dataset(corpus, work, total), b.dataset(corpus, work, 10 * total))
EOF
)
log "sets: $small $large"
"$py" - "$large" <<'EOF'
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1]); t = time.perf_counter()
n, size = c.execute("SELECT count(*), sum(length(CAST(body AS BLOB))) FROM docs").fetchone()
print(f"reading every row: {n} rows, {size / 2**30:.2f} GiB of text, {time.perf_counter() - t:.2f} s wall")
EOF

# Seconds a run takes at most, by set and threads (on the 16-core machine
# of BENCH.md, with a margin).
declare -A small_s=([1]=12 [2]=7 [4]=4 [8]=3 [16]=3) large_s=([1]=140 [2]=75 [4]=40 [8]=28 [16]=20)
for run in ${RUNS:-}; do
  IFS=: read -r set build threads <<<"$run"
  need=0
  for t in ${threads//,/ }; do
    if [[ $set == small ]]; then need=$((need + small_s[$t])); else need=$((need + large_s[$t])); fi
  done
  if ((need > $(left))); then
    log "skipping $run: needs about $need s, $(left) s left"
    continue
  fi
  db=$small
  [[ $set == large ]] && db=$large
  "$py" "$here/dedup_phases.py" --ext "$work/pack/$build/simhash.so" --db "$db" \
    --threads "$threads" --json "$work/json/$set-$build-${threads//,/_}-$SECONDS.json" |
    sed "s/^|/| $build |/" | tail -n +3
done
log "done"
"$py" - "$work/json" "$out/runs.json" <<'EOF'
import glob, json, os, sys
runs = {os.path.basename(p)[:-5]: json.load(open(p)) for p in sorted(glob.glob(sys.argv[1] + "/*.json"))}
json.dump(runs, open(sys.argv[2], "w"), indent=1)
EOF
