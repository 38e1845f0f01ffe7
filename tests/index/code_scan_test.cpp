// SPDX-License-Identifier: MIT
// The scans of code_scan.h, each kernel this CPU runs (the portable one
// always) against brute force on seeded random codes: lengths around the
// vector widths and the block size, ties at the n-th distance broken by id,
// radius and bound 0 and 64, empty input, rows that pass only in a lane or
// in a block's tail.
#include "index/code_scan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

namespace simhash::testing {
namespace {

using Within = std::vector<std::pair<std::size_t, int>>;
using Nearest = std::vector<std::pair<int, std::int64_t>>;  // (distance, id), sorted

Within brute_within(const std::vector<std::uint64_t>& keys, std::uint64_t query, int radius) {
  Within out;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const int distance = std::popcount(keys[i] ^ query);
    if (distance <= radius) {
      out.emplace_back(i, distance);
    }
  }
  return out;
}

Nearest brute_nearest(const std::vector<std::uint64_t>& keys, const std::vector<std::int64_t>& ids,
                      std::uint64_t query, std::size_t count, int bound) {
  Nearest all;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const int distance = std::popcount(keys[i] ^ query);
    if (distance <= bound) {
      all.emplace_back(distance, ids[i]);
    }
  }
  std::sort(all.begin(), all.end());
  all.resize(std::min(all.size(), count));
  return all;
}

Nearest scanned_nearest(ScanKernel kernel, const std::vector<std::uint64_t>& keys,
                        const std::vector<std::int64_t>& ids, std::uint64_t query,
                        std::size_t count, int bound) {
  std::vector<std::pair<int, std::size_t>> found;
  scan_nearest(kernel, keys, ids.data(), query, count, bound, found);
  Nearest out;
  for (const auto& [distance, position] : found) {
    EXPECT_EQ(distance, std::popcount(keys[position] ^ query));
    out.emplace_back(distance, ids[position]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A code `distance` bits from `query`.
std::uint64_t at_distance(std::uint64_t query, int distance, std::mt19937_64& random) {
  std::uint64_t code = query;
  while (std::popcount(code ^ query) < distance) {
    code ^= std::uint64_t{1} << (random() % 64);
  }
  return code;
}

// Distinct ids in random order, so that ties are not broken by position.
std::vector<std::int64_t> shuffled_ids(std::size_t size, std::mt19937_64& random) {
  std::vector<std::int64_t> ids(size);
  std::iota(ids.begin(), ids.end(), std::int64_t{-1000});
  std::shuffle(ids.begin(), ids.end(), random);
  return ids;
}

const std::vector<std::size_t> kSizes = {0,   1,   2,   3,    7,    8,    9,    15,   16,   17,
                                         31,  32,  33,  63,   64,   65,   100,  191,  192,  193,
                                         447, 448, 449, 2047, 2048, 2049, 4095, 4096, 4097, 9001};

TEST(CodeScan, KernelsAreKnown) {
  const std::vector<ScanKernel> kernels = scan_kernels_that_run();
  ASSERT_FALSE(kernels.empty());
  EXPECT_EQ(kernels.front(), ScanKernel::kScalar);
  EXPECT_TRUE(scan_kernel_runs(best_scan_kernel()));
  EXPECT_EQ(kernels.back(), best_scan_kernel());
  for (const ScanKernel kernel : kernels) {
    ::testing::Test::RecordProperty(scan_kernel_name(kernel), "runs");
  }
}

TEST(CodeScan, WithinMatchesBruteForce) {
  std::mt19937_64 random(4242);
  int compared = 0;
  for (const std::size_t size : kSizes) {
    const std::uint64_t query = random();
    // Half the codes near the query (so that every radius passes some), the
    // rest uniform.
    std::vector<std::uint64_t> keys(size);
    for (std::uint64_t& key : keys) {
      key = random() % 2 == 0 ? at_distance(query, static_cast<int>(random() % 12), random)
                              : random();
    }
    for (const int radius : {0, 1, 3, 7, 10, 31, 32, 63, 64}) {
      const Within expected = brute_within(keys, query, radius);
      for (const ScanKernel kernel : scan_kernels_that_run()) {
        Within found;
        scan_within(kernel, keys, query, radius, found);
        EXPECT_EQ(found, expected)
            << scan_kernel_name(kernel) << " size " << size << " radius " << radius;
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, static_cast<int>(kSizes.size() * 9 * scan_kernels_that_run().size()));
}

// A single row within the radius, at every position of a block: no lane,
// step or tail is skipped, and rows outside `keys` are never read.
TEST(CodeScan, WithinFindsOneRowAtEveryPosition) {
  std::mt19937_64 random(77);
  const std::uint64_t query = random();
  for (const std::size_t size : {std::size_t{1}, std::size_t{37}, std::size_t{70}}) {
    for (std::size_t at = 0; at < size; ++at) {
      std::vector<std::uint64_t> keys(size, ~query);  // 64 bits away
      keys[at] = at_distance(query, 5, random);
      for (const ScanKernel kernel : scan_kernels_that_run()) {
        Within found;
        scan_within(kernel, keys, query, 5, found);
        EXPECT_EQ(found, (Within{{at, 5}})) << scan_kernel_name(kernel) << " at " << at;
        found.clear();
        scan_within(kernel, keys, query, 4, found);
        EXPECT_TRUE(found.empty()) << scan_kernel_name(kernel) << " at " << at;
      }
    }
  }
}

TEST(CodeScan, NearestMatchesBruteForce) {
  std::mt19937_64 random(9898);
  for (const std::size_t size : kSizes) {
    const std::uint64_t query = random();
    std::vector<std::uint64_t> keys(size);
    for (std::uint64_t& key : keys) {
      key = random() % 3 == 0 ? at_distance(query, static_cast<int>(random() % 20), random)
                              : random();
    }
    const std::vector<std::int64_t> ids = shuffled_ids(size, random);
    for (const std::size_t count :
         {std::size_t{0}, std::size_t{1}, std::size_t{10}, std::size_t{100}, size, size + 5}) {
      for (const int bound : {0, 5, 10, 32, 64}) {
        const Nearest expected = brute_nearest(keys, ids, query, count, bound);
        for (const ScanKernel kernel : scan_kernels_that_run()) {
          EXPECT_EQ(scanned_nearest(kernel, keys, ids, query, count, bound), expected)
              << scan_kernel_name(kernel) << " size " << size << " count " << count << " bound "
              << bound;
        }
      }
    }
  }
}

// Many rows at the n-th distance: which of them are kept is decided by id
// alone, whatever their positions, blocks and lanes; the nearest row is
// placed late (the limit falls in the last block).
TEST(CodeScan, NearestBreaksTiesByIdAtTheLimit) {
  std::mt19937_64 random(31337);
  for (const std::size_t size : {std::size_t{40}, std::size_t{2050}, std::size_t{6000}}) {
    const std::uint64_t query = random();
    std::vector<std::uint64_t> keys(size);
    for (std::uint64_t& key : keys) {
      key = at_distance(query, 6 + static_cast<int>(random() % 3), random);
    }
    keys[size - 3] = at_distance(query, 2, random);
    const std::vector<std::int64_t> ids = shuffled_ids(size, random);
    for (const std::size_t count :
         {std::size_t{1}, std::size_t{2}, std::size_t{10}, std::size_t{333}}) {
      for (const int bound : {64, 7, 6, 2, 1}) {
        const Nearest expected = brute_nearest(keys, ids, query, count, bound);
        for (const ScanKernel kernel : scan_kernels_that_run()) {
          EXPECT_EQ(scanned_nearest(kernel, keys, ids, query, count, bound), expected)
              << scan_kernel_name(kernel) << " size " << size << " count " << count << " bound "
              << bound;
        }
      }
    }
  }
}

}  // namespace
}  // namespace simhash::testing
