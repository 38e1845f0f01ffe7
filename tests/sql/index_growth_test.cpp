// SPDX-License-Identifier: MIT
// Growth of a simhash_index's bucket bits (storage format 3): when the rows
// pass 256 per bucket, the merge that put them there rewrites every bucket
// with more bucket bits, in the same transaction. The tests store tiny bucket
// bits by hand (a config may hold any from 1 to 32), so a few thousand rows
// grow them several times, and compare the answers with brute force after
// each growth, after a growth rolled back, after reopening, and in a second
// connection that still held the old layout.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "index_test_support.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

constexpr int kK = 3;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::int64_t stored_bucket_bits(TestDatabase& db) {
  return db.integer(
      "SELECT coalesce((SELECT value FROM near_config WHERE key = 'bucket_bits'), 16)");
}

// The documented rule: the smallest bits, not below `bits`, with at most 256
// rows per bucket (every plan here has a prefix of 16 bits or more, beyond
// what these row counts ask for).
int bits_for(std::size_t rows, int bits) {
  while (rows > (std::size_t{256} << bits)) {
    ++bits;
  }
  return bits;
}

struct PlanCase {
  int k;
  int blocks;
};

class IndexGrowthPlans : public ::testing::TestWithParam<PlanCase> {};

// Plans whose prefixes are all 16 bits (k=3 and k=6 by default), 25 and 26
// bits (k=3, blocks=5: tables grow past 16 bits at scale) and 48 bits.
INSTANTIATE_TEST_SUITE_P(Plans, IndexGrowthPlans,
                         ::testing::Values(PlanCase{3, 4}, PlanCase{3, 5}, PlanCase{1, 4},
                                           PlanCase{6, 8}),
                         [](const ::testing::TestParamInfo<PlanCase>& info) {
                           // Appended: GCC 12 misreads "k" + std::string as overlapping.
                           std::string name = "k";
                           name += std::to_string(info.param.k);
                           name += "_blocks";
                           name += std::to_string(info.param.blocks);
                           return name;
                         });

TEST_P(IndexGrowthPlans, BucketBitsFollowTheRowsAndAnswersStayExact) {
  const auto [kK, blocks] = GetParam();
  const TempDatabaseFile file("simhash_growth");
  std::string options = "k=";
  options += std::to_string(kK);
  options += ", blocks=";
  options += std::to_string(blocks);
  create_with_bucket_bits(file.path(), "near", 1, options);
  std::mt19937_64 random(4242 + blocks);
  Model model;
  {
    TestDatabase db(file.path());
    std::int64_t next_id = 1;
    for (int batch = 0; batch < 4; ++batch) {
      const auto fps = make_fingerprints(1200, random);
      bulk_insert(db.handle(), "near", model, fps, next_id);
      next_id += static_cast<std::int64_t>(fps.size());
      EXPECT_EQ(stored_bucket_bits(db), bits_for(model.size(), 1)) << "batch " << batch;
      EXPECT_EQ(db.integer("SELECT value FROM near_config WHERE key = 'rows'"),
                static_cast<std::int64_t>(model.size()));
      verify_against_model(db.handle(), "near", model, kK, random, 6);
    }
    // Single statements in autocommit: each merge grows the bits as needed,
    // and deletes never shrink them.
    mutate(db.handle(), "near", model, 400, random);
    EXPECT_GE(stored_bucket_bits(db), bits_for(model.size(), 1));
    verify_against_model(db.handle(), "near", model, kK, random, 6);
  }
  TestDatabase reopened(file.path());
  EXPECT_EQ(reopened.integer("SELECT value FROM near_config WHERE key = 'format'"), 3);
  verify_against_model(reopened.handle(), "near", model, kK, random, 6);
  // A rebuild picks the bits from the rows, never fewer than a new index's 16.
  reopened.exec("INSERT INTO near(near) VALUES('rebuild')");
  EXPECT_EQ(stored_bucket_bits(reopened), bits_for(model.size(), 16));
  verify_against_model(reopened.handle(), "near", model, kK, random, 6);
}

// The merge that grows the bits also applies every kind of pending change:
// inserts, deletes, new fingerprints that move a row to another bucket and
// new rowids, all in the transaction whose merge passes the bound.
TEST(IndexGrowth, TheGrowingMergeAppliesEveryKindOfChange) {
  const TempDatabaseFile file("simhash_growth_mixed");
  create_with_bucket_bits(file.path(), "near", 1, "k=3, blocks=5");
  std::mt19937_64 random(515);
  Model model;
  TestDatabase db(file.path());
  bulk_insert(db.handle(), "near", model, make_fingerprints(500, random), 1);
  EXPECT_EQ(stored_bucket_bits(db), 1);
  db.exec("BEGIN");
  insert_fingerprints(db.handle(), "near", model, make_fingerprints(700, random), 5001);
  mutate(db.handle(), "near", model, 600, random);
  EXPECT_EQ(stored_bucket_bits(db), 1) << "merged before COMMIT";
  db.exec("COMMIT");
  EXPECT_EQ(stored_bucket_bits(db), bits_for(model.size(), 1));
  EXPECT_GT(stored_bucket_bits(db), 1);
  verify_against_model(db.handle(), "near", model, 3, random, 20);
}

TEST(IndexGrowth, AGrowthRolledBackLeavesTheOldLayout) {
  const TempDatabaseFile file("simhash_growth_rollback");
  create_with_bucket_bits(file.path(), "near", 1);
  std::mt19937_64 random(99);
  Model model;
  TestDatabase db(file.path());
  bulk_insert(db.handle(), "near", model, make_fingerprints(200, random), 1);
  EXPECT_EQ(stored_bucket_bits(db), 1);
  for (const char* end : {"ROLLBACK", "COMMIT"}) {
    Model changed = model;
    db.exec("BEGIN");
    insert_fingerprints(db.handle(), "near", changed, make_fingerprints(1500, random), 10'000);
    // A rebuild merges, and so grows, inside the transaction (a SAVEPOINT
    // no longer merges: the pending changes stay pending across savepoints).
    db.exec("SAVEPOINT merged; INSERT INTO near(near) VALUES ('rebuild')");
    const int grown = stored_bucket_bits(db);
    EXPECT_GT(grown, bits_for(model.size(), 1)) << end;
    verify_against_model(db.handle(), "near", changed, kK, random, 4, false);
    db.exec(std::string("RELEASE merged; ") + end);
    if (std::string(end) == "COMMIT") {
      model = changed;
    }
    EXPECT_EQ(stored_bucket_bits(db),
              std::string(end) == "COMMIT" ? grown : bits_for(model.size(), 1))
        << end;
    // Queries first: the integrity check would reread the config itself.
    verify_against_model(db.handle(), "near", model, kK, random, 6, false);
    verify_against_model(db.handle(), "near", model, kK, random, 2);
  }
}

TEST(IndexGrowth, AnotherConnectionsGrowthIsSeen) {
  const TempDatabaseFile file("simhash_growth_connections");
  create_with_bucket_bits(file.path(), "near", 1);
  std::mt19937_64 random(7);
  Model model;
  TestDatabase first(file.path());
  TestDatabase second(file.path());
  bulk_insert(first.handle(), "near", model, make_fingerprints(100, random), 1);
  // Both hold the layout of 1 bit and their cached statements.
  verify_against_model(first.handle(), "near", model, kK, random, 2);
  verify_against_model(second.handle(), "near", model, kK, random, 2);
  bulk_insert(first.handle(), "near", model, make_fingerprints(1500, random), 1000);
  ASSERT_GT(stored_bucket_bits(first), 1);
  // Queries first: the integrity check would reread the config itself.
  verify_against_model(second.handle(), "near", model, kK, random, 6, false);
  verify_against_model(second.handle(), "near", model, kK, random, 2);
  // The first grows the bits again; the second then writes without having
  // read since (its merge must see the new bits), and the first reads.
  bulk_insert(first.handle(), "near", model, make_fingerprints(3000, random), 100'000);
  const std::int64_t grown = stored_bucket_bits(first);
  bulk_insert(second.handle(), "near", model, make_fingerprints(50, random), 200'000);
  EXPECT_EQ(stored_bucket_bits(second), grown);
  EXPECT_EQ(grown, bits_for(model.size(), 1));
  verify_against_model(first.handle(), "near", model, kK, random, 6, false);
  verify_against_model(first.handle(), "near", model, kK, random, 2);
}

TEST(IndexGrowth, ANewIndexStaysFormat2UntilItGrows) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec("INSERT INTO near(rowid, fp) VALUES (1, 5), (2, 7), (3, -1)");
  db.exec("DELETE FROM near WHERE rowid = 2");
  EXPECT_EQ(db.integer("SELECT value FROM near_config WHERE key = 'format'"), 2);
  EXPECT_EQ(db.integer("SELECT count(*) FROM near_config WHERE key = 'bucket_bits'"), 0);
  EXPECT_EQ(db.integer("SELECT value FROM near_config WHERE key = 'rows'"), 2);
  expect_integrity(db.handle(), "near");
}

TEST(IndexGrowth, DamagedGrowthStateIsNamed) {
  const TempDatabaseFile file("simhash_growth_damage");
  struct Damage {
    const char* sql;
    const char* expected;
  };
  for (const Damage& damage : {Damage{"INSERT INTO near_config VALUES ('bucket_bits', 17)",
                                      "format 2 has bucket_bits=17; only 16 is valid there"},
                               Damage{"UPDATE near_config SET value = 3 WHERE key = 'format'",
                                      "the config table lacks bucket_bits"},
                               Damage{"UPDATE near_config SET value = 3 WHERE key = 'format'; "
                                      "INSERT INTO near_config VALUES ('bucket_bits', 33)",
                                      "stored bucket_bits=33 is out of range (1 to 32)"},
                               Damage{"UPDATE near_config SET value = 3 WHERE key = 'format'; "
                                      "INSERT INTO near_config VALUES ('bucket_bits', 0)",
                                      "stored bucket_bits=0 is out of range (1 to 32)"},
                               Damage{"UPDATE near_config SET value = -1 WHERE key = 'rows'",
                                      "the config table's rows is '-1', not a count"},
                               Damage{"UPDATE near_config SET value = 'many' WHERE key = 'rows'",
                                      "the config table's rows is 'many', not a count"}}) {
    {
      TestDatabase db(file.path());
      db.exec("DROP TABLE IF EXISTS near; CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
      db.exec("INSERT INTO near(rowid, fp) VALUES (1, 5)");
    }
    exec_without_extension(file.path(), damage.sql);
    TestDatabase db(file.path());
    const std::string message = db.error("SELECT * FROM near(5)");
    EXPECT_TRUE(contains(message, damage.expected)) << message;
    EXPECT_EQ(db.integer("SELECT count(*) FROM near_data"), 1);
  }
}

TEST(IndexGrowth, IntegrityCheckComparesTheRowCount) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec("INSERT INTO near(rowid, fp) VALUES (1, 5), (2, 7)");
  db.exec("UPDATE near_config SET value = 5 WHERE key = 'rows'");
  EXPECT_EQ(db.error("INSERT INTO near(near) VALUES('integrity-check')"),
            "simhash_index near: the config table's rows is 5 but near_data has 2; run 'rebuild'");
  db.exec("INSERT INTO near(near) VALUES('rebuild')");
  EXPECT_EQ(db.integer("SELECT value FROM near_config WHERE key = 'rows'"), 2);
  expect_integrity(db.handle(), "near");
}

}  // namespace
}  // namespace simhash::testing
