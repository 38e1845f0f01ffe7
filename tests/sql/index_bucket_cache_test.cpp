// SPDX-License-Identifier: MIT
// The copy of every stored bucket a connection keeps for its probes within k
// (keyed by the database's data version, like the cached codes): the rows
// within k against a brute-force hamming() scan of a plain table with the
// same rows, after another connection's commits in rollback-journal and WAL
// mode, this connection's own commits, pending writes, savepoints,
// rollbacks, a rebuild, a reopen, an in-memory database and another
// connection's growth of the bucket bits. The hidden load_buckets_after=0
// loads the copy at the first probe of each data version; without it the
// cost rule loads it once the probes at one version have paid for it. Which
// of the two answers is shown by buckets damaged by hand inside a
// savepoint: the copy (read before) does not see the damage, a read of the
// buckets fails on it.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "index_test_support.h"

namespace simhash::testing {
namespace {

constexpr std::uint64_t kCenter = 0x0f1e'2d3c'4b5a'6978ULL;
constexpr const char* kLoadAtOnce = ", load_buckets_after=0";

class IndexBucketCache : public ::testing::Test {
 protected:
  // `options`: the CREATE arguments after k=3.
  void fill(TestDatabase& db, int rows, const std::string& options) {
    db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3" + options + ")");
    db.exec("CREATE TABLE plain(id INTEGER PRIMARY KEY, fp INTEGER)");
    db.exec("BEGIN");
    for (int i = 1; i <= rows; ++i) {
      const std::uint64_t fp =
          i % 3 == 0 ? flip_random_bits(kCenter, static_cast<int>(random_() % 8), random_)
                     : random_();
      insert_into_near_and_plain(db, i, fp);
    }
    db.exec("COMMIT");
  }

  // Stored rows' fingerprints a few bits off, the crowded center, and
  // random queries: at every radius up to k, sorted by the plan and by
  // SQLite, and the n nearest (whose first search is a probe within k).
  void expect_brute_force(TestDatabase& db, const std::string& when) {
    std::vector<std::int64_t> queries = {static_cast<std::int64_t>(kCenter),
                                         static_cast<std::int64_t>(random_())};
    const std::vector<std::string> stored =
        rows_of(db.handle(), "SELECT fp, 0 FROM plain ORDER BY random() LIMIT 4", 0);
    for (const std::string& row : stored) {
      const auto fp = static_cast<std::uint64_t>(std::stoll(row.substr(0, row.find(':'))));
      queries.push_back(static_cast<std::int64_t>(
          flip_random_bits(fp, static_cast<int>(random_() % 4), random_)));
    }
    for (const std::int64_t query : queries) {
      for (int radius = 0; radius <= 3; ++radius) {
        const std::string within = std::to_string(radius);
        EXPECT_EQ(rows_of(db.handle(),
                          "SELECT rowid, distance FROM near WHERE fp MATCH ?1 AND distance <= " +
                              within + " ORDER BY distance, rowid",
                          query),
                  brute_force_rows(db, query, radius))
            << when << ": radius " << radius;
      }
      EXPECT_EQ(rows_of(db.handle(), "SELECT rowid, distance FROM near(?1, 64, 3)", query),
                rows_of(db.handle(),
                        "SELECT id, hamming(fp, ?1) AS d FROM plain ORDER BY d, id LIMIT 3", query))
          << when << ": the 3 nearest";
    }
  }

  // A stored row's answer within k with every bucket damaged by hand, the
  // damage undone after: brute force's rows when the copy answers, a
  // malformed bucket when the buckets table does.
  std::vector<std::string> rows_with_damaged_buckets(TestDatabase& db) {
    const std::int64_t query = db.integer("SELECT fp FROM plain ORDER BY id LIMIT 1");
    db.exec("SAVEPOINT damage");
    db.exec("UPDATE near_buckets SET entries = x'ff'");
    const std::vector<std::string> rows =
        rows_of(db.handle(),
                "SELECT rowid, distance FROM near WHERE fp MATCH ?1 AND distance <= 3 "
                "ORDER BY distance, rowid",
                query);
    db.exec("ROLLBACK TO damage");
    db.exec("RELEASE damage");
    return rows;
  }
  void expect_copy_answers(TestDatabase& db, const std::string& when) {
    const std::int64_t query = db.integer("SELECT fp FROM plain ORDER BY id LIMIT 1");
    EXPECT_EQ(rows_with_damaged_buckets(db), brute_force_rows(db, query, 3)) << when;
  }
  void expect_buckets_answer(TestDatabase& db, const std::string& when) {
    const std::vector<std::string> rows = rows_with_damaged_buckets(db);
    ASSERT_EQ(rows.size(), 1U) << when;
    EXPECT_NE(rows[0].find("is malformed"), std::string::npos) << when << ": " << rows[0];
  }

  // Rows deleted, moved and added around the center and at random.
  void write_some(TestDatabase& db, int round) {
    for (int i = 0; i < 6; ++i) {
      const std::string id = std::to_string(3 * (10 * round + i) + 3);  // around the center
      if (i % 2 == 0) {
        db.exec("DELETE FROM near WHERE rowid = " + id);
        db.exec("DELETE FROM plain WHERE id = " + id);
      } else {
        const std::string fp =
            std::to_string(static_cast<std::int64_t>(flip_random_bits(kCenter, i, random_)));
        db.exec("UPDATE near SET fp = " + fp + " WHERE rowid = " + id);
        db.exec("UPDATE plain SET fp = " + fp + " WHERE id = " + id);
      }
      insert_into_near_and_plain(db, 100000 + 100 * round + i,
                                 i % 2 == 0 ? flip_random_bits(kCenter, i, random_) : random_());
    }
  }

  std::mt19937_64 random_{4141};
};

TEST_F(IndexBucketCache, FollowsAnotherConnectionsCommits) {
  for (const char* journal : {"DELETE", "WAL"}) {
    const TempDatabaseFile file(std::string("bucket_cache_") + journal);
    TestDatabase reader(file.path());
    reader.exec(std::string("PRAGMA journal_mode = ") + journal);
    fill(reader, 3000, kLoadAtOnce);
    TestDatabase writer(file.path());
    const std::string mode = std::string(journal) + ", round ";
    expect_brute_force(reader, mode + "0");
    expect_copy_answers(reader, mode + "0");
    for (int round = 1; round <= 3; ++round) {
      if (round == 2) {
        writer.exec("BEGIN");  // several changes in one commit
      }
      write_some(writer, round);
      if (round == 2) {
        writer.exec("COMMIT");
      }
      expect_brute_force(reader, mode + std::to_string(round));
    }
    // A read transaction keeps its snapshot's copy, and sees the commit after it.
    reader.exec("BEGIN");
    expect_brute_force(reader, mode + "in a read transaction");
    reader.exec("COMMIT");
    write_some(writer, 4);
    expect_brute_force(reader, mode + "after a read transaction");
  }
}

TEST_F(IndexBucketCache, FollowsThisConnectionsWrites) {
  const TempDatabaseFile file("bucket_cache_own");
  {
    TestDatabase db(file.path());
    fill(db, 3000, kLoadAtOnce);
    expect_brute_force(db, "committed");
    write_some(db, 1);  // autocommit statements
    expect_brute_force(db, "after autocommit writes");
    db.exec("BEGIN");
    write_some(db, 2);
    expect_brute_force(db, "pending");
    expect_copy_answers(db, "pending");
    db.exec("SAVEPOINT s");
    write_some(db, 3);
    expect_brute_force(db, "in a savepoint");
    db.exec("ROLLBACK TO s");
    db.exec("RELEASE s");
    expect_brute_force(db, "after rollback to the savepoint");
    db.exec("ROLLBACK");
    expect_brute_force(db, "after a rollback");
    db.exec("BEGIN");
    write_some(db, 4);
    db.exec("COMMIT");
    expect_brute_force(db, "after a commit");
    db.exec("INSERT INTO near(near) VALUES ('rebuild')");
    expect_brute_force(db, "after a rebuild");
  }
  TestDatabase db(file.path());
  expect_brute_force(db, "reopened");
  write_some(db, 5);
  expect_brute_force(db, "reopened, after writes");
  TestDatabase memory;
  fill(memory, 3000, kLoadAtOnce);
  expect_brute_force(memory, "in memory");
  write_some(memory, 6);
  expect_brute_force(memory, "in memory, after writes");
}

// The copy serves a write transaction, with the pending changes over it,
// until the transaction writes a bucket (a merge: flush_after=20 makes the
// second round of writes merge; a rebuild), also after a ROLLBACK TO that
// undoes the merge, until the transaction ends.
TEST_F(IndexBucketCache, ServesAWriteTransactionUntilItWritesABucket) {
  const TempDatabaseFile file("bucket_cache_in_transaction");
  TestDatabase db(file.path());
  fill(db, 3000, std::string(kLoadAtOnce) + ", flush_after=20");
  expect_brute_force(db, "committed");
  db.exec("BEGIN");
  write_some(db, 1);
  expect_copy_answers(db, "pending");
  expect_brute_force(db, "pending");
  db.exec("SAVEPOINT s");
  write_some(db, 2);
  expect_buckets_answer(db, "merged in a savepoint");
  expect_brute_force(db, "merged in a savepoint");
  db.exec("ROLLBACK TO s");
  db.exec("RELEASE s");
  expect_buckets_answer(db, "the merge rolled back to the savepoint");
  expect_brute_force(db, "the merge rolled back to the savepoint");
  db.exec("ROLLBACK");
  expect_brute_force(db, "rolled back");
  expect_copy_answers(db, "rolled back");

  db.exec("BEGIN");
  write_some(db, 3);
  db.exec("INSERT INTO near(near) VALUES ('rebuild')");
  expect_buckets_answer(db, "rebuilt");
  expect_brute_force(db, "rebuilt");
  db.exec("COMMIT");
  expect_brute_force(db, "the rebuild committed");
  expect_copy_answers(db, "the rebuild committed");
}

// Another connection raises the bucket bits (a tiny layout stored by hand)
// while this one holds a copy under the old bits: its next probe reads the
// new layout's buckets.
TEST_F(IndexBucketCache, AnotherConnectionsGrowthIsSeen) {
  const TempDatabaseFile file("bucket_cache_growth");
  create_with_bucket_bits(file.path(), "near", 1, std::string("k=3") + kLoadAtOnce);
  std::mt19937_64 random(17);
  Model model;
  TestDatabase first(file.path());
  TestDatabase second(file.path());
  bulk_insert(first.handle(), "near", model, make_fingerprints(100, random), 1);
  verify_against_model(second.handle(), "near", model, 3, random, 4, false);
  bulk_insert(first.handle(), "near", model, make_fingerprints(1500, random), 1000);
  ASSERT_GT(first.integer("SELECT value FROM near_config WHERE key = 'bucket_bits'"), 1);
  verify_against_model(second.handle(), "near", model, 3, random, 6, false);
  verify_against_model(first.handle(), "near", model, 3, random, 6, false);
}

// Without the hidden option the rule decides: the first probes at a data
// version read the buckets table, and once they have paid for the load the
// copy answers; a commit starts the count again.
TEST_F(IndexBucketCache, LoadsOnceTheProbesHavePaidForIt) {
  const TempDatabaseFile file("bucket_cache_rule");
  TestDatabase db(file.path());
  fill(db, 3000, "");
  expect_buckets_answer(db, "after one probe");
  std::mt19937_64 queries(5);
  for (int i = 0; i < 3000; ++i) {
    db.integer("SELECT count(*) FROM near WHERE fp MATCH " +
               std::to_string(static_cast<std::int64_t>(queries())));
  }
  expect_copy_answers(db, "after many probes");
  expect_brute_force(db, "after many probes");
  write_some(db, 1);
  expect_buckets_answer(db, "after a commit");
  expect_brute_force(db, "after a commit");
}

}  // namespace
}  // namespace simhash::testing
