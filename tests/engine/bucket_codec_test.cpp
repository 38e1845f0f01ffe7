// Round trips of the packed-bucket encoding and rejection of malformed input.
#include "bucket_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace simhash {
namespace {

std::vector<BucketEntry> random_entries(std::mt19937_64& random, int count, int rest_bits) {
  std::set<std::int64_t> ids;
  while (static_cast<int>(ids.size()) < count) {
    const auto id = static_cast<std::int64_t>(random());
    ids.insert(random() % 2 ? id : id % 1000);
  }
  std::vector<BucketEntry> entries;
  const std::uint64_t mask =
      rest_bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << rest_bits) - 1;
  for (std::int64_t id : ids) {
    entries.push_back({id, random() & mask});
  }
  return entries;
}

TEST(BucketCodec, RoundTrips) {
  std::mt19937_64 random(5);
  for (int rest_bits : {48, 52, 55, 63}) {
    const int rest_bytes = (rest_bits + 7) / 8;
    for (int count : {0, 1, 2, 10, 300}) {
      const auto entries = random_entries(random, count, rest_bits);
      std::string encoded;
      encode_bucket(entries, rest_bytes, encoded);
      std::vector<BucketEntry> decoded;
      ASSERT_TRUE(decode_bucket(reinterpret_cast<const unsigned char*>(encoded.data()),
                                encoded.size(), rest_bytes, decoded));
      EXPECT_EQ(decoded, entries);
    }
  }
}

TEST(BucketCodec, ExtremeIds) {
  const std::vector<BucketEntry> entries = {{std::numeric_limits<std::int64_t>::min(), 1},
                                            {-1, 2},
                                            {0, 3},
                                            {std::numeric_limits<std::int64_t>::max(), 4}};
  std::string encoded;
  encode_bucket(entries, 6, encoded);
  std::vector<BucketEntry> decoded;
  ASSERT_TRUE(decode_bucket(reinterpret_cast<const unsigned char*>(encoded.data()), encoded.size(),
                            6, decoded));
  EXPECT_EQ(decoded, entries);
}

TEST(BucketCodec, RejectsTruncatedAndUnorderedInput) {
  std::string encoded;
  encode_bucket(std::vector<BucketEntry>{{1, 5}, {2, 6}}, 6, encoded);
  std::vector<BucketEntry> decoded;
  EXPECT_FALSE(decode_bucket(reinterpret_cast<const unsigned char*>(encoded.data()),
                             encoded.size() - 1, 6, decoded));
  // A zero gap means a repeated id.
  std::string repeated = encoded;
  repeated[7] = 0;
  decoded.clear();
  EXPECT_FALSE(decode_bucket(reinterpret_cast<const unsigned char*>(repeated.data()),
                             repeated.size(), 6, decoded));
}

TEST(BucketLayout, SplitsAndJoinsKeys) {
  std::string error;
  for (auto [k, blocks] : {std::pair{3, 4}, {6, 7}, {0, 1}, {16, 17}}) {
    const auto plan = PermutationPlan::create(k, blocks, error);
    ASSERT_TRUE(plan) << error;
    const BucketLayout layout(*plan);
    std::mt19937_64 random(9);
    for (int table = 0; table < plan->table_count(); ++table) {
      EXPECT_LE(layout.bucket_bits(table), plan->prefix_bits(table));
      EXPECT_LE(layout.bucket_bits(table), BucketLayout::kMaxBucketBits);
      const std::uint64_t key = random();
      const std::uint64_t bucket = layout.bucket_of(table, key);
      EXPECT_LT(bucket, std::uint64_t{1} << BucketLayout::kMaxBucketBits);
      EXPECT_EQ(layout.key_of(table, bucket, layout.rest_of(table, key)), key);
      EXPECT_LE(layout.rest_bits(table), 8 * layout.rest_bytes(table));
    }
  }
}

}  // namespace
}  // namespace simhash
