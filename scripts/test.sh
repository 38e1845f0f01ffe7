#!/usr/bin/env bash
# Every test, each stage timed:
#   the Release build (build/, g++) and the whole suite in it with ctest;
#   the AddressSanitizer + UndefinedBehaviorSanitizer build (build-sanitize/)
#     and the whole suite in it;
#   a clang++ build (build-clang/) and the whole suite in it;
#   an aarch64 cross build (build-aarch64/, Debian's g++-aarch64-linux-gnu
#     and the arm64 -dev packages, cmake/aarch64-linux-gnu.cmake) of the
#     extension and the engine tests, which run under qemu-user: every engine
#     test, the golden vectors included (the SQL suite is left out: under
#     qemu it takes over ten minutes);
#   a ThreadSanitizer build (build-tsan/, clang++) of the extension and the
#     SQL tests, running the tests that use several threads;
#   the libFuzzer targets (scripts/fuzz.sh): the committed seed corpora
#     replayed, then each target fuzzed for FUZZ_SECONDS (default 30).
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=${JOBS:-2}
timings=()

stage() {
  local name=$1
  shift
  local start=$SECONDS
  echo "== $name =="
  "$@"
  local took=$((SECONDS - start))
  timings+=("$(printf '%5d s  %s' "$took" "$name")")
  echo "== $name: ${took} s =="
}

release_build() {
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
  cmake --build build -j"$jobs"
}

sanitizer_build() {
  cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DSIMHASH_SANITIZE=ON \
    -DSIMHASH_BUILD_BENCH=OFF
  cmake --build build-sanitize -j"$jobs"
}

sanitizer_tests() {
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-sanitize --output-on-failure -j"$jobs"
}

clang_build() {
  CC=clang CXX=clang++ cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=Release \
    -DSIMHASH_BUILD_BENCH=OFF
  cmake --build build-clang -j"$jobs"
}

tsan_build() {
  CC=clang CXX=clang++ cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSIMHASH_TSAN=ON -DSIMHASH_BUILD_BENCH=OFF
  cmake --build build-tsan -j"$jobs" --target sql_tests
}

# The tests that run several threads at once (SQLite itself is not
# instrumented; its mutexes are still seen through pthread).
tsan_tests() {
  TSAN_OPTIONS=halt_on_error=1 build-tsan/sql_tests \
    --gtest_filter='IndexConcurrency.*:BatchInterrupt.*:IndexCommands.Interrupt*'
}

aarch64_build() {
  cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
    -DCMAKE_BUILD_TYPE=Release -DSIMHASH_BUILD_BENCH=OFF
  cmake --build build-aarch64 -j"$jobs" --target simhash engine_tests
}

aarch64_tests() {
  (cd build-aarch64 && qemu-aarch64 -L /usr/aarch64-linux-gnu ./engine_tests --gtest_brief=1)
}

stage "Release build (g++)" release_build
stage "Release tests" ctest --test-dir build --output-on-failure -j"$jobs"
stage "ASan+UBSan build" sanitizer_build
stage "ASan+UBSan tests" sanitizer_tests
stage "clang++ build" clang_build
stage "clang++ tests" ctest --test-dir build-clang --output-on-failure -j"$jobs"
stage "ThreadSanitizer build" tsan_build
stage "ThreadSanitizer tests" tsan_tests
stage "aarch64 cross build" aarch64_build
stage "aarch64 engine tests (qemu-user)" aarch64_tests
stage "fuzz targets (${FUZZ_SECONDS:-30} s each)" bash scripts/fuzz.sh "${FUZZ_SECONDS:-30}"

echo "== stage times =="
printf '%s\n' "${timings[@]}"
