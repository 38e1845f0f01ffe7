// SPDX-License-Identifier: MIT
// Speed of the SQL functions inside SQLite, each beside a baseline query over
// the same rows in the same run (the machine is shared, so ratios are what
// carry over):
//   simhash(body) over the English corpus vs sum(length(body));
//   hamming(fp, :q) over 10M stored fingerprints vs count(*) and vs a plain
//   comparison of the same column.
// Single thread; each query runs `--runs` times, interleaved with its
// baseline, and the median is reported. Times are the thread's CPU time, so
// time the scheduler gives to other processes on a shared machine is not
// counted (cache and memory-bandwidth contention still are).
//
// Usage: build/sql_speed_benchmark [--runs 7] [--rows 10000000]
#include <sqlite3.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bench_support.h"
#include "corpus.h"
#include "fingerprint/feature_extractor.h"
#include "fingerprint/simhash_options.h"

namespace {

using simhash::bench::exec;
using simhash::bench::fail;
using simhash::bench::median;
using simhash::bench::thread_seconds;

// Runs a one-row query (with an optional INTEGER parameter) and returns its
// CPU time in seconds; the result is checked to stop the optimizer from
// skipping anything.
double time_query(sqlite3* db, const std::string& sql, std::int64_t parameter, bool bind) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
    fail(db, sql);
  }
  if (bind) {
    sqlite3_bind_int64(statement, 1, parameter);
  }
  const double start = thread_seconds();
  if (sqlite3_step(statement) != SQLITE_ROW) {
    fail(db, sql);
  }
  const double stop = thread_seconds();
  if (sqlite3_column_type(statement, 0) == SQLITE_NULL) {
    fail(db, "unexpected NULL from " + sql);
  }
  sqlite3_finalize(statement);
  return stop - start;
}

// Runs each timed task `runs` times, round-robin after one warm-up round,
// and returns the medians.
std::vector<double> medians(const std::vector<std::function<double()>>& tasks, int runs) {
  std::vector<std::vector<double>> times(tasks.size());
  for (const auto& task : tasks) {
    task();  // warm-up
  }
  for (int run = 0; run < runs; ++run) {
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      times[i].push_back(tasks[i]());
    }
  }
  std::vector<double> result;
  result.reserve(times.size());
  for (const auto& series : times) {
    result.push_back(median(series));
  }
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 7;
  long long rows = 10'000'000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--runs") == 0) {
      runs = std::atoi(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--rows") == 0) {
      rows = std::atoll(argv[i + 1]);
    }
  }

  sqlite3* db = simhash::bench::open_with_extension(":memory:");

  // The corpus as a table.
  const auto documents = simhash::bench::load_english_corpus();
  const double megabytes = static_cast<double>(simhash::bench::total_bytes(documents)) / 1e6;
  exec(db, "CREATE TABLE corpus(id INTEGER PRIMARY KEY, body TEXT)");
  exec(db, "BEGIN");
  sqlite3_stmt* insert = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO corpus(body) VALUES (?)", -1, &insert, nullptr);
  for (const auto& document : documents) {
    sqlite3_bind_text(insert, 1, document.text.data(), static_cast<int>(document.text.size()),
                      SQLITE_STATIC);
    sqlite3_step(insert);
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);
  exec(db, "COMMIT");

  const std::vector<std::string> text_queries = {
      "SELECT sum(length(body)) FROM corpus",
      "SELECT count(simhash(body)) FROM corpus",
      "SELECT count(simhash(body, 'unit=char n=4')) FROM corpus",
  };
  std::vector<std::function<double()>> text_tasks;
  for (const auto& query : text_queries) {
    text_tasks.emplace_back([db, &query] { return time_query(db, query, 0, false); });
  }
  // The engine alone on the same texts (no SQLite), interleaved with the
  // queries, shows what the glue costs.
  simhash::FeatureExtractor extractor{simhash::SimhashOptions{}};
  text_tasks.emplace_back([&] {
    std::size_t fingerprinted = 0;
    const double start = thread_seconds();
    for (const auto& document : documents) {
      fingerprinted += extractor.fingerprint(document.text).has_value() ? 1 : 0;
    }
    const double stop = thread_seconds();
    if (fingerprinted == 0) {
      std::exit(1);
    }
    return stop - start;
  });
  const auto text_times = medians(text_tasks, runs);
  const double engine_time = text_times.back();
  std::printf("corpus: %zu documents, %.2f MB; %d runs, medians\n", documents.size(), megabytes,
              runs);
  std::printf("| query | median s | MB/s | time vs baseline |\n| --- | --- | --- | --- |\n");
  for (std::size_t i = 0; i < text_queries.size(); ++i) {
    std::printf("| `%s` | %.4f | %.1f | %.1fx |\n", text_queries[i].c_str(), text_times[i],
                megabytes / text_times[i], text_times[i] / text_times[0]);
  }
  std::printf(
      "| engine alone: FeatureExtractor::fingerprint (defaults), no SQLite | %.4f | %.1f | "
      "%.1fx |\n",
      engine_time, megabytes / engine_time, engine_time / text_times[0]);

  // 10M random fingerprints (fixed seed); a query fingerprint from the same
  // generator.
  exec(db, "CREATE TABLE fps(fp INTEGER)");
  exec(db, "BEGIN");
  std::mt19937_64 random(20261121);
  sqlite3_prepare_v2(db, "INSERT INTO fps VALUES (?)", -1, &insert, nullptr);
  for (long long row = 0; row < rows; ++row) {
    sqlite3_bind_int64(insert, 1, static_cast<sqlite3_int64>(random()));
    sqlite3_step(insert);
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);
  exec(db, "COMMIT");
  const auto query = static_cast<std::int64_t>(random());
  const std::vector<std::string> hamming_queries = {
      // count(*) alone is answered from the b-tree without visiting rows;
      // count(fp) reads every row's value, the fair baseline for a scan.
      "SELECT count(*) FROM fps",
      "SELECT count(fp) FROM fps",
      "SELECT count(*) FROM fps WHERE hamming(fp, ?1) <= 3",
      "SELECT sum(hamming(fp, ?1)) FROM fps",
  };
  std::vector<std::function<double()>> hamming_tasks;
  for (const auto& sql : hamming_queries) {
    hamming_tasks.emplace_back([db, &sql, query] { return time_query(db, sql, query, true); });
  }
  const auto hamming_times = medians(hamming_tasks, runs);
  std::printf("\n%lld rows; %d runs, medians\n", rows, runs);
  std::printf("| query | median s | ns/row | time vs count(*) | vs count(fp) |\n");
  std::printf("| --- | --- | --- | --- | --- |\n");
  for (std::size_t i = 0; i < hamming_queries.size(); ++i) {
    std::printf("| `%s` | %.3f | %.1f | %.1fx | %.2fx |\n", hamming_queries[i].c_str(),
                hamming_times[i], hamming_times[i] * 1e9 / static_cast<double>(rows),
                hamming_times[i] / hamming_times[0], hamming_times[i] / hamming_times[1]);
  }
  sqlite3_close(db);
  return 0;
}
