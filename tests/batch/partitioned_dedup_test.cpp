// SPDX-License-Identifier: MIT
// PartitionedDedup against the in-memory threshold join (VerifiedDedup):
// the same rows, kept ids, distances and similarities for every budget,
// from parts of one row to one part for everything, on random rows with
// fixed seeds and on adversarial ones (one family of near copies, every
// row identical, sizes far apart so that most windows are empty). Also the
// plan of size_parts.h (every pair that can reach the threshold in exactly
// one part, no part over the budget) and the runs of offer_runs.h.
#include "batch/partitioned_dedup.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "batch/offer_runs.h"
#include "batch/size_parts.h"
#include "batch/verified_dedup.h"
#include "random_feature_rows.h"
#include "sanitized_build.h"
#include "util/sort_checked.h"

namespace simhash {
namespace {

using testing::edited_binary_rows;
using testing::random_rows;
using testing::Row;

// Near copies of a few base texts, as sets of word ids: sizes from 1 to
// about 120, words dropped, added and changed, exact copies; fingerprints
// from few bases so that some pairs fall within a radius and some not.
std::vector<Row> family_rows(std::size_t count, std::uint64_t seed, std::size_t bases_count) {
  std::mt19937_64 random(seed);
  std::vector<std::set<std::uint64_t>> bases(bases_count);
  for (auto& base : bases) {
    const std::size_t size = 1 + random() % 120;
    while (base.size() < size) {
      base.insert(random() % 3000);
    }
  }
  std::vector<Row> rows;
  for (std::size_t i = 0; i < count; ++i) {
    const auto id = static_cast<std::int64_t>(random() % 2 == 0 ? i : 100000 + count - i);
    if (i > 0 && random() % 7 == 0) {
      Row copy = rows[random() % rows.size()];
      copy.id = id;
      rows.push_back(copy);
      continue;
    }
    std::set<std::uint64_t> words = bases[random() % bases.size()];
    for (auto edits = random() % 6; edits > 0; --edits) {
      if (random() % 2 == 0 && words.size() > 1) {
        words.erase(std::next(words.begin(), static_cast<std::ptrdiff_t>(random() % words.size())));
      } else {
        words.insert(random() % 3000);
      }
    }
    std::map<std::uint64_t, double> features;
    for (const std::uint64_t word : words) {
      features[word * 0x9E3779B97F4A7C15ULL] = 1;
    }
    std::uint64_t fp = 0xABCDEF0123456789ULL * (1 + random() % 3);
    for (auto flips = random() % 12; flips > 0; --flips) {
      fp ^= std::uint64_t{1} << (random() % 64);
    }
    rows.push_back(Row{id, fp, testing::vector_of(features)});
  }
  return rows;
}

std::vector<DedupRow> in_memory(const std::vector<Row>& rows, double threshold,
                                std::optional<int> radius) {
  VerifiedDedup dedup;
  for (const Row& row : rows) {
    dedup.add(row.id, row.fp, row.features);
  }
  return dedup.groups_by_threshold_join(threshold, {}, nullptr, radius);
}

std::vector<DedupRow> partitioned(const std::vector<Row>& rows, double threshold,
                                  std::optional<int> radius, std::optional<std::uint64_t> part,
                                  PartitionCounts* counts = nullptr, unsigned threads = 1) {
  PartitionedDedup dedup;
  for (const Row& row : rows) {
    dedup.add(row.id, row.fp, row.features);
  }
  // A budget below the least: the offers' buffer is as small as it gets,
  // so they go to disk in many runs.
  return dedup.groups(threshold, 0, {}, radius, threads, counts, part);
}

// What a part may hold for parts of one row each, and for a few rows each.
constexpr std::uint64_t kOneRowParts = 1;
constexpr std::uint64_t kFewRowParts = std::uint64_t{1} << 16;

TEST(PartitionedDedup, EqualsTheInMemoryJoinOverRandomRows) {
  // One seed under the sanitizers, three in the other builds.
  const std::uint64_t seeds = testing::kSanitizedBuild ? 1 : 3;
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    for (int kind = 0; kind < 3; ++kind) {
      const std::vector<Row> rows = kind == 0   ? random_rows(300, seed, false)
                                    : kind == 1 ? edited_binary_rows(400, seed)
                                                : family_rows(500, seed, 12);
      // Parts of one row each make a part for every pair of rows whose
      // sizes may reach each other: fewer rows for those.
      const std::vector<Row> few(rows.begin(), rows.begin() + 60);
      for (const double threshold : {0.3, 0.5, 0.8, 0.95, 1.0}) {
        if (threshold == 0.3 && seed > 1) {
          continue;  // the most pairs, the slowest
        }
        for (const std::optional<int> radius : {std::optional<int>(), std::optional<int>(6)}) {
          const std::vector<DedupRow> expected = in_memory(rows, threshold, radius);
          for (const std::optional<std::uint64_t> part :
               {std::optional<std::uint64_t>(kFewRowParts), std::optional<std::uint64_t>()}) {
            EXPECT_EQ(partitioned(rows, threshold, radius, part), expected)
                << "seed " << seed << " kind " << kind << " threshold " << threshold << " radius "
                << radius.value_or(-1) << " part " << part.value_or(0);
          }
          if ((threshold != 0.5 && threshold != 0.95) || seed > 2) {
            continue;
          }
          PartitionCounts counts;
          EXPECT_EQ(partitioned(few, threshold, radius, kOneRowParts, &counts),
                    in_memory(few, threshold, radius))
              << "seed " << seed << " kind " << kind << " threshold " << threshold << " radius "
              << radius.value_or(-1) << " parts of one row";
          EXPECT_EQ(counts.chunks, counts.nodes) << "every part is one row";
        }
        if (threshold == 0.8 && kind == 2) {
          EXPECT_GT(in_memory(rows, threshold, std::nullopt).size(), 40U)
              << "the data makes groups";
        }
      }
    }
  }
}

TEST(PartitionedDedup, EqualsTheInMemoryJoinOnThreads) {
  const std::vector<Row> rows = family_rows(2000, 9, 40);
  const std::vector<DedupRow> expected = in_memory(rows, 0.7, std::nullopt);
  EXPECT_EQ(partitioned(rows, 0.7, std::nullopt, kFewRowParts * 8, nullptr, 4), expected);
}

TEST(PartitionedDedup, OneHugeGroup) {
  // Every row a near copy of one text: one group, every pair linked.
  const std::vector<Row> rows = family_rows(300, 3, 1);
  for (const double threshold : {0.5, 0.8}) {
    const std::vector<DedupRow> expected = in_memory(rows, threshold, std::nullopt);
    for (const std::uint64_t part : {kOneRowParts, kFewRowParts, std::uint64_t{1} << 30}) {
      EXPECT_EQ(partitioned(rows, threshold, std::nullopt, part), expected)
          << "threshold " << threshold << " part " << part;
    }
  }
}

TEST(PartitionedDedup, AllIdenticalRows) {
  std::vector<Row> rows;
  const FeatureVector features = testing::vector_of({{11, 1}, {22, 1}, {33, 1}});
  for (std::int64_t id = 0; id < 5000; ++id) {
    rows.push_back(Row{1000 - id, 42, features});
  }
  PartitionCounts counts;
  const std::vector<DedupRow> result = partitioned(rows, 0.8, std::nullopt, kOneRowParts, &counts);
  EXPECT_EQ(result, in_memory(rows, 0.8, std::nullopt));
  EXPECT_EQ(counts.nodes, 1U);
  EXPECT_EQ(counts.pairs, 0U);
  ASSERT_EQ(result.size(), rows.size());
  EXPECT_EQ(result.back().kept, 1000);
}

TEST(PartitionedDedup, ManyRowsAreSortedInPiecesBetweenChecks) {
  // More rows than a sorted run (32K): the runs are merged, and the check
  // point is called while they are.
  std::mt19937_64 random(6);
  std::vector<FeatureVector> sets(3000);
  for (FeatureVector& set : sets) {
    std::map<std::uint64_t, double> features;
    while (features.size() < 3 + random() % 6) {
      features[(1 + random() % 40000) * 0x9E3779B97F4A7C15ULL] = 1;
    }
    set = testing::vector_of(features);
  }
  std::vector<Row> rows;
  for (std::int64_t id = 0; id < 80000; ++id) {
    rows.push_back(Row{id * 7 % 80001, random() % 4, sets[random() % sets.size()]});
  }
  std::size_t checks = 0;
  PartitionedDedup dedup;
  for (const Row& row : rows) {
    dedup.add(row.id, row.fp, row.features);
  }
  PartitionCounts counts;
  EXPECT_EQ(dedup.groups(
                0.5, 0, [&checks] { ++checks; }, std::nullopt, 1, &counts, kFewRowParts),
            in_memory(rows, 0.5, std::nullopt));
  EXPECT_LE(counts.nodes, 3000U * 4);
  EXPECT_GT(checks, 80000U / (std::size_t{1} << 15));
}

TEST(PartitionedDedup, KeyCollisionsKeepDistinctRowsApart) {
  // Same size and key for rows whose features differ: given keys all 0.
  const std::vector<Row> rows = edited_binary_rows(300, 5);
  PartitionedDedup dedup;
  for (const Row& row : rows) {
    dedup.add(row.id, row.fp, row.features, 0);
  }
  EXPECT_EQ(dedup.groups(0.6, 0, {}, std::nullopt, 1, nullptr, kFewRowParts),
            in_memory(rows, 0.6, std::nullopt));
}

TEST(PartitionedDedup, SizesFarApartLeaveEmptyWindows) {
  // Sizes 1, 10, 100 and 1000: no chunk reaches the next at 0.8, but rows
  // of one size still group.
  std::vector<Row> rows;
  std::mt19937_64 random(8);
  std::int64_t id = 0;
  for (const std::size_t size : {1000U, 1U, 100U, 10U}) {
    for (int copy = 0; copy < 30; ++copy) {
      std::map<std::uint64_t, double> features;
      for (std::uint64_t hash = 0; hash < size; ++hash) {
        features[(hash + (random() % 8 == 0 ? 5000 : 0)) * 0x1000193 + 1] = 1;
      }
      rows.push_back(Row{id++, random() % 8, testing::vector_of(features)});
    }
  }
  for (const std::uint64_t part : {kOneRowParts, kFewRowParts}) {
    PartitionCounts counts;
    EXPECT_EQ(partitioned(rows, 0.8, std::nullopt, part, &counts),
              in_memory(rows, 0.8, std::nullopt));
    EXPECT_GT(counts.chunks, 3U);
  }
}

TEST(PartitionedDedup, NoRowsAndOneRow) {
  EXPECT_TRUE(partitioned({}, 0.8, std::nullopt, std::nullopt).empty());
  const std::vector<Row> one{Row{7, 1, testing::vector_of({{3, 1}})}};
  EXPECT_TRUE(partitioned(one, 0.8, std::nullopt, kOneRowParts).empty());
}

TEST(PartitionedDedup, RefusesWhatTheJoinRefuses) {
  PartitionedDedup dedup;
  EXPECT_THROW(dedup.add(1, 0, FeatureVector{}), std::invalid_argument);
  EXPECT_THROW(dedup.add(1, 0, testing::vector_of({{3, 2.0}})), std::invalid_argument);
  dedup.add(1, 0, testing::vector_of({{3, 1}}));
  EXPECT_THROW(dedup.groups(0.8, 1 << 20, {}, -1), std::invalid_argument);
}

TEST(PartitionedDedup, StopsAtTheCheckPoint) {
  const std::vector<Row> rows = family_rows(300, 2, 5);
  PartitionedDedup dedup;
  for (const Row& row : rows) {
    dedup.add(row.id, row.fp, row.features);
  }
  int checks = 0;
  const CheckPoint check = [&checks] {
    if (++checks == 3) {
      throw std::runtime_error("interrupted");
    }
  };
  EXPECT_THROW(dedup.groups(0.8, 0, check, std::nullopt, 1, nullptr, kFewRowParts),
               std::runtime_error);
}

TEST(PartitionedDedup, ReportsEachPart) {
  const std::vector<Row> rows = family_rows(200, 4, 5);
  PartitionedDedup dedup;
  std::set<std::string> phases;
  dedup.set_progress([&](const ProgressStep& step) { phases.insert(std::string(step.phase)); });
  for (const Row& row : rows) {
    dedup.add(row.id, row.fp, row.features);
  }
  PartitionCounts counts;
  dedup.groups(0.8, 0, {}, std::nullopt, 1, &counts, kFewRowParts);
  ASSERT_GT(counts.parts, 2U);
  EXPECT_TRUE(phases.contains("finding identical rows"));
  EXPECT_TRUE(phases.contains("part 1 of " + std::to_string(counts.parts) + ": reading"));
  EXPECT_TRUE(phases.contains("part " + std::to_string(counts.parts) + " of " +
                              std::to_string(counts.parts) + ": ranking features"));
  EXPECT_TRUE(phases.contains("grouping"));
}

TEST(SizeParts, EveryReachablePairInExactlyOnePartWithinTheBudget) {
  std::mt19937_64 random(3);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<std::uint32_t> sizes(1 + random() % 200);
    for (std::uint32_t& size : sizes) {
      size = static_cast<std::uint32_t>(1 + random() % (trial % 2 == 0 ? 10 : 400));
    }
    std::sort(sizes.begin(), sizes.end());
    std::vector<std::uint64_t> cost(sizes.size());
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      cost[i] = 10 + sizes[i];
    }
    const std::uint64_t budget = random() % 3000;
    const double threshold = 0.3 + 0.7 * static_cast<double>(random() % 100) / 100;
    const SizeParts plan = plan_size_parts(sizes, cost, budget, threshold);
    std::vector<std::size_t> chunk_of(sizes.size());
    for (std::size_t chunk = 0; chunk < plan.chunks.size(); ++chunk) {
      std::uint64_t held = 0;
      for (std::size_t i = plan.chunks[chunk].begin; i < plan.chunks[chunk].end; ++i) {
        chunk_of[i] = chunk;
        held += cost[i];
      }
      EXPECT_TRUE(held <= budget / 2 || plan.chunks[chunk].end - plan.chunks[chunk].begin == 1);
    }
    std::map<std::pair<std::size_t, std::size_t>, int> covered;  // chunk pairs
    for (const SizePart& part : plan.parts) {
      for (std::size_t chunk = part.kept_begin; chunk < part.kept_end; ++chunk) {
        ++covered[{part.probes, chunk}];
      }
    }
    for (std::size_t a = 0; a < sizes.size(); ++a) {
      for (std::size_t b = a; b < sizes.size(); ++b) {
        const bool reach = static_cast<double>(sizes[a]) >= threshold * sizes[b];
        const auto found = covered.find({chunk_of[a], chunk_of[b]});
        if (reach) {
          ASSERT_NE(found, covered.end()) << "rows " << a << " and " << b;
          EXPECT_EQ(found->second, 1);
        }
      }
    }
  }
}

TEST(OfferRuns, MergesRunsInOrder) {
  std::mt19937_64 random(4);
  for (const std::size_t buffer : {1U, 7U, 300U, 1000U, 100000U}) {
    OfferRuns runs(buffer);
    // A fan-in of a buffer's worth of reads, kLeastReadOffers a run.
    EXPECT_EQ(runs.fan_in(), buffer < 2 * OfferRuns::kLeastReadOffers
                                 ? (buffer < OfferRuns::kLeastReadOffers ? 0U : 2U)
                                 : buffer / OfferRuns::kLeastReadOffers);
    std::vector<SpilledOffer> added;
    std::size_t most_runs = 0;
    for (int i = 0; i < 3000; ++i) {
      added.push_back(SpilledOffer{static_cast<std::uint32_t>(random() % 500),
                                   static_cast<std::uint32_t>(i), 0.5});
      runs.add(added.back());
      if (i % 100 == 99) {
        runs.compact({});  // as between parts
        most_runs = std::max(most_runs, runs.run_count());
      }
    }
    if (runs.fan_in() != 0) {
      // Merged by levels, each of fewer than fan_in runs, and the buffer's:
      // 3000 offers make 10 runs of 300, which stay at most 4 (a binary
      // count), where unmerged they would grow to 10.
      EXPECT_LE(most_runs, 2 * runs.fan_in() + 1) << "buffer " << buffer;
    }
    std::vector<SpilledOffer> read;
    runs.read([&](const SpilledOffer& offer) { read.push_back(offer); });
    std::sort(added.begin(), added.end(), [](const SpilledOffer& a, const SpilledOffer& b) {
      return a.from != b.from ? a.from < b.from : a.to < b.to;
    });
    EXPECT_EQ(read, added) << "buffer " << buffer;
    EXPECT_THROW(runs.add(added.front()), std::logic_error);
  }
}

// Offers that never filled the buffer are sorted in memory in pieces, a
// check between them, and read in order.
TEST(OfferRuns, ABufferSortedInMemoryChecksBetweenPieces) {
  std::mt19937_64 random(5);
  constexpr std::uint32_t kOffers = 100000;
  OfferRuns runs(2 * kOffers);
  std::vector<SpilledOffer> added;
  for (std::uint32_t i = 0; i < kOffers; ++i) {
    added.push_back(SpilledOffer{static_cast<std::uint32_t>(random() % 5000), i, 0.5});
    runs.add(added.back());
  }
  EXPECT_EQ(runs.run_count(), 1U) << "none written";
  std::vector<SpilledOffer> read;
  int checks = 0;
  runs.read([&](const SpilledOffer& offer) { read.push_back(offer); }, [&] { ++checks; });
  std::sort(added.begin(), added.end(), [](const SpilledOffer& a, const SpilledOffer& b) {
    return a.from != b.from ? a.from < b.from : a.to < b.to;
  });
  EXPECT_EQ(read, added);
  // A check after each piece sorted, and after each piece merged.
  EXPECT_GE(checks, static_cast<int>(2 * (kOffers / kCheckedSortRun)));
}

}  // namespace
}  // namespace simhash
