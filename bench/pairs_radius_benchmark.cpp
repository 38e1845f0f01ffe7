// SPDX-License-Identifier: MIT
// simhash_pairs and simhash_clusters at several radii over one index: where
// their time goes and what a popcount loop over
// the same codes in memory costs. For each radius, CPU time of this thread:
//   pairs     SELECT count(*) FROM simhash_pairs('near', r)
//   clusters  SELECT count(*) FROM simhash_clusters('near', r)
//   read      SELECT id, fp FROM near_data ORDER BY id (what both read first)
//   engine    PairFinder over the rows already in memory (the plan it chose),
//             in this program's build of the engine; on the first
//             `engine_rows` rows only, if given (then no SQL: the
//             statements read every row; engine_rows=0: the SQL alone)
//   loop      every pair compared by one POPCNT loop, i < j: timed on the
//             first `sample` rows against all later ones, scaled to all pairs
// The index is nearest_benchmark's table `near` in a database file (make it
// with `nearest_benchmark rows=N data=uniform|real db=FILE`). With base=PATH
// (another build's simhash.so) the two SQL statements also run on a second
// connection that loaded it, alternating new, base, new, base, and the
// counts must agree.
//
// usage: pairs_radius_benchmark db=FILE [radii=3,6,10,16] [sql_radii=3,6,10]
//          [repeats=3] [sample=2000] [engine_rows=N] [base=PATH]
#include <sqlite3.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "batch/pair_finder.h"
#include "bench_support.h"
#include "util/cpu_dispatch.h"

namespace simhash::bench {
namespace {

std::vector<int> numbers_in(const std::string& list) {
  std::vector<int> numbers;
  std::istringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) {
      numbers.push_back(std::stoi(item));
    }
  }
  return numbers;
}

// The pairs (i < j, i among the first `sample`) within `radius`.
SIMHASH_POPCNT_CLONES std::int64_t loop_pairs(const std::vector<std::uint64_t>& codes,
                                              std::size_t sample, int radius) {
  std::int64_t found = 0;
  for (std::size_t i = 0; i < sample; ++i) {
    const std::uint64_t code = codes[i];
    for (std::size_t j = i + 1; j < codes.size(); ++j) {
      found += std::popcount(code ^ codes[j]) <= radius ? 1 : 0;
    }
  }
  return found;
}

// Median CPU seconds of `repeats` runs of `body`, and its last result.
template <typename Body>
std::pair<double, std::int64_t> cpu_median(int repeats, Body body) {
  std::vector<double> seconds;
  std::int64_t result = 0;
  for (int i = 0; i < repeats; ++i) {
    const double start = thread_seconds();
    result = body();
    seconds.push_back(thread_seconds() - start);
  }
  return {median(seconds), result};
}

}  // namespace
}  // namespace simhash::bench

int main(int argc, char** argv) {
  using namespace simhash::bench;
  const std::string path = arg(argc, argv, "db", "");
  if (path.empty()) {
    std::fprintf(stderr, "usage: pairs_radius_benchmark db=FILE [radii=3,6,10,16] ...\n");
    return 2;
  }
  const std::vector<int> radii = numbers_in(arg(argc, argv, "radii", "3,6,10,16"));
  const std::vector<int> sql_radii = numbers_in(arg(argc, argv, "sql_radii", "3,6,10"));
  const int repeats = std::stoi(arg(argc, argv, "repeats", "3"));
  const std::string base = arg(argc, argv, "base", "");
  const auto engine_rows =
      static_cast<std::size_t>(std::stoull(arg(argc, argv, "engine_rows", "100000000000")));
  sqlite3* db = open_with_extension(path);
  exec(db, "PRAGMA cache_size = -4000000");
  sqlite3* base_db = nullptr;
  if (!base.empty()) {
    base_db = open_with_extension(path, base);
    exec(base_db, "PRAGMA cache_size = -4000000");
  }

  std::vector<simhash::IdFingerprint> records;
  std::vector<std::uint64_t> codes;
  const auto read_rows = [&] {
    records.clear();
    sqlite3_stmt* read = nullptr;
    sqlite3_prepare_v2(db, "SELECT id, fp FROM near_data ORDER BY id", -1, &read, nullptr);
    while (sqlite3_step(read) == SQLITE_ROW) {
      records.push_back({sqlite3_column_int64(read, 0),
                         static_cast<std::uint64_t>(sqlite3_column_int64(read, 1))});
    }
    sqlite3_finalize(read);
    return static_cast<std::int64_t>(records.size());
  };
  read_rows();
  for (const auto& record : records) {
    codes.push_back(record.fp);
  }
  const double n = static_cast<double>(codes.size());
  const std::size_t sample =
      std::min<std::size_t>(codes.size(), std::stoull(arg(argc, argv, "sample", "2000")));
  const auto [read_seconds, read_count] = cpu_median(repeats, read_rows);
  std::printf("%s: %.0f rows; read near_data %.1f ms CPU\n", path.c_str(), n, read_seconds * 1e3);

  for (const int radius : radii) {
    // The loop: sampled rows against all later ones, scaled to all pairs.
    const double sampled = static_cast<double>(sample) * (n - 1) -
                           static_cast<double>(sample) * static_cast<double>(sample - 1) / 2;
    const auto [loop_seconds, loop_found] =
        cpu_median(1, [&] { return loop_pairs(codes, sample, radius); });
    const double all_pairs = n * (n - 1) / 2;
    std::printf("radius %2d  loop: %.2f ns a pair, all pairs %.1f s CPU (about %.0f pairs)\n",
                radius, loop_seconds / sampled * 1e9, loop_seconds / sampled * all_pairs,
                static_cast<double>(loop_found) / sampled * all_pairs);
    bool run_sql = false;
    for (const int sql_radius : sql_radii) {
      run_sql = run_sql || sql_radius == radius;
    }
    if (!run_sql) {
      continue;
    }
    // The engine on the first engine_rows records.
    const std::vector<simhash::IdFingerprint> engine_records(
        records.begin(),
        records.begin() + static_cast<std::ptrdiff_t>(std::min(records.size(), engine_rows)));
    std::string plan;
    std::vector<double> engine_seconds;
    std::int64_t engine_pairs = 0;
    for (int i = 0; i < repeats && !engine_records.empty(); ++i) {
      const double start = thread_seconds();
      simhash::PairFinder finder(engine_records, radius);
      plan = finder.plan().describe();
      std::vector<simhash::NearPair> batch;
      engine_pairs = 0;
      while (finder.next(batch)) {
        engine_pairs += static_cast<std::int64_t>(batch.size());
      }
      engine_seconds.push_back(thread_seconds() - start);
    }
    if (!engine_records.empty()) {
      std::printf("radius %2d  engine over %zu rows: %.3f s CPU, %lld pairs (%s)\n", radius,
                  engine_records.size(), median(engine_seconds),
                  static_cast<long long>(engine_pairs), plan.c_str());
    }
    if (!engine_records.empty() && engine_records.size() != records.size()) {
      continue;  // the SQL statements read every row
    }
    const std::string r = std::to_string(radius);
    const std::string pairs_sql = "SELECT count(*) FROM simhash_pairs('near', " + r + ")";
    const std::string clusters_sql = "SELECT count(*) FROM simhash_clusters('near', " + r + ")";
    for (const std::string* sql : {&pairs_sql, &clusters_sql}) {
      std::vector<double> mine;
      std::vector<double> theirs;
      std::int64_t count = 0;
      std::int64_t base_count = 0;
      for (int i = 0; i < repeats; ++i) {
        double start = thread_seconds();
        count = count_of(db, *sql);
        mine.push_back(thread_seconds() - start);
        if (base_db != nullptr) {
          start = thread_seconds();
          base_count = count_of(base_db, *sql);
          theirs.push_back(thread_seconds() - start);
          if (base_count != count) {
            std::fprintf(stderr, "MISMATCH %s: %lld against base %lld\n", sql->c_str(),
                         static_cast<long long>(count), static_cast<long long>(base_count));
            return 1;
          }
        }
      }
      std::printf("radius %2d  %-50s %.3f s CPU", radius, sql->c_str(), median(mine));
      if (base_db != nullptr) {
        std::printf(" (base %.3f s)", median(theirs));
      }
      std::printf(", %lld rows\n", static_cast<long long>(count));
    }
  }
  sqlite3_close(base_db);
  sqlite3_close(db);
  return 0;
}
