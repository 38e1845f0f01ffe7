// SPDX-License-Identifier: MIT
// What the SQL tests of the batch functions within a memory budget
// (dedup_memory_test.cpp, verified_pairs_memory_test.cpp) share: a query's
// whole answer as text, to compare a run in parts with the run in memory,
// and the stop soon after an interrupt of a run in parts.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <random>
#include <string>

#include "batch_sql_support.h"
#include "dedup_docs.h"
#include "index_test_support.h"
#include "test_database.h"

namespace simhash::testing {

// Every row of `sql`, cells joined by '|', NULL as "NULL".
inline std::string answer(TestDatabase& db, const std::string& sql) {
  std::string rows;
  Prepared query(db.handle(), sql);
  step_all(db.handle(), query.get(), [&](sqlite3_stmt* row) {
    for (int column = 0; column < sqlite3_column_count(row); ++column) {
      const unsigned char* text = sqlite3_column_text(row, column);
      rows += text != nullptr ? reinterpret_cast<const char*>(text) : "NULL";
      rows += '|';
    }
    rows += '\n';
  });
  return rows;
}

// Runs `function`('SELECT id, body FROM unrelated', 0.2, `arguments`), a
// count of its rows, over 3,000 unrelated random texts and interrupts it:
// expects it stopped soon after (index_test_support.h), and records how
// soon in the test's properties. A low threshold: every part's rows share
// common shingles, so the parts' joins take most of the run.
inline void expect_parts_stopped_by_interrupt(TestDatabase& db, const std::string& function,
                                              const std::string& arguments) {
  db.exec("CREATE TABLE unrelated(id INTEGER PRIMARY KEY, body TEXT)");
  std::mt19937_64 random(42);
  Prepared insert(db.handle(), "INSERT INTO unrelated(body) VALUES (?1)");
  db.exec("BEGIN");
  for (int row = 0; row < 3000; ++row) {
    const std::string body = random_text(random, 60);
    sqlite3_bind_text(insert.get(), 1, body.c_str(), -1, SQLITE_TRANSIENT);
    step_write(db.handle(), insert.get());
  }
  db.exec("COMMIT");
  const long long late = expect_stopped_by_interrupt(
      db.handle(), "SELECT count(*) FROM " + function + "('SELECT id, body FROM unrelated', 0.2, " +
                       arguments + ")");
  ::testing::Test::RecordProperty("ms_after_interrupt", static_cast<int>(late));
}

}  // namespace simhash::testing
