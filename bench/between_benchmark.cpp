// SPDX-License-Identifier: MIT
// New data against an existing collection: an index `old`
// of N fingerprints (95% random, 5% planted near-duplicates of earlier rows)
// and an index `new` of M (a tenth edited copies of old rows, 0..4 bits
// flipped, the rest random), both k=3 in one database file; then the medians
// of
//   SELECT count(*) FROM simhash_pairs_between('new', 'old', 3)
//   SELECT count(*) FROM new AS n JOIN old AS o ON o.fp MATCH n.fp AND o.distance <= 3
// (one index probe per new row, the way to do it before), checking that the
// two counts agree.
//
// Usage: build/between_benchmark [old=10000000] [new=1000000] [repeats=3]
//        [join_repeats=3] [db=/tmp/simhash_between_<old>_<new>.db]
// An existing database of the same sizes is reused.
#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench_support.h"

namespace {

using simhash::bench::arg;
using simhash::bench::count_of;
using simhash::bench::exec;
using simhash::bench::fail;
using simhash::bench::measure;
using simhash::bench::Timing;

std::uint64_t flip_bits(std::uint64_t fp, int count, std::mt19937_64& random) {
  for (int i = 0; i < count; ++i) {
    fp ^= std::uint64_t{1} << (random() % 64);
  }
  return fp;
}

void fill(sqlite3* db, const std::string& table, const std::vector<std::uint64_t>& fps) {
  exec(db, "DROP TABLE IF EXISTS " + table + "; CREATE VIRTUAL TABLE " + table +
               " USING simhash_index(k=3); BEGIN");
  sqlite3_stmt* insert = nullptr;
  const std::string sql = "INSERT INTO " + table + "(rowid, fp) VALUES (?1, ?2)";
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &insert, nullptr) != SQLITE_OK) {
    fail(db, sql);
  }
  for (std::size_t i = 0; i < fps.size(); ++i) {
    sqlite3_bind_int64(insert, 1, static_cast<sqlite3_int64>(i) + 1);
    sqlite3_bind_int64(insert, 2, static_cast<sqlite3_int64>(fps[i]));
    if (sqlite3_step(insert) != SQLITE_DONE) {
      fail(db, sql);
    }
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);
  exec(db, "COMMIT");
}

void build(sqlite3* db, std::size_t old_rows, std::size_t new_rows) {
  std::mt19937_64 random(20261123);
  std::vector<std::uint64_t> old_fps;
  old_fps.reserve(old_rows);
  for (std::size_t i = 0; i < old_rows; ++i) {
    old_fps.push_back(i > 0 && random() % 100 < 5
                          ? flip_bits(old_fps[random() % i], static_cast<int>(random() % 4), random)
                          : random());
  }
  std::vector<std::uint64_t> new_fps;
  new_fps.reserve(new_rows);
  for (std::size_t i = 0; i < new_rows; ++i) {
    new_fps.push_back(random() % 10 == 0 ? flip_bits(old_fps[random() % old_rows],
                                                     static_cast<int>(random() % 5), random)
                                         : random());
  }
  fill(db, "old", old_fps);
  fill(db, "new", new_fps);
}

void print(const char* what, const Timing& timing) {
  std::printf("%-64s %8.3f %8.3f %10lld\n", what, timing.median_seconds, timing.median_cpu_seconds,
              static_cast<long long>(timing.result));
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t old_rows = std::stoull(arg(argc, argv, "old", "10000000"));
  const std::size_t new_rows = std::stoull(arg(argc, argv, "new", "1000000"));
  const int repeats = std::stoi(arg(argc, argv, "repeats", "3"));
  const int join_repeats = std::stoi(arg(argc, argv, "join_repeats", "3"));
  const std::string path = arg(
      argc, argv, "db",
      "/tmp/simhash_between_" + std::to_string(old_rows) + "_" + std::to_string(new_rows) + ".db");
  if (old_rows == 0 || new_rows == 0 || repeats < 1 || join_repeats < 1) {
    std::fprintf(stderr, "old, new, repeats and join_repeats must be positive\n");
    return 2;
  }

  sqlite3* db = simhash::bench::open_with_extension(path);
  exec(db, "PRAGMA cache_size = -4000000");  // 4 GB: measure the search, not the disk
  const auto count_rows = [&](const char* table) {
    return count_of(db, std::string("SELECT count(*) FROM sqlite_schema WHERE name = '") + table +
                            "'") == 1
               ? count_of(db, std::string("SELECT count(*) FROM ") + table + "_data")
               : -1;
  };
  if (count_rows("old") == static_cast<std::int64_t>(old_rows) &&
      count_rows("new") == static_cast<std::int64_t>(new_rows)) {
    std::printf("reusing %s\n", path.c_str());
  } else {
    const auto start = std::chrono::steady_clock::now();
    build(db, old_rows, new_rows);
    std::printf("built old (%zu rows) and new (%zu rows) in %.1f s (%s)\n", old_rows, new_rows,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                path.c_str());
  }
  // Warm the page cache once so every timed run reads from memory.
  count_of(db, "SELECT count(fp) FROM old_data");
  count_of(db, "SELECT count(*) FROM old_buckets");
  count_of(db, "SELECT count(fp) FROM new_data");

  const Timing between = measure(repeats, [&] {
    return count_of(db, "SELECT count(*) FROM simhash_pairs_between('new', 'old', 3)");
  });
  const Timing join = measure(join_repeats, [&] {
    return count_of(db,
                    "SELECT count(*) FROM new AS n JOIN old AS o ON o.fp MATCH n.fp AND "
                    "o.distance <= 3");
  });

  std::printf("old %zu rows, new %zu rows, k=3, radius 3\n", old_rows, new_rows);
  std::printf("%-64s %8s %8s %10s\n", "median of runs", "wall s", "CPU s", "pairs");
  print("SELECT count(*) FROM simhash_pairs_between('new', 'old', 3)", between);
  print("join: new AS n JOIN old AS o ON o.fp MATCH n.fp AND o.distance <= 3", join);
  std::printf("join / simhash_pairs_between: %.1fx wall, %.1fx CPU\n",
              join.median_seconds / between.median_seconds,
              join.median_cpu_seconds / between.median_cpu_seconds);
  sqlite3_close(db);
  if (between.result != join.result) {
    std::fprintf(stderr, "MISMATCH: simhash_pairs_between %lld, join %lld\n",
                 static_cast<long long>(between.result), static_cast<long long>(join.result));
    return 1;
  }
  return 0;
}
