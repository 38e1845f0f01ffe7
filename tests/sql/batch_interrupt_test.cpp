// SPDX-License-Identifier: MIT
// sqlite3_interrupt() stops the batch
// functions (the shell's Ctrl-C) with SQLITE_INTERRUPT within 50 ms, however
// long the whole search would take; so does a progress handler.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "index_test_support.h"
#include "interrupt_timing.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

using Clock = std::chrono::steady_clock;

TEST(BatchInterrupt, LongSearchesStopSoonAfterAnInterrupt) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  // Random fingerprints are about 32 bits apart: at radius 20 nearly every
  // row keeps its own group, and every method compares about all pairs.
  std::mt19937_64 random(5);
  constexpr int kRows = kSanitizedBuild ? 20000 : 50000;  // a few hundred ms each (Release)
  db.exec("BEGIN");
  for (int row = 0; row < kRows; row += 500) {
    std::string values;
    for (int i = 0; i < 500; ++i) {
      values += (values.empty() ? "(" : ", (") +
                std::to_string(static_cast<std::int64_t>(random())) + ")";
    }
    db.exec("INSERT INTO near(fp) VALUES " + values);
  }
  db.exec("COMMIT");
  for (const char* sql : {"SELECT count(*) FROM simhash_clusters('near', 20)",
                          "SELECT count(*) FROM simhash_components('near', 20)",
                          "SELECT count(*) FROM simhash_pairs('near', 20)",
                          "SELECT count(*) FROM simhash_pairs_between('near', 'near', 20)"}) {
    const long long late = expect_stopped_by_interrupt(db.handle(), sql);
    RecordProperty(std::string("ms_after_interrupt ") + sql, static_cast<int>(late));
    // The connection works as before.
    EXPECT_EQ(db.integer("SELECT count(*) FROM near"), kRows);
  }
}

// A progress handler that asks to stop (as Datasette's time limit does)
// stops them too, although their work is not SQLite's.
TEST(BatchInterrupt, ProgressHandlerStopsTheGrouping) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec(
      "INSERT INTO near(fp) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
      "WHERE i < 60000) SELECT random() FROM n");
  EXPECT_EQ(
      expect_stopped_by_progress_deadline(db, "SELECT count(*) FROM simhash_clusters('near', 20)"),
      60000);
  EXPECT_EQ(db.integer("SELECT count(*) FROM near"), 60000);
}

// The stop bound, 50 ms on the Release build of a typical machine, scaled by
// how much slower this run is (a sanitizer, qemu, a busy machine): the time
// of a reference search against what it takes there (about 40 ms: 4.5M pairs,
// each a union, over 3,000 rows). Measured again before each size, since a
// shared machine's load changes during the test.
std::chrono::milliseconds stop_bound(TestDatabase& db) {
  db.exec("DROP TABLE IF EXISTS reference");
  db.exec("CREATE VIRTUAL TABLE reference USING simhash_index(k=3)");
  db.exec(
      "INSERT INTO reference(fp) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
      "WHERE i < 3000) SELECT random() FROM n");
  const Clock::time_point started = Clock::now();
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_components('reference', 64)"), 3000);
  const double slowdown =
      std::chrono::duration<double, std::milli>(Clock::now() - started).count() / 40.0;
  return std::chrono::milliseconds(static_cast<long long>(50 * std::max(1.0, slowdown)));
}

// Every phase of every batch function stops within 50 ms of
// the interrupt at any size. Radius 64 makes every pair a candidate (and a
// pair), which once ran 8M comparisons and as many pairs between two checks:
// 0.4-2 s late at 30-120K rows. The interrupt comes at delays from the
// reading of the rows to deep in the search; a statement that finished first
// proves nothing, so each must have been stopped at least once.
TEST(BatchInterrupt, EveryPhaseStopsWithinFiftyMilliseconds) {
  TestDatabase db;
  // Random fingerprints (radius 16: nearly every row a representative, so
  // simhash_clusters compares each with most others); texts that are edits
  // of one base, or random, for simhash_dedup.
  const std::vector<std::string> queries = {
      "SELECT count(*) FROM simhash_pairs('near', 64)",
      "SELECT count(*) FROM simhash_components('near', 64)",
      "SELECT count(*) FROM simhash_clusters('near', 16)",
      "SELECT count(*) FROM simhash_dedup('SELECT id, body FROM docs', 0.5, 64)",
      // The join on more threads than cores: each stops at its own next check.
      "SELECT count(*) FROM simhash_dedup('SELECT id, body FROM docs', 0.5, NULL, NULL, 8)",
      // Weighted features: the pairs within the radius, every one a link.
      "SELECT count(*) FROM simhash_dedup('SELECT id, body FROM docs', 0.5, 64, 'n=3')"};
  std::vector<int> stopped(queries.size(), 0);
  std::mt19937_64 random(22);
  for (const int full : {30000, 60000, 120000}) {
    const int rows = scaled(full);
    const std::chrono::milliseconds bound = stop_bound(db);
    db.exec("DROP TABLE IF EXISTS near; DROP TABLE IF EXISTS docs");
    db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
    db.exec("CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)");
    db.exec("BEGIN");
    db.exec(
        "INSERT INTO near(fp) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
        "WHERE i < " +
        std::to_string(rows) + ") SELECT random() FROM n");
    // (Appended, not "w" + ...: GCC 12 warns of a bogus overlap in that.)
    const auto random_word = [&random] {
      return std::string("w").append(std::to_string(random() % 5000));
    };
    std::vector<std::string> base(60);
    for (std::string& word : base) {
      word = random_word();
    }
    Prepared insert(db.handle(), "INSERT INTO docs(body) VALUES (?1)");
    for (int row = 0; row < rows; ++row) {
      std::vector<std::string> words = base;
      for (std::size_t at = 0; at < words.size(); ++at) {
        if (row % 2 == 1 || random() % 20 == 0) {
          words[at] = random_word();
        }
      }
      std::string body;
      for (const std::string& word : words) {
        body.append(body.empty() ? "" : " ").append(word);
      }
      sqlite3_bind_text(insert.get(), 1, body.c_str(), -1, SQLITE_TRANSIENT);
      ASSERT_EQ(sqlite3_step(insert.get()), SQLITE_DONE);
      sqlite3_reset(insert.get());
    }
    db.exec("COMMIT");
    for (std::size_t query = 0; query < queries.size(); ++query) {
      for (const int delay : {10, 40, 160, 640}) {
        const std::optional<std::chrono::milliseconds> late =
            stop_latency(db.handle(), queries[query], std::chrono::milliseconds(delay));
        if (!late) {
          break;  // finished before the interrupt: later ones would too
        }
        ++stopped[query];
        EXPECT_LE(*late, bound) << queries[query] << " at " << rows << " rows, interrupted after "
                                << delay << " ms";
        RecordProperty(queries[query] + " rows " + std::to_string(rows) + " after " +
                           std::to_string(delay) + " ms: ms late",
                       static_cast<int>(late->count()));
      }
    }
  }
  for (std::size_t query = 0; query < queries.size(); ++query) {
    EXPECT_GT(stopped[query], 0) << queries[query] << " always finished before the interrupt";
  }
  EXPECT_EQ(db.integer("SELECT count(*) FROM near"), scaled(120000));
}

}  // namespace
}  // namespace simhash::testing
