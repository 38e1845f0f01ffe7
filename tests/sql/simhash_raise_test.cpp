// SPDX-License-Identifier: MIT
// simhash_raise(message): fails the statement with SQLITE_CONSTRAINT and its
// argument as the message, so a trigger can refuse a row naming the row it
// collides with (RAISE takes only a literal on SQLite 3.40). Never evaluated
// where no row reaches it, usable in triggers of an untrusted schema.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

#include "test_database.h"

namespace simhash::testing {
namespace {

TEST(SimhashRaise, FailsWithItsMessageAsAConstraintError) {
  TestDatabase db;
  EXPECT_EQ(db.error("SELECT simhash_raise('row ' || 42 || ' is taken')"), "row 42 is taken");
  EXPECT_EQ(sqlite3_errcode(db.handle()), SQLITE_CONSTRAINT);
  EXPECT_EQ(db.error("SELECT simhash_raise(NULL)"), "simhash_raise: the message is NULL");
  // A constant message is not evaluated up front where no row reaches it.
  EXPECT_EQ(db.rows("SELECT simhash_raise('never') FROM (SELECT 1) WHERE 0"), (std::vector<Row>{}));
  EXPECT_EQ(db.rows("SELECT CASE WHEN 1 THEN 'ok' ELSE simhash_raise('never') END"),
            (std::vector<Row>{{"ok"}}));
}

TEST(SimhashRaise, ATriggerRefusesARowNamingTheOtherUnderAnUntrustedSchema) {
  const TempDatabaseFile file("simhash_raise");
  {
    TestDatabase db(file.path());
    db.exec(
        "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT);"
        "CREATE TRIGGER t_unique_name BEFORE INSERT ON t BEGIN"
        "  SELECT simhash_raise('name taken by row ' || id) FROM t WHERE name = new.name;"
        "END;"
        "INSERT INTO t VALUES (1, 'a'), (2, 'b');");
  }
  TestDatabase db(file.path());
  db.exec("PRAGMA trusted_schema = OFF");
  db.exec("BEGIN");
  EXPECT_EQ(db.error("INSERT INTO t VALUES (3, 'c'), (4, 'b')"), "name taken by row 2");
  db.exec("INSERT INTO t VALUES (5, 'e')");
  db.exec("COMMIT");
  EXPECT_EQ(db.rows("SELECT id FROM t ORDER BY id"),
            (std::vector<Row>{{"1"}, {"2"}, {"5"}}));  // the failed statement changed nothing
}

}  // namespace
}  // namespace simhash::testing
