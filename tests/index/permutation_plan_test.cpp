// SPDX-License-Identifier: MIT
// Tests of the block-permutation plan against brute force: the pigeonhole
// guarantee, permute/unpermute round trips and the once-only reporting rule.
#include "index/permutation_plan.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "fingerprint/hamming.h"
#include "plan_case.h"
#include "random_bits.h"

namespace simhash {

using testing::flip_random_bits;
using testing::make_plan;
namespace {

std::uint64_t binomial(int n, int r) {
  std::uint64_t result = 1;
  for (int i = 1; i <= r; ++i) {
    result = result * static_cast<std::uint64_t>(n - r + i) / static_cast<std::uint64_t>(i);
  }
  return result;
}

TEST(PermutationPlan, TableCountsAndPrefixBits) {
  for (int k = 0; k <= 8; ++k) {
    for (int blocks = k + 1; blocks <= std::min(64, k + 6); ++blocks) {
      if (binomial(blocks, k) > PermutationPlan::kMaxTables) {
        continue;
      }
      const PermutationPlan plan = make_plan(k, blocks);
      EXPECT_EQ(plan.table_count(), static_cast<int>(binomial(blocks, k))) << k << "/" << blocks;
      int total = 0;
      for (int block = 0; block < blocks; ++block) {
        EXPECT_GE(plan.block_size(block), 64 / blocks);
        EXPECT_LE(plan.block_size(block), 64 / blocks + 1);
        total += plan.block_size(block);
      }
      EXPECT_EQ(total, 64);
      std::set<std::uint64_t> masks;
      for (int table = 0; table < plan.table_count(); ++table) {
        EXPECT_EQ(std::popcount(plan.prefix_mask(table)), plan.prefix_bits(table));
        masks.insert(plan.prefix_mask(table));
      }
      EXPECT_EQ(masks.size(), static_cast<std::size_t>(plan.table_count())) << "distinct tables";
    }
  }
}

TEST(PermutationPlan, PermutedKeyStartsWithThePrefix) {
  std::mt19937_64 random(7);
  for (auto [k, blocks] : {std::pair{3, 4}, {3, 5}, {6, 8}, {1, 3}, {0, 1}, {10, 13}}) {
    const PermutationPlan plan = make_plan(k, blocks);
    for (int table = 0; table < plan.table_count(); ++table) {
      const int bits = plan.prefix_bits(table);
      for (int trial = 0; trial < 200; ++trial) {
        const std::uint64_t fp = random();
        const std::uint64_t key = plan.permute(table, fp);
        EXPECT_EQ(std::popcount(key), std::popcount(fp));
        EXPECT_EQ(plan.unpermute(table, key), fp);
        // The key's top `bits` bits are the fp's prefix-mask bits, in order.
        std::uint64_t expected = 0;
        for (int bit = 63; bit >= 0; --bit) {
          if ((plan.prefix_mask(table) >> bit) & 1) {
            expected = (expected << 1) | ((fp >> bit) & 1);
          }
        }
        const std::uint64_t top = bits == 0 ? 0 : bits == 64 ? key : key >> (64 - bits);
        EXPECT_EQ(top, expected);
      }
    }
  }
}

TEST(PermutationPlan, UnpermuteInvertsPermute) {
  std::mt19937_64 random(11);
  for (int k : {0, 1, 3, 6, 16, 40, 63}) {
    const PermutationPlan plan = make_plan(k, k + 1);
    for (int table = 0; table < plan.table_count(); ++table) {
      for (int trial = 0; trial < 100; ++trial) {
        const std::uint64_t fp = random();
        ASSERT_EQ(plan.unpermute(table, plan.permute(table, fp)), fp);
        ASSERT_EQ(plan.permute(table, plan.unpermute(table, fp)), fp);
      }
    }
  }
}

// Pigeonhole guarantee on random pairs within k bits, including every radius
// the batch helper uses (create(r, r+1) up to 63).
TEST(PermutationPlan, EveryPairWithinKSharesAPrefix) {
  std::mt19937_64 random(3);
  std::vector<std::pair<int, int>> plans;
  for (int k = 0; k <= 16; ++k) {
    plans.push_back({k, k + 1});
    plans.push_back({k, k + 2});
    plans.push_back({k, PermutationPlan::default_blocks(k)});
  }
  for (int k = 17; k <= 63; k += 3) {
    plans.push_back({k, k + 1});
  }
  for (auto [k, blocks] : plans) {
    const PermutationPlan plan = make_plan(k, blocks);
    for (int trial = 0; trial < 300; ++trial) {
      const std::uint64_t a = random();
      const int distance = static_cast<int>(random() % static_cast<unsigned>(k + 1));
      const std::uint64_t b = flip_random_bits(a, distance, random);
      const int table = plan.first_shared_table(a, b);
      ASSERT_GE(table, 0) << "k=" << k << " blocks=" << blocks;
      ASSERT_EQ((a ^ b) & plan.prefix_mask(table), 0u);
      // Reported in exactly one table: the first sharing one.
      for (int earlier = 0; earlier < table; ++earlier) {
        ASSERT_NE((a ^ b) & plan.prefix_mask(earlier), 0u);
      }
    }
  }
}

// Exhaustive: for every set of up to k flipped blocks, some table avoids them;
// and for every single bit pattern within k bits on a small plan, the sharing
// tables are exactly those whose mask the difference avoids.
TEST(PermutationPlan, ExhaustiveOverBlockPatterns) {
  for (int k = 0; k <= 6; ++k) {
    for (int blocks = k + 1; blocks <= k + 4; ++blocks) {
      const PermutationPlan plan = make_plan(k, blocks);
      for (std::uint32_t pattern = 0; pattern < (1u << blocks); ++pattern) {
        if (std::popcount(pattern) > k) {
          continue;
        }
        // One bit differing in each block of the pattern: the worst case.
        std::uint64_t difference = 0;
        for (int block = 0; block < blocks; ++block) {
          if ((pattern >> block) & 1) {
            difference |= std::uint64_t{1} << (63 - plan.block_start(block));
          }
        }
        ASSERT_GE(plan.first_shared_table(0, difference), 0)
            << "k=" << k << " blocks=" << blocks << " pattern=" << pattern;
      }
    }
  }
}

TEST(PermutationPlan, ExhaustiveSmallDistances) {
  // Every difference of 0..2 bits against plans with k=2.
  for (int blocks : {3, 4, 5, 8}) {
    const PermutationPlan plan = make_plan(2, blocks);
    for (int i = 0; i < 64; ++i) {
      for (int j = i; j < 64; ++j) {
        const std::uint64_t difference = (std::uint64_t{1} << i) | (std::uint64_t{1} << j);
        ASSERT_GE(
            plan.first_shared_table(0x0123456789abcdefULL, 0x0123456789abcdefULL ^ difference), 0);
      }
    }
  }
}

TEST(PermutationPlan, FarPairsMayShareNoTable) {
  const PermutationPlan plan = make_plan(3, 4);
  // One bit flipped in each of the four blocks: no table's prefix survives.
  std::uint64_t difference = 0;
  for (int block = 0; block < 4; ++block) {
    difference |= std::uint64_t{1} << (63 - plan.block_start(block));
  }
  EXPECT_EQ(plan.first_shared_table(0, difference), -1);
}

TEST(PermutationPlan, RejectsBadOptions) {
  std::string error;
  EXPECT_FALSE(PermutationPlan::create(-1, 4, error));
  EXPECT_NE(error.find("k=-1"), std::string::npos) << error;
  EXPECT_FALSE(PermutationPlan::create(64, 65, error));
  EXPECT_NE(error.find("k=64"), std::string::npos) << error;
  EXPECT_FALSE(PermutationPlan::create(3, 3, error));
  EXPECT_NE(error.find("blocks=3"), std::string::npos) << error;
  EXPECT_FALSE(PermutationPlan::create(3, 65, error));
  EXPECT_NE(error.find("blocks=65"), std::string::npos) << error;
  EXPECT_FALSE(PermutationPlan::create(3, 64, error));
  EXPECT_NE(error.find("tables"), std::string::npos) << error;
  EXPECT_TRUE(PermutationPlan::create(63, 64, error));
}

TEST(PermutationPlan, DefaultBlocks) {
  for (int k = 0; k <= 16; ++k) {
    const int blocks = PermutationPlan::default_blocks(k);
    const PermutationPlan plan = make_plan(k, blocks);
    EXPECT_LE(plan.table_count(), PermutationPlan::kMaxTables);
  }
  EXPECT_EQ(PermutationPlan::default_blocks(3), 4);
  EXPECT_EQ(PermutationPlan::default_blocks(6), 8);
}

}  // namespace
}  // namespace simhash
