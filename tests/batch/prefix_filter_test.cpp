// SPDX-License-Identifier: MIT
// The join's filters (prefix_filter.h) against brute force: positions_allow's
// arithmetic, and a posting index probed by every set of a collection whose
// features crowd into few slots (so that slots hold several features each,
// the case positions_allow's argument is about) reports every earlier set at
// the threshold, while the positions drop some that only share a slot.
#include "batch/prefix_filter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "batch/feature_rows.h"
#include "fingerprint/feature_similarity.h"

namespace simhash {
namespace {

TEST(PositionsAllow, TheBoundIsTheFewerFeaturesLeftOnEitherSide) {
  // Two sets of 10 at 0.8 need 9 shared features (9 / 11 >= 0.8 > 8 / 12).
  ASSERT_EQ(needed_overlap(10, 10, 0.8), 9U);
  EXPECT_TRUE(positions_allow(10, 0, 10, 0, 0.8));
  EXPECT_TRUE(positions_allow(10, 1, 10, 0, 0.8));
  EXPECT_TRUE(positions_allow(10, 0, 10, 1, 0.8));
  EXPECT_FALSE(positions_allow(10, 2, 10, 0, 0.8));
  EXPECT_FALSE(positions_allow(10, 0, 10, 2, 0.8));
  EXPECT_TRUE(positions_allow(10, 1, 10, 1, 0.8));
  // Sizes 8 and 12 at 0.5 need ceil(20 / 3) = 7; 12 - 5 = 7 left is enough.
  ASSERT_EQ(needed_overlap(8, 12, 0.5), 7U);
  EXPECT_TRUE(positions_allow(8, 1, 12, 5, 0.5));
  EXPECT_FALSE(positions_allow(8, 2, 12, 5, 0.5));
  EXPECT_FALSE(positions_allow(8, 1, 12, 6, 0.5));
}

// Sets of a few families (a base and edited copies), their features 256
// hashes that differ in their top 5 bits and their last 3: 8 to a slot of
// any table of 2^5 to 2^59 slots (a slot is a hash's top bits).
std::vector<FeatureVector> crowded_sets(std::uint64_t seed, std::size_t count) {
  std::mt19937_64 random(seed);
  const auto feature = [&] {
    const std::uint64_t slot = random() % 32;
    return (slot << 54) | (random() % 8);
  };
  std::vector<std::set<std::uint64_t>> bases(12);
  for (std::set<std::uint64_t>& base : bases) {
    const std::size_t size = 4 + random() % 28;
    while (base.size() < size) {
      base.insert(feature());
    }
  }
  std::vector<FeatureVector> sets;
  for (std::size_t i = 0; i < count; ++i) {
    std::set<std::uint64_t> set = bases[random() % bases.size()];
    for (std::uint64_t edits = random() % 5; edits > 0; --edits) {
      if (random() % 2 == 0 && set.size() > 1) {
        set.erase(std::next(set.begin(), static_cast<std::ptrdiff_t>(random() % set.size())));
      } else {
        set.insert(feature());
      }
    }
    FeatureVector vector;
    for (const std::uint64_t hash : set) {
      vector.hashes.push_back(hash);
      vector.weights.push_back(1.0);
    }
    vector.sum_of_weights = static_cast<double>(set.size());
    sets.push_back(vector);
  }
  return sets;
}

std::size_t shared(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  std::vector<std::uint64_t> both;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
  return both.size();
}

TEST(PostingIndex, ReportsEveryEarlierSetAtTheThresholdAndDropsSomeByPosition) {
  for (const double threshold : {0.5, 0.7, 0.8, 0.9}) {
    SCOPED_TRACE(threshold);
    FeatureRows rows;
    for (const FeatureVector& set : crowded_sets(7, 600)) {
      rows.add(0, set, FeatureRows::key_of(0, set), std::nullopt);
    }
    rows.finish_adding();
    const SlotRanking ranking({&rows});
    const Prefixes prefixes(rows, ranking, threshold);
    PostingIndex index(ranking.slot_count(), prefixes.all());
    EntryMarks marks;
    std::size_t at_threshold = 0;
    std::size_t sharing_a_slot = 0;
    std::size_t reported = 0;
    for (std::uint32_t node = 0; node < rows.size(); ++node) {
      const FeatureView features = rows.features_of(node);
      const std::vector<std::uint64_t> hashes(features.hashes.begin(), features.hashes.end());
      std::set<std::uint32_t> met;
      const PostingIndex::Probe probe{prefixes.of(node), hashes.size(), threshold};
      std::size_t walked = 0;
      index.for_each_entry(
          probe, 0, node, marks,
          [&](std::uint32_t entry) {
            EXPECT_TRUE(met.insert(entry).second) << "entry " << entry << " reported twice";
          },
          [&](std::size_t postings) { walked += postings; });
      const std::set<std::uint32_t> own_slots(prefixes.of(node).begin(), prefixes.of(node).end());
      // Every posting under the probe's slots is work told to the caller,
      // whether or not an entry comes of it.
      std::size_t postings_under_own_slots = 0;
      for (std::uint32_t other = 0; other < node; ++other) {
        const FeatureView other_features = rows.features_of(other);
        const std::vector<std::uint64_t> other_hashes(other_features.hashes.begin(),
                                                      other_features.hashes.end());
        const std::size_t overlap = shared(hashes, other_hashes);
        const bool reaches =
            static_cast<double>(overlap) /
                static_cast<double>(hashes.size() + other_hashes.size() - overlap) >=
            threshold;
        const auto other_slots = prefixes.of(other);
        const std::set<std::uint32_t> distinct_other(other_slots.begin(), other_slots.end());
        for (const std::uint32_t slot : distinct_other) {
          postings_under_own_slots += own_slots.count(slot);
        }
        const bool shares_a_slot =
            std::any_of(other_slots.begin(), other_slots.end(),
                        [&](std::uint32_t slot) { return own_slots.count(slot) > 0; });
        at_threshold += reaches ? 1 : 0;
        sharing_a_slot += shares_a_slot ? 1 : 0;
        if (reaches) {
          EXPECT_TRUE(met.count(other) > 0) << "sets " << other << " and " << node << " missed";
        }
        if (met.count(other) > 0) {
          EXPECT_TRUE(shares_a_slot) << "sets " << other << " and " << node;
        }
      }
      EXPECT_EQ(walked, postings_under_own_slots) << "set " << node;
      reported += met.size();
      index.add(prefixes.of(node), hashes.size());
    }
    EXPECT_GT(at_threshold, 500U);
    EXPECT_LT(reported, sharing_a_slot);  // the positions dropped some
  }
}

// A set past what a posting's size can say (65,535 features) is never
// dropped by position: a near copy of one without its 10,000 rarest
// features still meets it, where its place (10,000) with the size taken as
// 65,535 would leave too few features after it.
TEST(PostingIndex, AnEntryTooLargeForItsPostingIsNeverDroppedByPosition) {
  constexpr std::uint64_t kLarge = 70000;
  constexpr std::uint64_t kMissing = 10000;
  // 130,000 occurrences make a table of 2^15 slots (a hash's top 15 bits):
  // the missing features each alone in a slot of its own (counted once, so
  // first in the order), the shared ones 60,000 in the other slots.
  std::mt19937_64 random(3);
  const auto in_slot = [&](std::uint64_t slot) { return (slot << 49) | (random() >> 15); };
  std::set<std::uint64_t> missing;
  for (std::uint64_t slot = 0; slot < kMissing; ++slot) {
    missing.insert(in_slot(slot));
  }
  std::set<std::uint64_t> shared_ones;
  while (shared_ones.size() < kLarge - kMissing) {
    shared_ones.insert(in_slot(kMissing + random() % ((std::uint64_t{1} << 15) - kMissing)));
  }
  const auto set_of = [](const std::set<std::uint64_t>& hashes) {
    FeatureVector set;
    set.hashes.assign(hashes.begin(), hashes.end());
    set.weights.assign(set.hashes.size(), 1.0);
    set.sum_of_weights = static_cast<double>(set.hashes.size());
    return set;
  };
  std::set<std::uint64_t> all = shared_ones;
  all.insert(missing.begin(), missing.end());
  const FeatureVector large = set_of(all);
  const FeatureVector copy = set_of(shared_ones);
  FeatureRows rows;
  rows.add(0, large, FeatureRows::key_of(0, large), std::nullopt);
  rows.add(1, copy, FeatureRows::key_of(1, copy), std::nullopt);
  rows.finish_adding();
  const double threshold = 0.8;
  ASSERT_GE(static_cast<double>(kLarge - kMissing) / static_cast<double>(kLarge), threshold);
  ASSERT_FALSE(
      positions_allow(kLarge - kMissing, 0, PostingIndex::kUnknownSize, kMissing, threshold));
  const SlotRanking ranking({&rows});
  const Prefixes prefixes(rows, ranking, threshold);
  PostingIndex index(ranking.slot_count(), prefixes.all());
  index.add(prefixes.of(0), kLarge);
  EntryMarks marks;
  std::vector<std::uint32_t> met;
  index.for_each_entry(
      PostingIndex::Probe{prefixes.of(1), kLarge - kMissing, threshold}, 0, 1, marks,
      [&](std::uint32_t entry) { met.push_back(entry); }, [](std::size_t) {});
  EXPECT_EQ(met, std::vector<std::uint32_t>{0});
}

}  // namespace
}  // namespace simhash
