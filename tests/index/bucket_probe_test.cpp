// SPDX-License-Identifier: MIT
// BucketProbe against brute force over an in-memory store built as the index
// stores its buckets: the probe within k (radii 0..k) and the multi-probe
// search above it (radii k+1..k+8) report every row within the radius
// exactly once, with its fingerprint and distance, for several plans and
// bucket bits (small ones make large buckets); a damaged bucket is refused.
#include "index/bucket_probe.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "memory_bucket_store.h"
#include "plan_case.h"
#include "random_bits.h"

namespace simhash::testing {
namespace {

std::vector<std::tuple<std::int64_t, std::int64_t, int>> sorted(const std::vector<IndexHit>& hits) {
  std::vector<std::tuple<std::int64_t, std::int64_t, int>> rows;
  for (const IndexHit& hit : hits) {
    rows.emplace_back(hit.id, hit.fp, hit.distance);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

const unsigned char* bytes(const std::string& blob) {
  return reinterpret_cast<const unsigned char*>(blob.data());
}

class BucketProbeTest : public ::testing::TestWithParam<PlanCase> {};

TEST_P(BucketProbeTest, MatchesBruteForce) {
  const auto [k, blocks, bucket_bits] = GetParam();
  const PermutationPlan plan = make_plan(k, blocks);
  const BucketLayout layout(plan, bucket_bits);
  std::mt19937_64 random(99 + k * 31 + blocks * 7 + bucket_bits);
  // Rows in clusters around a few centers, so a query has rows at every
  // distance; ids of both signs.
  std::vector<std::uint64_t> centers(8);
  for (std::uint64_t& center : centers) {
    center = random();
  }
  std::map<std::int64_t, std::uint64_t> rows;
  while (rows.size() < 3000) {
    const auto id = static_cast<std::int64_t>(random() % 200001) - 100000;
    rows[id] = flip_random_bits(centers[random() % centers.size()], static_cast<int>(random() % 20),
                                random);
  }
  const std::map<std::int64_t, std::string> blobs = encode_index(plan, layout, rows);
  BucketProbe probe(plan, layout);
  std::vector<std::int64_t> row_ids;
  std::vector<IndexHit> hits;
  for (int trial = 0; trial < 15; ++trial) {
    const std::uint64_t query = flip_random_bits(centers[random() % centers.size()],
                                                 static_cast<int>(random() % 6), random);
    for (int radius = 0; radius <= k + 8 && radius <= 64; ++radius) {
      hits.clear();
      if (radius <= k) {
        probe.probe_rows(query, row_ids);
        for (const std::int64_t row_id : row_ids) {
          if (const auto found = blobs.find(row_id); found != blobs.end()) {
            ASSERT_TRUE(probe.probe_bucket(query, radius, row_id, bytes(found->second),
                                           found->second.size(), hits));
          }
        }
      } else {
        const MultiProbePlan plan_above(plan, layout, radius);
        probe.multi_probe_rows(query, plan_above, row_ids);
        for (const std::int64_t row_id : row_ids) {
          if (const auto found = blobs.find(row_id); found != blobs.end()) {
            ASSERT_TRUE(probe.multi_probe_bucket(query, plan_above, row_id, bytes(found->second),
                                                 found->second.size(), hits));
          }
        }
      }
      ASSERT_EQ(sorted(hits), sorted(rows_within(rows, query, radius)))
          << "trial " << trial << " radius " << radius;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Plans, BucketProbeTest,
                         ::testing::Values(PlanCase{3, 4, 16}, PlanCase{3, 4, 3},
                                           PlanCase{2, 5, 16}, PlanCase{6, 8, 8},
                                           PlanCase{3, 6, 20}),
                         [](const auto& info) { return plan_case_name(info.param); });

TEST(BucketProbe, RefusesADamagedBucket) {
  const PermutationPlan plan = make_plan(3, 4);
  const BucketLayout layout(plan, 2);
  std::mt19937_64 random(11);
  std::map<std::int64_t, std::uint64_t> rows = random_rows(200, random);
  const std::map<std::int64_t, std::string> blobs = encode_index(plan, layout, rows);
  // The query is row 1's fingerprint: copy 0's bucket reports it, so its ids
  // are read, and a blob one byte short there is malformed.
  const std::uint64_t query = rows[1];
  BucketProbe probe(plan, layout);
  std::vector<std::int64_t> row_ids;
  std::vector<IndexHit> hits;
  probe.probe_rows(query, row_ids);
  const std::string& blob = blobs.at(row_ids[0]);
  const std::string cut = blob.substr(0, blob.size() - 1);
  EXPECT_TRUE(probe.probe_bucket(query, 0, row_ids[0], bytes(blob), blob.size(), hits));
  EXPECT_FALSE(probe.probe_bucket(query, 0, row_ids[0], bytes(cut), cut.size(), hits));
  const std::string bad = "\x7f";
  EXPECT_FALSE(probe.probe_bucket(query, 0, row_ids[0], bytes(bad), bad.size(), hits));
  const MultiProbePlan above(plan, layout, 5);
  probe.multi_probe_rows(query, above, row_ids);
  EXPECT_FALSE(probe.multi_probe_bucket(query, above, row_ids[0], bytes(cut), cut.size(), hits));
}

}  // namespace
}  // namespace simhash::testing
