// SPDX-License-Identifier: MIT
// BucketCache: every blob added comes back by its row id, byte for byte;
// the buckets never added, and those between two added, are empty; row ids
// that are no bucket of a copy are skipped; the most bytes given are kept
// to (the starts alone, or the blobs); a reset starts over, with room for
// the bytes it is told to expect.
#include "index/bucket_cache.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <string>

#include "index/permutation_plan.h"
#include "plan_case.h"

namespace simhash::testing {
namespace {

std::string text_of(std::span<const unsigned char> blob) {
  return {reinterpret_cast<const char*>(blob.data()), blob.size()};
}

bool add(BucketCache& cache, std::int64_t row_id, const std::string& blob) {
  return cache.add(row_id, reinterpret_cast<const unsigned char*>(blob.data()), blob.size());
}

TEST(BucketCache, EveryBlobComesBackByItsRowId) {
  for (const int bits : {1, 4, 16}) {
    const PermutationPlan plan = make_plan(3, 4);
    const BucketLayout layout(plan, bits);
    const int tables = plan.table_count();
    std::mt19937_64 random(static_cast<std::uint64_t>(bits));
    std::map<std::int64_t, std::string> stored;
    for (int table = 0; table < tables; ++table) {
      const std::uint64_t buckets = std::uint64_t{1} << layout.bucket_bits(table);
      for (int i = 0; i < 40; ++i) {
        const std::uint64_t bucket = random() % buckets;
        stored[layout.row_id(table, bucket)] = std::string(1 + random() % 300, 'a' + (i % 26));
      }
    }
    BucketCache cache;
    ASSERT_TRUE(cache.reset(layout, tables, std::size_t{1} << 30));
    EXPECT_TRUE(add(cache, -1, "the bucket bits row"));  // no bucket: skipped
    for (const auto& [row_id, blob] : stored) {
      ASSERT_TRUE(add(cache, row_id, blob));
    }
    // Past the last copy's ids: skipped.
    EXPECT_TRUE(add(cache, layout.first_row_id(tables), "past the copies"));
    cache.finish();
    EXPECT_EQ(cache.bits(), bits);
    for (int table = 0; table < tables; ++table) {
      const std::uint64_t buckets = std::uint64_t{1} << layout.bucket_bits(table);
      for (std::uint64_t bucket = 0; bucket < buckets; bucket += 1 + bucket / 8) {
        const std::int64_t row_id = layout.row_id(table, bucket);
        const auto found = stored.find(row_id);
        EXPECT_EQ(text_of(cache.bucket(row_id)), found == stored.end() ? "" : found->second)
            << "bits " << bits << " row " << row_id;
      }
    }
    for (const auto& [row_id, blob] : stored) {
      EXPECT_EQ(text_of(cache.bucket(row_id)), blob) << "bits " << bits << " row " << row_id;
    }
  }
}

TEST(BucketCache, RowIdsAboveACopysBucketsAreSkipped) {
  // k=4 with 5 blocks: each copy's prefix is one block of 12 or 13 bits,
  // below B=16, so a copy's row ids above its buckets are none.
  const PermutationPlan plan = make_plan(4, 5);
  const BucketLayout layout(plan, 16);
  ASSERT_LT(layout.bucket_bits(0), layout.bits());
  BucketCache cache;
  ASSERT_TRUE(cache.reset(layout, plan.table_count(), std::size_t{1} << 30));
  EXPECT_TRUE(add(cache, layout.row_id(0, 1), "one"));
  EXPECT_TRUE(add(cache, layout.row_id(0, std::uint64_t{1} << layout.bucket_bits(0)), "above"));
  EXPECT_TRUE(add(cache, layout.row_id(1, 0), "two"));
  cache.finish();
  EXPECT_EQ(text_of(cache.bucket(layout.row_id(0, 1))), "one");
  EXPECT_EQ(text_of(cache.bucket(layout.row_id(1, 0))), "two");
  const std::uint64_t last = (std::uint64_t{1} << layout.bucket_bits(0)) - 1;
  EXPECT_EQ(text_of(cache.bucket(layout.row_id(0, last))), "");
}

TEST(BucketCache, KeepsToTheMostBytesGiven) {
  const PermutationPlan plan = make_plan(3, 4);
  const BucketLayout layout(plan, 16);
  BucketCache cache;
  // The starts of 4 copies of 2^16 buckets take 1 MiB: less is refused.
  EXPECT_FALSE(cache.reset(layout, plan.table_count(), std::size_t{1} << 19));
  const std::size_t room = (std::size_t{4} << 16) * 4 + 4 + 1000;
  ASSERT_TRUE(cache.reset(layout, plan.table_count(), room));
  EXPECT_TRUE(add(cache, 1, std::string(600, 'x')));
  EXPECT_TRUE(add(cache, 2, std::string(400, 'y')));
  EXPECT_FALSE(add(cache, 3, "z"));
  // A reset starts over, empty.
  ASSERT_TRUE(cache.reset(layout, plan.table_count(), room));
  EXPECT_TRUE(add(cache, 5, "five"));
  cache.finish();
  EXPECT_EQ(text_of(cache.bucket(1)), "");
  EXPECT_EQ(text_of(cache.bucket(5)), "five");
  EXPECT_GT(cache.bytes(), (std::size_t{4} << 16) * 4);
  cache.clear();
  EXPECT_EQ(cache.bytes(), 0U);
}

TEST(BucketCache, MakesRoomForTheBytesExpected) {
  const PermutationPlan plan = make_plan(3, 4);
  const BucketLayout layout(plan, 16);
  const std::size_t starts = ((std::size_t{4} << 16) + 1) * 4;
  BucketCache cache;
  ASSERT_TRUE(cache.reset(layout, plan.table_count(), std::size_t{1} << 30, 16000));
  const std::size_t reserved = cache.bytes();
  EXPECT_GE(reserved, starts + 16000);
  for (std::int64_t row_id = 0; row_id < 160; ++row_id) {
    ASSERT_TRUE(add(cache, row_id, std::string(100, 'e')));
  }
  EXPECT_EQ(cache.bytes(), reserved) << "the blobs moved";
}

}  // namespace
}  // namespace simhash::testing
