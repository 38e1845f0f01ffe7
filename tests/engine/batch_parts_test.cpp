// The batch search's parts against simple references: the radix sort against
// std::stable_sort, union-find against relabelling, fingerprint grouping.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "fingerprint_groups.h"
#include "radix_sort.h"
#include "union_find.h"

namespace simhash {
namespace {

TEST(RadixSort, MatchesStableSortOnTopBits) {
  std::mt19937_64 random(5);
  RadixSorter sorter;
  for (int bits : {1, 7, 11, 12, 16, 22, 25, 33, 64}) {
    for (std::size_t count : {0U, 1U, 2U, 1000U, 30000U}) {
      std::vector<std::uint64_t> keys(count);
      for (auto& key : keys) {
        // Few distinct prefixes, so stability is tested too.
        key = (random() % 50) << 58 | random() >> 6;
      }
      std::vector<std::uint32_t> payload(count);
      std::iota(payload.begin(), payload.end(), 0U);
      std::vector<std::pair<std::uint64_t, std::uint32_t>> expected;
      for (std::size_t i = 0; i < count; ++i) {
        expected.emplace_back(keys[i], payload[i]);
      }
      const int shift = 64 - bits;
      std::stable_sort(expected.begin(), expected.end(), [shift](const auto& x, const auto& y) {
        return (x.first >> shift) < (y.first >> shift);
      });
      sorter.sort_by_top_bits(keys, payload, bits);
      for (std::size_t i = 0; i < count; ++i) {
        ASSERT_EQ(keys[i], expected[i].first) << bits << " " << count << " " << i;
        ASSERT_EQ(payload[i], expected[i].second) << bits << " " << count << " " << i;
      }
    }
  }
}

TEST(RadixSort, RejectsBadArguments) {
  RadixSorter sorter;
  std::vector<std::uint64_t> keys(3);
  std::vector<std::uint32_t> payload(2);
  EXPECT_THROW(sorter.sort_by_top_bits(keys, payload, 8), std::invalid_argument);
  payload.resize(3);
  EXPECT_THROW(sorter.sort_by_top_bits(keys, payload, 0), std::invalid_argument);
  EXPECT_THROW(sorter.sort_by_top_bits(keys, payload, 65), std::invalid_argument);
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
    EXPECT_EQ(groups.group_of(position), 1U);
  }
  EXPECT_EQ(nines, (std::vector<std::int64_t>{2, 5, 7}));
}

}  // namespace
}  // namespace simhash
