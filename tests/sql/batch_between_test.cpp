// SPDX-License-Identifier: MIT
// simhash_pairs_between (new data against an existing collection) through SQL
// against brute force: two indexes of planted clusters that share some
// fingerprints and rowids, several radii and index settings, the default
// radius, inside a transaction and after its rollback, and the errors.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "batch_sql_support.h"
#include "batch_test_data.h"
#include "index_test_support.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

// `more_sql` is "" for the default radius, else ", r".
std::vector<NearPair> sql_pairs_between(TestDatabase& db, const std::string& left,
                                        const std::string& right, const std::string& more_sql) {
  std::vector<NearPair> pairs;
  Prepared query(db.handle(), "SELECT a, b, distance FROM simhash_pairs_between('" + left + "', '" +
                                  right + "'" + more_sql + ")");
  step_all(db.handle(), query.get(), [&](sqlite3_stmt* row) {
    pairs.push_back(NearPair{sqlite3_column_int64(row, 0), sqlite3_column_int64(row, 1),
                             sqlite3_column_int(row, 2)});
  });
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

void expect_matches(TestDatabase& db, const Model& left, const Model& right, int radius,
                    const std::string& radius_sql) {
  const std::vector<NearPair> expected =
      brute_force_pairs_between(records_of(left), records_of(right), radius);
  const std::vector<NearPair> found = sql_pairs_between(db, "new", "near", radius_sql);
  // Equal sorted lists: the same set, and no pair twice.
  ASSERT_EQ(found.size(), expected.size()) << "radius " << radius;
  EXPECT_TRUE(found == expected) << "radius " << radius;
}

// The new rows: a third copied from the collection (same fingerprint, some
// under the same rowid), a third edited copies, a third unrelated.
Model new_rows_for(const Model& collection, std::mt19937_64& random) {
  Model rows;
  std::int64_t next_id = 1;
  for (const auto& [id, fp] : collection) {
    if (random() % 4 != 0) {
      continue;
    }
    switch (random() % 3) {
      case 0:
        rows[random() % 2 == 0 ? id : next_id] = fp;
        break;
      case 1:
        rows[next_id] = flip_random_bits(fp, static_cast<int>(random() % 9), random);
        break;
      default:
        rows[next_id] = random();
        break;
    }
    next_id += 3;
  }
  return rows;
}

TEST(BatchBetween, MatchesBruteForceAtSeveralRadiiAndIndexSettings) {
  const Model collection = planted_model(4000, 2611);
  std::mt19937_64 random(2612);
  const Model fresh = new_rows_for(collection, random);
  ASSERT_GT(fresh.size(), 800U);
  for (const char* options : {"k=3", "k=2, blocks=5"}) {
    TestDatabase db;
    db.exec(std::string("CREATE VIRTUAL TABLE near USING simhash_index(") + options +
            "); CREATE VIRTUAL TABLE new USING simhash_index(k=3)");
    insert_rows(db, "near", collection);
    insert_rows(db, "new", fresh);
    for (int radius : {0, 1, 3, 6, 10}) {
      expect_matches(db, fresh, collection, radius, ", " + std::to_string(radius));
    }
    // No radius: the smaller k of the two.
    expect_matches(db, fresh, collection, options[2] - '0', "");
  }
}

TEST(BatchBetween, SeesTheOpenTransactionAndItsRollback) {
  const Model collection = planted_model(4000, 2613);
  std::mt19937_64 random(2614);
  const Model fresh = new_rows_for(collection, random);
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec("CREATE VIRTUAL TABLE new USING simhash_index(k=3)");
  insert_rows(db, "near", collection);
  insert_rows(db, "new", fresh);
  db.exec("BEGIN");
  Model changed = collection;
  mutate(db, changed, random);
  Model changed_fresh;
  for (const auto& [id, fp] : fresh) {
    if (id % 5 != 0) {
      changed_fresh[id] =
          id % 7 == 0 ? static_cast<std::uint64_t>(static_cast<std::int64_t>(fp) / 2) : fp;
    }
  }
  db.exec("DELETE FROM new WHERE rowid % 5 = 0; UPDATE new SET fp = fp / 2 WHERE rowid % 7 = 0");
  expect_matches(db, changed_fresh, changed, 3, "");
  db.exec("ROLLBACK");
  expect_matches(db, fresh, collection, 3, "");
}

TEST(BatchBetween, OneIndexOnBothSidesGivesEveryOrderedPair) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  insert_rows(db, "near", planted_model(200, 5));
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_pairs_between('near', 'near', 64)"),
            200 * 200);
  // Each row with itself, and each pair of simhash_pairs in both orders.
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_pairs_between('near', 'near')"),
            200 + 2 * db.integer("SELECT count(*) FROM simhash_pairs('near')"));
}

TEST(BatchBetween, ArgumentsErrorsAndHiddenColumns) {
  TestDatabase db;
  db.exec(
      "CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT);"
      "CREATE VIRTUAL TABLE near USING simhash_index(k=3);"
      "CREATE VIRTUAL TABLE new USING simhash_index(k=5);"
      "INSERT INTO near(rowid, fp) VALUES (1, 0), (2, 31), (3, 63);"
      "INSERT INTO new(rowid, fp) VALUES (7, 1)");
  EXPECT_EQ(db.error("SELECT * FROM simhash_pairs_between('new')"),
            "simhash_pairs_between(index_a, index_b [, radius]) needs the names of two "
            "simhash_index tables, e.g. SELECT * FROM simhash_pairs_between('new', 'old')");
  EXPECT_EQ(db.error("SELECT * FROM simhash_pairs_between('new', 'docs')"),
            "simhash_pairs_between: 'docs' is not a simhash_index (it is an ordinary table)");
  EXPECT_EQ(db.error("SELECT * FROM simhash_pairs_between('nothing', 'near')"),
            "simhash_pairs_between: no simhash_index named 'nothing'");
  EXPECT_EQ(db.error("SELECT * FROM simhash_pairs_between('new', 3)"),
            "simhash_pairs_between: index_b must be named by a TEXT value, got INTEGER");
  EXPECT_EQ(db.error("SELECT * FROM simhash_pairs_between('new', 'near', -2)"),
            "simhash_pairs_between: the radius must not be negative (got -2)");
  // NULL names nothing: no rows, as for any "= NULL".
  for (const char* arguments : {"(NULL, 'near')", "('new', NULL)", "('new', 'near', NULL)"}) {
    EXPECT_EQ(db.integer(std::string("SELECT count(*) FROM simhash_pairs_between") + arguments), 0)
        << arguments;
  }
  // The default radius is the smaller k (3); the hidden columns show the
  // arguments and the radius used.
  EXPECT_EQ(db.rows("SELECT a, b, distance, index_a, index_b, radius FROM "
                    "simhash_pairs_between('new', 'near') ORDER BY b"),
            (std::vector<Row>{{"7", "1", "1", "new", "near", "3"}}));
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_pairs_between('new', 'near', 4)"), 2);
  const auto plan =
      db.rows("EXPLAIN QUERY PLAN SELECT * FROM simhash_pairs_between('new', 'near')");
  ASSERT_EQ(plan.size(), 1U);
  EXPECT_NE(plan[0].back().value_or("").find("two-index batch search, radius the smaller k"),
            std::string::npos)
      << plan[0].back().value_or("");
}

}  // namespace
}  // namespace simhash::testing
