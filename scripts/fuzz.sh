#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer targets in fuzz/ with clang++ (ASan + UBSan, in
# build-fuzz/), replays each target's committed seed corpus
# (fuzz/corpus/<target>/), then fuzzes each target for SECONDS (default 30),
# keeping new inputs in build-fuzz/corpus/<target>/ (not committed). Prints
# each target's executions and coverage. A crash fails the script and leaves
# the input in build-fuzz/.
#   bash scripts/fuzz.sh          # CI: 30 s per target
#   bash scripts/fuzz.sh 3600     # a longer run
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-30}
jobs=${JOBS:-2}

CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSIMHASH_BUILD_FUZZERS=ON -DSIMHASH_BUILD_TESTS=OFF -DSIMHASH_BUILD_BENCH=OFF >/dev/null
# The fuzz targets alone: they link simhash_static, and nothing here loads
# the module that a plain build would compile (the glue a second time).
fuzz_targets=()
for source in fuzz/*_fuzzer.cpp; do
  fuzz_targets+=("$(basename "$source" .cpp)")
done
cmake --build build-fuzz -j"$jobs" --target "${fuzz_targets[@]}"

export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1

# One target: its seeds replayed, then fuzzed for $seconds.
fuzz_target() {
  local target=$1
  local seeds=fuzz/corpus/$target
  local found=build-fuzz/corpus/$target
  mkdir -p "$found"
  echo "== $target: replaying $(ls "$seeds" | wc -l) seeds =="
  build-fuzz/"$target" -runs=0 "$seeds" 2>&1 | tail -n 2
  echo "== $target: fuzzing for $seconds s =="
  (cd build-fuzz && ./"$target" -max_total_time="$seconds" -print_final_stats=1 \
    -timeout=10 -rss_limit_mb=4096 "corpus/$target" "../$seeds" 2>&1) |
    grep -E "^(Done|stat::number_of_executed_units|stat::peak_rss_mb)|cov: .*(DONE|INITED)" |
    sed "s/^/$target: /"
}

# A fuzzer runs in one process on one core: $jobs targets at a time, each
# still fuzzed for $seconds, each one's lines kept together in the log (in
# the targets' order) and any one's failure failing the script.
failed=0
for ((first = 0; first < ${#fuzz_targets[@]}; first += jobs)); do
  batch=("${fuzz_targets[@]:first:jobs}")
  pids=()
  for target in "${batch[@]}"; do
    (set -euo pipefail && fuzz_target "$target") >"build-fuzz/$target.log" 2>&1 &
    pids+=("$!")
  done
  for i in "${!batch[@]}"; do
    if ! wait "${pids[$i]}"; then
      failed=1
      echo "fuzz target ${batch[$i]} failed" >&2
    fi
    cat "build-fuzz/${batch[$i]}.log"
  done
done
exit "$failed"
