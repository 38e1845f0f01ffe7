// SPDX-License-Identifier: MIT
// Random bit flips for the tests that draw fingerprints near a given one
// (the engine's index and batch tests, the SQL tests through their data).
#pragma once

#include <bit>
#include <cstdint>
#include <random>

namespace simhash::testing {

// fp with `count` distinct bits flipped, drawn from `random`.
inline std::uint64_t flip_random_bits(std::uint64_t fp, int count, std::mt19937_64& random) {
  std::uint64_t flipped = 0;
  while (std::popcount(flipped) < count) {
    flipped |= std::uint64_t{1} << (random() % 64);
  }
  return fp ^ flipped;
}

}  // namespace simhash::testing
