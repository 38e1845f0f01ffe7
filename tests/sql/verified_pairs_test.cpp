// SPDX-License-Identifier: MIT
// simhash_verified_pairs and simhash_verified_pairs_between through SQL:
// every pair at the threshold against brute force (simhash_jaccard over
// every pair of rows), at several thresholds and options; new rows against
// kept ones; the thread count changes nothing; errors name the argument;
// no use from views or triggers.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <tuple>
#include <vector>

#include "batch_sql_support.h"
#include "dedup_docs.h"
#include "index_test_support.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

using Pair = std::tuple<std::int64_t, std::int64_t, std::int64_t, double>;

std::vector<Pair> pairs_of(TestDatabase& db, const std::string& sql) {
  std::vector<Pair> pairs;
  Prepared query(db.handle(), sql);
  step_all(db.handle(), query.get(), [&](sqlite3_stmt* row) {
    pairs.emplace_back(sqlite3_column_int64(row, 0), sqlite3_column_int64(row, 1),
                       sqlite3_column_int64(row, 2), sqlite3_column_double(row, 3));
  });
  return pairs;
}

// Every pair of the two row sets compared in SQL, the slow way.
std::string brute_force(const std::string& left, const std::string& right, double threshold,
                        const std::string& options, const std::string& condition) {
  const std::string similarity = "simhash_jaccard(x.body, y.body, '" + options + "')";
  // Texts without a fingerprint pair too (their distance is NULL): the
  // wordless "!!! ... ???" copies have character features.
  return "SELECT x.id, y.id, hamming(simhash(x.body), simhash(y.body)), " + similarity + " FROM (" +
         left + ") x JOIN (" + right + ") y ON " + condition + " WHERE " + similarity +
         " >= " + std::to_string(threshold) + " ORDER BY 1, 2";
}

TEST(SimhashVerifiedPairs, EqualsBruteForceOverEveryPair) {
  TestDatabase db;
  fill_docs(db, 60, 41);
  for (const double threshold : {0.5, 0.75, 0.8, 0.95, 1.0}) {
    for (const std::string options : {"n=3 weight=binary", "unit=char n=4 weight=binary"}) {
      const std::string call =
          "SELECT a, b, distance, similarity FROM simhash_verified_pairs("
          "'SELECT id, body FROM docs', " +
          std::to_string(threshold) + ", '" + options + "')";
      const std::vector<Pair> expected =
          pairs_of(db, brute_force("SELECT * FROM docs", "SELECT * FROM docs", threshold, options,
                                   "x.id < y.id"));
      EXPECT_EQ(pairs_of(db, call), expected) << call;
      if (threshold == 0.8) {
        EXPECT_GT(expected.size(), 20U) << "the data makes pairs";
      }
    }
  }
  // The defaults: 0.8 and the recipe's verification.
  EXPECT_EQ(pairs_of(db, "SELECT * FROM simhash_verified_pairs('SELECT id, body FROM docs')"),
            pairs_of(db, brute_force("SELECT * FROM docs", "SELECT * FROM docs", 0.8,
                                     "n=3 weight=binary", "x.id < y.id")));
}

TEST(SimhashVerifiedPairs, NewRowsAgainstKeptOnesEqualBruteForce) {
  TestDatabase db;
  fill_docs(db, 60, 43);
  const std::string fresh = "SELECT id, body FROM docs WHERE id % 3 = 0";
  const std::string kept = "SELECT id, body FROM docs WHERE id % 3 <> 0";
  for (const double threshold : {0.6, 0.8, 1.0}) {
    const std::string call =
        "SELECT a, b, distance, similarity FROM simhash_verified_pairs_between('" + fresh + "', '" +
        kept + "', " + std::to_string(threshold) + ")";
    const std::vector<Pair> expected =
        pairs_of(db, brute_force(fresh, kept, threshold, "n=3 weight=binary", "1"));
    EXPECT_EQ(pairs_of(db, call), expected) << call;
    if (threshold == 0.8) {
      EXPECT_GT(expected.size(), 10U);
    }
  }
}

TEST(SimhashVerifiedPairs, TheThreadCountChangesNothing) {
  TestDatabase db;
  fill_docs(db, 120, 45);
  const auto run = [&](const std::string& threads) {
    return pairs_of(db,
                    "SELECT a, b, distance, similarity FROM simhash_verified_pairs('SELECT id, "
                    "body FROM docs', 0.7, NULL, " +
                        threads + ")");
  };
  const std::vector<Pair> one = run("1");
  EXPECT_GT(one.size(), 50U);
  for (const std::string threads : {"2", "3", "4", "8", "NULL"}) {
    EXPECT_EQ(run(threads), one) << threads;
  }
}

// Between two queries, the new rows read in several batches: the same
// pairs on any thread count.
TEST(SimhashVerifiedPairsBetween, TheThreadCountChangesNothing) {
  TestDatabase db;
  fill_docs(db, 700, 46);
  const auto run = [&](const std::string& threads) {
    return pairs_of(db,
                    "SELECT a, b, distance, similarity FROM simhash_verified_pairs_between("
                    "'SELECT id, body FROM docs WHERE id % 3 = 0', 'SELECT id, body FROM docs "
                    "WHERE id % 3 <> 0', 0.7, NULL, " +
                        threads + ")");
  };
  const std::vector<Pair> one = run("1");
  EXPECT_GT(one.size(), 200U);
  for (const std::string threads : {"2", "3", "8", "NULL"}) {
    EXPECT_EQ(run(threads), one) << threads;
  }
}

TEST(SimhashVerifiedPairs, ErrorsNameTheArgument) {
  TestDatabase db;
  db.exec(
      "CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT);"
      "INSERT INTO docs VALUES (1, 'one two three four'), (2, 'one two three four');"
      "CREATE VIEW v AS SELECT * FROM simhash_verified_pairs('SELECT id, body FROM docs')");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"SELECT * FROM simhash_verified_pairs()",
       "simhash_verified_pairs(query [, threshold [, options [, threads [, memory]]]]) needs SQL "
       "text"},
      {"SELECT * FROM simhash_verified_pairs(1)",
       "simhash_verified_pairs: the query must be TEXT, got INTEGER"},
      {"SELECT * FROM simhash_verified_pairs('SELECT id FROM docs')",
       "simhash_verified_pairs: the query must return two columns (id, text), it returns 1"},
      {"SELECT * FROM simhash_verified_pairs('SELECT id, body FROM docs', 2)",
       "simhash_verified_pairs: the threshold must be in (0, 1], got 2"},
      {"SELECT * FROM simhash_verified_pairs('SELECT id, body FROM docs', 0.8, 'n=3')",
       "simhash_verified_pairs: the join serves set Jaccard, weight=binary, with any unit and "
       "n; the options ask for unit=word n=3 weight=tf: add weight=binary"},
      {"SELECT * FROM simhash_verified_pairs('SELECT id, body FROM docs', 0.8, NULL, 0)",
       "simhash_verified_pairs: threads must be an integer from 1 to 64"},
      {"SELECT * FROM simhash_verified_pairs_between('SELECT id, body FROM docs')",
       "simhash_verified_pairs_between(new_query, kept_query [, threshold [, options [, "
       "threads [, memory]]]]) needs two SQL texts"},
      {"SELECT * FROM simhash_verified_pairs_between(3, 'SELECT id, body FROM docs')",
       "simhash_verified_pairs_between: the new rows' query must be TEXT, got INTEGER"},
      {"SELECT * FROM simhash_verified_pairs_between('SELECT id, body FROM docs', 'SELECT 1')",
       "simhash_verified_pairs_between: the kept rows' query must return two columns"},
      {"SELECT * FROM simhash_verified_pairs_between('DELETE FROM docs RETURNING id, body', "
       "'SELECT id, body FROM docs')",
       "simhash_verified_pairs_between: the new rows' query must only read"},
      {"SELECT * FROM v", "unsafe use of virtual table \"simhash_verified_pairs\""},
  };
  for (const auto& [sql, expected] : cases) {
    const std::string message = db.error(sql);
    EXPECT_NE(message.find(expected), std::string::npos) << sql << "\n  gave: " << message;
  }
  EXPECT_EQ(db.integer("SELECT count(*) FROM docs"), 2) << "nothing was deleted";
  // NULL queries give no rows, as any "= NULL" does.
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_verified_pairs(NULL)"), 0);
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_verified_pairs('SELECT id, body FROM docs')"),
            1);
}

}  // namespace
}  // namespace simhash::testing
