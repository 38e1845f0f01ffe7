// Issue 11 item 3: sqlite3_interrupt() stops the batch functions (the shell's
// Ctrl-C) within a fraction of a second, with SQLITE_INTERRUPT, however long
// the whole search would take.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <random>
#include <string>

#include "index_test_support.h"
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
  constexpr int kRows = 50000;  // each search runs for a few hundred milliseconds
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
// stops them too, although their work is not SQLite's. The deadline is a
// quarter of the whole run, so the bounds hold on machines of any speed.
TEST(BatchInterrupt, ProgressHandlerStopsTheGrouping) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec(
      "INSERT INTO near(fp) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
      "WHERE i < 60000) SELECT random() FROM n");
  constexpr const char* kClusters = "SELECT count(*) FROM simhash_clusters('near', 20)";
  Clock::time_point started = Clock::now();
  EXPECT_EQ(db.integer(kClusters), 60000);
  const Clock::duration whole_run = Clock::now() - started;
  struct Deadline {
    Clock::time_point at;
    bool passed = false;
  } deadline{Clock::now() + whole_run / 4};
  sqlite3_progress_handler(
      db.handle(), 1000,
      [](void* data) {
        auto* limit = static_cast<Deadline*>(data);
        limit->passed = limit->passed || Clock::now() >= limit->at;
        return limit->passed ? 1 : 0;
      },
      &deadline);
  started = Clock::now();
  std::string message;
  const int rc = db.try_exec(kClusters, &message);
  const Clock::duration took = Clock::now() - started;
  sqlite3_progress_handler(db.handle(), 0, nullptr, nullptr);
  EXPECT_EQ(rc, SQLITE_INTERRUPT) << message;
  EXPECT_LT(took, whole_run / 2)
      << "the deadline was a quarter of the whole run, "
      << std::chrono::duration_cast<std::chrono::milliseconds>(whole_run).count() << " ms";
  EXPECT_EQ(db.integer("SELECT count(*) FROM near"), 60000);
}

}  // namespace
}  // namespace simhash::testing
