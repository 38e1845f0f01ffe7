// SPDX-License-Identifier: MIT
// The batch search's parts against simple references: the radix sort against
// std::stable_sort, union-find against relabelling, fingerprint grouping,
// FeatureRows' lookup of identical rows against a std::map, and its adopted
// blocks against rows copied one by one.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>
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
    const std::uint32_t node = rows.add(fingerprint, features, key, std::nullopt);
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

// Rows whose features lie in adopted blocks (laid out as RowFeatureBuilder
// does: a batch's rows in ranges of 16 over three threads' blocks, one more
// block empty, identical rows included, some blocks weighted, some rows
// copied in between) get the same nodes and the same features as rows
// copied one by one: batches of mostly identical rows (compacted when the
// next blocks come) and of few, binary before the first weight and after,
// the last blocks closed by finish_adding(). Memory: the stored features
// stay within 8/7 of the distinct rows' (twice with weights), plus the
// blocks rows were copied into. A row said to lie in a block it does not
// lie in is refused.
TEST(FeatureRows, AdoptedBlocksGiveWhatCopiesGive) {
  std::mt19937_64 random(12);
  const std::size_t before = memory_charged();
  FeatureRows adopted;
  auto copied = std::make_unique<FeatureRows>();
  std::size_t copied_features = 0;       // of new rows added from their vectors
  constexpr std::uint32_t kThreads = 4;  // the last one lays out nothing
  for (int batch = 0; batch < 60; ++batch) {
    // Few contents in some batches (mostly identical rows), many in others;
    // weights other than 1 from batch 30 on, in some batches.
    const std::uint64_t contents = batch % 3 == 0 ? 4 : 100000;
    const bool weighted = batch >= 30 && batch % 2 == 0;
    std::vector<std::uint64_t> fingerprints;
    std::vector<FeatureVector> rows;
    for (int row = 0; row < (contents == 4 ? 400 : 200); ++row) {
      const std::uint64_t content = random() % contents;
      std::mt19937_64 of_content(content);
      FeatureVector features;
      const std::uint64_t size = 1 + of_content() % 40;
      // In a weighted batch only some rows have weights other than 1, so
      // that some threads' blocks have weights and others not.
      const bool row_weighted = weighted && content % 2 == 0;
      for (std::uint64_t i = 0; i < size; ++i) {
        const double weight = row_weighted && of_content() % 3 == 0 ? 2.0 : 1.0;
        features.hashes.push_back(i * 1000 + of_content() % 1000);
        features.weights.push_back(weight);
        features.sum_of_weights += weight;
      }
      fingerprints.push_back(content % 16);
      rows.push_back(std::move(features));
    }
    // Laid out as RowFeatureBuilder does: the ranges of 16 rows dealt to
    // the threads, each thread's rows end to end in its block, weights only
    // where some row of the block has one other than 1.
    const auto thread_of = [](std::size_t row) {
      return static_cast<std::uint32_t>((row / 16) % (kThreads - 1));
    };
    std::vector<FeatureBlock> blocks(kThreads);
    std::vector<bool> any_weight(kThreads, false);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      blocks[thread_of(i)].size += rows[i].hashes.size();
      any_weight[thread_of(i)] =
          any_weight[thread_of(i)] || !FeatureRows::key_of(0, rows[i]).binary;
    }
    for (std::uint32_t t = 0; t + 1 < kThreads; ++t) {
      blocks[t].hashes = std::make_unique<std::uint64_t[]>(blocks[t].size);
      if (any_weight[t]) {
        blocks[t].weights = std::make_unique<double[]>(blocks[t].size);
      }
    }
    std::vector<std::size_t> filled(kThreads, 0);
    std::vector<FeatureView> views;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      FeatureBlock& block = blocks[thread_of(i)];
      const std::size_t start = filled[thread_of(i)];
      std::copy(rows[i].hashes.begin(), rows[i].hashes.end(), block.hashes.get() + start);
      std::span<const double> weights;
      if (block.weights) {
        std::copy(rows[i].weights.begin(), rows[i].weights.end(), block.weights.get() + start);
        weights = {block.weights.get() + start, rows[i].hashes.size()};
      }
      views.emplace_back(
          std::span<const std::uint64_t>(block.hashes.get() + start, rows[i].hashes.size()),
          weights, rows[i].sum_of_weights);
      filled[thread_of(i)] += rows[i].hashes.size();
    }
    adopted.adopt(std::move(blocks));
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const RowKey key = FeatureRows::key_of(fingerprints[i], rows[i]);
      const std::uint32_t expected = copied->add(fingerprints[i], rows[i], key, std::nullopt);
      if (i == 5 && batch == 1) {
        // Said to lie in the wrong block, in the empty one, in none there
        // is, or in its block while its features are the vector's: refused.
        const std::uint32_t other = (thread_of(i) + 1) % (kThreads - 1);
        for (const std::uint32_t wrong : {other, kThreads - 1, kThreads}) {
          EXPECT_THROW(adopted.add(fingerprints[i], views[i], key, wrong), std::logic_error);
        }
        EXPECT_THROW(adopted.add(fingerprints[i], FeatureView(rows[i]), key, thread_of(i)),
                     std::logic_error);
        EXPECT_EQ(adopted.size(), copied->size() - (expected + 1 == copied->size() ? 1 : 0));
      }
      // Every seventh row from its vector, not the block: copied.
      const bool copy = i % 7 == 0;
      const FeatureView view = copy ? FeatureView(rows[i]) : views[i];
      ASSERT_EQ(adopted.add(fingerprints[i], view, key,
                            copy ? std::nullopt : std::optional<std::uint32_t>(thread_of(i))),
                expected)
          << "batch " << batch << " row " << i;
      if (copy && expected + 1 == adopted.size()) {
        copied_features += rows[i].hashes.size();
      }
    }
  }
  adopted.finish_adding();
  ASSERT_EQ(adopted.size(), copied->size());
  ASSERT_TRUE(adopted.weighted());
  ASSERT_TRUE(copied->weighted());
  EXPECT_EQ(adopted.hash_count(), copied->hash_count());
  for (std::uint32_t node = 0; node < copied->size(); ++node) {
    const FeatureView want = copied->features_of(node);
    const FeatureView got = adopted.features_of(node);
    ASSERT_TRUE(
        std::equal(want.hashes.begin(), want.hashes.end(), got.hashes.begin(), got.hashes.end()))
        << "node " << node;
    ASSERT_TRUE(std::equal(want.weights.begin(), want.weights.end(), got.weights.begin(),
                           got.weights.end()))
        << "node " << node;
    EXPECT_EQ(want.sum_of_weights, got.sum_of_weights);
    EXPECT_EQ(adopted.fingerprint_of(node), copied->fingerprint_of(node));
  }
  // What the adopting rows hold: features and weights (16 bytes each), the
  // adopted ones with at most a seventh more as unused room (the identical
  // rows' left in the blocks), the copied ones in blocks of 32K features
  // (the last one partly used, each a row's room short at most), and the
  // nodes.
  copied.reset();
  const std::size_t held = memory_charged() - before;
  const double features = 8.0 / 7 * static_cast<double>(adopted.hash_count() - copied_features) +
                          static_cast<double>(copied_features + 32768 + 400);
  EXPECT_GE(held, adopted.hash_count() * 16);
  EXPECT_LE(static_cast<double>(held), 16 * features + 48.0 * static_cast<double>(adopted.size()));
}

}  // namespace
}  // namespace simhash
