// SPDX-License-Identifier: MIT
// What an interrupted command undoes inside a transaction
// (docs/index.md "Integrity"): the INSERT forms of 'rebuild' and
// 'integrity-check' are writes, and SQLite rolls back the whole transaction
// of an interrupted write, the caller's other changes with it (its rule for
// every INSERT, UPDATE or DELETE, which no savepoint narrows); the query form
// of 'integrity-check' only reads, and its interruption leaves the
// transaction open with everything in it. Either way the index is sound.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

#include "index_test_support.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

TEST(IndexCommandRollback, InterruptedInsertFormsRollBackTheTransactionTheQueryFormDoesNot) {
  TestDatabase db;
  // k=6 (28 permuted copies): each command runs for hundreds of
  // milliseconds, long next to the delays of thread scheduling.
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=6); CREATE TABLE other(x)");
  const int kRows = scaled(60000);  // a fifth in the sanitizer builds
  db.exec(
      "INSERT INTO near(fp) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
      "WHERE i < " +
      std::to_string(kRows) + ") SELECT random() FROM n");
  struct Case {
    const char* sql;
    bool rolls_back;
  };
  for (const Case& command :
       {Case{"INSERT INTO near(near) VALUES('rebuild')", true},
        Case{"INSERT INTO near(near) VALUES('integrity-check')", true},
        Case{"SELECT count(*) FROM near WHERE near = 'integrity-check'", false}}) {
    SCOPED_TRACE(command.sql);
    db.exec("BEGIN");
    db.exec("INSERT INTO near(rowid, fp) VALUES (-1, 42); INSERT INTO other VALUES (1)");
    // Also inside a savepoint: SQLite's rollback goes past it.
    db.exec("SAVEPOINT inner_one");
    expect_stopped_by_interrupt(db.handle(), command.sql);
    const bool open = sqlite3_get_autocommit(db.handle()) == 0;
    EXPECT_EQ(open, !command.rolls_back);
    const std::int64_t expected = command.rolls_back ? 0 : 1;
    EXPECT_EQ(db.integer("SELECT count(*) FROM near WHERE rowid = -1"), expected);
    EXPECT_EQ(db.integer("SELECT count(*) FROM near WHERE fp MATCH 42 AND rowid = -1"), expected);
    EXPECT_EQ(db.integer("SELECT count(*) FROM other"), expected);
    if (open) {
      db.exec("RELEASE inner_one; COMMIT");
      EXPECT_EQ(db.integer("SELECT count(*) FROM near WHERE rowid = -1"), 1);
      db.exec("DELETE FROM near WHERE rowid = -1; DELETE FROM other");
    }
    EXPECT_EQ(db.integer("SELECT count(*) FROM near"), kRows);
    expect_integrity(db.handle(), "near");
  }
}

}  // namespace
}  // namespace simhash::testing
