// SPDX-License-Identifier: MIT
// Messages that do not say whose they are get the name of the function whose
// work they stopped, in one place: the barrier (guard_with and named_message,
// ext/common/sqlite_support.h). Directly on the barrier for the engine's
// exceptions, which SQL cannot provoke, and through SQL for an interrupt.
// The glue's headers, compiled as in the static library: SQLite's calls
// direct, not through a loaded module's sqlite3_api table.
#define SQLITE_CORE 1

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "ext/common/sqlite_support.h"
#include "test_database.h"

namespace {

using simhash::sql::guard_with;
using simhash::sql::SqliteError;
using simhash::testing::TestDatabase;

// What the barrier reports for `thrown`, in a callback doing `who`'s work
// (empty: none named), and the code it returns.
template <typename Throw>
std::pair<int, std::string> reported(Throw thrown, std::string_view who) {
  std::string message = "(none)";
  const int rc = guard_with(
      [&]() -> int {
        thrown();
        return SQLITE_OK;
      },
      [&](const char* text) { message = text; }, who);
  return {rc, message};
}

TEST(NamedMessages, EngineMessagesAndInterruptsGetTheFunctionsName) {
  // A part of the engine names itself: the function goes in front.
  EXPECT_EQ(
      reported([] { throw std::invalid_argument("batch search: id 5 appears twice"); },
               "simhash_pairs"),
      std::make_pair(SQLITE_ERROR, std::string("simhash_pairs: batch search: id 5 appears twice")));
  EXPECT_EQ(reported([] { throw std::invalid_argument("radix sort: keys and payload differ"); },
                     "simhash_clusters")
                .second,
            "simhash_clusters: radix sort: keys and payload differ");
  // The engine's "simhash: " is replaced, not doubled.
  EXPECT_EQ(
      reported([] { throw std::length_error("simhash: too many rows to dedup"); }, "simhash_dedup")
          .second,
      "simhash_dedup: too many rows to dedup");
  // An interrupt keeps its code.
  EXPECT_EQ(reported([] { throw SqliteError(SQLITE_INTERRUPT, "interrupted"); }, "simhash_index"),
            std::make_pair(SQLITE_INTERRUPT, std::string("simhash_index: interrupted")));
}

TEST(NamedMessages, GlueMessagesAndUnnamedCallbacksAreLeftAsTheyAre) {
  // The glue words its own messages, the name included.
  EXPECT_EQ(
      reported([] { throw SqliteError(SQLITE_ERROR, "simhash_dedup: the query must be TEXT"); },
               "simhash_dedup"),
      std::make_pair(SQLITE_ERROR, std::string("simhash_dedup: the query must be TEXT")));
  EXPECT_EQ(
      reported([] { throw SqliteError(SQLITE_CONSTRAINT, "UNIQUE constraint failed: n.rowid"); },
               "simhash_index")
          .second,
      "UNIQUE constraint failed: n.rowid");
  // A callback that names no function says what the engine said.
  EXPECT_EQ(
      reported([] { throw std::invalid_argument("batch search: id 5 appears twice"); }, "").second,
      "batch search: id 5 appears twice");
  EXPECT_EQ(reported([] { throw SqliteError(SQLITE_INTERRUPT, "interrupted"); }, "").second,
            "interrupted");
}

// A progress handler that stops the statement once it has been called this
// many times: early enough that the function's own query is stopped, late
// enough that the outer statement reaches the function first.
int stop_after_calls(void* calls_left) {
  int& left = *static_cast<int*>(calls_left);
  return --left < 0 ? 1 : 0;
}

TEST(NamedMessages, AnInterruptedTableFunctionSaysWhichOneStopped) {
  TestDatabase db;
  // 20,000 rows of text: far more steps than the handler allows.
  const std::string rows =
      "'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) "
      "SELECT i, ''word '' || i FROM n'";
  for (const std::string function : {"simhash_dedup", "simhash_verified_pairs"}) {
    int calls_left = 20;
    sqlite3_progress_handler(db.handle(), 100, stop_after_calls, &calls_left);
    EXPECT_EQ(db.error(std::string("SELECT count(*) FROM ") + function + "(" + rows + ")"),
              function + ": interrupted");
    EXPECT_EQ(sqlite3_errcode(db.handle()), SQLITE_INTERRUPT) << function;
    sqlite3_progress_handler(db.handle(), 0, nullptr, nullptr);
  }
}

}  // namespace
