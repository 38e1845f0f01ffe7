#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every test, each stage timed:
#   every C and C++ file checked against .clang-format;
#   the Release build (build/, g++) and the whole suite in it with ctest;
#   the client examples of docs/clients.md against it: Go (mattn/go-sqlite3),
#     Rust (rusqlite) and Ruby (the sqlite3 gem), Debian's packages, offline;
#   a 3-node dqlite cluster on 127.0.0.1 (examples/dqlite/, SIMHASH_DQLITE=ON
#     in build/): tests/dqlite/failover_test.py kills the leader twice under
#     a writer and checks the index on the new and the restarted leader;
#   the AddressSanitizer + UndefinedBehaviorSanitizer build (build-sanitize/)
#     and the whole suite in it;
#   a clang++ build (build-clang/) and the whole suite in it but the
#     allocation-failure sweeps;
#   cross builds for aarch64, i686 (32-bit x86) and s390x (big-endian) with
#     Debian's cross compilers and the target libraries unpacked by
#     scripts/cross-sysroot.sh (build-aarch64/, build-i686/, build-s390x/;
#     cmake/<triple>.cmake), run under qemu-user: every engine test (the
#     golden vectors included), the portable-file test against the file the
#     Release build wrote (same bytes, exact answers), and the SQL tests: on
#     the subsets S390X_SQL_TESTS on s390x (every file format and blob),
#     AARCH64_SQL_TESTS on aarch64 and I686_SQL_TESTS on i686 (each build
#     compiling only the SQL test files its subset needs, the test programs
#     at -O1: cross_build);
#   the self-contained module (build-selfcontained/, scripts/build-icu.sh,
#     the C++ runtime linked in): its dependencies (the C library alone),
#     symbol versions and exports checked, the glibc it requires printed,
#     the golden vectors in a Python process without ICU or C++ runtime,
#     its wheel tagged manylinux and installed, every engine test with the
#     built ICU, and every SQL test against the module (in a process with
#     the system's libstdc++);
#   an application that bundles its own SQLite (build-amalgamation/): the
#     amalgamation generated from Debian's source by
#     scripts/build-sqlite-amalgamation.sh (cached under .deps/) compiled in
#     with SQLITE_OMIT_LOAD_EXTENSION, tests/amalgamation/'s program checked
#     against hamming() and for no shared SQLite (two and a half minutes
#     from an empty build directory on two busy cores, seconds once built);
#   a ThreadSanitizer build (build-tsan/, clang++) of the extension, the
#     SQL test files that hold the tests that use several threads (5 of the
#     40) and the engine's tests, running those that use several threads;
#   the npm package (npm/, docs/node.md) with the self-contained x64 and the
#     aarch64 modules, installed into a scratch project (build/npm-scratch/)
#     next to better-sqlite3 12.11.1 from the npm registry (compiled there
#     once, kept; in the background from the ICU stage on), and
#     tests/node/test.js run in it;
#   the libFuzzer targets (scripts/fuzz.sh): the committed seed corpora
#     replayed, then each target fuzzed for FUZZ_SECONDS (default 30).
#
#   bash scripts/test.sh            every stage, in order
#   bash scripts/test.sh --list     the stages' names
#   bash scripts/test.sh NAME...    only the stages whose names contain one of
#                                   the words given ("Release", "s390x"), in
#                                   order; a stage's tests need its build,
#                                   from this run or an earlier one
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=${JOBS:-2}
timings=()
listing=false
only=()
if [[ ${1:-} == --list ]]; then
  listing=true
else
  only=("$@")
fi

# Whether the stage named $1 runs: every stage, or those the words select.
selected() {
  local word
  ((${#only[@]} == 0)) && return 0
  for word in "${only[@]}"; do
    [[ $1 == *"$word"* ]] && return 0
  done
  return 1
}

# The sanitizer and clang++ builds, only there to run the tests, compile the
# test programs with a precompiled GoogleTest header (cmake/build-speed.cmake):
# the same tests, less compiling (docs/development.md has the figures). The
# Release build keeps every test file compiling with nothing forced in; the
# self-contained and cross builds (g++ -Werror) go without: at -O3 GCC 12 gave
# -Warray-bounds false positives on string concatenation with the header in
# a test file (index_nearest_scan_test.cpp) that compiles clean without, and
# at the -O1 their test programs now use it saved too little to pay for
# itself (docs/development.md).
test_only_build=(-DSIMHASH_PCH=ON)

# Runs GoogleTest programs in shards (GoogleTest's GTEST_TOTAL_SHARDS and
# GTEST_SHARD_INDEX: every test in exactly one shard of its program), at most
# $1 shards at a time, each next one starting as soon as one ends:
#   shard_pool AT_ONCE SHARDS PROGRAM ARGS... [';;' SHARDS PROGRAM ARGS...]...
# in the order given (put the longest program first). Each shard's output is
# kept in its own log and printed, shard by shard, once all have finished;
# fails if any shard fails. For the stages that run test programs directly
# rather than through ctest -j (the qemu-user ones, the self-contained
# module's, ThreadSanitizer's): one process, mostly on one thread, would
# leave the second core idle, and a program's shards end unevenly (its few
# slow tests fall in one), so the next program's shards fill the core the
# first shard to end leaves, rather than waiting for the slowest
# (docs/development.md has the figures).
shard_pool() {
  local at_once=$1
  shift
  local words=() starts=() lengths=() counts=() task_group=() task_index=()
  local group i
  while (($#)); do
    counts+=("$1")
    shift
    starts+=("${#words[@]}")
    i=0
    while (($#)) && [ "$1" != ';;' ]; do
      words+=("$1")
      shift
      i=$((i + 1))
    done
    lengths+=("$i")
    if (($#)); then shift; fi
  done
  for group in "${!counts[@]}"; do
    for ((i = 0; i < counts[group]; i++)); do
      task_group+=("$group")
      task_index+=("$i")
    done
  done
  local logs next=0 failed=0 finished task
  local -A running=() # pid -> task
  local -a shard_status=()
  logs=$(mktemp -d)
  while ((next < ${#task_group[@]} || ${#running[@]} > 0)); do
    if ((next < ${#task_group[@]} && ${#running[@]} < at_once)); then
      group=${task_group[$next]}
      GTEST_TOTAL_SHARDS=${counts[$group]} GTEST_SHARD_INDEX=${task_index[$next]} \
        "${words[@]:${starts[$group]}:${lengths[$group]}}" >"$logs/$next.log" 2>&1 &
      running[$!]=$next
      next=$((next + 1))
      continue
    fi
    # wait -n on these pids only: a stage may have other jobs in the background.
    if wait -n -p finished "${!running[@]}"; then
      shard_status[${running[$finished]}]=0
    else
      shard_status[${running[$finished]}]=1
    fi
    unset "running[$finished]"
  done
  for task in "${!task_group[@]}"; do
    group=${task_group[$task]}
    echo "-- shard $((task_index[task] + 1)) of ${counts[$group]}:" \
      "${words[*]:${starts[$group]}:${lengths[$group]}}"
    cat "$logs/$task.log"
    if [ "${shard_status[$task]}" != 0 ]; then
      failed=1
      echo "shard $((task_index[task] + 1)) of ${counts[$group]} failed:" \
        "${words[*]:${starts[$group]}:${lengths[$group]}}" >&2
    fi
  done
  rm -rf "$logs"
  return "$failed"
}

# One program ("$@") as $1 shards, all at once.
sharded() {
  shard_pool "$1" "$@"
}

stage() {
  local name=$1
  shift
  if $listing; then
    echo "$name"
    return 0
  fi
  selected "$name" || return 0
  local start=$SECONDS
  current_stage=$name
  echo "== $name =="
  "$@"
  local took=$((SECONDS - start))
  timings+=("$(printf '%5d s  %s' "$took" "$name")")
  echo "== $name: ${took} s =="
}

# A stage that needs nothing built here and leaves a core idle for most of
# its time starts in the background ($1: its name, the rest: its command)
# beside the stages that follow, its output kept; joined (in a later stage)
# waits for it, prints its output and its own time, and fails if it failed.
# Its line in the stage times says it ran beside others (its seconds are
# not to be added to theirs).
current_stage=
declare -A background_pids background_logs background_from
background() {
  local name=$1 log
  shift
  if $listing; then
    echo "$name (in the background)"
    return 0
  fi
  selected "$name" || return 0
  log=$(mktemp)
  background_logs[$name]=$log
  background_from[$name]=${current_stage:-nothing}
  echo "== $name: started in the background =="
  (
    set +e
    start=$SECONDS
    (
      set -e
      "$@"
    )
    rc=$?
    echo "$((SECONDS - start))" >"$log.took"
    exit "$rc"
  ) >"$log" 2>&1 &
  background_pids[$name]=$!
}

joined() {
  local name=$1 rc=0 took
  if [[ -z ${background_pids[$name]+set} ]]; then
    return 0  # not started in this run: it ran in an earlier one
  fi
  wait "${background_pids[$name]}" || rc=$?
  echo "== $name (in the background) =="
  cat "${background_logs[$name]}"
  took=$(cat "${background_logs[$name]}.took" 2>/dev/null || echo '?')
  rm -f "${background_logs[$name]}" "${background_logs[$name]}.took"
  timings+=("$(printf '%5s s  %s (in the background after "%s", beside the stages that followed)' \
    "$took" "$name" "${background_from[$name]}")")
  echo "== $name: ${took} s in the background =="
  return "$rc"
}

release_build() {
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSIMHASH_BUILD_TESTS=ON -DSIMHASH_BUILD_BENCH=ON
  cmake --build build -j"$jobs"
}

sanitizer_build() {
  cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DSIMHASH_SANITIZE=ON \
    -DSIMHASH_BUILD_TESTS=ON -DSIMHASH_BUILD_BENCH=OFF "${test_only_build[@]}"
  cmake --build build-sanitize -j"$jobs"
}

sanitizer_tests() {
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-sanitize --output-on-failure -j"$jobs"
}

clang_build() {
  CC=clang CXX=clang++ cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=Release \
    -DSIMHASH_BUILD_TESTS=ON -DSIMHASH_BUILD_BENCH=OFF "${test_only_build[@]}"
  cmake --build build-clang -j"$jobs"
}

# The tests that run several threads at once (SQLite itself is not
# instrumented; its mutexes are still seen through pthread).
TSAN_SQL_TESTS='IndexConcurrency.*:BatchInterrupt.*:IndexCommands.Interrupt*:*.TheThreadCountChangesNothing'
# And the engine's: the thread team (its loops, meanwhile and aside), the
# builder, the joins on threads, the memory charged from several threads.
TSAN_ENGINE_TESTS='ThreadTeam.*:ParallelFor.*:RowFeatureBuilder.*:*OnThreads*:*.ThreadsShareOneLimit:SimilarPairs.*'

# sql_tests of only the files of tests/sql/ that TSAN_SQL_TESTS needs (5 of
# the 40: sql_test_files; tsan_tests checks that none is missing), as the
# cross builds do (docs/development.md has the figures), and engine_tests.
tsan_build() {
  CC=clang CXX=clang++ cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSIMHASH_TSAN=ON -DSIMHASH_BUILD_TESTS=ON -DSIMHASH_BUILD_BENCH=OFF "${test_only_build[@]}" \
    -DSIMHASH_SQL_TEST_FILES="$(sql_test_files "$TSAN_SQL_TESTS")"
  cmake --build build-tsan -j"$jobs" --target sql_tests engine_tests
}

# The SQL tests as two shards at once (docs/development.md has the
# figures), the engine's (about 10 s) in the core the first to end leaves.
tsan_tests() {
  lists_what_release_does "$TSAN_SQL_TESTS" build-tsan/sql_tests
  # A pattern whose tests were renamed would run nothing, and pass.
  local patterns pattern
  IFS=: read -ra patterns <<<"$TSAN_ENGINE_TESTS"
  for pattern in "${patterns[@]}"; do
    if ! build-tsan/engine_tests --gtest_list_tests --gtest_filter="$pattern" | grep -q '^  '; then
      echo "TSAN_ENGINE_TESTS: $pattern names no test of engine_tests" >&2
      return 1
    fi
  done
  TSAN_OPTIONS=halt_on_error=1 shard_pool "$jobs" \
    "$jobs" build-tsan/sql_tests --gtest_filter="$TSAN_SQL_TESTS" ';;' \
    1 build-tsan/engine_tests --gtest_filter="$TSAN_ENGINE_TESTS"
}

# The self-contained module (build-selfcontained/simhash.so): ICU from
# Debian's source built position-independent by scripts/build-icu.sh (its own
# stage, cached under .deps/), linked in with xxHash and the C++ runtime and
# hidden. The module and the engine its test programs link are compiled as
# users get them; the test programs' own files at -O1, as in the cross builds
# (cmake/build-speed.cmake; docs/development.md has the figures).
self_contained_build() {
  cmake -S . -B build-selfcontained -DCMAKE_BUILD_TYPE=Release -DSIMHASH_SELF_CONTAINED=ON \
    -DSIMHASH_BUILD_TESTS=ON -DSIMHASH_BUILD_BENCH=OFF -DSIMHASH_TEST_OPTIMIZATION=-O1
  cmake --build build-selfcontained -j"$jobs" --target simhash engine_tests sql_tests
}

# Its dependencies, symbol versions and exports, the glibc it requires and
# the golden vectors in a process without ICU (tests/selfcontained/), the
# Python tests with it (the wheel's among them: tagged
# manylinux_2_<glibc minor>), every engine test with the built ICU and its
# trimmed data (all the golden vectors, the ASCII fast path against ICU),
# then every SQL test against the module, from a program that has the
# system's libstdc++ and libgcc_s loaded beside the module's own. The test
# programs have that ICU linked in statically, so no ICU library is on their
# path either.
self_contained_tests() {
  # Directly rather than through ctest, so the log shows its dependencies,
  # exports and size.
  bash tests/selfcontained/check_module.sh build-selfcontained/simhash.so
  ctest --test-dir build-selfcontained --output-on-failure -R '^python[.]'
  if ldd build-selfcontained/engine_tests build-selfcontained/sql_tests | grep -Ei 'icu|xxhash'; then
    echo "a test program of build-selfcontained/ loads ICU or xxHash" >&2
    return 1
  fi
  # As many shards at a time as cores, not more: the SQL tests include the
  # interrupt and progress-handler timings, which ctest -j runs beside one
  # other test only (four shards at once on two busy cores failed three of
  # them). The SQL tests in twice as many shards as cores, then the engine
  # tests, each next shard starting as one ends: of two SQL shards, one ran
  # 64 s and the other 36, the second core idle meanwhile.
  shard_pool "$jobs" $((jobs * 2)) build-selfcontained/sql_tests --gtest_brief=1 ';;' \
    "$jobs" build-selfcontained/engine_tests --gtest_brief=1
}

# An application with its own SQLite, as docs/embedding.md has it: -DSIMHASH_SQLITE_AMALGAMATION makes simhash_static compile against and
# link that sqlite3.c. Only the application and what it links are built.
bundled_sqlite() {
  local amalgamation
  amalgamation=$(bash scripts/build-sqlite-amalgamation.sh | tail -n 1)
  cmake -S . -B build-amalgamation -DCMAKE_BUILD_TYPE=Release -DSIMHASH_BUILD_TESTS=ON -DSIMHASH_BUILD_BENCH=OFF \
    -DSIMHASH_SQLITE_AMALGAMATION="$amalgamation" \
    -DSIMHASH_SQLITE_AMALGAMATION_DEFINITIONS=SQLITE_OMIT_LOAD_EXTENSION
  cmake --build build-amalgamation -j"$jobs" --target bundled_sqlite_app
  # Directly rather than through ctest, so the log shows the program's line.
  bash tests/amalgamation/check_app.sh build-amalgamation/bundled_sqlite_app "$amalgamation" \
    build-amalgamation/CMakeFiles/simhash_static.dir omitted
}

# The database file the cross builds must read and write byte for byte.
portable_file() {
  rm -f build/portable.db
  SIMHASH_PORTABLE_DB=build/portable.db build/sql_tests --gtest_brief=1 \
    --gtest_filter='PortableFile.*'
}

# Turns SIMHASH_DQLITE on in the Release build, builds the node program and
# runs the failover test, which stops its nodes and gives up by itself after
# 150 s; timeout is the backstop.
dqlite_failover() {
  cmake -S . -B build -DSIMHASH_DQLITE=ON -DSIMHASH_BUILD_TESTS=ON
  cmake --build build -j"$jobs" --target simhash_dqlite_node
  timeout 200 python3 tests/dqlite/failover_test.py build/simhash_dqlite_node --timeout 150
}

# The files of tests/sql/ that define the tests a GoogleTest filter ($1)
# names in its positive part, as a ;-list for SIMHASH_SQL_TEST_FILES
# (cmake/build-speed.cmake): by suite, TEST(Suite, ...), TEST_F or TEST_P
# at the start of a line; where the suite is a wildcard (*.Name), by the
# test's name as declared, TEST(..., Name). Empty where a pattern names
# neither (such as *Interrupt*), meaning every file. lists_what_release_does
# checks the result: the program lists what the full one does.
sql_test_files() {
  local patterns pattern suite name regex files=() file
  IFS=: read -ra patterns <<<"${1%%-*}"
  for pattern in "${patterns[@]}"; do
    suite=${pattern#*/} # Plans/IndexDifferential.*: the instantiation's prefix
    name=${suite#*.}
    suite=${suite%%.*}
    if [ -z "$suite" ]; then
      return 0
    fi
    if [ "${suite#\*}" != "$suite" ]; then
      # A wildcard suite: by the test's name, when it names one.
      if [ "$name" = "$pattern" ] || [ -z "${name//[*?]/}" ] || [[ "$name" == *[!A-Za-z0-9_*?]* ]]; then
        return 0
      fi
      name=${name//\*/[A-Za-z0-9_]*}
      regex="[A-Za-z0-9_]+\s*,\s*${name//\?/[A-Za-z0-9_]}\s*\)"
    else
      suite=${suite//\*/[A-Za-z0-9_]*}
      regex="${suite//\?/[A-Za-z0-9_]}\s*,"
    fi
    for file in $(grep -lE "^\s*(TEST|TEST_F|TEST_P)\(\s*${regex}" tests/sql/*.cpp); do
      files+=("$(basename "$file")")
    done
  done
  printf '%s\n' "${files[@]}" | sort -u | paste -sd ';'
}

# $1: a GoogleTest filter of SQL tests; the rest: the command of a sql_tests
# built of the files sql_test_files chose for that filter. Fails unless it
# lists the same tests under the filter as the Release build's program
# (every file): the same names, or a test would silently not run. Without
# the parameters' printed values, which show the target's byte order.
lists_what_release_does() {
  local filter=$1 ours theirs
  shift
  theirs=$(build/sql_tests --gtest_list_tests --gtest_filter="$filter" | sed 's/ *#.*//')
  ours=$("$@" --gtest_list_tests --gtest_filter="$filter" | sed 's/ *#.*//')
  if [ "$ours" != "$theirs" ]; then
    echo "$* lacks SQL tests of its filter that build/sql_tests has:" >&2
    diff <(echo "$theirs") <(echo "$ours") >&2 || true
    return 1
  fi
}

# $1: the Debian architecture, $2: the processor (cmake/$2-linux-gnu.cmake),
# $3: the filter of the SQL tests the stage runs. The build exists to run
# tests under qemu-user: sql_tests is made of the files that filter needs
# (10 of the 40 on aarch64 and i686, 19 on s390x; a test file costs about
# 10 CPU s at -O3), and the test programs' own files are compiled at -O1
# rather than -O3; the engine and the module they test are compiled as in
# every Release build (cmake/build-speed.cmake; docs/development.md has the
# figures).
cross_build() {
  bash scripts/cross-sysroot.sh "$1"
  cmake -S . -B "build-$2" -DCMAKE_TOOLCHAIN_FILE="cmake/$2-linux-gnu.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DSIMHASH_BUILD_TESTS=ON -DSIMHASH_BUILD_BENCH=OFF \
    -DSIMHASH_TEST_OPTIMIZATION=-O1 -DSIMHASH_SQL_TEST_FILES="$(sql_test_files "$3")"
  cmake --build "build-$2" -j"$jobs" --target simhash engine_tests sql_tests
}

# The SQL tests the aarch64 build runs: the portable file, the differential
# tests of the index (but its slowest plan) and of the batch functions, the
# query forms, and the fingerprint functions.
AARCH64_SQL_TESTS='PortableFile.*:FormatFile.*:SimilarFormatFile.*:Plans/IndexDifferential.*:BatchSql.*:BatchBetween.*'\
':Nearest.*:DistanceBounds.*:Simhash.*:SimhashAgg.*:Hamming.*-*k3_blocks7'

# The two the npm stage runs against the packed arm64 module, with the
# aarch64 build's program (whose files are chosen for both filters).
NPM_ARM64_SQL_TESTS='Simhash.NullText*:Simhash.Normalization*'

# i686 runs them but the index's differential tests (a minute and a half
# under qemu there, and the same code aarch64 and s390x run them on): what
# 32 bits change (size_t, the x87 unit) is in the engine, whose tests all
# run, and in the file format, the fingerprints and the bucket growth
# (64-bit row ids and bucket counts), tested here.
I686_SQL_TESTS='PortableFile.*:FormatFile.*:SimilarFormatFile.*:BatchSql.*:BatchBetween.*:Nearest.*:DistanceBounds.*'\
':Simhash.*:SimhashAgg.*:Hamming.*:IndexGrowth.*'

# qemu-i386 (Debian 12's qemu-user) never returns from a program that
# starts a thread: a ten-line std::thread test spins forever there, while
# qemu-aarch64 and qemu-s390x run it. So i686 leaves out the engine tests
# that start threads; the same code runs on the host, under TSan, and on
# aarch64 and s390x.
I686_ENGINE_TESTS='-RowFeatureBuilder.*:ParallelFor.*:ThreadTeam.*:JoinStop.*:MemoryBudget.ThreadsShareOneLimit'\
':VerifiedDedup.ThresholdJoinOnThreads*:VerifiedDedup.WithinRadiusOnThreads*'\
':SimilarPairs.OneTableEqualsBruteForce'\
':SimilarPairs.NewRowsAgainstKeptOnesEqualBruteForce'\
':PartitionedDedup.EqualsTheInMemoryJoinOnThreads:PartitionedPairs.EqualsTheInMemoryJoinOnThreads'\
':SimilarPairs.BatchesOfPairsAreThePairs'

# s390x, the big-endian one, runs the SQL tests where byte order could
# show: every file format and blob the extension writes or reads (the
# portable file, the committed format files, the index's differential,
# growth, NULL-fingerprint and damaged-file tests, simhash_similar's rows
# and postings), the fingerprints and features as SQL sees them, and the
# batch functions over them. Left out, as on aarch64 and i686: what is SQL
# semantics or timing on top of the same code (triggers and recipes,
# processes, concurrency, interrupts, the ten-megabyte texts, the index's
# slowest plan), which the native builds run; about half the stage's time.
S390X_SQL_TESTS='PortableFile.*:FormatFile.*:SimilarFormatFile.*:Plans/IndexDifferential.*:IndexGrowth.*'\
':IndexNullFingerprint.*:IndexDamagedBucket.*:IndexDamagedCounter.*:IndexHostileFile.*'\
':BatchSql.*:BatchBetween.*:BatchRadiusNull.*:Nearest.*:DistanceBounds.*:Simhash.*:SimhashAgg.*'\
':SimhashHex.*:SimhashFeatures.*:Hamming.*:SimilarTable.*:SimilarHostileFile.*:SimhashDedup.*'\
':SimhashVerifiedPairs*-*k3_blocks7:*TenMegabyteText*:*Interrupt*:*ProgressHandler*'

# The npm package (npm/, scripts/build-npm.sh: the self-contained x64 module
# and the aarch64 cross build's) installed into a scratch project next to
# better-sqlite3 12.11.1 from the npm registry, and tests/node/test.js run
# there. better-sqlite3 compiles itself (SQLite included) with node-gyp
# against Debian's Node headers (--nodedir=/usr) once: the scratch project
# (build/npm-scratch/) is kept, so later runs only pack and install the
# tarball (seconds).
npm_scratch=build/npm-scratch

# better-sqlite3 12 supports Node 20 and later (Debian 12's own nodejs is
# 18; NodeSource's 20 is what this was tested with).
# A machine with an older Node skips the stage, saying so, rather than
# failing every other stage's result with it.
node_too_old() {
  [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]
}

# better-sqlite3 into the scratch project, once. Its install compiles its
# own SQLite, one C file: about 70 CPU s on one core, the rest idle (the
# whole npm stage took 73 s). It needs only Node and the registry, so
# scripts/test.sh runs it in the background from the ICU stage on, whose
# configure script leaves a core idle too, and node_client joins it
# (docs/development.md has the figures). It has long ended before the next
# timing tests (the self-contained module's): ICU and the self-contained
# build take some six minutes of two cores, it about 80 CPU s of one.
better_sqlite3_install() {
  if node_too_old; then
    return 0
  fi
  mkdir -p "$npm_scratch"
  [ -f "$npm_scratch/package.json" ] || (cd "$npm_scratch" && npm init -y >/dev/null)
  if [ ! -f "$npm_scratch/node_modules/better-sqlite3/build/Release/better_sqlite3.node" ]; then
    (cd "$npm_scratch" && npm install --no-audit --no-fund --save-exact --nodedir=/usr better-sqlite3@12.11.1)
  fi
}

node_client() {
  local scratch=$npm_scratch tarball root=$PWD
  joined "better-sqlite3 install (npm)"
  if node_too_old; then
    echo "SKIPPED: better-sqlite3 12.11.1 needs Node 20 or later; this is Node $(node --version)" >&2
    return 0
  fi
  tarball=$(bash scripts/build-npm.sh build/npm-dist | tail -n 1)
  # (grep reads the whole list: -q would stop tar with SIGPIPE, a failure under pipefail)
  tar -tzf "$tarball" | grep -x package/lib/linux-arm64/simhash.so >/dev/null ||
    { echo "$tarball holds no arm64 module" >&2; return 1; }
  # The arm64 module as packed, loaded and asked by the aarch64 build's test
  # program under qemu (SIMHASH_TEST_MODULE: tests/support/test_database.cpp);
  # two quick fingerprint tests, a few seconds.
  local arm64=build/npm-arm64
  rm -rf "$arm64" && mkdir -p "$arm64"
  tar -xzf "$tarball" -C "$arm64" package/lib/linux-arm64/simhash.so
  (cd build-aarch64 && SIMHASH_TEST_MODULE="$root/$arm64/package/lib/linux-arm64/simhash.so" \
    qemu-aarch64 -L /usr/aarch64-linux-gnu \
    -E "LD_LIBRARY_PATH=$root/.cross/aarch64-linux-gnu/usr/lib/aarch64-linux-gnu" \
    ./sql_tests --gtest_brief=1 --gtest_filter="$NPM_ARM64_SQL_TESTS")
  (cd "$scratch" && npm install --no-audit --no-fund --nodedir=/usr "$tarball")
  cp tests/node/test.js "$scratch/"
  (cd "$scratch" && node test.js "$root")
}

# The examples of docs/clients.md, each against the Release build's module:
# Go (mattn/go-sqlite3 in GOPATH mode, linked to the system's SQLite; its
# build cache kept in build/go-cache), Rust (rusqlite from Debian's crates,
# target kept in build/rust-example) and Ruby (the sqlite3 gem).
go_client() {
  GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="$PWD/build/go-cache" GOFLAGS= \
    go run -tags libsqlite3 ./examples/go build/simhash.so
}

rust_client() {
  mkdir -p build/cargo-home
  printf '%s\n' '[source.crates-io]' 'replace-with = "debian"' '[source.debian]' \
    'directory = "/usr/share/cargo/registry"' >build/cargo-home/config.toml
  CARGO_HOME="$PWD/build/cargo-home" CARGO_TARGET_DIR="$PWD/build/rust-example" \
    /usr/bin/cargo run --offline --quiet --manifest-path examples/rust/Cargo.toml -- build/simhash.so
}

# $1: the processor, $2: a GoogleTest filter for the SQL tests, $3: one for
# the engine tests (default: all).
cross_tests() {
  local triple=$1-linux-gnu qemu=qemu-$1 multiarch=$1-linux-gnu
  # Debian's i386 names its library directory and qemu after the architecture.
  if [ "$1" = i686 ]; then
    qemu=qemu-i386
    multiarch=i386-linux-gnu
  fi
  local run=("$qemu" -L "/usr/$triple" -E "LD_LIBRARY_PATH=$PWD/.cross/$triple/usr/lib/$multiarch")
  # qemu-user hands its environment (the shard variables) to the program.
  # Twice as many shards as cores at a time: of two shards, one of the
  # aarch64 SQL subset ran 632 s and the other 388 (its few slow tests fall
  # unevenly; a busy machine's wall clock); four even that out. The SQL
  # tests' shards first (the longest on aarch64 and s390x), then the
  # engine tests', each next one starting as one ends.
  local shards=$((jobs * 2))
  # The SQL tests the filter selects, as the cross build's program has them
  # (of the files cross_build chose) and as the Release build's has them.
  lists_what_release_does "$2" "${run[@]}" "build-$1/sql_tests"
  (cd "build-$1" && shard_pool "$shards" \
    "$shards" env SIMHASH_PORTABLE_DB=../build/portable.db "${run[@]}" ./sql_tests --gtest_brief=1 \
    --gtest_filter="$2" ';;' "$shards" "${run[@]}" ./engine_tests --gtest_brief=1 --gtest_filter="${3:-*}")
}

# Every tracked C and C++ file as .clang-format lays it out (a list of the
# files and lines that differ, and a failure, otherwise).
format_check() {
  git ls-files -z '*.c' '*.cpp' '*.h' | xargs -0 clang-format --dry-run --Werror
}

stage "clang-format (every C and C++ file)" format_check
stage "Release build (g++)" release_build
stage "Release tests" ctest --test-dir build --output-on-failure -j"$jobs"
stage "Go example (mattn/go-sqlite3)" go_client
stage "Rust example (rusqlite)" rust_client
stage "Ruby example (sqlite3 gem)" ruby examples/ruby/dedup.rb build/simhash.so
stage "dqlite cluster failover (3 nodes, 127.0.0.1)" dqlite_failover
stage "ASan+UBSan build" sanitizer_build
stage "ASan+UBSan tests" sanitizer_tests
stage "clang++ build" clang_build
# The clang++ build runs the whole suite but the two allocation-failure sweeps
# (a minute and a half each, the same allocation points as in the Release
# and ASan builds, which run them).
stage "clang++ tests" ctest --test-dir build-clang --output-on-failure -j"$jobs" \
  -E '^(OutOfMemory|DedupMemory)[.]'
stage "ThreadSanitizer build" tsan_build
stage "ThreadSanitizer tests" tsan_tests
background "better-sqlite3 install (npm)" better_sqlite3_install
stage "ICU for the self-contained module (static, PIC)" bash scripts/build-icu.sh
stage "self-contained module build" self_contained_build
stage "self-contained module tests" self_contained_tests
stage "SQLite amalgamation (Debian source)" bash scripts/build-sqlite-amalgamation.sh
stage "bundled SQLite app (amalgamation, no load_extension)" bundled_sqlite
stage "portable database file (Release)" portable_file
stage "aarch64 cross build" cross_build arm64 aarch64 "$NPM_ARM64_SQL_TESTS:$AARCH64_SQL_TESTS"
stage "aarch64 tests (qemu-user)" cross_tests aarch64 "$AARCH64_SQL_TESTS"
stage "npm package (better-sqlite3)" node_client
stage "i686 cross build (32-bit x86)" cross_build i386 i686 "$I686_SQL_TESTS"
stage "i686 tests (qemu-user)" cross_tests i686 "$I686_SQL_TESTS" "$I686_ENGINE_TESTS"
stage "s390x cross build" cross_build s390x s390x "$S390X_SQL_TESTS"
stage "s390x tests (qemu-user)" cross_tests s390x "$S390X_SQL_TESTS"
stage "fuzz targets (${FUZZ_SECONDS:-30} s each)" bash scripts/fuzz.sh "${FUZZ_SECONDS:-30}"

$listing && exit 0
echo "== stage times =="
printf '%s\n' "${timings[@]}"
