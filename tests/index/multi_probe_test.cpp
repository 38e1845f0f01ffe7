// SPDX-License-Identifier: MIT
// Tests of the multi-probe search above k against brute force: every row
// within the radius is in a bucket the plan reads and is reported by exactly
// one part, for several plans, bucket bits and radii 0..24; the thresholds
// follow the general pigeonhole budget; the buckets enumerated are exactly
// the Hamming ball; the cost model's crossover and what it measures.
#include "index/multi_probe.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "index/measured_cost.h"
#include "plan_case.h"
#include "random_bits.h"

namespace simhash {

using testing::flip_random_bits;
using testing::make_plan;
using testing::plan_case_name;
using testing::PlanCase;
namespace {

class MultiProbe : public ::testing::TestWithParam<PlanCase> {};

TEST_P(MultiProbe, FindsEveryRowWithinTheRadiusExactlyOnce) {
  const auto [k, blocks, bucket_bits] = GetParam();
  const PermutationPlan plan = make_plan(k, blocks);
  const BucketLayout layout(plan, bucket_bits);
  std::mt19937_64 random(77 + k * 131 + blocks * 7 + bucket_bits);
  for (int radius = 0; radius <= 24; ++radius) {
    const MultiProbePlan probe(plan, layout, radius);
    ASSERT_FALSE(probe.parts().empty());
    std::uint64_t taken = 0;
    for (const ProbePart& part : probe.parts()) {
      EXPECT_EQ(part.mask & taken, 0U) << "parts overlap";
      EXPECT_EQ(std::popcount(part.mask), part.bits);
      taken |= part.mask;
    }
    for (int trial = 0; trial < 300; ++trial) {
      const std::uint64_t query = random();
      const int distance = static_cast<int>(random() % 26);
      const std::uint64_t row = flip_random_bits(query, distance, random);
      const std::uint64_t difference = row ^ query;
      // Which parts read the row's bucket: those whose bucket bits differ
      // from the query's in at most the part's threshold.
      int reading_parts = 0;
      int first_reading = -1;
      for (std::size_t i = 0; i < probe.parts().size(); ++i) {
        const ProbePart& part = probe.parts()[i];
        const std::uint64_t query_bucket =
            layout.bucket_of(part.table, plan.permute(part.table, query));
        const std::uint64_t row_bucket =
            layout.bucket_of(part.table, plan.permute(part.table, row));
        // for_each_bucket enumerates exactly this ball (EnumerateExactlyTheHammingBall).
        const bool enumerated = std::popcount(query_bucket ^ row_bucket) <= part.threshold;
        if (enumerated) {
          ++reading_parts;
          if (first_reading < 0) {
            first_reading = static_cast<int>(i);
          }
        }
      }
      if (distance <= radius) {
        ASSERT_GT(reading_parts, 0) << "radius " << radius << " distance " << distance;
        EXPECT_EQ(probe.reporting_part(difference), first_reading);
      }
      if (probe.reporting_part(difference) >= 0) {
        EXPECT_GE(first_reading, 0) << "a part reports a row it does not read";
      }
    }
  }
}

TEST_P(MultiProbe, ThresholdsSpendTheRadiusPlusOne) {
  const auto [k, blocks, bucket_bits] = GetParam();
  const PermutationPlan plan = make_plan(k, blocks);
  const BucketLayout layout(plan, bucket_bits);
  for (int radius = 0; radius <= 24; ++radius) {
    const MultiProbePlan probe(plan, layout, radius);
    int units = 0;
    bool all_full = true;
    for (const ProbePart& part : probe.parts()) {
      EXPECT_GE(part.threshold, -1);
      EXPECT_LE(part.threshold, part.bits);
      units += part.threshold + 1;
      all_full = all_full && part.threshold == part.bits;
    }
    // Fewer units only when every bucket of every part is read.
    if (!all_full) {
      EXPECT_EQ(units, radius + 1) << "radius " << radius;
    }
  }
}

std::vector<PlanCase> plan_cases() {
  return {{3, 4, 16}, {3, 5, 16}, {3, 4, 3}, {1, 3, 16}, {6, 7, 16}, {0, 1, 16}, {2, 6, 20}};
}

INSTANTIATE_TEST_SUITE_P(Plans, MultiProbe, ::testing::ValuesIn(plan_cases()),
                         [](const auto& info) { return plan_case_name(info.param); });

TEST(MultiProbeBuckets, EnumerateExactlyTheHammingBall) {
  for (int bits : {1, 3, 8, 12}) {
    for (int threshold = -1; threshold <= bits + 1; ++threshold) {
      const ProbePart part{0, 0, bits, threshold};
      const std::uint64_t center = 0x5A5A5A5AULL & ((std::uint64_t{1} << bits) - 1);
      std::multiset<std::uint64_t> seen;
      MultiProbePlan::for_each_bucket(part, center, [&](std::uint64_t b) { seen.insert(b); });
      std::multiset<std::uint64_t> expected;
      for (std::uint64_t b = 0; b < (std::uint64_t{1} << bits); ++b) {
        if (std::popcount(b ^ center) <= threshold) {
          expected.insert(b);
        }
      }
      EXPECT_EQ(seen, expected) << "bits " << bits << " threshold " << threshold;
    }
  }
}

TEST(MultiProbeBuckets, DefaultPlanAtRadiusTenReadsFourHundredTwentyEightBuckets) {
  // k=3, blocks=4: four disjoint 16-bit parts; 11 units give (2,2,2,1):
  // 3 * (1 + 16 + 120) + (1 + 16) buckets.
  const PermutationPlan plan = make_plan(3, 4);
  const MultiProbePlan probe(plan, BucketLayout(plan, 16), 10);
  ASSERT_EQ(probe.parts().size(), 4U);
  EXPECT_EQ(probe.bucket_reads(), 3 * 137 + 17);
}

TEST(MultiProbeCost, ProbingPaysOnlyAboveTheCrossover) {
  const PermutationPlan plan = make_plan(3, 4);
  const MultiProbePlan probe(plan, BucketLayout(plan, 16), 10);
  const std::int64_t crossover = probe.rows_where_cheaper();
  ASSERT_GT(crossover, 1);
  EXPECT_TRUE(probe.cheaper_than_scan(crossover));
  EXPECT_FALSE(probe.cheaper_than_scan(crossover - 1));
  EXPECT_TRUE(probe.cheaper_than_scan(1000000));
  // Every bucket of a part read: never cheaper than a scan of a large table
  // by a bucket read per row.
  const MultiProbePlan whole(plan, BucketLayout(plan, 16), 63);
  EXPECT_FALSE(whole.cheaper_than_scan(1000000));
}

// The cost a unit over the last kSamples runs; the prior before any and
// after a reset, and at most the prior before kTrusted.
TEST(MeasuredCostTest, CostAUnitOverRecentRuns) {
  MeasuredCost cost;
  EXPECT_FALSE(cost.measured());
  EXPECT_EQ(cost.estimate(7), 7);
  cost.record(200, 10);
  EXPECT_TRUE(cost.measured());
  EXPECT_EQ(cost.estimate(7), 7) << "one run does not price above the prior";
  EXPECT_EQ(cost.estimate(30), 20);
  cost.record(40, 10);
  EXPECT_EQ(cost.estimate(7), 12) << "the runs' total over their units, trusted";
  for (std::size_t i = 0; i < MeasuredCost::kSamples; ++i) {
    cost.record(3, 1);
  }
  EXPECT_EQ(cost.estimate(7), 3) << "the oldest runs are forgotten";
  cost.record(3 + 20 * MeasuredCost::kSamples, 1);
  EXPECT_EQ(cost.estimate(7), 3 + 20) << "a slow run weighs as its cost";
  cost.reset();
  EXPECT_FALSE(cost.measured());
  EXPECT_EQ(cost.estimate(7), 7);
}

// radius_holding against the Hamming-ball sizes it scales by, computed here
// by binomial sums: the smallest radius from `within` on where `found` rows
// at the density within `within` reach `wanted`.
TEST(MultiProbeGrowth, RadiusHoldingScalesTheDensityFound) {
  std::vector<double> ball(65, 0);
  double binomial = 1;  // C(64, r)
  for (int r = 0; r <= 64; ++r) {
    ball[static_cast<std::size_t>(r)] =
        (r > 0 ? ball[static_cast<std::size_t>(r - 1)] : 0) + binomial;
    binomial = binomial * (64 - r) / (r + 1);
  }
  for (int within = 0; within <= 12; ++within) {
    for (const double found : {1.0, 3.0, 9.0, 10.0, 50.0}) {
      for (const double wanted : {1.0, 10.0, 100.0, 1e6}) {
        int expected = 64;
        for (int r = within; r < 64; ++r) {
          if (found * ball[static_cast<std::size_t>(r)] / ball[static_cast<std::size_t>(within)] >=
              wanted) {
            expected = r;
            break;
          }
        }
        EXPECT_EQ(MultiProbePlan::radius_holding(found, within, wanted), expected)
            << "found " << found << " within " << within << " wanted " << wanted;
      }
    }
  }
  // Spot values: 1 row within 3 bits (41,729 codes) holds 10 at radius 4
  // (679,121 codes: 16 times as many); enough found already: the radius itself.
  EXPECT_EQ(MultiProbePlan::radius_holding(1, 3, 10), 4);
  EXPECT_EQ(MultiProbePlan::radius_holding(10, 3, 10), 3);
  EXPECT_EQ(MultiProbePlan::radius_holding(0, 3, 10), 64);
}

}  // namespace
}  // namespace simhash
