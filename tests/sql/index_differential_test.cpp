// SPDX-License-Identifier: MIT
// Randomized differential tests of simhash_index against brute-force Hamming
// distance: planted clusters and uniform data, k in {0,1,3,6}, blocks at the
// default and at k+2 (and k=3 with 7 blocks: 35 tables), every radius 0..k+2,
// both query forms, after random batches of writes; and each plan once more
// with the probes within k read from the connection's copy of the buckets
// (the hidden load_buckets_after=0 loads it at each data version's first).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "index/permutation_plan.h"
#include "index_test_support.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

struct PlanCase {
  int k;
  int blocks;
  bool cached_buckets = false;
};

std::string plan_name(const ::testing::TestParamInfo<PlanCase>& info) {
  std::string name = "k";
  name += std::to_string(info.param.k);
  name += "_blocks";
  name += std::to_string(info.param.blocks);
  name += info.param.cached_buckets ? "_cached_buckets" : "";
  return name;
}

class IndexDifferential : public ::testing::TestWithParam<PlanCase> {};

TEST_P(IndexDifferential, MatchesBruteForceThroughWrites) {
  const auto [k, blocks, cached_buckets] = GetParam();
  std::mt19937_64 random(1000 + 17 * k + blocks);
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=" + std::to_string(k) + ", blocks=" +
          std::to_string(blocks) + (cached_buckets ? ", load_buckets_after=0" : "") + ")");
  Model model;
  bulk_insert(db.handle(), "near", model, make_fingerprints(scaled(20000), random), 1);
  verify_against_model(db.handle(), "near", model, k, random);
  for (int batch = 0; batch < 3; ++batch) {
    db.exec("BEGIN");
    for (int round = 0; round < 3; ++round) {
      mutate(db.handle(), "near", model, scaled(500), random);
      // Reads inside the transaction see its own uncommitted writes, from
      // the pending buffer (no integrity check here: it would merge them).
      verify_against_model(db.handle(), "near", model, k, random, 4, false);
    }
    db.exec("COMMIT");
    verify_against_model(db.handle(), "near", model, k, random, 6);
  }
  // Autocommit single statements (each its own transaction).
  mutate(db.handle(), "near", model, scaled(300), random);
  verify_against_model(db.handle(), "near", model, k, random, 6);
  db.exec("INSERT INTO near(near) VALUES('rebuild')");
  verify_against_model(db.handle(), "near", model, k, random, 4);
}

std::vector<PlanCase> plan_cases() {
  std::vector<PlanCase> cases;
  for (int k : {0, 1, 3, 6}) {
    cases.push_back({k, PermutationPlan::default_blocks(k)});
    if (k + 2 != PermutationPlan::default_blocks(k)) {
      cases.push_back({k, k + 2});
    }
  }
  // 35 tables: more than the 32 the probe reads with one statement, so the
  // buckets come from a full chunk and a remainder.
  cases.push_back({3, 7});
  const std::size_t plans = cases.size();
  for (std::size_t i = 0; i < plans; ++i) {
    cases.push_back({cases[i].k, cases[i].blocks, true});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Plans, IndexDifferential, ::testing::ValuesIn(plan_cases()), plan_name);

}  // namespace
}  // namespace simhash::testing
