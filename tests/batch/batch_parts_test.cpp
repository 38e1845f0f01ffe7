// SPDX-License-Identifier: MIT
// The batch search's parts against simple references: the radix sort against
// std::stable_sort, union-find against relabelling, fingerprint grouping,
// FeatureRows' lookup of identical rows against a std::map.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <map>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "batch/feature_rows.h"
#include "batch/fingerprint_groups.h"
#include "batch/union_find.h"
#include "util/radix_sort.h"

namespace simhash {
namespace {

TEST(RadixSort, MatchesStableSortByMaskedBits) {
  std::mt19937_64 random(5);
  RadixSorter sorter;
  const std::uint64_t masks[] = {0,
                                 1,
                                 0xffff000000000000ULL,
                                 0x0000fff00fff0000ULL,
                                 0x8000000000000001ULL,
                                 0x00000000ffffffffULL,
                                 0xaaaaaaaaaaaaaaaaULL,
                                 ~std::uint64_t{0}};
  for (const std::uint64_t mask : masks) {
    for (std::size_t count : {0U, 1U, 2U, 1000U, 30000U}) {
      std::vector<std::uint64_t> keys(count);
      for (auto& key : keys) {
        // Few distinct values in some bits, so stability is tested too.
        key = random() & (random() | 0xf0f0f0f0f0f0f0f0ULL);
      }
      std::vector<std::uint32_t> payload(count);
      std::iota(payload.begin(), payload.end(), 0U);
      std::vector<std::pair<std::uint64_t, std::uint32_t>> expected;
      for (std::size_t i = 0; i < count; ++i) {
        expected.emplace_back(keys[i], payload[i]);
      }
      std::stable_sort(expected.begin(), expected.end(), [mask](const auto& x, const auto& y) {
        return (x.first & mask) < (y.first & mask);
      });
      std::vector<std::uint64_t> keys_only = keys;
      sorter.sort_by_mask(keys, payload, mask);
      sorter.sort_by_mask(keys_only, mask);
      for (std::size_t i = 0; i < count; ++i) {
        ASSERT_EQ(keys[i], expected[i].first) << mask << " " << count << " " << i;
        ASSERT_EQ(payload[i], expected[i].second) << mask << " " << count << " " << i;
        ASSERT_EQ(keys_only[i], expected[i].first) << mask << " " << count << " " << i;
      }
    }
    // Digits hold at most 11 bits, and each starts at a masked bit.
    EXPECT_GE(RadixSorter::pass_count(mask), (std::popcount(mask) + 10) / 11);
    EXPECT_LE(RadixSorter::pass_count(mask), std::popcount(mask));
  }
  EXPECT_EQ(RadixSorter::pass_count(0xffff000000000000ULL), 2);
  EXPECT_EQ(RadixSorter::pass_count(~std::uint64_t{0}), 6);
}

TEST(RadixSort, RejectsPayloadOfAnotherSize) {
  RadixSorter sorter;
  std::vector<std::uint64_t> keys(3);
  std::vector<std::uint32_t> payload(2);
  EXPECT_THROW(sorter.sort_by_mask(keys, payload, 0xff), std::invalid_argument);
}

TEST(UnionFind, MatchesRelabelling) {
  std::mt19937_64 random(11);
  const std::uint32_t size = 2000;
  UnionFind sets(size);
  std::vector<std::uint32_t> label(size);
  std::iota(label.begin(), label.end(), 0U);
  for (int step = 0; step < 1500; ++step) {
    const auto a = static_cast<std::uint32_t>(random() % size);
    const auto b = static_cast<std::uint32_t>(random() % size);
    const bool separate = label[a] != label[b];
    EXPECT_EQ(sets.unite(a, b), separate);
    if (separate) {
      const std::uint32_t from = label[b];
      std::replace(label.begin(), label.end(), from, label[a]);
    }
  }
  for (std::uint32_t x = 0; x < size; ++x) {
    for (std::uint32_t y = x + 1; y < size; y += 37) {
      ASSERT_EQ(sets.find(x) == sets.find(y), label[x] == label[y]) << x << " " << y;
    }
  }
}

TEST(FingerprintGroups, GroupsIdenticalFingerprintsInIdOrder) {
  const FingerprintGroups groups({{5, 9}, {-3, 2}, {7, 9}, {1, 2}, {4, 100}, {2, 9}});
  ASSERT_EQ(groups.records().size(), 6U);
  EXPECT_EQ(groups.records()[0].id, -3);
  EXPECT_EQ(groups.records()[5].id, 7);
  ASSERT_EQ(groups.group_count(), 3U);
  EXPECT_EQ(groups.fingerprints()[0], 2U);
  EXPECT_EQ(groups.fingerprints()[1], 9U);
  EXPECT_EQ(groups.fingerprints()[2], 100U);
  std::vector<std::int64_t> nines;
  for (std::uint32_t position : groups.members(1)) {
    nines.push_back(groups.records()[position].id);
  }
  EXPECT_EQ(nines, (std::vector<std::int64_t>{2, 5, 7}));
}

// FeatureRows gives a row the node of the identical earlier row, and a new
// one otherwise: rows drawn from few fingerprints and few features (so
// many are identical, and many share a fingerprint or the features but
// not both), binary and weighted, across several doublings of the lookup;
// half of them added under a forged key of two values (the same for
// identical rows, as the key must be), so identical rows are found among
// thousands of colliding ones by comparison, not by the hash.
TEST(FeatureRows, FindsTheIdenticalEarlierRowAmongCollidingKeys) {
  std::mt19937_64 random(11);
  FeatureRows rows;
  std::map<std::pair<std::uint64_t, std::vector<std::pair<std::uint64_t, double>>>, std::uint32_t>
      model;
  std::size_t reused = 0;
  for (int row = 0; row < 6000; ++row) {
    const std::uint64_t fingerprint = random() % 8;
    FeatureVector features;
    std::vector<std::pair<std::uint64_t, double>> content;
    const std::uint64_t size = 1 + random() % 3;
    for (std::uint64_t i = 0; i < size; ++i) {
      const double weight = random() % 4 == 0 ? 2.0 : 1.0;
      features.hashes.push_back(i * 16 + random() % 12);
      features.weights.push_back(weight);
      features.sum_of_weights += weight;
      content.emplace_back(features.hashes.back(), weight);
    }
    RowKey key = FeatureRows::key_of(fingerprint, features);
    if (fingerprint < 4) {
      key.hash = fingerprint % 2;
    }
    const std::uint32_t node = rows.add(fingerprint, features, key);
    const auto [at, added] = model.emplace(std::pair(fingerprint, content), node);
    if (!added) {
      ++reused;
      EXPECT_EQ(node, at->second) << "row " << row;
    } else {
      EXPECT_EQ(node, rows.size() - 1) << "row " << row;
    }
  }
  EXPECT_GT(reused, 1000U);
  EXPECT_GT(rows.size(), 2000U);
  EXPECT_TRUE(rows.weighted());
}

}  // namespace
}  // namespace simhash
