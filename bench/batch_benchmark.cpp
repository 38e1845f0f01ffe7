// SPDX-License-Identifier: MIT
// Batch near-duplicate detection at scale: N fingerprints (95% random, 5%
// planted near-duplicates 0..3 bits from an earlier row) in a simhash_index
// in a database file, then, on one core, the medians of
//   SELECT count(*) FROM simhash_pairs('near')
//   SELECT count(*) FROM simhash_clusters('near')    (leader grouping)
//   SELECT count(*) FROM simhash_components('near')  (single link, the baseline)
//   the engine alone (PairFinder over the rows already in memory)
//   the self-join baseline through the index:
//   SELECT count(*) FROM near a JOIN near b ON b.fp MATCH a.fp AND b.distance <= 3
//   WHERE a.rowid < b.rowid
// and checks that the pair counts agree.
//
// Usage: build/batch_benchmark [rows=1000000] [repeats=5] [join_repeats=3] [database]
// (join_repeats=0 leaves the self-join out: at 100M rows it would take hours)
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "batch/pair_finder.h"
#include "bench_support.h"

namespace {

using simhash::bench::count_of;
using simhash::bench::exec;
using simhash::bench::fail;
using simhash::bench::measure;
using simhash::bench::Timing;

using Clock = std::chrono::steady_clock;

void print(const char* what, const Timing& timing) {
  std::printf("%-56s %8.3f %8.3f %10lld\n", what, timing.median_seconds, timing.median_cpu_seconds,
              static_cast<long long>(timing.result));
}

std::vector<simhash::IdFingerprint> make_rows(std::size_t count) {
  std::mt19937_64 random(20261121);
  std::vector<simhash::IdFingerprint> rows;
  rows.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t fp = random();
    if (i > 0 && random() % 100 < 5) {
      // A near-duplicate of an earlier row: 0 to 3 random bits flipped.
      fp = rows[random() % i].fp;
      const int flips = static_cast<int>(random() % 4);
      for (int f = 0; f < flips; ++f) {
        fp ^= std::uint64_t{1} << (random() % 64);
      }
    }
    rows.push_back(simhash::IdFingerprint{static_cast<std::int64_t>(i + 1), fp});
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t rows_wanted = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  const int join_repeats = argc > 3 ? std::atoi(argv[3]) : 3;
  const std::string path =
      argc > 4 ? argv[4] : "/tmp/simhash_batch_benchmark_" + std::to_string(rows_wanted) + ".db";

  sqlite3* db = simhash::bench::open_with_extension(path);
  exec(db, "PRAGMA cache_size = -1000000");  // 1 GB: measure the search, not the disk

  const std::vector<simhash::IdFingerprint> rows = make_rows(rows_wanted);
  const bool reuse =
      count_of(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'near'") == 1 &&
      count_of(db, "SELECT count(*) FROM near_data") == static_cast<std::int64_t>(rows.size());
  if (!reuse) {
    const auto start = Clock::now();
    exec(db, "DROP TABLE IF EXISTS near; CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
    exec(db, "BEGIN");
    sqlite3_stmt* insert = nullptr;
    sqlite3_prepare_v2(db, "INSERT INTO near(rowid, fp) VALUES (?1, ?2)", -1, &insert, nullptr);
    for (const auto& row : rows) {
      sqlite3_bind_int64(insert, 1, row.id);
      sqlite3_bind_int64(insert, 2, static_cast<sqlite3_int64>(row.fp));
      if (sqlite3_step(insert) != SQLITE_DONE) {
        fail(db, "insert");
      }
      sqlite3_reset(insert);
    }
    sqlite3_finalize(insert);
    exec(db, "COMMIT");
    std::printf("built the index of %zu rows in %.1f s (%s)\n", rows.size(),
                std::chrono::duration<double>(Clock::now() - start).count(), path.c_str());
  } else {
    std::printf("reusing the index of %zu rows in %s\n", rows.size(), path.c_str());
  }
  // Warm the page cache once so every timed run reads from memory.
  count_of(db, "SELECT count(fp) FROM near_data");

  const Timing pairs =
      measure(repeats, [&] { return count_of(db, "SELECT count(*) FROM simhash_pairs('near')"); });
  const Timing clusters = measure(
      repeats, [&] { return count_of(db, "SELECT count(*) FROM simhash_clusters('near')"); });
  const Timing components = measure(
      repeats, [&] { return count_of(db, "SELECT count(*) FROM simhash_components('near')"); });
  const Timing read = measure(repeats, [&] {
    return count_of(db, "SELECT count(*) FROM (SELECT id, fp FROM near_data ORDER BY id)");
  });
  const Timing engine = measure(repeats, [&] {
    simhash::PairFinder finder(rows, 3);
    std::vector<simhash::NearPair> batch;
    std::int64_t count = 0;
    while (finder.next(batch)) {
      count += static_cast<std::int64_t>(batch.size());
    }
    return count;
  });
  const Timing join = measure(std::max(join_repeats, 0), [&] {
    return count_of(db,
                    "SELECT count(*) FROM near a JOIN near b ON b.fp MATCH a.fp AND "
                    "b.distance <= 3 WHERE a.rowid < b.rowid");
  });

  std::printf("rows %zu, radius 3, plan: %s\n", rows.size(),
              simhash::PairFinder(rows, 3).plan().describe().c_str());
  std::printf("%-56s %8s %8s %10s\n", "median of runs", "wall s", "CPU s", "result");
  print("SELECT count(*) FROM simhash_pairs('near')", pairs);
  print("SELECT count(*) FROM simhash_clusters('near')", clusters);
  print("SELECT count(*) FROM simhash_components('near')", components);
  print("  reading near_data alone (SELECT id, fp ... ORDER BY id)", read);
  print("  engine alone (PairFinder over the rows in memory)", engine);
  if (join_repeats > 0) {
    print("self-join: near a JOIN near b ON b.fp MATCH a.fp ...", join);
  }
  std::printf("clusters of 2+ rows: %lld\n",
              static_cast<long long>(
                  count_of(db,
                           "SELECT count(*) FROM (SELECT cluster FROM simhash_clusters('near') "
                           "GROUP BY cluster HAVING count(*) > 1)")));
  std::printf(
      "simhash_clusters / simhash_components (leader / single link): %.2fx wall, "
      "%.2fx CPU\n",
      clusters.median_seconds / components.median_seconds,
      clusters.median_cpu_seconds / components.median_cpu_seconds);
  if (join_repeats > 0) {
    std::printf("self-join / simhash_pairs: %.1fx wall, %.1fx CPU\n",
                join.median_seconds / pairs.median_seconds,
                join.median_cpu_seconds / pairs.median_cpu_seconds);
  }
  if ((join_repeats > 0 && pairs.result != join.result) || pairs.result != engine.result) {
    std::fprintf(stderr, "MISMATCH: pairs %lld, engine %lld, self-join %lld\n",
                 static_cast<long long>(pairs.result), static_cast<long long>(engine.result),
                 static_cast<long long>(join.result));
    return 1;
  }
  sqlite3_close(db);
  return 0;
}
