// SPDX-License-Identifier: MIT
// PartitionedPairs against the join in memory (SimilarPairs): the same
// pairs, distances and similarities in the same order for every budget,
// from parts of one row to one part for everything, of one set and of new
// rows against kept ones, on random rows with fixed seeds and on
// adversarial ones (every row identical; sizes far apart), on threads.
// Also the runs of sorted_runs.h (merged in order, at most a fan-in read
// at once) and SimilarPairs::for_each_pair's batches.
#include "batch/partitioned_pairs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "batch/similar_pairs.h"
#include "batch/size_parts.h"
#include "batch/sorted_runs.h"
#include "random_feature_rows.h"
#include "sanitized_build.h"

namespace simhash {
namespace {

using testing::edited_binary_rows;
using testing::random_rows;
using testing::Row;

// What a part may hold for parts of one row each, and for a few rows each.
constexpr std::uint64_t kOneRowParts = 1;
constexpr std::uint64_t kFewRowParts = std::uint64_t{1} << 14;

std::vector<SimilarPair> in_memory(const std::vector<Row>& kept, const std::vector<Row>& fresh,
                                   double threshold) {
  SimilarPairs pairs;
  for (const Row& row : kept) {
    pairs.add(row.id, row.fp, row.features);
  }
  for (const Row& row : fresh) {
    pairs.add_new(row.id, row.fp, row.features);
  }
  return fresh.empty() ? pairs.pairs(threshold) : pairs.pairs_between(threshold);
}

// The pairs of a partitioned run, read to the end. A budget of 0 is below
// the least: the pairs' buffer is as small as it gets, so they go to disk
// in many runs, merged by the fan-in.
std::vector<SimilarPair> partitioned(const std::vector<Row>& kept, const std::vector<Row>& fresh,
                                     double threshold, std::uint64_t budget,
                                     std::optional<std::uint64_t> part,
                                     PairPartitionCounts* counts = nullptr, unsigned threads = 1) {
  PartitionedPairs pairs;
  // New and kept rows interleaved: the order they come in is not the
  // pairs' order.
  for (std::size_t i = 0; i < std::max(kept.size(), fresh.size()); ++i) {
    if (i < kept.size()) {
      pairs.add(kept[i].id, kept[i].fp, FeatureView(kept[i].features));
    }
    if (i < fresh.size()) {
      pairs.add_new(fresh[i].id, fresh[i].fp, FeatureView(fresh[i].features));
    }
  }
  const std::uint64_t found =
      pairs.run(!fresh.empty(), threshold, budget, {}, threads, counts, part);
  std::vector<SimilarPair> read;
  while (const SimilarPair* pair = pairs.next()) {
    read.push_back(*pair);
  }
  EXPECT_EQ(read.size(), found);
  return read;
}

// Rows of sizes far apart (1, 2, 4, ... 256 features, several of each), so
// that most windows are empty.
std::vector<Row> spread_rows(std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<Row> rows;
  for (std::size_t size = 1; size <= 256; size *= 2) {
    for (int copy = 0; copy < 6; ++copy) {
      std::map<std::uint64_t, double> features;
      while (features.size() < size) {
        features[random() % (size * 3)] = 1;
      }
      rows.push_back(Row{0, random(), testing::vector_of(features)});
    }
  }
  // Distinct ids, as the glue checks.
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].id = static_cast<std::int64_t>(i * 7919 % 1000) - 300;
  }
  return rows;
}

TEST(PartitionedPairs, EqualsTheInMemoryJoinOverRandomRows) {
  const std::uint64_t seeds = testing::kSanitizedBuild ? 1 : 3;
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    for (int kind = 0; kind < 3; ++kind) {
      const std::vector<Row> rows = kind == 0   ? random_rows(300, seed, false)
                                    : kind == 1 ? edited_binary_rows(400, seed)
                                                : spread_rows(seed);
      const std::vector<Row> few(rows.begin(), rows.begin() + 50);
      for (const double threshold : {0.3, 0.5, 0.8, 0.95, 1.0}) {
        const std::vector<SimilarPair> expected = in_memory(rows, {}, threshold);
        // The least budget, parts of a few rows, one part for all.
        EXPECT_EQ(partitioned(rows, {}, threshold, 0, std::nullopt), expected)
            << "seed " << seed << " kind " << kind << " threshold " << threshold;
        PairPartitionCounts counts;
        EXPECT_EQ(partitioned(rows, {}, threshold, 0, kFewRowParts, &counts), expected)
            << "seed " << seed << " kind " << kind << " threshold " << threshold << " few rows";
        EXPECT_GT(counts.chunks, 3U);
        EXPECT_GT(counts.joins, counts.chunks) << "chunks joined with windows";
        EXPECT_EQ(partitioned(rows, {}, threshold, std::uint64_t{1} << 30, std::nullopt, &counts),
                  expected)
            << "seed " << seed << " kind " << kind << " threshold " << threshold << " one part";
        EXPECT_EQ(counts.parts, 1U);
        EXPECT_EQ(counts.runs, 0U) << "the pairs stay in memory";
        if (threshold == 0.5 && seed == 1) {
          EXPECT_EQ(partitioned(few, {}, threshold, 0, kOneRowParts, &counts),
                    in_memory(few, {}, threshold))
              << "kind " << kind << " parts of one row";
          EXPECT_EQ(counts.chunks, few.size()) << "every chunk is one row";
        }
        if (threshold == 0.8 && kind == 1) {
          EXPECT_GT(expected.size(), 100U) << "the data makes pairs";
        }
      }
    }
  }
}

TEST(PartitionedPairs, NewRowsAgainstKeptOnesEqualTheInMemoryJoin) {
  const std::uint64_t seeds = testing::kSanitizedBuild ? 1 : 3;
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    for (int kind = 0; kind < 2; ++kind) {
      const std::vector<Row> rows =
          kind == 0 ? random_rows(400, seed, false) : edited_binary_rows(500, seed);
      // A third new, the rest kept; some new ids equal kept ones (two
      // different rows).
      std::vector<Row> kept;
      std::vector<Row> fresh;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        (i % 3 == 0 ? fresh : kept).push_back(rows[i]);
      }
      for (std::size_t i = 0; i < fresh.size(); i += 5) {
        fresh[i].id = kept[i % kept.size()].id;
      }
      for (const double threshold : {0.4, 0.8, 1.0}) {
        const std::vector<SimilarPair> expected = in_memory(kept, fresh, threshold);
        for (const std::optional<std::uint64_t> part :
             {std::optional<std::uint64_t>(kFewRowParts), std::optional<std::uint64_t>()}) {
          EXPECT_EQ(partitioned(kept, fresh, threshold, 0, part), expected)
              << "seed " << seed << " kind " << kind << " threshold " << threshold << " part "
              << part.value_or(0);
        }
        if (threshold == 0.8 && kind == 1) {
          EXPECT_GT(expected.size(), 30U) << "the data makes pairs";
        }
      }
      const std::vector<Row> few_kept(kept.begin(), kept.begin() + 40);
      const std::vector<Row> few_fresh(fresh.begin(), fresh.begin() + 20);
      EXPECT_EQ(partitioned(few_kept, few_fresh, 0.5, 0, kOneRowParts),
                in_memory(few_kept, few_fresh, 0.5))
          << "seed " << seed << " kind " << kind << " parts of one row";
    }
  }
}

TEST(PartitionedPairs, EveryRowIdentical) {
  std::vector<Row> rows = random_rows(1, 5, false);
  for (std::int64_t id = 1; id < 120; ++id) {
    rows.push_back(Row{id * 11, rows[0].fp, rows[0].features});
  }
  const std::vector<SimilarPair> expected = in_memory(rows, {}, 0.9);
  ASSERT_EQ(expected.size(), rows.size() * (rows.size() - 1) / 2);
  PairPartitionCounts counts;
  EXPECT_EQ(partitioned(rows, {}, 0.9, 0, kOneRowParts, &counts), expected);
  EXPECT_EQ(counts.chunks, rows.size());
  // The least buffer holds 4,096 pairs: many runs, merged to the fan-in.
  EXPECT_GT(counts.runs, 1U);
  EXPECT_LE(counts.runs, 16U);
  EXPECT_EQ(partitioned(rows, {}, 0.9, 0, kFewRowParts), expected);
  EXPECT_EQ(partitioned(rows, {}, 0.9, 0, std::nullopt), expected);
}

TEST(PartitionedPairs, EqualsTheInMemoryJoinOnThreads) {
  const std::vector<Row> rows = edited_binary_rows(1500, 9);
  std::vector<Row> kept;
  std::vector<Row> fresh;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    (i % 4 == 0 ? fresh : kept).push_back(rows[i]);
  }
  for (const unsigned threads : {2U, 4U}) {
    EXPECT_EQ(partitioned(rows, {}, 0.6, 0, kFewRowParts * 4, nullptr, threads),
              in_memory(rows, {}, 0.6))
        << threads;
    EXPECT_EQ(partitioned(kept, fresh, 0.6, 0, kFewRowParts * 4, nullptr, threads),
              in_memory(kept, fresh, 0.6))
        << threads;
  }
}

TEST(PartitionedPairs, NoRowsNoPairs) {
  EXPECT_TRUE(partitioned({}, {}, 0.8, 0, std::nullopt).empty());
  const std::vector<Row> rows = random_rows(20, 3, false);
  // Between with no new rows, and with no kept rows.
  PartitionedPairs only_kept;
  for (const Row& row : rows) {
    only_kept.add(row.id, row.fp, FeatureView(row.features));
  }
  EXPECT_EQ(only_kept.run(true, 0.5, 0), 0U);
  EXPECT_EQ(only_kept.next(), nullptr);
  PartitionedPairs only_new;
  for (const Row& row : rows) {
    only_new.add_new(row.id, row.fp, FeatureView(row.features));
  }
  EXPECT_EQ(only_new.run(true, 0.5, 0), 0U);
  EXPECT_EQ(only_new.next(), nullptr);
}

TEST(PartitionedPairs, RefusesMisuse) {
  const std::vector<Row> rows = random_rows(10, 4, false);
  const std::vector<Row> weighted = random_rows(10, 4, true);
  PartitionedPairs pairs;
  EXPECT_THROW(pairs.add(1, 0, FeatureView(FeatureVector{})), std::invalid_argument);
  bool refused_weights = false;
  for (const Row& row : weighted) {
    try {
      pairs.add(row.id, row.fp, FeatureView(row.features));
    } catch (const std::invalid_argument&) {
      refused_weights = true;
    }
  }
  EXPECT_TRUE(refused_weights);
  pairs.run(false, 0.8, 0);
  EXPECT_THROW(pairs.add(rows[0].id, rows[0].fp, FeatureView(rows[0].features)), std::logic_error);
  EXPECT_THROW(pairs.run(false, 0.8, 0), std::logic_error);
}

// A check that throws on its n-th call stops the run there.
TEST(PartitionedPairs, StopsAtACheck) {
  const std::vector<Row> rows = edited_binary_rows(80, 2);
  int calls = 0;
  {
    PartitionedPairs pairs;
    for (const Row& row : rows) {
      pairs.add(row.id, row.fp, FeatureView(row.features));
    }
    pairs.run(
        false, 0.5, 0, [&] { ++calls; }, 1, nullptr, kOneRowParts);
  }
  ASSERT_GT(calls, 80) << "parts of one row: a check between parts at least";
  for (const int stop : {1, calls / 2, calls}) {
    PartitionedPairs pairs;
    for (const Row& row : rows) {
      pairs.add(row.id, row.fp, FeatureView(row.features));
    }
    int seen = 0;
    EXPECT_THROW(pairs.run(
                     false, 0.5, 0,
                     [&] {
                       if (++seen == stop) {
                         throw std::runtime_error("stop");
                       }
                     },
                     1, nullptr, kOneRowParts),
                 std::runtime_error)
        << stop;
  }
}

// The plan listed a chunk at a time is plan_size_parts' plan.
TEST(SizeParts, AChunkAtATimeIsThePlan) {
  std::mt19937_64 random(12);
  std::vector<std::uint32_t> sizes(3000);
  for (std::uint32_t& size : sizes) {
    size = 1 + static_cast<std::uint32_t>(random() % 300);
  }
  std::sort(sizes.begin(), sizes.end());
  std::vector<std::uint64_t> costs(sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    costs[i] = 100 + std::uint64_t{sizes[i]} * 24;
  }
  for (const std::uint64_t budget :
       {std::uint64_t{1}, std::uint64_t{1} << 16, std::uint64_t{1} << 20, std::uint64_t{1} << 30}) {
    for (const double threshold : {0.3, 0.8, 1.0}) {
      const SizeParts whole = plan_size_parts(sizes, costs, budget, threshold);
      const SizeChunks chunks = plan_size_chunks(sizes, costs, budget);
      EXPECT_EQ(chunks.chunks.size(), whole.chunks.size());
      std::vector<SizePart> listed;
      for (std::size_t chunk = 0; chunk < chunks.chunks.size(); ++chunk) {
        EXPECT_EQ(chunks.chunks[chunk].begin, whole.chunks[chunk].begin);
        EXPECT_EQ(chunks.chunks[chunk].end, whole.chunks[chunk].end);
        const std::vector<SizePart> parts =
            size_parts_of_chunk(sizes, chunks, chunk, budget, threshold);
        listed.insert(listed.end(), parts.begin(), parts.end());
      }
      EXPECT_EQ(listed, whole.parts) << "budget " << budget << " threshold " << threshold;
    }
  }
}

struct Record {
  std::uint32_t key;
  std::uint32_t index;

  bool operator==(const Record&) const = default;
  bool operator<(const Record& other) const {
    return std::tie(key, index) < std::tie(other.key, other.index);
  }
};
struct ByKey {
  bool operator()(const Record& a, const Record& b) const { return a.key < b.key; }
};

TEST(SortedRuns, MergesInOrderWithinTheFanIn) {
  std::mt19937_64 random(6);
  for (const std::size_t buffer : {1U, 7U, 300U, 100000U}) {
    for (const std::size_t fan_in : {0U, 2U, 3U, 16U}) {
      SortedRuns<Record, ByKey> runs(buffer, fan_in, "a test's spill file");
      std::vector<Record> added;
      for (std::uint32_t i = 0; i < 5000; ++i) {
        added.push_back(Record{static_cast<std::uint32_t>(random() % 100000), i});
        runs.add(added.back());
        if (i % 500 == 499) {
          runs.compact({});
          if (fan_in != 0) {
            EXPECT_LE(runs.run_count(), fan_in * 8) << "levels of fewer than the fan-in";
          }
        }
      }
      EXPECT_EQ(runs.count(), added.size());
      runs.start_reading({});
      if (fan_in != 0) {
        EXPECT_LE(runs.read_run_count(), fan_in) << buffer;
      }
      std::vector<Record> read;
      while (const Record* record = runs.next()) {
        read.push_back(*record);
      }
      std::stable_sort(added.begin(), added.end(), ByKey());
      std::sort(read.begin(), read.end());  // equal keys come in any order
      std::sort(added.begin(), added.end());
      EXPECT_EQ(read, added) << "buffer " << buffer << " fan-in " << fan_in;
    }
  }
}

TEST(SimilarPairs, BatchesOfPairsAreThePairs) {
  const std::vector<Row> rows = edited_binary_rows(400, 8);
  SimilarPairs finder;
  for (const Row& row : rows) {
    finder.add(row.id, row.fp, row.features);
  }
  const std::vector<SimilarPair> expected = finder.pairs(0.5);
  ASSERT_GT(expected.size(), 200U);
  for (const std::size_t batch : {1U, 10U, 1000000U}) {
    for (const unsigned threads : {1U, 3U}) {
      std::vector<SimilarPair> found;
      std::size_t largest = 0;
      finder.for_each_pair(
          false, 0.5, batch,
          [&](std::vector<SimilarPair>& pairs, MemoryCharge&) {
            largest = std::max(largest, pairs.size());
            found.insert(found.end(), pairs.begin(), pairs.end());
          },
          {}, nullptr, threads);
      EXPECT_LE(largest, batch);
      std::sort(found.begin(), found.end(), [](const SimilarPair& x, const SimilarPair& y) {
        return std::tie(x.a, x.b) < std::tie(y.a, y.b);
      });
      EXPECT_EQ(found, expected) << "batch " << batch << " threads " << threads;
    }
  }
}

}  // namespace
}  // namespace simhash
