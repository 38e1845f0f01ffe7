// SPDX-License-Identifier: MIT
// Radii above the index's k: every radius 0..24 against brute
// force, through both query forms, for several plans, with writes pending in
// a transaction, after a rollback, while the bucket bits grow, and after
// reopening the file; the n nearest at any distance from a growing radius.
// The plan EXPLAIN QUERY PLAN names must be the multi-probe here (the tables
// are large enough for it to beat a scan), so these tests exercise it.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "index/permutation_plan.h"
#include "index_test_support.h"
#include "plan_case.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

constexpr int kLargestRadius = 24;

void expect_every_radius(sqlite3* db, const Model& model, std::mt19937_64& random,
                         int query_count) {
  Prepared match(db, "SELECT rowid, distance FROM near WHERE fp MATCH ?1 AND distance <= ?2");
  Prepared function(db, "SELECT rowid, distance FROM near(?1, ?2)");
  std::vector<std::uint64_t> fps;
  for (const auto& entry : model) {
    fps.push_back(entry.second);
  }
  for (int i = 0; i < query_count; ++i) {
    std::uint64_t query = random();
    if (!fps.empty() && i % 3 != 0) {
      query = flip_random_bits(fps[random() % fps.size()], static_cast<int>(random() % 9), random);
    }
    for (int radius = 0; radius <= kLargestRadius; ++radius) {
      const Hits expected = brute_force(model, query, radius);
      ASSERT_EQ(run_hits(db, match.get(), query, radius), expected)
          << "MATCH radius=" << radius << " query=" << query;
      ASSERT_EQ(run_hits(db, function.get(), query, radius), expected)
          << "table-valued radius=" << radius << " query=" << query;
    }
  }
}

// The `count` nearest (ties by rowid) as the model says and as the index does.
void expect_nearest(sqlite3* db, const Model& model, std::uint64_t query, int count) {
  std::vector<std::pair<int, std::int64_t>> all;
  for (const auto& [id, fp] : model) {
    all.emplace_back(std::popcount(fp ^ query), id);
  }
  std::sort(all.begin(), all.end());
  all.resize(std::min(all.size(), static_cast<std::size_t>(count)));
  Prepared nearest(db, "SELECT rowid, distance FROM near(?1) ORDER BY distance LIMIT ?2");
  sqlite3_bind_int64(nearest.get(), 1, static_cast<sqlite3_int64>(query));
  sqlite3_bind_int(nearest.get(), 2, count);
  std::vector<std::pair<int, std::int64_t>> got;
  while (sqlite3_step(nearest.get()) == SQLITE_ROW) {
    got.emplace_back(sqlite3_column_int(nearest.get(), 1), sqlite3_column_int64(nearest.get(), 0));
  }
  EXPECT_EQ(got, all) << "nearest " << count << " of " << query;
}

class IndexLargeRadius : public ::testing::TestWithParam<PlanCase> {};

TEST_P(IndexLargeRadius, EveryRadiusMatchesBruteForceThroughWritesAndReopening) {
  const auto [k, blocks, bucket_bits] = GetParam();
  const std::string options = "k=" + std::to_string(k) + ", blocks=" + std::to_string(blocks);
  TempDatabaseFile file("large_radius");
  if (bucket_bits > 0) {
    create_with_bucket_bits(file.path(), "near", bucket_bits, options);
  }
  std::mt19937_64 random(4100 + 31 * k + blocks + bucket_bits);
  Model model;
  {
    TestDatabase db(file.path());
    if (bucket_bits == 0) {
      db.exec("CREATE VIRTUAL TABLE near USING simhash_index(" + options + ")");
    }
    bulk_insert(db.handle(), "near", model, make_fingerprints(scaled(20000), random), 1);
    // The searches above k must be the multi-probe for this test to test it.
    const std::string plan = plan_of(db, "SELECT * FROM near(0, " + std::to_string(k + 1) + ")");
    EXPECT_NE(plan.find("multi-probe"), std::string::npos) << plan;
    expect_every_radius(db.handle(), model, random, 4);

    // Writes pending in a transaction, then rolled back.
    Model before = model;
    db.exec("BEGIN");
    mutate(db.handle(), "near", model, scaled(400), random);
    expect_every_radius(db.handle(), model, random, 3);
    db.exec("ROLLBACK");
    model = before;
    expect_every_radius(db.handle(), model, random, 2);

    // Writes committed; with small bucket bits they make them grow.
    db.exec("BEGIN");
    insert_fingerprints(db.handle(), "near", model, make_fingerprints(scaled(6000), random),
                        100000);
    mutate(db.handle(), "near", model, scaled(400), random);
    db.exec("COMMIT");
    expect_integrity(db.handle(), "near");
    expect_every_radius(db.handle(), model, random, 3);
    for (const int count : {1, 20, 300}) {
      expect_nearest(db.handle(), model, random(), count);
      expect_nearest(db.handle(), model, model.begin()->second ^ 0x8001, count);
    }
  }
  TestDatabase reopened(file.path());
  expect_every_radius(reopened.handle(), model, random, 2);
}

INSTANTIATE_TEST_SUITE_P(Plans, IndexLargeRadius,
                         ::testing::Values(PlanCase{3, 4, 0}, PlanCase{3, 4, 3}, PlanCase{3, 5, 0},
                                           PlanCase{1, 3, 4}, PlanCase{6, 7, 0}),
                         [](const auto& info) { return plan_case_name(info.param); });

}  // namespace
}  // namespace simhash::testing
