// SPDX-License-Identifier: MIT
// simhash_dedup within a memory budget (its memory argument, or SQLite's
// soft heap limit): the exact join in parts, with the features in a
// temporary file, gives the same rows (kept ids, distances, similarities)
// as the join in memory, for budgets from a byte (the least parts, 64 KiB)
// to plenty, with and without a radius, in two keep orders, over texts with
// NULL, empty and wordless bodies; it stops soon after an interrupt; and a
// bad budget is refused by name.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <vector>

#include "batch_sql_support.h"
#include "dedup_docs.h"
#include "memory_budget_sql.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

std::string dedup(const std::string& order, const std::string& threshold, const std::string& radius,
                  const std::string& memory) {
  return "SELECT id, cluster, distance, printf('%.17g', similarity) FROM simhash_dedup('SELECT "
         "id, body FROM docs ORDER BY " +
         order + "', " + threshold + ", " + radius + ", NULL, 2, " + memory + ")";
}

TEST(SimhashDedupMemory, EveryBudgetGivesTheRowsOfTheJoinInMemory) {
  TestDatabase db;
  fill_docs(db, 120, 71);
  // Empty texts too (no features: left out, as in memory).
  db.exec("INSERT INTO docs(id, body) VALUES (100001, ''), (100002, ''), (100003, '   ')");
  for (const std::string order : {"id", "length(body) DESC, id"}) {
    for (const std::string threshold : {"0.5", "0.8"}) {
      for (const std::string radius : {"NULL", "12"}) {
        const std::string in_memory = answer(db, dedup(order, threshold, radius, "NULL"));
        ASSERT_GT(in_memory.size(), 1000U);
        // The least budget (parts of 64 KiB), a few parts, one part.
        for (const std::string memory : {"1", "400000", "1e9"}) {
          EXPECT_EQ(answer(db, dedup(order, threshold, radius, memory)), in_memory)
              << "order " << order << " threshold " << threshold << " radius " << radius
              << " memory " << memory;
        }
      }
    }
  }
}

TEST(SimhashDedupMemory, TheSoftHeapLimitIsTheBudget) {
  TestDatabase db;
  fill_docs(db, 120, 72);
  const std::string in_memory = answer(db, dedup("id", "0.7", "NULL", "NULL"));
  // A limit SQLite already passes leaves a budget of 0: the least parts.
  for (const sqlite3_int64 above : {sqlite3_int64{0}, sqlite3_int64{1} << 20}) {
    sqlite3_soft_heap_limit64(sqlite3_memory_used() + above);
    const std::string limited = answer(db, dedup("id", "0.7", "NULL", "NULL"));
    sqlite3_soft_heap_limit64(0);
    EXPECT_EQ(limited, in_memory) << "above " << above;
  }
  // The argument is the given value, NULL when left to the limit.
  EXPECT_EQ(answer(db,
                   "SELECT DISTINCT memory FROM simhash_dedup('SELECT id, body FROM docs', "
                   "0.7, NULL, NULL, 1, 5000000)"),
            "5000000|\n");
  EXPECT_EQ(answer(db, "SELECT DISTINCT memory FROM simhash_dedup('SELECT id, body FROM docs')"),
            "NULL|\n");
}

TEST(SimhashDedupMemory, StopsSoonAfterAnInterrupt) {
  TestDatabase db;
  expect_parts_stopped_by_interrupt(db, "simhash_dedup", "NULL, NULL, 2, 1000000");
}

TEST(SimhashDedupMemory, ABadBudgetIsRefusedByName) {
  TestDatabase db;
  fill_docs(db, 10, 73);
  for (const std::string memory : {"0", "-5", "'lots'", "1.5", "x'00'"}) {
    std::string message;
    EXPECT_NE(db.try_exec("SELECT * FROM simhash_dedup('SELECT id, body FROM docs', 0.8, NULL, "
                          "NULL, 1, " +
                              memory + ")",
                          &message),
              SQLITE_OK);
    EXPECT_NE(message.find("simhash_dedup: memory must be a number of bytes of 1 or more (NULL: "
                           "SQLite's soft heap limit), got "),
              std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace simhash::testing
