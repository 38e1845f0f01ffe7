// SPDX-License-Identifier: MIT
// The per-bit vote of FingerprintAccumulator against a direct computation.
#include "fingerprint/fingerprint_accumulator.h"
#include "fingerprint/feature_hash.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace {

TEST(FingerprintAccumulator, OneFeatureGivesItsHash) {
  simhash::FingerprintAccumulator accumulator;
  EXPECT_FALSE(accumulator.has_features());
  accumulator.add(0x0123456789abcdefULL, 2.5);
  EXPECT_TRUE(accumulator.has_features());
  EXPECT_EQ(accumulator.fingerprint(), 0x0123456789abcdefULL);
}

TEST(FingerprintAccumulator, NegativeWeightVotesTheOtherWay) {
  simhash::FingerprintAccumulator accumulator;
  accumulator.add(0x00ff00ff00ff00ffULL, -1);
  EXPECT_EQ(accumulator.fingerprint(), ~0x00ff00ff00ff00ffULL);
}

TEST(FingerprintAccumulator, TieGivesZeroBits) {
  simhash::FingerprintAccumulator accumulator;
  accumulator.add(0xf0f0f0f0f0f0f0f0ULL, 1);
  accumulator.add(0x0f0f0f0f0f0f0f0fULL, 1);
  EXPECT_EQ(accumulator.fingerprint(), 0U);
  accumulator.reset();
  accumulator.add(0xffffffffffffffffULL, 0);
  EXPECT_TRUE(accumulator.has_features());
  EXPECT_EQ(accumulator.fingerprint(), 0U);
}

TEST(FingerprintAccumulator, MatchesDirectVoteOnRandomFeatures) {
  std::mt19937_64 random(42);
  for (int trial = 0; trial < 200; ++trial) {
    simhash::FingerprintAccumulator accumulator;
    std::vector<long long> totals(64, 0);
    const int features = 1 + static_cast<int>(random() % 50);
    for (int f = 0; f < features; ++f) {
      const std::uint64_t hash = random();
      const long long weight = static_cast<long long>(random() % 7) - 2;
      accumulator.add(hash, static_cast<double>(weight));
      for (int bit = 0; bit < 64; ++bit) {
        totals[bit] += ((hash >> bit) & 1U) != 0 ? weight : -weight;
      }
    }
    std::uint64_t expected = 0;
    for (int bit = 0; bit < 64; ++bit) {
      if (totals[bit] > 0) expected |= std::uint64_t{1} << bit;
    }
    ASSERT_EQ(accumulator.fingerprint(), expected) << "trial " << trial;
  }
}

TEST(FeatureHash, IsXxh3OfTheBytesAndOfLittleEndianIntegers) {
  // Known XXH3-64 (seed 0) values: the empty input, and "a".
  EXPECT_EQ(simhash::feature_hash(std::string_view("")), 0x2d06800538d394c2ULL);
  EXPECT_EQ(simhash::feature_hash(std::int64_t{1}),
            simhash::feature_hash(std::string_view("\x01\0\0\0\0\0\0\0", 8)));
}

}  // namespace
