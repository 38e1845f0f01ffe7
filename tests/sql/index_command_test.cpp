// SPDX-License-Identifier: MIT
// The index's commands: integrity-check as a query
// (`WHERE near = 'integrity-check'`), which only reads, so it runs on a
// read-only database and leaves the caller's counters alone; both forms
// inside a transaction with unmerged writes; and sqlite3_interrupt() stopping
// 'rebuild' and 'integrity-check' soon, with SQLITE_INTERRUPT, leaving the
// index as it was.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <string>

#include "index_test_support.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

constexpr const char* kCheckQuery = "SELECT count(*) FROM near WHERE near = 'integrity-check'";

void fill(TestDatabase& db, int rows) {
  db.exec(
      "INSERT INTO near(fp) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
      "WHERE i < " +
      std::to_string(rows) + ") SELECT random() FROM n");
}

TEST(IndexCommands, CheckAsAQueryRunsOnAReadOnlyDatabase) {
  TempDatabaseFile file("index_command_readonly");
  {
    TestDatabase writer(file.path());
    writer.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
    fill(writer, 2000);
  }
  {
    TestDatabase reader("file:" + file.path() + "?mode=ro");
    EXPECT_EQ(reader.integer(kCheckQuery), 0);
    const auto plan =
        reader.rows("EXPLAIN QUERY PLAN SELECT * FROM near WHERE near = 'integrity-check'");
    ASSERT_EQ(plan.size(), 1U);
    EXPECT_EQ(plan[0].back().value_or(""), "SCAN near VIRTUAL TABLE INDEX 3:c command");
    // The INSERT form writes (it is an INSERT) and SQLite refuses it here.
    EXPECT_NE(reader.error("INSERT INTO near(near) VALUES('integrity-check')"), "");
    EXPECT_EQ(reader.error("SELECT * FROM near WHERE near = 'rebuild'"),
              "simhash_index near: 'rebuild' is not a command a query can run (only "
              "'integrity-check'; 'rebuild' is an INSERT)");
    EXPECT_EQ(reader.error("SELECT * FROM near WHERE near = 42"),
              "simhash_index near: '42' is not a command a query can run (only "
              "'integrity-check'; 'rebuild' is an INSERT)");
    EXPECT_EQ(reader.integer("SELECT count(*) FROM near WHERE near = NULL"), 0);
  }
  {
    TestDatabase writer(file.path());
    writer.exec(
        "UPDATE near_buckets SET entries = x'00' WHERE id = (SELECT min(id) FROM near_buckets)");
  }
  TestDatabase reader("file:" + file.path() + "?mode=ro");
  std::string message;
  EXPECT_EQ(reader.try_exec(kCheckQuery, &message), SQLITE_CORRUPT);
  EXPECT_NE(message.find("is malformed"), std::string::npos) << message;
}

TEST(IndexCommands, ChecksSeeUnmergedWritesWithoutMergingThem) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  fill(db, 3000);
  db.exec("BEGIN");
  fill(db, 1000);
  db.exec("DELETE FROM near WHERE rowid % 3 = 0");
  db.exec("UPDATE near SET fp = fp / 2 WHERE rowid % 5 = 0");
  const sqlite3_int64 total = sqlite3_total_changes64(db.handle());
  const sqlite3_int64 changes = sqlite3_changes64(db.handle());
  EXPECT_EQ(db.integer(kCheckQuery), 0);
  EXPECT_EQ(sqlite3_total_changes64(db.handle()), total) << "the query form writes nothing";
  EXPECT_EQ(sqlite3_changes64(db.handle()), changes);
  expect_integrity(db.handle(), "near");  // the INSERT form, in the transaction
  db.exec("COMMIT");
  EXPECT_EQ(db.integer(kCheckQuery), 0);
  // A damaged bucket is found with writes pending too.
  db.exec("BEGIN");
  fill(db, 10);
  db.exec("UPDATE near_buckets SET entries = x'00' WHERE id = (SELECT max(id) FROM near_buckets)");
  std::string message;
  EXPECT_EQ(db.try_exec(kCheckQuery, &message), SQLITE_CORRUPT) << message;
  db.exec("ROLLBACK");
  EXPECT_EQ(db.integer(kCheckQuery), 0);
}

TEST(IndexCommands, InterruptStopsRebuildAndCheckLeavingTheIndexAsItWas) {
  TestDatabase db;
  // k=6 (28 permuted copies): each command runs for hundreds of milliseconds,
  // long next to the delays of thread scheduling.
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=6)");
  constexpr int kRows = kSanitizedBuild ? 30000 : 60000;  // sanitizers: long enough still
  fill(db, kRows);
  const std::string before = db.cell("SELECT sum(fp % 1000) FROM near").value_or("");
  for (const char* sql : {"INSERT INTO near(near) VALUES('rebuild')",
                          "INSERT INTO near(near) VALUES('integrity-check')", kCheckQuery}) {
    for (const bool in_transaction : {false, true}) {
      if (in_transaction) {
        db.exec("BEGIN");
        db.exec("INSERT INTO near(rowid, fp) VALUES (-1, 42)");
      }
      const long long late = expect_stopped_by_interrupt(db.handle(), sql);
      RecordProperty(std::string("ms_after_interrupt ") + sql, static_cast<int>(late));
      if (in_transaction && sqlite3_get_autocommit(db.handle()) == 0) {
        db.exec("ROLLBACK");
      }
      EXPECT_EQ(db.integer("SELECT count(*) FROM near"), kRows) << sql;
      EXPECT_EQ(db.cell("SELECT sum(fp % 1000) FROM near").value_or(""), before) << sql;
    }
  }
  EXPECT_EQ(db.integer(kCheckQuery), 0);
}

}  // namespace
}  // namespace simhash::testing
