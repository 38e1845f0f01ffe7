// SPDX-License-Identifier: MIT
// simhash_verified_pairs and _between within a memory budget (their memory
// argument, or SQLite's soft heap limit): the join in parts, with the
// features in a temporary file and the pairs read back from disk as the
// cursor steps, gives the same rows in the same order (ids, distances,
// similarities) as the join in memory, for budgets from a byte (the least
// parts) to plenty, at several thresholds and options, on threads, over
// texts with NULL, empty and wordless bodies; a statement stopped halfway
// (LIMIT) or run twice is fine; it stops soon after an interrupt and at a
// progress handler; and a bad budget is refused by name.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "batch_sql_support.h"
#include "dedup_docs.h"
#include "memory_budget_sql.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

constexpr const char* kColumns = "SELECT a, b, distance, printf('%.17g', similarity) FROM ";

std::string pairs(const std::string& threshold, const std::string& options,
                  const std::string& threads, const std::string& memory) {
  return std::string(kColumns) + "simhash_verified_pairs('SELECT id, body FROM docs', " +
         threshold + ", " + options + ", " + threads + ", " + memory + ")";
}

std::string between(const std::string& threshold, const std::string& threads,
                    const std::string& memory) {
  return std::string(kColumns) +
         "simhash_verified_pairs_between('SELECT id, body FROM docs WHERE id % 3 = 0', "
         "'SELECT id, body FROM docs WHERE id % 3 <> 0', " +
         threshold + ", NULL, " + threads + ", " + memory + ")";
}

void fill_with_odd_rows(TestDatabase& db, int families, std::uint64_t seed) {
  fill_docs(db, families, seed);
  // Empty and NULL texts (no features: left out, as in memory) and
  // wordless ones (no fingerprint: a NULL distance).
  db.exec(
      "INSERT INTO docs(id, body) VALUES (100001, ''), (100002, NULL), (100003, '   '), "
      "(100004, '!!! ... ?!'), (100005, '!!! ... ?!')");
}

TEST(VerifiedPairsMemory, EveryBudgetGivesThePairsOfTheJoinInMemory) {
  TestDatabase db;
  fill_with_odd_rows(db, 150, 81);
  for (const std::string options : {"NULL", "'unit=char n=4 weight=binary'"}) {
    for (const std::string threshold : {"0.3", "0.8", "1"}) {
      const std::string in_memory = answer(db, pairs(threshold, options, "2", "NULL"));
      if (threshold == "0.8") {
        ASSERT_GT(in_memory.size(), 1000U);
      }
      // The least budget (parts of 64 KiB), a few parts, one part.
      for (const std::string memory : {"1", "300000", "1e9"}) {
        EXPECT_EQ(answer(db, pairs(threshold, options, "2", memory)), in_memory)
            << "options " << options << " threshold " << threshold << " memory " << memory;
      }
    }
  }
  // The wordless texts pair, with no distance.
  EXPECT_NE(answer(db, pairs("0.8", "'unit=char n=4 weight=binary'", "1", "1"))
                .find("100004|100005|NULL|1|"),
            std::string::npos);
}

TEST(VerifiedPairsMemory, NewRowsAgainstKeptOnesWithinEveryBudget) {
  TestDatabase db;
  fill_with_odd_rows(db, 150, 82);
  for (const std::string threshold : {"0.5", "0.8"}) {
    const std::string in_memory = answer(db, between(threshold, "2", "NULL"));
    ASSERT_GT(in_memory.size(), 300U);
    for (const std::string memory : {"1", "300000", "1e9"}) {
      EXPECT_EQ(answer(db, between(threshold, "2", memory)), in_memory)
          << "threshold " << threshold << " memory " << memory;
    }
  }
}

TEST(VerifiedPairsMemory, TheThreadCountChangesNothing) {
  TestDatabase db;
  fill_with_odd_rows(db, 200, 83);
  const std::string one = answer(db, pairs("0.6", "NULL", "1", "NULL"));
  for (const std::string threads : {"1", "3", "NULL"}) {
    EXPECT_EQ(answer(db, pairs("0.6", "NULL", threads, "1")), one) << threads;
    EXPECT_EQ(answer(db, between("0.6", threads, "1")), answer(db, between("0.6", "1", "NULL")))
        << threads;
  }
}

TEST(VerifiedPairsMemory, TheSoftHeapLimitIsTheBudget) {
  TestDatabase db;
  fill_with_odd_rows(db, 120, 84);
  const std::string in_memory = answer(db, pairs("0.7", "NULL", "2", "NULL"));
  const std::string in_memory_between = answer(db, between("0.7", "2", "NULL"));
  // A limit SQLite already passes leaves a budget of 0: the least parts.
  for (const sqlite3_int64 above : {sqlite3_int64{0}, sqlite3_int64{1} << 20}) {
    sqlite3_soft_heap_limit64(sqlite3_memory_used() + above);
    const std::string limited = answer(db, pairs("0.7", "NULL", "2", "NULL"));
    const std::string limited_between = answer(db, between("0.7", "2", "NULL"));
    sqlite3_soft_heap_limit64(0);
    EXPECT_EQ(limited, in_memory) << "above " << above;
    EXPECT_EQ(limited_between, in_memory_between) << "above " << above;
  }
  // The argument is the given value, NULL when left to the limit.
  EXPECT_EQ(
      answer(db,
             "SELECT DISTINCT memory FROM simhash_verified_pairs('SELECT id, body FROM docs', "
             "0.7, NULL, 1, 5000000)"),
      "5000000|\n");
  EXPECT_EQ(answer(db,
                   "SELECT DISTINCT memory FROM simhash_verified_pairs_between('SELECT id, body "
                   "FROM docs', 'SELECT id, body FROM docs', 0.7, NULL, 1, 5000000)"),
            "5000000|\n");
  EXPECT_EQ(
      answer(db,
             "SELECT DISTINCT memory FROM simhash_verified_pairs('SELECT id, body FROM docs', "
             "0.7)"),
      "NULL|\n");
}

// The pairs come from disk as the cursor steps: a statement left halfway,
// reset and run again, or two cursors at once, read the same pairs.
TEST(VerifiedPairsMemory, ACursorStoppedHalfwayOrTwoAtOnce) {
  TestDatabase db;
  fill_with_odd_rows(db, 150, 85);
  const std::string all = answer(db, pairs("0.5", "NULL", "1", "NULL"));
  const std::string first_ten = answer(db, pairs("0.5", "NULL", "1", "1") + " LIMIT 10");
  EXPECT_EQ(first_ten, all.substr(0, first_ten.size()));
  EXPECT_EQ(std::count(first_ten.begin(), first_ten.end(), '\n'), 10);
  Prepared query(db.handle(), pairs("0.5", "NULL", "1", "1"));
  for (int run = 0; run < 2; ++run) {
    ASSERT_EQ(sqlite3_step(query.get()), SQLITE_ROW);
    ASSERT_EQ(sqlite3_step(query.get()), SQLITE_ROW);
    sqlite3_reset(query.get());
  }
  // Two cursors over the join in parts at once, each with its own files,
  // stepped in turn.
  Prepared second(db.handle(), pairs("0.5", "NULL", "1", "1"));
  std::string read_first;
  std::string read_second;
  const auto row_of = [](sqlite3_stmt* statement) {
    return std::to_string(sqlite3_column_int64(statement, 0)) + "|" +
           std::to_string(sqlite3_column_int64(statement, 1)) + "\n";
  };
  while (sqlite3_step(query.get()) == SQLITE_ROW) {
    read_first += row_of(query.get());
    ASSERT_EQ(sqlite3_step(second.get()), SQLITE_ROW);
    read_second += row_of(second.get());
  }
  EXPECT_EQ(sqlite3_step(second.get()), SQLITE_DONE);
  EXPECT_EQ(read_first, read_second);
  EXPECT_EQ(std::count(read_first.begin(), read_first.end(), '\n'),
            std::count(all.begin(), all.end(), '\n'));
}

TEST(VerifiedPairsMemory, StopsSoonAfterAnInterrupt) {
  TestDatabase db;
  expect_parts_stopped_by_interrupt(db, "simhash_verified_pairs", "NULL, 2, 1000000");
}

int stop_after_calls(void* calls_left) {
  int& left = *static_cast<int*>(calls_left);
  return --left < 0 ? 1 : 0;
}

TEST(VerifiedPairsMemory, AProgressHandlerStopsIt) {
  TestDatabase db;
  const std::string rows =
      "'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) "
      "SELECT i, ''word '' || i FROM n'";
  for (const std::string function : {"simhash_verified_pairs", "simhash_verified_pairs_between"}) {
    std::string call = function;
    call.append("(").append(rows).append(", ");
    if (function == "simhash_verified_pairs_between") {
      call.append(rows).append(", ");
    }
    call.append("0.8, NULL, 1, 1)");
    int calls_left = 20;
    sqlite3_progress_handler(db.handle(), 100, stop_after_calls, &calls_left);
    EXPECT_EQ(db.error("SELECT count(*) FROM " + call), function + ": interrupted");
    EXPECT_EQ(sqlite3_errcode(db.handle()), SQLITE_INTERRUPT) << function;
    sqlite3_progress_handler(db.handle(), 0, nullptr, nullptr);
  }
}

int count_calls(void* calls) {
  ++*static_cast<int*>(calls);
  return 0;
}

// Stopped by the handler halfway through its calls: past the reading, in
// the parts' checks.
TEST(VerifiedPairsMemory, AProgressHandlerStopsTheParts) {
  TestDatabase db;
  fill_docs(db, 300, 87);
  const std::string sql =
      "SELECT count(*) FROM simhash_verified_pairs('SELECT id, body FROM docs', 0.5, NULL, 1, 1)";
  int calls = 0;
  sqlite3_progress_handler(db.handle(), 100, count_calls, &calls);
  db.integer(sql);
  const int reading = calls;
  calls = 0;
  db.integer("SELECT count(*) FROM (SELECT id, body FROM docs)");
  // The checks between the parts run SQL: most of the handler's calls.
  ASSERT_GT(reading, 10 * calls) << "the parts' checks call the handler";
  int calls_left = reading / 2;
  sqlite3_progress_handler(db.handle(), 100, stop_after_calls, &calls_left);
  EXPECT_EQ(db.error(sql), "simhash_verified_pairs: interrupted");
  sqlite3_progress_handler(db.handle(), 0, nullptr, nullptr);
}

TEST(VerifiedPairsMemory, ABadBudgetIsRefusedByName) {
  TestDatabase db;
  fill_docs(db, 10, 86);
  for (const std::string memory : {"0", "-5", "'lots'", "1.5", "x'00'"}) {
    EXPECT_EQ(db.error("SELECT * FROM simhash_verified_pairs('SELECT id, body FROM docs', 0.8, "
                       "NULL, 1, " +
                       memory + ")")
                  .find("simhash_verified_pairs: memory must be a number of bytes of 1 or more "
                        "(NULL: SQLite's soft heap limit), got "),
              0U)
        << memory;
    EXPECT_EQ(db.error("SELECT * FROM simhash_verified_pairs_between('SELECT id, body FROM "
                       "docs', 'SELECT id, body FROM docs', 0.8, NULL, 1, " +
                       memory + ")")
                  .find("simhash_verified_pairs_between: memory must be a number of bytes of 1 "
                        "or more (NULL: SQLite's soft heap limit), got "),
              0U)
        << memory;
  }
}

}  // namespace
}  // namespace simhash::testing
