// SPDX-License-Identifier: MIT
// The leader grouping against a brute-force model of its rule (visit ids in
// ascending order; join the nearest earlier representative within the
// radius, ties to the smaller id; else become one), on records with planted
// chains, at several radii and plans; and over given ranked pairs.
#include "batch/leader_groups.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "batch_test_data.h"
#include "plan_case.h"

namespace simhash::testing {
namespace {

void expect_same(const std::vector<FingerprintLeader>& found,
                 const std::vector<FingerprintLeader>& expected, const std::string& context) {
  ASSERT_EQ(found.size(), expected.size()) << context;
  for (std::size_t i = 0; i < found.size(); ++i) {
    ASSERT_EQ(found[i], expected[i])
        << context << ", record " << i << " (id " << expected[i].id << "): leader "
        << found[i].leader << " at " << found[i].distance << ", expected " << expected[i].leader
        << " at " << expected[i].distance;
  }
}

TEST(LeaderGroups, MatchesTheRuleAtSeveralRadiiAndPlans) {
  const auto records = planted_records(4000, 20261123);
  for (int radius : {0, 1, 3, 5, 8}) {
    const auto expected = reference_leaders(records, radius);
    // The data must exercise the rule: records that join, and chains whose
    // ends single link would put together but leader grouping keeps apart.
    std::size_t joined = 0;
    for (const auto& row : expected) {
      joined += row.leader != row.id ? 1 : 0;
    }
    ASSERT_GT(joined, 200U) << "radius " << radius;
    const FingerprintGroups groups(records);
    expect_same(find_leader_groups(records, radius), expected,
                "radius " + std::to_string(radius) + ", chosen plan");
    expect_same(find_leader_groups(groups, BatchPlan::all_pairs(radius)), expected,
                "radius " + std::to_string(radius) + ", all pairs");
    for (int blocks : {radius + 1, radius + 3}) {
      expect_same(find_leader_groups(
                      groups, BatchPlan::block_permutation(radius, make_plan(radius, blocks))),
                  expected,
                  "radius " + std::to_string(radius) + ", blocks " + std::to_string(blocks));
    }
  }
}

TEST(LeaderGroups, NeverChainsWhereSingleLinkDoes) {
  // 0 -> 1 -> 2 -> 3 bits flipped one at a time: single link at radius 1 is
  // one cluster; leader grouping keeps every member within 1 bit of its leader.
  const std::vector<IdFingerprint> chain = {{1, 0x0}, {2, 0x1}, {3, 0x3}, {4, 0x7}, {5, 0xF}};
  const auto leaders = find_leader_groups(chain, 1);
  const std::vector<FingerprintLeader> expected = {
      {1, 1, 0}, {2, 1, 1}, {3, 3, 0}, {4, 3, 1}, {5, 5, 0}};
  expect_same(leaders, expected, "chain");
  for (const auto& cluster : find_clusters(chain, 1)) {
    EXPECT_EQ(cluster.cluster, 1) << "single link chains all five";
  }
}

TEST(LeaderGroups, JoinsTheNearestThenTheSmallestId) {
  // id 5 is 2 bits from representative 1 and 1 bit from representative 3;
  // id 6 is 2 bits from both 1 and 3 and takes the smaller id.
  const std::vector<IdFingerprint> records = {
      {1, 0x00}, {3, 0xF0}, {5, 0xE0}, {6, 0x30}, {7, 0xF0}};
  const auto found = find_leader_groups(records, 3);
  EXPECT_EQ(found[2], (FingerprintLeader{5, 3, 1}));
  EXPECT_EQ(found[3], (FingerprintLeader{6, 1, 2}));
  EXPECT_EQ(found[4], (FingerprintLeader{7, 3, 0})) << "an identical fingerprint joins at 0";
  EXPECT_THROW(find_leader_groups(records, -1), std::invalid_argument);
  EXPECT_TRUE(find_leader_groups({}, 3).empty());
}

TEST(LeaderGroups, RankedPairsMatchTheRule) {
  std::mt19937_64 random(20261123);
  for (int round = 0; round < 20; ++round) {
    std::vector<RankedPair> pairs;
    const int ids = 10 + static_cast<int>(random() % 200);
    const int count = static_cast<int>(random() % 600);
    for (int i = 0; i < count; ++i) {
      // Few distinct ranks, so ties are common; some pairs repeat or loop.
      pairs.push_back({static_cast<std::int64_t>(random() % ids) - 50,
                       static_cast<std::int64_t>(random() % ids) - 50,
                       static_cast<double>(random() % 4) / 4.0});
    }
    const auto expected = reference_ranked_leaders(pairs);
    const auto found = group_ranked_pairs(pairs);
    ASSERT_EQ(found.size(), expected.size()) << "round " << round;
    for (std::size_t i = 0; i < found.size(); ++i) {
      ASSERT_EQ(found[i], expected[i]) << "round " << round << ", id " << expected[i].id;
    }
  }
  const std::vector<RankedPair> bad = {{1, 2, std::nan("")}};
  EXPECT_THROW(group_ranked_pairs(bad), std::invalid_argument);
}

}  // namespace
}  // namespace simhash::testing
