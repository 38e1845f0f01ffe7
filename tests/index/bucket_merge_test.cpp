// SPDX-License-Identifier: MIT
// BucketMerge against a model: rounds of random inserts, deletes and updates
// (ids of both signs and the extremes, fingerprints clustered so buckets
// collide) merged into an in-memory bucket store, some rounds while the
// bucket bits grow (every bucket split); after each round the store must
// hold exactly the blobs of an index built from scratch from the rows as
// they are. Also: a damaged stored bucket is reported, not merged over.
#include "index/bucket_merge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <string>

#include "memory_bucket_store.h"
#include "plan_case.h"

namespace simhash::testing {
namespace {

std::uint64_t near_to(std::uint64_t center, std::mt19937_64& random) {
  std::uint64_t fp = center;
  for (int flips = static_cast<int>(random() % 10); flips > 0; --flips) {
    fp ^= std::uint64_t{1} << (random() % 64);
  }
  return fp;
}

std::int64_t random_id(std::mt19937_64& random) {
  switch (random() % 40) {
    case 0:
      return std::numeric_limits<std::int64_t>::max();
    case 1:
      return std::numeric_limits<std::int64_t>::min();
    default:
      return static_cast<std::int64_t>(random() % 6001) - 3000;
  }
}

// Pushes `count` random changes as IndexStorage does (an update is a
// delete of the old fingerprint, then an insert) and applies them to `rows`.
void push_changes(int count, std::uint64_t center, std::mt19937_64& random, PendingChanges& pending,
                  std::map<std::int64_t, std::uint64_t>& rows) {
  for (int i = 0; i < count; ++i) {
    const std::int64_t id = random_id(random);
    const std::uint64_t fp = random() % 2 == 0 ? near_to(center, random) : random();
    const auto found = rows.find(id);
    if (found == rows.end()) {
      pending.push(id, fp, true);
      rows[id] = fp;
      continue;
    }
    pending.push(id, found->second, false);
    if (random() % 2 == 0) {
      rows.erase(found);
    } else {
      pending.push(id, fp, true);
      found->second = fp;
    }
  }
}

// The first row id where two stores differ, for the failure message.
std::string first_difference(const std::map<std::int64_t, std::string>& actual,
                             const std::map<std::int64_t, std::string>& expected) {
  for (const auto& [row_id, blob] : expected) {
    const auto found = actual.find(row_id);
    if (found == actual.end()) {
      return std::string("bucket ") + std::to_string(row_id) + " missing";
    }
    if (found->second != blob) {
      return std::string("bucket ") + std::to_string(row_id) + " differs";
    }
  }
  for (const auto& [row_id, blob] : actual) {
    if (!expected.contains(row_id)) {
      return std::string("bucket ") + std::to_string(row_id) + " should not exist";
    }
  }
  return "none";
}

class BucketMergeTest : public ::testing::TestWithParam<PlanCase> {};

TEST_P(BucketMergeTest, StoreMatchesAnIndexBuiltFromScratch) {
  const auto [k, blocks, bucket_bits] = GetParam();
  const PermutationPlan plan = make_plan(k, blocks);
  BucketLayout layout(plan, bucket_bits);
  std::mt19937_64 random(1234 + k * 31 + blocks * 7 + bucket_bits);
  const std::uint64_t center = random();
  std::map<std::int64_t, std::uint64_t> rows;
  for (int i = 0; i < 1500; ++i) {
    rows[random_id(random)] = random() % 2 == 0 ? near_to(center, random) : random();
  }
  MemoryBucketStore store;
  store.blobs = encode_index(plan, layout, rows);
  for (int round = 0; round < 8; ++round) {
    const int changes = std::vector<int>{0, 1, 30, 900}[round % 4];
    PendingChanges pending(plan);
    push_changes(changes, center, random, pending, rows);
    BucketMergeScratch scratch;
    BucketMerge merge(plan, layout, pending, store, scratch, nullptr);
    if (round % 2 == 1 && layout.bits() < BucketLayout::kMaxBucketBits) {
      const int bits = std::min(BucketLayout::kMaxBucketBits,
                                layout.bits() + 1 + static_cast<int>(random() % 3));
      const BucketLayout grown(plan, bits);
      merge.merge_and_split(grown);
      layout = grown;
    } else {
      merge.merge();
    }
    const std::map<std::int64_t, std::string> expected = encode_index(plan, layout, rows);
    ASSERT_TRUE(store.blobs == expected)
        << "round " << round << " changes " << changes << " bits " << layout.bits() << ": "
        << first_difference(store.blobs, expected);
  }
}

INSTANTIATE_TEST_SUITE_P(Plans, BucketMergeTest,
                         ::testing::Values(PlanCase{3, 4, 16}, PlanCase{3, 4, 2}, PlanCase{2, 5, 6},
                                           PlanCase{6, 8, 1}),
                         [](const auto& info) { return plan_case_name(info.param); });

TEST(BucketMerge, ChangesToOneBucketKeepTheLastChangeOfEachId) {
  // Inserted, deleted, inserted again with another fingerprint, within one
  // merge: the last change wins, in both sort paths (1 bit: counting sort;
  // 16 bits: comparison sort).
  const PermutationPlan plan = make_plan(3, 4);
  for (const int bits : {1, 16}) {
    const BucketLayout layout(plan, bits);
    PendingChanges pending(plan);
    pending.push(7, 0x1111, true);
    pending.push(7, 0x1111, false);
    pending.push(7, 0x2222, true);
    pending.push(9, 0x3333, true);
    pending.push(9, 0x3333, false);
    MemoryBucketStore store;
    BucketMergeScratch scratch;
    BucketMerge(plan, layout, pending, store, scratch, nullptr).merge();
    EXPECT_TRUE(store.blobs == encode_index(plan, layout, {{7, 0x2222}})) << "bits " << bits;
  }
}

TEST(BucketMerge, ASplitCallsTheCheckPointBetweenBuckets) {
  // Each copy holds about 8400 buckets, none with a change: a split of each
  // calls the check (which may throw to stop it) after every
  // kBucketsBetweenChecks of them.
  const PermutationPlan plan = make_plan(3, 4);
  const BucketLayout layout(plan, 16);
  std::mt19937_64 random(21);
  const std::map<std::int64_t, std::uint64_t> rows = random_rows(9000, random);
  MemoryBucketStore store;
  store.blobs = encode_index(plan, layout, rows);
  const PendingChanges pending(plan);
  std::size_t expected_checks = 0;
  for (int table = 0; table < plan.table_count(); ++table) {
    const auto buckets = static_cast<std::size_t>(
        std::distance(store.blobs.lower_bound(layout.first_row_id(table)),
                      store.blobs.lower_bound(layout.first_row_id(table + 1))));
    EXPECT_GT(buckets, BucketMerge::kBucketsBetweenChecks);
    expected_checks += buckets / BucketMerge::kBucketsBetweenChecks;
  }
  std::size_t checks = 0;
  const BucketLayout grown(plan, 17);
  BucketMergeScratch scratch;
  BucketMerge(plan, layout, pending, store, scratch, [&] { ++checks; }).merge_and_split(grown);
  EXPECT_EQ(checks, expected_checks);
  EXPECT_TRUE(store.blobs == encode_index(plan, grown, rows));
}

TEST(BucketMerge, ReportsADamagedBucketAndWritesNothingOverIt) {
  const PermutationPlan plan = make_plan(3, 4);
  const BucketLayout layout(plan, 2);
  std::mt19937_64 random(5);
  std::map<std::int64_t, std::uint64_t> rows = random_rows(100, random);
  for (const bool split : {false, true}) {
    MemoryBucketStore store;
    store.blobs = encode_index(plan, layout, rows);
    // The bucket of copy 0 that a change of row 1 goes to, cut short.
    const std::int64_t row_id = layout.row_id(0, layout.bucket_of(0, plan.permute(0, rows[1])));
    store.blobs[row_id] = "\x7f";
    PendingChanges pending(plan);
    pending.push(1, rows[1], false);
    BucketMergeScratch scratch;
    BucketMerge merge(plan, layout, pending, store, scratch, nullptr);
    try {
      if (split) {
        merge.merge_and_split(BucketLayout(plan, 4));
      } else {
        merge.merge();
      }
      ADD_FAILURE() << "a damaged bucket was merged";
    } catch (const MalformedBucket& error) {
      EXPECT_EQ(std::string(error.what()),
                std::string("bucket ") + std::to_string(row_id) + " is malformed");
    }
    EXPECT_EQ(store.blobs.at(row_id), "\x7f");
  }
}

}  // namespace
}  // namespace simhash::testing
