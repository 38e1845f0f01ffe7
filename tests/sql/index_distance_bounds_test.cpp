// SPDX-License-Identifier: MIT
// Every way SQL can bound `distance` on a simhash_index query, against a
// brute-force hamming() scan with the same condition: radii below, at and
// above k, the bound as a literal, a parameter and a column of another table
// (in either join order). None of these may silently miss rows.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "index_test_support.h"

namespace simhash::testing {
namespace {

constexpr std::int64_t kQuery = 0x5a5a'1234'0f0f'7777;

// The sorted first column of `sql` with ?1 bound to the query and ?2 (when
// the statement has it) to `bound`; the error message as the only element
// when it fails.
std::vector<std::string> ids_of(sqlite3* db, const std::string& sql, std::int64_t bound) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
    return {std::string("error: ") + sqlite3_errmsg(db)};
  }
  sqlite3_bind_int64(statement, 1, kQuery);
  if (sqlite3_bind_parameter_count(statement) >= 2) {
    sqlite3_bind_int64(statement, 2, bound);
  }
  std::vector<std::string> ids;
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
    ids.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0)));
  }
  if (rc != SQLITE_DONE) {
    ids = {std::string("error: ") + sqlite3_errmsg(db)};
  }
  sqlite3_finalize(statement);
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

class DistanceBounds : public ::testing::Test {
 protected:
  void SetUp() override {
    db_.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
    db_.exec("CREATE TABLE plain(id INTEGER PRIMARY KEY, fp INTEGER)");
    db_.exec("CREATE TABLE bounds(r INTEGER)");
    std::mt19937_64 random(1010);
    db_.exec("BEGIN");
    for (int id = 1; id <= 3000; ++id) {
      // Most rows 0 to 12 bits from the query, the rest anywhere.
      const std::uint64_t fp = id % 5 == 0
                                   ? random()
                                   : flip_random_bits(static_cast<std::uint64_t>(kQuery),
                                                      static_cast<int>(random() % 13), random);
      insert_into_near_and_plain(db_, id, fp);
    }
    db_.exec("COMMIT");
  }

  // Checks `condition` (over `distance`, with `{R}` for the bound) on the
  // index against the same condition over hamming(fp, ?1) on the plain table.
  // An OR reaches xBestIndex only when SQLite rewrites it as IN: every term
  // `distance = ` a constant or a parameter. Other ORs search at radius k
  // (the documented meaning of MATCH without a bound) and are checked
  // against brute force within k.
  enum class OrSplit { always, not_with_a_column, never };
  void expect_exact(const std::string& condition, OrSplit split = OrSplit::always) {
    const std::string scan_condition = replaced(condition, "distance", "hamming(fp, ?1)");
    for (const int bound : {-1, 0, 1, 2, 3, 4, 6, 9, 64}) {
      db_.exec("DELETE FROM bounds; INSERT INTO bounds VALUES (" + std::to_string(bound) + ")");
      const std::vector<std::string> expected = ids_of(
          db_.handle(),
          "SELECT id FROM plain WHERE " + replaced(scan_condition, "{R}", std::to_string(bound)),
          bound);
      const std::string literal = replaced(condition, "{R}", std::to_string(bound));
      const std::string parameter = replaced(condition, "{R}", "?2");
      const std::string column = replaced(condition, "{R}", "b.r");
      const std::vector<std::string> expected_within_k =
          ids_of(db_.handle(),
                 "SELECT id FROM plain WHERE hamming(fp, ?1) <= 3 AND " +
                     replaced(scan_condition, "{R}", std::to_string(bound)),
                 bound);
      for (const std::string& sql : {
               "SELECT rowid FROM near WHERE fp MATCH ?1 AND " + literal,
               "SELECT rowid FROM near WHERE fp MATCH ?1 AND " + parameter,
               "SELECT near.rowid FROM bounds AS b, near WHERE near.fp MATCH ?1 AND " + column,
               "SELECT near.rowid FROM near, bounds AS b WHERE near.fp MATCH ?1 AND " + column,
           }) {
        const bool within_k = split == OrSplit::never || (split == OrSplit::not_with_a_column &&
                                                          sql.find("b.r") != std::string::npos);
        EXPECT_EQ(ids_of(db_.handle(), sql, bound), within_k ? expected_within_k : expected)
            << sql << "\n  bound " << bound << ", brute force: " << expected.size() << " rows";
      }
      EXPECT_FALSE(expected.empty() && bound >= 3 && condition.find('<') != std::string::npos)
          << "the data should have rows within " << bound;
    }
  }

  TestDatabase db_;
};

TEST_F(DistanceBounds, AtMost) { expect_exact("distance <= {R}"); }
TEST_F(DistanceBounds, Below) { expect_exact("distance < {R}"); }
TEST_F(DistanceBounds, Equal) { expect_exact("distance = {R}"); }
TEST_F(DistanceBounds, InList) { expect_exact("distance IN (1, {R}, {R} + 1)"); }
TEST_F(DistanceBounds, Between) { expect_exact("distance BETWEEN 2 AND {R}"); }
TEST_F(DistanceBounds, LowerAndUpper) { expect_exact("distance > 1 AND distance <= {R}"); }
TEST_F(DistanceBounds, OrOfEqualities) {
  expect_exact("(distance = 2 OR distance = {R})", OrSplit::not_with_a_column);
}
TEST_F(DistanceBounds, OtherOrs) {
  expect_exact("(distance <= 1 OR distance = {R})", OrSplit::never);
  expect_exact("(distance <= 1 OR distance BETWEEN 4 AND {R})", OrSplit::never);
  // The README's advice: an upper bound outside the OR sets the radius.
  expect_exact("(distance <= 1 OR distance BETWEEN 4 AND {R}) AND distance <= {R}");
}

TEST_F(DistanceBounds, TwoUpperBounds) { expect_exact("distance <= {R} AND distance < 5"); }

// The table-valued form and the hidden radius column: the radius is an
// argument, and a negative one stays an error.
TEST_F(DistanceBounds, RadiusArgument) {
  for (const int bound : {0, 2, 3, 4, 7, 64}) {
    db_.exec("DELETE FROM bounds; INSERT INTO bounds VALUES (" + std::to_string(bound) + ")");
    const std::vector<std::string> expected =
        ids_of(db_.handle(), "SELECT id FROM plain WHERE hamming(fp, ?1) <= ?2", bound);
    for (const std::string& sql : {
             "SELECT rowid FROM near(?1, " + std::to_string(bound) + ")",
             std::string("SELECT rowid FROM near(?1, ?2)"),
             std::string("SELECT near.rowid FROM bounds AS b, near(?1, b.r)"),
             std::string("SELECT near.rowid FROM near(?1, b.r), bounds AS b"),
             std::string("SELECT near.rowid FROM bounds AS b, near WHERE near.fp MATCH ?1 AND "
                         "near.radius = b.r"),
         }) {
      EXPECT_EQ(ids_of(db_.handle(), sql, bound), expected) << sql << " bound " << bound;
    }
  }
  EXPECT_EQ(ids_of(db_.handle(), "SELECT rowid FROM near(?1, ?2)", -1),
            std::vector<std::string>{"error: simhash_index near: the radius must not be negative "
                                     "(got -1)"});
}

}  // namespace
}  // namespace simhash::testing
