// SPDX-License-Identifier: MIT
// PairFinder and find_clusters against brute-force all-pairs on records with
// planted clusters, at several radii and with several plans.
#include "batch/pair_finder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "batch/near_duplicate_clusters.h"
#include "batch_test_data.h"
#include "plan_case.h"

namespace simhash::testing {
namespace {

constexpr std::size_t kRecords = 5000;

// The plans each radius is tried with: the cost model's choice, several
// block counts with k = radius, a plan with k above the radius, all pairs.
std::vector<std::pair<std::string, std::function<BatchPlan(std::size_t)>>> plans_for(int radius) {
  std::vector<std::pair<std::string, std::function<BatchPlan(std::size_t)>>> plans;
  plans.emplace_back("chosen", [radius](std::size_t n) { return BatchPlan::choose(radius, n); });
  plans.emplace_back("all pairs", [radius](std::size_t) { return BatchPlan::all_pairs(radius); });
  for (int blocks : {radius + 1, radius + 2, radius + 4}) {
    plans.emplace_back("k=" + std::to_string(radius) + " blocks=" + std::to_string(blocks),
                       [radius, blocks](std::size_t) {
                         return BatchPlan::block_permutation(radius, make_plan(radius, blocks));
                       });
  }
  plans.emplace_back("k=" + std::to_string(radius + 2) + " blocks=" + std::to_string(radius + 4),
                     [radius](std::size_t) {
                       return BatchPlan::block_permutation(radius,
                                                           make_plan(radius + 2, radius + 4));
                     });
  return plans;
}

TEST(PairFinder, MatchesBruteForceAtSeveralRadiiAndPlans) {
  const auto records = planted_records(kRecords, 20261121);
  for (int radius : {0, 1, 3, 5, 8}) {
    const std::vector<NearPair> expected = brute_force_pairs(records, radius);
    ASSERT_GT(expected.size(), 9900U) << "the planted data must give pairs";
    for (const auto& [name, make_plan] : plans_for(radius)) {
      PairFinder finder(records, make_plan);
      std::vector<NearPair> found = drain(finder);
      for (const NearPair& pair : found) {
        ASSERT_LT(pair.a, pair.b) << name;
      }
      std::sort(found.begin(), found.end());
      // Equal sorted lists: the same set, and no pair twice.
      ASSERT_EQ(found.size(), expected.size()) << "radius " << radius << ", " << name;
      EXPECT_TRUE(found == expected) << "radius " << radius << ", " << name;
    }
  }
}

// The two sets of a cross search: the planted records split in two (so the
// clusters, and the big identical groups, straddle both), and the right set
// also holds a copy of some left rows under the same ids.
std::pair<std::vector<IdFingerprint>, std::vector<IdFingerprint>> split_records(
    const std::vector<IdFingerprint>& records) {
  std::vector<IdFingerprint> left;
  std::vector<IdFingerprint> right;
  for (std::size_t i = 0; i < records.size(); ++i) {
    (i % 3 == 0 ? left : right).push_back(records[i]);
  }
  for (std::size_t i = 0; i < left.size(); i += 7) {
    right.push_back(left[i]);
  }
  return {left, right};
}

TEST(PairFinder, BetweenTwoSetsMatchesBruteForceAtSeveralRadiiAndPlans) {
  const auto [left, right] = split_records(planted_records(kRecords, 20261123));
  for (int radius : {0, 1, 3, 5, 8}) {
    const std::vector<NearPair> expected = brute_force_pairs_between(left, right, radius);
    ASSERT_GT(expected.size(), 2000U) << "the planted data must give pairs";
    auto plans = plans_for(radius);
    plans.front().second = {};  // "chosen": choose_between, below
    for (const auto& plan : plans) {
      const std::string& name = plan.first;
      const auto& make_plan = plan.second;  // (clang 14 lambdas cannot capture bindings)
      PairFinder finder(left, right, [&](std::size_t left_count, std::size_t right_count) {
        return make_plan ? make_plan(left_count + right_count)
                         : BatchPlan::choose_between(radius, left_count, right_count);
      });
      std::vector<NearPair> found = drain(finder);
      std::sort(found.begin(), found.end());
      // Equal sorted lists: the same set, and no pair twice.
      ASSERT_EQ(found.size(), expected.size()) << "radius " << radius << ", " << name;
      EXPECT_TRUE(found == expected) << "radius " << radius << ", " << name;
    }
  }
  // Either set empty: no pairs.
  for (const auto& [x, y] : {std::pair{left, std::vector<IdFingerprint>{}},
                             std::pair{std::vector<IdFingerprint>{}, right}}) {
    PairFinder finder(x, y, 3);
    EXPECT_TRUE(drain(finder).empty());
  }
  // The same set on both sides: every ordered pair, each row with itself too.
  const std::vector<IdFingerprint> few(left.begin(), left.begin() + 300);
  PairFinder finder(few, few, 64);
  EXPECT_EQ(drain(finder).size(), few.size() * few.size());
}

TEST(PairFinder, BetweenTwoSetsChoosesTablesForSmallRadii) {
  const BatchPlan plan = BatchPlan::choose_between(3, 1000000, 10000000);
  ASSERT_EQ(plan.method(), BatchPlan::Method::kBlockPermutation);
  EXPECT_GE(plan.tables()->k(), 3);
  EXPECT_EQ(BatchPlan::choose_between(3, 10, 20).method(), BatchPlan::Method::kAllPairs);
  EXPECT_EQ(BatchPlan::choose_between(0, 10, 20).method(), BatchPlan::Method::kIdenticalOnly);
  EXPECT_THROW(PairFinder({{1, 5}}, {{1, 5}}, -1), std::invalid_argument);
  EXPECT_THROW(PairFinder({{1, 5}}, {{2, 5}, {2, 6}}, 3), std::invalid_argument);
}

TEST(PairFinder, ChosenPlanUsesTablesForSmallRadiiOnManyRecords) {
  const BatchPlan plan = BatchPlan::choose(3, 1000000);
  ASSERT_EQ(plan.method(), BatchPlan::Method::kBlockPermutation);
  EXPECT_GE(plan.tables()->k(), 3);
  EXPECT_EQ(BatchPlan::choose(0, 1000).method(), BatchPlan::Method::kIdenticalOnly);
  EXPECT_EQ(BatchPlan::choose(64, 1000).method(), BatchPlan::Method::kAllPairs);
  EXPECT_EQ(BatchPlan::choose(40, 1000000).method(), BatchPlan::Method::kAllPairs);
  EXPECT_THROW(BatchPlan::choose(-1, 10), std::invalid_argument);
  // The plan made outside: make_plan throws invalid_argument too.
  const PermutationPlan k3 = make_plan(3, 5);
  EXPECT_THROW(BatchPlan::block_permutation(4, k3), std::invalid_argument);
}

TEST(PairFinder, RadiusOf64OrMoreGivesEveryPair) {
  const auto records = planted_records(400, 7);
  for (int radius : {63, 64, 1000}) {
    PairFinder finder(records, radius);
    std::vector<NearPair> found = drain(finder);
    std::sort(found.begin(), found.end());
    EXPECT_EQ(found.size(), records.size() * (records.size() - 1) / 2);
    EXPECT_TRUE(found == brute_force_pairs(records, 64)) << radius;
  }
}

TEST(PairFinder, EmptyAndSingleRecordGiveNoPairs) {
  for (std::size_t count : {0U, 1U}) {
    std::vector<IdFingerprint> records;
    for (std::size_t i = 0; i < count; ++i) {
      records.push_back(IdFingerprint{42, 7});
    }
    PairFinder finder(records, 3);
    EXPECT_TRUE(drain(finder).empty());
    EXPECT_EQ(find_clusters(records, 3).size(), count);
  }
}

TEST(PairFinder, RejectsRepeatedIdsAndNegativeRadius) {
  const std::vector<IdFingerprint> repeated = {{1, 5}, {2, 6}, {1, 7}};
  EXPECT_THROW(PairFinder(repeated, 3), std::invalid_argument);
  EXPECT_THROW(find_clusters(repeated, 3), std::invalid_argument);
  EXPECT_THROW(PairFinder({{1, 5}}, -1), std::invalid_argument);
}

TEST(Clusters, EqualConnectedComponentsAtSeveralRadiiAndPlans) {
  const auto records = planted_records(kRecords, 99);
  for (int radius : {0, 1, 3, 5, 8}) {
    const auto expected = reference_clusters(records, brute_force_pairs(records, radius));
    const FingerprintGroups groups(records);
    for (const auto& [name, make_plan] : plans_for(radius)) {
      const std::vector<IdCluster> clusters =
          find_clusters(groups, make_plan(groups.group_count()));
      ASSERT_EQ(clusters.size(), records.size());
      for (std::size_t i = 0; i < clusters.size(); ++i) {
        if (i > 0) {
          ASSERT_LT(clusters[i - 1].id, clusters[i].id) << "ascending ids";
        }
        ASSERT_EQ(clusters[i].cluster, expected.at(clusters[i].id))
            << "radius " << radius << ", " << name << ", id " << clusters[i].id;
      }
    }
  }
}

TEST(Clusters, SingleLinkChainsJoin) {
  // 0 -> 3 bits -> 6 bits: the ends are 6 apart but one cluster at radius 3.
  const std::uint64_t base = 0x0123456789abcdefULL;
  const std::vector<IdFingerprint> records = {
      {10, base}, {20, base ^ 0x7}, {30, base ^ 0x3f}, {40, ~base}};
  const auto clusters = find_clusters(records, 3);
  ASSERT_EQ(clusters.size(), 4U);
  EXPECT_EQ(clusters[0].cluster, 10);
  EXPECT_EQ(clusters[1].cluster, 10);
  EXPECT_EQ(clusters[2].cluster, 10);
  EXPECT_EQ(clusters[3].cluster, 40);
}

}  // namespace
}  // namespace simhash::testing
