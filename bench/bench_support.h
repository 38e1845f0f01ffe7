// SPDX-License-Identifier: MIT
// Small helpers every benchmark program shares: the wall clock and the
// thread's CPU clock (what load from other processes does not inflate), the
// median of repeated runs, a hamming() of the benchmark's own for baselines,
// and for the programs that drive SQLite, opening a connection with the
// extension loaded, running statements (stopping the run on any error),
// timing a counting query's repeated runs, and the latency of one statement
// run once per query; for the engine's verified-search benchmarks, their
// common arguments and the texts they read.
#pragma once

#include <sqlite3.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fingerprint/simhash_options.h"

namespace simhash::bench {

using Clock = std::chrono::steady_clock;

// Wall seconds since `start`.
inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// CPU seconds this thread has used.
inline double thread_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// The middle value (the mean of the two middle ones for an even count).
inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

// A benchmark has no use for a partial result: report and exit.
[[noreturn]] inline void fail(sqlite3* db, const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", what.c_str(), db != nullptr ? sqlite3_errmsg(db) : "");
  std::exit(1);
}

inline void exec(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::fprintf(stderr, "%s\n  %s\n", sql.substr(0, 200).c_str(),
                 message != nullptr ? message : "(no message)");
    std::exit(1);
  }
}

// The value of a `key=value` command-line argument, or `fallback`.
inline std::string arg(int argc, char** argv, const std::string& key, const std::string& fallback) {
  for (int i = 1; i < argc; ++i) {
    const std::string text = argv[i];
    if (text.rfind(key + "=", 0) == 0) {
      return text.substr(key.size() + 1);
    }
  }
  return fallback;
}

// The arguments the engine's verified-search benchmarks share: db= (the
// corpus, bench/corpus/fetch_translations.sh), query= (its id, text rows),
// threshold=, threads= and options= (the verification's, simhash_options.h).
struct SearchArgs {
  std::string path;
  std::string query;
  double threshold;
  unsigned threads;
  SimhashOptions verification;
};

inline SearchArgs search_args(int argc, char** argv, const std::string& threads,
                              const std::string& options) {
  SearchArgs args{arg(argc, argv, "db", "/tmp/simhash-corpus/translations.db"),
                  arg(argc, argv, "query", "SELECT id, body FROM texts ORDER BY id"),
                  std::stod(arg(argc, argv, "threshold", "0.8")),
                  static_cast<unsigned>(std::stoul(arg(argc, argv, "threads", threads))),
                  {}};
  std::string error;
  const std::optional<SimhashOptions> verification =
      parse_options(arg(argc, argv, "options", options), error);
  if (!verification) {
    std::fprintf(stderr, "options: %s\n", error.c_str());
    std::exit(2);
  }
  args.verification = *verification;
  return args;
}

// The texts of `query` (id, text; NULL texts left out) on the database at `path`.
struct Corpus {
  std::vector<std::int64_t> ids;
  std::vector<std::string> texts;
};

inline Corpus read_corpus(const std::string& path, const std::string& query) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    fail(db, "open " + path);
  }
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db, query.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
    fail(db, query);
  }
  Corpus corpus;
  while (sqlite3_step(statement) == SQLITE_ROW) {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, 1));
    if (text != nullptr) {
      corpus.ids.push_back(sqlite3_column_int64(statement, 0));
      corpus.texts.emplace_back(text, static_cast<std::size_t>(sqlite3_column_bytes(statement, 1)));
    }
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return corpus;
}

// hamming(a, b) over two INTEGERs (NULL if either is NULL), the benchmarks'
// own, so that a baseline does not depend on another part of the extension.
inline void hamming_function(sqlite3_context* context, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) {
    return;
  }
  const auto a = static_cast<std::uint64_t>(sqlite3_value_int64(argv[0]));
  const auto b = static_cast<std::uint64_t>(sqlite3_value_int64(argv[1]));
  sqlite3_result_int(context, std::popcount(a ^ b));
}

// Makes hamming() on `db` the function above (it replaces the extension's).
inline void use_local_hamming(sqlite3* db) {
  if (sqlite3_create_function(db, "hamming", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr,
                              hamming_function, nullptr, nullptr) != SQLITE_OK) {
    fail(db, "create hamming()");
  }
}

// Opens `path` and loads the extension (this build's simhash.so unless
// another is named).
inline sqlite3* open_with_extension(const std::string& path,
                                    const std::string& extension = SIMHASH_EXTENSION_PATH) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
    fail(db, "open " + path);
  }
  sqlite3_enable_load_extension(db, 1);
  char* message = nullptr;
  if (sqlite3_load_extension(db, extension.c_str(), nullptr, &message) != SQLITE_OK) {
    std::fprintf(stderr, "load %s: %s\n", extension.c_str(), message != nullptr ? message : "?");
    std::exit(1);
  }
  return db;
}

// The one integer `sql` returns (a count).
inline std::int64_t count_of(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK ||
      sqlite3_step(statement) != SQLITE_ROW) {
    fail(db, sql);
  }
  const std::int64_t count = sqlite3_column_int64(statement, 0);
  sqlite3_finalize(statement);
  return count;
}

struct Timing {
  double median_seconds;      // wall clock
  double median_cpu_seconds;  // this process's CPU time: what load from others does not inflate
  std::int64_t result;
};

// Runs `body` `repeats` times; the median times and the last result.
inline Timing measure(int repeats, const std::function<std::int64_t()>& body) {
  std::vector<double> seconds;
  std::vector<double> cpu_seconds;
  std::int64_t result = 0;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpu_start = std::clock();
    result = body();
    cpu_seconds.push_back(static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC);
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  if (seconds.empty()) {
    return Timing{0, 0, 0};  // not run
  }
  return Timing{median(seconds), median(cpu_seconds), result};
}

// A latency distribution, in microseconds.
struct Latency {
  double median_us = 0;
  double p99_us = 0;
  std::int64_t rows = 0;  // the rows the timed runs returned, where counted
};

// The median is the upper middle value; the p99 the nearest-rank one, the
// ceil(0.99 n)-th smallest (of 100 values the 99th, not the largest).
inline Latency latency_of(std::vector<double> micros) {
  if (micros.empty()) {
    return Latency{};
  }
  std::sort(micros.begin(), micros.end());
  const std::size_t rank = (micros.size() * 99 + 99) / 100;
  return Latency{micros[micros.size() / 2], micros[rank - 1]};
}

// Runs `statement` to its end once per query, bound by `bind(statement,
// query)`, over all queries twice: the first pass warms the cache, the
// second is timed, each run from bind to reset.
template <typename Bind>
Latency time_statement(sqlite3* db, sqlite3_stmt* statement,
                       const std::vector<std::uint64_t>& queries, Bind bind) {
  std::vector<double> micros;
  std::int64_t rows = 0;
  for (int pass = 0; pass < 2; ++pass) {
    micros.clear();
    rows = 0;
    for (const std::uint64_t query : queries) {
      const auto start = std::chrono::steady_clock::now();
      bind(statement, query);
      int rc;
      while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
        ++rows;
      }
      if (rc != SQLITE_DONE) {
        fail(db, std::string("step ") + sqlite3_sql(statement));
      }
      sqlite3_reset(statement);
      micros.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
              .count());
    }
  }
  Latency latency = latency_of(std::move(micros));
  latency.rows = rows;
  return latency;
}

}  // namespace simhash::bench
