// SPDX-License-Identifier: MIT
// The popcount kernel (index/popcount_kernel.h) against a brute-force list of
// the keys within each radius, over spans of every length around the AVX2
// loop's step and threshold, with the AVX2 loop and the portable one.
#include "index/popcount_kernel.h"

#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <utility>
#include <vector>

namespace simhash::testing {
namespace {

using Reports = std::vector<std::pair<std::size_t, int>>;

struct Collect {
  Reports* reports;
  void operator()(std::size_t position, int distance) { reports->emplace_back(position, distance); }
};

TEST(PopcountKernel, ReportsEveryKeyWithinTheRadiusInOrder) {
  std::mt19937_64 random(3737);
  const std::uint64_t query = random();
  // Keys at every distance from the query: a few bits flipped, or random.
  std::vector<std::uint64_t> keys(600);
  for (std::uint64_t& key : keys) {
    key = query;
    const int flips = static_cast<int>(random() % 70);
    for (int flip = 0; flip < flips; ++flip) {
      key ^= std::uint64_t{1} << (random() % 64);
    }
  }
  keys[5] = ~query;  // distance 64
  for (const int radius : {0, 1, 3, 10, 31, 32, 63, 64, 1000}) {
    for (std::size_t first : {std::size_t{0}, std::size_t{3}, std::size_t{61}}) {
      for (std::size_t last = first; last <= first + 140; ++last) {
        Reports expected;
        for (std::size_t i = first; i < last; ++i) {
          const int distance = std::popcount(keys[i] ^ query);
          if (distance <= radius) {
            expected.emplace_back(i, distance);
          }
        }
        for (const bool vector_loop : {true, false}) {
          Reports found;
          Collect collect{&found};
          for_each_within_span(keys.data(), first, last, query, radius, vector_loop, collect);
          ASSERT_EQ(found, expected) << "radius " << radius << ", [" << first << ", " << last
                                     << "), vector loop " << vector_loop;
        }
      }
    }
  }
}

}  // namespace
}  // namespace simhash::testing
