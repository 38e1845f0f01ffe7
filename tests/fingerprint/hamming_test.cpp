// SPDX-License-Identifier: MIT
// hamming_distance against a bit-by-bit reference on random inputs.
#include "fingerprint/hamming.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace {

int reference_distance(std::uint64_t a, std::uint64_t b) {
  int distance = 0;
  for (int bit = 0; bit < 64; ++bit) {
    distance += static_cast<int>(((a >> bit) & 1U) != ((b >> bit) & 1U));
  }
  return distance;
}

TEST(Hamming, MatchesReferenceOnRandomPairs) {
  std::mt19937_64 random(20261121);
  for (int i = 0; i < 100000; ++i) {
    const std::uint64_t a = random();
    // Flip a random number of bits so every distance 0..64 is exercised.
    std::uint64_t b = a;
    const int flips = static_cast<int>(random() % 65);
    for (int f = 0; f < flips; ++f) {
      b ^= std::uint64_t{1} << (random() % 64);
    }
    ASSERT_EQ(simhash::hamming_distance(a, b), reference_distance(a, b)) << a << " " << b;
  }
}

TEST(Hamming, ExtremeValues) {
  EXPECT_EQ(simhash::hamming_distance(0, 0), 0);
  EXPECT_EQ(simhash::hamming_distance(0, ~std::uint64_t{0}), 64);
  EXPECT_EQ(simhash::hamming_distance(std::uint64_t{1} << 63, 0), 1);
}

TEST(Hamming, ByteStringsOfEveryLengthMatchReference) {
  std::mt19937_64 random(7);
  for (std::size_t length = 0; length < 40; ++length) {
    std::vector<unsigned char> a(length);
    std::vector<unsigned char> b(length);
    int expected = 0;
    for (std::size_t i = 0; i < length; ++i) {
      a[i] = static_cast<unsigned char>(random());
      b[i] = static_cast<unsigned char>(random());
      expected += reference_distance(a[i], b[i]);
    }
    EXPECT_EQ(simhash::hamming_distance(a, b), expected) << "length " << length;
  }
}

}  // namespace
