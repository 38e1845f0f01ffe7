// SPDX-License-Identifier: MIT
// The progress hook of the dedup and the verified pairs (util/progress.h):
// the phases come in their order, each phase's count only grows and ends at
// its total, and a hook changes nothing that is found. One thread only
// (the i686 qemu stage runs this program, and its threads hang).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "batch/pair_finder.h"
#include "batch/similar_pairs.h"
#include "batch/verified_dedup.h"
#include "random_feature_rows.h"
#include "util/progress.h"

namespace simhash {
namespace {

using testing::edited_binary_rows;
using testing::random_rows;
using testing::Row;

struct Heard {
  std::string phase;
  std::uint64_t done;
  std::uint64_t total;
  std::string unit;
};

ProgressHook recorder(std::vector<Heard>& heard) {
  return [&heard](const ProgressStep& step) {
    heard.push_back(Heard{std::string(step.phase), step.done, step.total, std::string(step.unit)});
  };
}

// The phases in the order first heard, each once.
std::vector<std::string> phases_of(const std::vector<Heard>& heard) {
  std::vector<std::string> phases;
  for (const Heard& step : heard) {
    if (phases.empty() || phases.back() != step.phase) {
      phases.push_back(step.phase);
    }
  }
  return phases;
}

// Within each phase, done never goes back and never passes a known total.
void expect_counts_grow(const std::vector<Heard>& heard) {
  for (std::size_t i = 1; i < heard.size(); ++i) {
    if (heard[i].phase == heard[i - 1].phase) {
      EXPECT_GE(heard[i].done, heard[i - 1].done) << heard[i].phase << " at step " << i;
      EXPECT_EQ(heard[i].total, heard[i - 1].total) << heard[i].phase;
    }
    if (heard[i].total > 0) {
      EXPECT_LE(heard[i].done, heard[i].total) << heard[i].phase;
    }
  }
}

VerifiedDedup dedup_of(const std::vector<Row>& rows) {
  VerifiedDedup dedup;
  for (const Row& row : rows) {
    dedup.add(row.id, row.fp, row.features);
  }
  return dedup;
}

TEST(ProgressHook, ThresholdJoinReportsRankingJoiningGrouping) {
  for (const std::uint64_t seed : {3U, 4U}) {
    const std::vector<Row> rows = edited_binary_rows(1500, seed);
    const VerifiedDedup quiet = dedup_of(rows);
    VerifiedDedup heard_dedup = dedup_of(rows);
    std::vector<Heard> heard;
    heard_dedup.set_progress(recorder(heard));
    for (const std::optional<int> radius : {std::optional<int>(), std::optional<int>(20)}) {
      heard.clear();
      EXPECT_EQ(heard_dedup.groups_by_threshold_join(0.6, {}, nullptr, radius),
                quiet.groups_by_threshold_join(0.6, {}, nullptr, radius));
      EXPECT_EQ(phases_of(heard), (std::vector<std::string>{"ranking features", "indexing prefixes",
                                                            "joining", "grouping"}));
      expect_counts_grow(heard);
      // Joining counts rows in blocks: several steps, the last at every row.
      std::size_t joining = 0;
      for (const Heard& step : heard) {
        if (step.phase == "joining") {
          ++joining;
          EXPECT_EQ(step.total, rows.size());
          EXPECT_EQ(step.unit, "rows");
        }
      }
      EXPECT_GT(joining, 10U);
      EXPECT_EQ(heard[heard.size() - 2].done, rows.size());
    }
  }
}

TEST(ProgressHook, WithinRadiusReportsCandidatesAsPairs) {
  const std::vector<Row> rows = random_rows(3000, 7, true);
  const VerifiedDedup quiet = dedup_of(rows);
  VerifiedDedup heard_dedup = dedup_of(rows);
  std::vector<Heard> heard;
  heard_dedup.set_progress(recorder(heard));
  DedupCounts counts;
  EXPECT_EQ(heard_dedup.groups_within_radius(0.5, 6, {}, &counts),
            quiet.groups_within_radius(0.5, 6));
  EXPECT_EQ(phases_of(heard), (std::vector<std::string>{"finding candidates within the radius",
                                                        "verifying candidates", "grouping"}));
  expect_counts_grow(heard);
  std::size_t verifying = 0;
  for (const Heard& step : heard) {
    if (step.phase == "verifying candidates") {
      ++verifying;
      EXPECT_EQ(step.unit, "pairs");
      EXPECT_EQ(step.total, 0U) << "the pairs are found as they come";
      EXPECT_LT(step.done, counts.candidates);
    }
  }
  // One step per batch of candidates.
  EXPECT_GE(verifying, counts.candidates / PairFinder::kBatchSize);
}

TEST(ProgressHook, VerifiedPairsReportRankingFirst) {
  const std::vector<Row> rows = edited_binary_rows(800, 5);
  SimilarPairs quiet;
  SimilarPairs heard_pairs;
  for (const Row& row : rows) {
    quiet.add(row.id, row.fp, row.features);
    heard_pairs.add(row.id, row.fp, row.features);
  }
  std::vector<Heard> heard;
  heard_pairs.set_progress(recorder(heard));
  EXPECT_EQ(heard_pairs.pairs(0.6), quiet.pairs(0.6));
  ASSERT_FALSE(heard.empty());
  EXPECT_EQ(heard.front().phase, "ranking features");
  for (const Heard& step : heard) {
    EXPECT_TRUE(step.phase == "ranking features" || step.phase == "indexing prefixes" ||
                step.phase == "joining")
        << step.phase;
  }
  expect_counts_grow(heard);
}

}  // namespace
}  // namespace simhash
