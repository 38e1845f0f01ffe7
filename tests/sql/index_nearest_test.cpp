// SPDX-License-Identifier: MIT
// The n nearest rows at any distance: the table-valued form
// and `query =` with ORDER BY distance LIMIT n [OFFSET m], against a
// brute-force hamming() scan ordered by (distance, rowid), for queries the
// index can answer (n rows within k) and queries that need the scan, with
// ties, n above the row count, OFFSET, pending writes and a rollback; and
// the count as an argument (`nearest = n`, near(:q, radius, n)), which means
// the n nearest wherever it stands: alone, joined, in a subquery.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "index_test_support.h"

namespace simhash::testing {
namespace {

// The n nearest of `query` by both forms that take the count as an
// argument (`nearest = n`, near(?1, 64, n)) against a hamming() scan of the
// plain table.
void expect_both_forms_agree(TestDatabase& db, std::int64_t query, int count) {
  const std::string n = std::to_string(count);
  const std::vector<std::string> expected = rows_of(
      db.handle(),
      "SELECT id, hamming(fp, ?1) AS distance FROM plain ORDER BY distance, id LIMIT " + n, query);
  EXPECT_EQ(rows_of(db.handle(),
                    "SELECT rowid, distance FROM near WHERE query = ?1 AND nearest = " + n, query),
            expected)
      << count;
  EXPECT_EQ(rows_of(db.handle(), "SELECT rowid, distance FROM near(?1, 64, " + n + ")", query),
            expected)
      << count;
}

class Nearest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
    db_.exec("CREATE TABLE plain(id INTEGER PRIMARY KEY, fp INTEGER)");
    std::mt19937_64 random(77);
    db_.exec("BEGIN");
    for (int id = 1; id <= 1500; ++id) {
      // A cluster around kNear (many ties at each distance), and the rest
      // random; ids in a shuffled order so ties are broken by rowid, not by
      // insertion.
      const std::uint64_t fp =
          id % 3 == 0 ? random() : flip_random_bits(kNear, static_cast<int>(random() % 9), random);
      add(static_cast<std::int64_t>((id * 7919) % 100003), fp);
    }
    db_.exec("COMMIT");
  }

  void add(std::int64_t id, std::uint64_t fp) { insert_into_near_and_plain(db_, id, fp); }

  void expect_nearest(std::int64_t query) {
    for (const int limit : {0, 1, 5, 10, 37, 200, 5000}) {
      for (const int offset : {0, 3}) {
        const std::string tail = " ORDER BY distance LIMIT " + std::to_string(limit) +
                                 (offset > 0 ? " OFFSET " + std::to_string(offset) : "");
        const std::vector<std::string> expected = rows_of(
            db_.handle(),
            "SELECT id, hamming(fp, ?1) AS distance FROM plain ORDER BY distance, id LIMIT " +
                std::to_string(limit) + " OFFSET " + std::to_string(offset),
            query);
        for (const std::string& sql : {
                 "SELECT rowid, distance FROM near(?1)" + tail,
                 "SELECT rowid, distance FROM near WHERE query = ?1" + tail,
             }) {
          EXPECT_EQ(rows_of(db_.handle(), sql, query), expected) << sql;
        }
        const std::string with_rowid =
            "SELECT rowid, distance FROM near(?1) ORDER BY distance, "
            "rowid LIMIT " +
            std::to_string(limit) + " OFFSET " + std::to_string(offset);
        EXPECT_EQ(rows_of(db_.handle(), with_rowid, query), expected) << with_rowid;
      }
    }
  }

  static constexpr std::uint64_t kNear = 0x0123'4567'89ab'cdefULL;
  TestDatabase db_;
};

TEST_F(Nearest, InsideTheClusterTheIndexAnswers) {
  expect_nearest(static_cast<std::int64_t>(kNear));
}

TEST_F(Nearest, FarFromEverythingTheScanAnswers) {
  expect_nearest(static_cast<std::int64_t>(~kNear));
  expect_nearest(0);
}

TEST_F(Nearest, PendingWritesAndRollback) {
  db_.exec("BEGIN");
  add(200001, kNear);
  add(200002, kNear ^ 1U);
  db_.exec("DELETE FROM plain WHERE id IN (SELECT id FROM plain ORDER BY id LIMIT 5)");
  db_.exec("DELETE FROM near WHERE rowid IN (SELECT rowid FROM near ORDER BY rowid LIMIT 5)");
  expect_nearest(static_cast<std::int64_t>(kNear));
  db_.exec("ROLLBACK");
  expect_nearest(static_cast<std::int64_t>(kNear));
}

TEST_F(Nearest, PlanAndTheMatchForm) {
  TestDatabase& db = db_;
  const std::vector<Row> plan =
      db.rows("EXPLAIN QUERY PLAN SELECT rowid FROM near(1) ORDER BY distance LIMIT 5");
  ASSERT_FALSE(plan.empty());
  EXPECT_NE(plan.back().back()->find("nearest"), std::string::npos) << *plan.back().back();
  // With a bound, LIMIT only trims the rows within it.
  EXPECT_EQ(db.rows("SELECT count(*) FROM (SELECT rowid FROM near(0, 3) ORDER BY distance "
                    "LIMIT 5)"),
            db.rows("SELECT min(5, count(*)) FROM plain WHERE hamming(fp, 0) <= 3"));
  // SQLite 3.40 does not hand LIMIT to a query with a MATCH term, and that
  // form then keeps its meaning, the nearest rows within k; later releases
  // do hand it over (the plan says "nearest"), and the answer is the nearest
  // at any distance. Either way the answer is the one the plan names.
  const std::vector<Row> match_plan = db.rows(
      "EXPLAIN QUERY PLAN SELECT rowid FROM near WHERE fp MATCH 0 ORDER BY distance LIMIT 5");
  ASSERT_FALSE(match_plan.empty());
  const bool nearest = match_plan.back().back()->find("nearest") != std::string::npos;
  const char* const expected =
      nearest ? "SELECT id, hamming(fp, ?1) AS distance FROM plain ORDER BY distance, id LIMIT 5"
              : "SELECT id, hamming(fp, ?1) AS distance FROM plain WHERE hamming(fp, ?1) <= 3 "
                "ORDER BY distance, id LIMIT 5";
  EXPECT_EQ(
      rows_of(db.handle(),
              "SELECT rowid, distance FROM near WHERE fp MATCH ?1 ORDER BY distance LIMIT 5", 0),
      rows_of(db.handle(), expected, 0))
      << (nearest ? "plan: nearest" : "plan: within k");
  // The data has fewer than 5 rows within k of 0, so the two meanings differ.
  EXPECT_LT(db.integer("SELECT count(*) FROM plain WHERE hamming(fp, 0) <= 3"), 5);
}

// SQLite hands LIMIT to a virtual table only when it is alone in the FROM
// clause: joined to the rows' texts, the nearest go in a subquery (which
// the README shows); joined directly, the search keeps radius k.
TEST_F(Nearest, JoinsTakeTheNearestFromASubquery) {
  const std::int64_t query = static_cast<std::int64_t>(~kNear);
  const std::vector<std::string> expected = rows_of(
      db_.handle(),
      "SELECT id, hamming(fp, ?1) AS distance FROM plain ORDER BY distance, id LIMIT 10", query);
  ASSERT_EQ(expected.size(), 10U);
  EXPECT_EQ(rows_of(db_.handle(),
                    "SELECT n.rowid, n.distance FROM (SELECT rowid, distance FROM near(?1) "
                    "ORDER BY distance LIMIT 10) AS n JOIN plain AS p ON p.id = n.rowid "
                    "ORDER BY n.distance, n.rowid",
                    query),
            expected);
  EXPECT_EQ(rows_of(db_.handle(),
                    "SELECT n.rowid, n.distance FROM near(?1) AS n JOIN plain AS p ON p.id = "
                    "n.rowid ORDER BY n.distance, n.rowid LIMIT 10",
                    query),
            rows_of(db_.handle(),
                    "SELECT id, hamming(fp, ?1) AS distance FROM plain WHERE hamming(fp, ?1) <= 3 "
                    "ORDER BY distance, id LIMIT 10",
                    query));
}

// The count as an argument: the n nearest (ties by rowid) whatever the
// statement around it, in every position.
TEST_F(Nearest, TheCountArgumentMeansTheNearestEverywhere) {
  std::mt19937_64 random(2025);
  for (const std::int64_t query :
       {static_cast<std::int64_t>(kNear), static_cast<std::int64_t>(~kNear), std::int64_t{0},
        static_cast<std::int64_t>(random())}) {
    for (const int n : {0, 1, 7, 40, 2000}) {
      const std::string count = std::to_string(n);
      const std::vector<std::string> expected = rows_of(
          db_.handle(),
          "SELECT id, hamming(fp, ?1) AS distance FROM plain ORDER BY distance, id LIMIT " + count,
          query);
      for (const std::string& sql : {
               "SELECT rowid, distance FROM near WHERE query = ?1 AND nearest = " + count +
                   " ORDER BY distance, rowid",
               "SELECT rowid, distance FROM near(?1, 64, " + count + ") ORDER BY distance, rowid",
               // Joined to the rows: every joined row has its own match.
               "SELECT n.rowid, n.distance FROM plain AS p JOIN near AS n ON n.query = ?1 AND "
               "n.nearest = " +
                   count + " AND p.id = n.rowid ORDER BY n.distance, n.rowid",
               // In a subquery.
               "SELECT rowid, distance FROM plain AS p, (SELECT rowid, distance FROM near(?1, "
               "64, " +
                   count + ")) AS n WHERE p.id = n.rowid ORDER BY distance, rowid",
           }) {
        EXPECT_EQ(rows_of(db_.handle(), sql, query), expected) << sql;
      }
      // Within a bound: the n nearest of the rows within it.
      EXPECT_EQ(
          rows_of(db_.handle(),
                  "SELECT rowid, distance FROM near(?1, 5, " + count + ") ORDER BY distance, rowid",
                  query),
          rows_of(db_.handle(),
                  "SELECT id, hamming(fp, ?1) AS distance FROM plain WHERE hamming(fp, ?1) "
                  "<= 5 ORDER BY distance, id LIMIT " +
                      count,
                  query));
    }
  }
  // Each row of an outer table takes its own n nearest (the count as a join
  // column works too).
  const std::string per_row =
      "SELECT p.id, n.rowid, n.distance FROM plain AS p JOIN near AS n ON n.query = p.fp AND "
      "n.nearest = 3 WHERE p.id % 97 = 0 ORDER BY p.id, n.distance, n.rowid";
  const std::string brute =
      "SELECT id, other, distance FROM (SELECT p.id, r.id AS other, hamming(r.fp, p.fp) AS "
      "distance, row_number() OVER (PARTITION BY p.id ORDER BY hamming(r.fp, p.fp), r.id) AS "
      "place FROM plain AS p, plain AS r WHERE p.id % 97 = 0) WHERE place <= 3 "
      "ORDER BY id, distance, other";
  EXPECT_EQ(db_.rows(per_row), db_.rows(brute));
  EXPECT_GT(db_.rows(per_row).size(), 30U);
  // A count past 2^32 keeps every row within the bound (a 32-bit size_t
  // must not cut it to 1).
  EXPECT_EQ(rows_of(db_.handle(),
                    "SELECT rowid, distance FROM near(?1, 5, 4294967297) ORDER BY distance, rowid",
                    static_cast<std::int64_t>(kNear)),
            brute_force_rows(db_, static_cast<std::int64_t>(kNear), 5));
  EXPECT_EQ(db_.integer("SELECT count(*) FROM near WHERE query = 1 AND nearest = NULL"), 0);
  EXPECT_EQ(db_.integer("SELECT nearest FROM near(1, 64, 2) LIMIT 1"), 2);
  const std::string plan = plan_of(db_, "SELECT * FROM near WHERE query = 1 AND nearest = 5");
  EXPECT_NE(plan.find("nearest (index, k=3"), std::string::npos) << plan;
  for (const char* bad : {"-1", "'5'", "2.5"}) {
    const std::string message = db_.error(std::string("SELECT * FROM near(1, 64, ") + bad + ")");
    EXPECT_NE(message.find("simhash_index near: nearest must be a count of rows, an integer of 0 "
                           "or more, got"),
              std::string::npos)
        << message;
  }
  EXPECT_NE(db_.error("SELECT * FROM near(1, 64, -1)").find("got -1"), std::string::npos);
  EXPECT_NE(db_.error("UPDATE near SET nearest = 3").find("column nearest is computed"),
            std::string::npos);
}

// A table named nearest keeps its command column; its count column is
// nearest_count.
// Near duplicates: the probe within k stops once the copies it has read
// prove the n nearest (a copy's bucket finds every row within 0 bits, two
// disjoint copies' every row within 1, ...). Clusters of exact duplicates
// and of rows 1-3 bits apart around a few centres, queried at and near the
// centres for counts that end the reading after each copy, against a
// hamming() scan; also with pending changes: a row nearer than the stored
// ones, and rows of the centre deleted and moved away (the reading then
// counts one row more per delete).
TEST(NearestEarlyStop, NearDuplicatesAgreeWithTheScan) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec("CREATE TABLE plain(id INTEGER PRIMARY KEY, fp INTEGER)");
  std::mt19937_64 random(4137);
  std::vector<std::uint64_t> centres;
  for (int c = 0; c < 6; ++c) {
    centres.push_back(random());
  }
  db.exec("BEGIN");
  std::int64_t id = 1;
  for (const std::uint64_t centre : centres) {
    for (int copy = 0; copy < 40; ++copy) {
      // A quarter exact duplicates, half one bit away, the rest 2-3 (ties
      // at each distance, and rows one bit away in every copy's prefix).
      const int flips = copy % 4 == 0 ? 0 : copy % 4 != 3 ? 1 : 2 + static_cast<int>(random() % 2);
      insert_into_near_and_plain(db, (id++ * 7919) % 100003,
                                 flip_random_bits(centre, flips, random));
    }
  }
  for (int other = 0; other < 600; ++other) {
    insert_into_near_and_plain(db, (id++ * 7919) % 100003, random());
  }
  db.exec("COMMIT");
  const auto check = [&](std::int64_t query) {
    for (const int count : {1, 5, 10, 11, 12, 16, 20, 25, 30, 41, 60}) {
      expect_both_forms_agree(db, query, count);
    }
  };
  for (const std::uint64_t centre : centres) {
    for (int flips = 0; flips <= 3; ++flips) {
      check(static_cast<std::int64_t>(flip_random_bits(centre, flips, random)));
    }
  }
  db.exec("BEGIN");
  insert_into_near_and_plain(db, 200001, centres[0]);
  check(static_cast<std::int64_t>(centres[0]));
  // The centre's exact duplicates, every other one deleted or moved away.
  const std::string centre = std::to_string(static_cast<std::int64_t>(centres[0]));
  const std::string some = std::string("(SELECT id FROM plain WHERE fp = ") + centre +
                           " AND id < 200000 AND id % 2 = 0)";
  const std::string moved =
      std::string("(SELECT id FROM plain WHERE fp = ") + centre + " AND id % 3 = 1)";
  db.exec("DELETE FROM near WHERE rowid IN " + some);
  db.exec("DELETE FROM plain WHERE id IN " + some);
  db.exec("UPDATE near SET fp = fp + 1024 WHERE rowid IN " + moved);
  db.exec("UPDATE plain SET fp = fp + 1024 WHERE id IN " + moved);
  ASSERT_GT(db.integer("SELECT count(*) FROM plain WHERE fp = " + centre), 3);
  for (const std::uint64_t centre_row : centres) {
    check(static_cast<std::int64_t>(centre_row));
  }
  db.exec("ROLLBACK");
  check(static_cast<std::int64_t>(centres[0]));
}

// A stored row in a sparse region: radius k finds only the row
// itself and its other neighbours lie a few bits farther, far below where
// uniform rows would hold n (radius ~21 at 20,000 rows). The growth then
// steps one radius at a time while the steps cost a share of the jump, so
// the WHERE form's radius column (the radius the search ended at) stays
// small where the jump would have ended in the pass over every row (64).
// Inside a write transaction that rebuilt the buckets (the cached codes then
// do not serve until it ends, so the pass is priced over the packed
// buckets), with a row pending after the rebuild, and after its rollback,
// both forms against a hamming() scan.
TEST(NearestSparseRegion, AStoredRowGrowsOneRadiusAtATime) {
  TestDatabase db;
  // The plain table first, by one prepared statement; the index from it.
  db.exec("CREATE TABLE plain(id INTEGER PRIMARY KEY, fp INTEGER)");
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  std::vector<std::uint64_t> centres;
  std::mt19937_64 random(3741);
  db.exec("BEGIN");
  sqlite3_stmt* insert = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db.handle(), "INSERT INTO plain(id, fp) VALUES (?1, ?2)", -1,
                               &insert, nullptr),
            SQLITE_OK);
  std::int64_t id = 0;
  const auto add = [&](std::uint64_t fp) {
    sqlite3_bind_int64(insert, 1, (++id * 7919) % 100003);
    sqlite3_bind_int64(insert, 2, static_cast<std::int64_t>(fp));
    EXPECT_EQ(sqlite3_step(insert), SQLITE_DONE);
    sqlite3_reset(insert);
  };
  for (int c = 0; c < 3; ++c) {
    // The centre, then neighbours from 4 + c bits out (ties at each distance).
    centres.push_back(random());
    add(centres.back());
    for (int neighbour = 0; neighbour < 12; ++neighbour) {
      add(flip_random_bits(centres.back(), 4 + c + neighbour / 4, random));
    }
  }
  while (id < 20000) {
    add(random());
  }
  sqlite3_finalize(insert);
  db.exec("INSERT INTO near(rowid, fp) SELECT id, fp FROM plain");
  db.exec("COMMIT");
  const auto check = [&](bool stepped) {
    for (const std::uint64_t centre : centres) {
      const auto query = static_cast<std::int64_t>(centre);
      for (const int count : {1, 5, 10, 13}) {
        expect_both_forms_agree(db, query, count);
      }
      if (stepped) {
        EXPECT_LE(db.integer("SELECT max(radius) FROM near WHERE query = " + std::to_string(query) +
                             " AND nearest = 10"),
                  9);
      }
    }
  };
  db.exec("BEGIN");
  db.exec("INSERT INTO plain(id, fp) VALUES (200001, 12345)");
  db.exec("INSERT INTO near(rowid, fp) VALUES (200001, 12345)");
  db.exec("INSERT INTO near(near) VALUES ('rebuild')");
  db.exec("INSERT INTO plain(id, fp) VALUES (200002, 54321)");
  db.exec("INSERT INTO near(rowid, fp) VALUES (200002, 54321)");
  check(true);
  db.exec("ROLLBACK");
  check(false);
}

TEST(NearestColumn, ATableNamedNearestNamesItsCountColumnNearestCount) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE nearest USING simhash_index(k=3)");
  db.exec("INSERT INTO nearest(rowid, fp) VALUES (1, 5), (2, 7), (3, -1)");
  EXPECT_EQ(db.rows("SELECT rowid FROM nearest WHERE query = 4 AND nearest_count = 1"),
            (std::vector<Row>{{"1"}}));
  db.exec("INSERT INTO nearest(nearest) VALUES ('integrity-check')");
  db.exec("ALTER TABLE nearest RENAME TO other");
  EXPECT_EQ(db.rows("SELECT rowid FROM other WHERE query = 4 AND nearest = 2 ORDER BY rowid"),
            (std::vector<Row>{{"1"}, {"2"}}));
}

}  // namespace
}  // namespace simhash::testing
