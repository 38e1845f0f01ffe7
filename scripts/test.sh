#!/usr/bin/env bash
# Every test: builds the Release build (build/) and the AddressSanitizer +
# UndefinedBehaviorSanitizer build (build-sanitize/), and runs the whole
# suite in both with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=${JOBS:-2}
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$jobs"
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DSIMHASH_SANITIZE=ON -DSIMHASH_BUILD_BENCH=OFF
cmake --build build-sanitize -j"$jobs"

echo "== sanitizer build (AddressSanitizer + UndefinedBehaviorSanitizer) =="
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-sanitize --output-on-failure -j"$jobs"
echo "== Release build =="
ctest --test-dir build --output-on-failure -j"$jobs"
