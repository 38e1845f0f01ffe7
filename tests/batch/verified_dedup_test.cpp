// VerifiedDedup against a brute-force model: every pair of rows compared
// (Hamming distance and weighted Jaccard), then the leader rule in visit
// order, row by row (no nodes). Random rows drawn from few fingerprints and
// few features, so exact duplicates, shared fingerprints with different
// features, and ties in similarity are common.
#include "batch/verified_dedup.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

#include "fingerprint/feature_similarity.h"
#include "leader_rule_model.h"
#include "random_feature_rows.h"

namespace simhash {
namespace {

using testing::edited_binary_rows;
using testing::random_rows;
using testing::Row;
using testing::vector_of;

std::vector<DedupRow> brute_force(const std::vector<Row>& rows, double threshold, int radius) {
  const std::vector<testing::ModelLeader> leaders =
      testing::leader_rule_model(rows.size(), [&](std::size_t row, std::size_t leader) {
        const double similarity = weighted_jaccard(rows[row].features, rows[leader].features);
        const bool linked =
            std::popcount(rows[row].fp ^ rows[leader].fp) <= radius && similarity >= threshold;
        return linked ? std::optional<double>(similarity) : std::nullopt;
      });
  std::vector<std::size_t> size(rows.size(), 0);
  for (const testing::ModelLeader& assigned : leaders) {
    ++size[assigned.leader];
  }
  std::vector<DedupRow> result;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& leader = rows[leaders[i].leader];
    if (size[leaders[i].leader] >= 2) {
      result.push_back(DedupRow{rows[i].id, leader.id, std::popcount(rows[i].fp ^ leader.fp),
                                leaders[i].similarity});
    }
  }
  return result;
}

TEST(VerifiedDedup, EqualsBruteForceOverRandomRows) {
  for (const bool weighted : {false, true}) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      const std::vector<Row> rows = random_rows(300, seed, weighted);
      VerifiedDedup dedup;
      for (const Row& row : rows) {
        dedup.add(row.id, row.fp, row.features);
      }
      EXPECT_FALSE(dedup.repeated_id());
      EXPECT_LT(dedup.distinct_count(), dedup.row_count()) << "the rows have exact duplicates";
      for (const double threshold : {0.3, 0.5, 0.8, 1.0}) {
        for (const int radius : {0, 2, 4, 64}) {
          const std::vector<DedupRow> expected = brute_force(rows, threshold, radius);
          EXPECT_EQ(dedup.groups_within_radius(threshold, radius), expected)
              << "seed " << seed << " weighted " << weighted << " threshold " << threshold
              << " radius " << radius;
          if (threshold == 0.5 && radius == 4) {
            EXPECT_FALSE(expected.empty()) << "the data makes groups";
          }
        }
      }
    }
  }
}

TEST(VerifiedDedup, ThresholdJoinEqualsBruteForceOverEveryPair) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    for (const bool edited : {false, true}) {
      const std::vector<Row> rows =
          edited ? edited_binary_rows(400, seed) : random_rows(300, seed, false);
      VerifiedDedup dedup;
      for (const Row& row : rows) {
        dedup.add(row.id, row.fp, row.features);
      }
      for (const double threshold : {0.3, 0.5, 0.6, 0.75, 0.8, 0.9, 0.95, 1.0}) {
        // Fingerprints are 64 bits: no pair is more than 64 apart.
        const std::vector<DedupRow> expected = brute_force(rows, threshold, 64);
        DedupCounts joined;
        EXPECT_EQ(dedup.groups_by_threshold_join(threshold, {}, &joined), expected)
            << "seed " << seed << " edited " << edited << " threshold " << threshold;
        // The join's filters consider fewer than every pair of distinct
        // rows, and check fewer still.
        const std::uint64_t distinct = dedup.distinct_count();
        EXPECT_LE(joined.verified, joined.checked);
        EXPECT_LE(joined.checked, joined.candidates);
        EXPECT_LT(joined.checked, distinct * (distinct - 1) / 2) << "threshold " << threshold;
        // With a radius the join drops the links farther apart (binary
        // weights take that path): the radius mode's groups.
        for (const int radius : {3, 10, 20, 64}) {
          EXPECT_EQ(dedup.groups_within_radius(threshold, radius),
                    brute_force(rows, threshold, radius))
              << "seed " << seed << " edited " << edited << " threshold " << threshold << " radius "
              << radius;
        }
        if (threshold == 0.8) {
          EXPECT_GT(expected.size(), 40U) << "the data makes groups";
        }
      }
    }
  }
}

TEST(VerifiedDedup, ThresholdJoinRefusesWeights) {
  VerifiedDedup dedup;
  dedup.add(1, 0, vector_of({{1, 1}, {2, 2}}));
  EXPECT_THROW(dedup.groups_by_threshold_join(0.8), std::invalid_argument);
}

// An exact duplicate joins the best representative at its own visit, which
// need not be the one its earlier twin joined: a representative visited
// between them may be nearer. (The recipe, row by row, does the same.)
TEST(VerifiedDedup, ExactDuplicatesTakeTheBestOfferAtTheirOwnVisit) {
  const FeatureVector twin = vector_of({{1, 1}, {2, 1}, {3, 1}, {4, 1}, {5, 1}});
  const FeatureVector far = vector_of({{1, 1}, {2, 1}, {3, 1}, {4, 1}, {6, 1}, {7, 1}});
  const FeatureVector near = vector_of({{1, 1}, {2, 1}, {3, 1}, {4, 1}, {5, 1}, {8, 1}});
  VerifiedDedup dedup;
  dedup.add(10, 0, far);   // a representative
  dedup.add(11, 0, twin);  // joins 10 (4/7)
  dedup.add(12, 1, near);  // 1 bit from 10 and 11; 4/8 with 10 is below 0.55: a representative
  dedup.add(13, 0, twin);  // offers: 10 at 4/7, 12 at 5/6: joins 12
  EXPECT_EQ(dedup.distinct_count(), 3U);
  const std::vector<DedupRow> expected{{10, 10, 0, 1.0},
                                       {11, 10, 0, weighted_jaccard(twin, far)},
                                       {12, 12, 0, 1.0},
                                       {13, 12, 1, weighted_jaccard(twin, near)}};
  EXPECT_EQ(dedup.groups_within_radius(0.55, 3), expected);
}

TEST(VerifiedDedup, ReportsARepeatedIdAndRefusesEmptyFeatures) {
  VerifiedDedup dedup;
  const FeatureVector features = vector_of({{1, 1}});
  dedup.add(5, 1, features);
  dedup.add(7, 1, features);
  EXPECT_FALSE(dedup.repeated_id());
  dedup.add(5, 2, features);
  EXPECT_EQ(dedup.repeated_id(), 5);
  EXPECT_THROW(dedup.add(8, 1, FeatureVector{}), std::invalid_argument);
  EXPECT_THROW(dedup.groups_within_radius(0.8, -1), std::invalid_argument);
  EXPECT_THROW(dedup.groups_by_threshold_join(0.8, {}, nullptr, -1), std::invalid_argument);
}

TEST(VerifiedDedup, StopsAtTheCheckPoint) {
  // 2,000 rows of about 1,000 features, all pairs above the threshold: the
  // verification alone takes far more than three checks' worth of work.
  VerifiedDedup dedup;
  std::mt19937_64 random(3);
  for (int row = 0; row < 2000; ++row) {
    std::map<std::uint64_t, double> weights;
    for (std::uint64_t hash = 0; hash < 1000; ++hash) {
      weights[hash] = 1;
    }
    for (int removed = 0; removed < 5; ++removed) {
      weights.erase(random() % 1000);
    }
    dedup.add(row, random(), vector_of(weights));
  }
  int checks = 0;
  EXPECT_THROW(dedup.groups_within_radius(0.9, 64,
                                          [&] {
                                            if (++checks == 3) {
                                              throw std::runtime_error("stop");
                                            }
                                          }),
               std::runtime_error);
  EXPECT_EQ(checks, 3);
}

}  // namespace
}  // namespace simhash
