// SPDX-License-Identifier: MIT
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
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "batch/pair_verifier.h"
#include "batch/prefix_filter.h"
#include "batch/row_features.h"
#include "fingerprint/feature_similarity.h"
#include "fingerprint/simhash_options.h"
#include "leader_rule_model.h"
#include "random_feature_rows.h"
#include "sanitized_build.h"

namespace simhash {
namespace {

using testing::edited_binary_rows;
using testing::kSanitizedBuild;
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
  // Two seeds under the sanitizers, six in the Release and clang++ builds.
  const std::uint64_t seeds = kSanitizedBuild ? 2 : 6;
  for (const bool weighted : {false, true}) {
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
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
  // Three seeds under the sanitizers (this test was 42 s of the ASan+UBSan
  // stage): each is an exact comparison with brute force; the Release and
  // clang++ builds try all eight.
  const std::uint64_t seeds = kSanitizedBuild ? 3 : 8;
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
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

// Texts like a catalogue's descriptions: sentences of words drawn from a
// skewed vocabulary (common words shared widely, as in real text), and word
// edits, truncations and exact copies of earlier texts, some far back and
// some just before, so that groups span the join's blocks. Features are
// word 3-shingles, binary, as simhash_dedup builds them.
std::vector<testing::Row> real_like_rows(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  const auto word = [&random] {
    const std::uint64_t rank = random() % 40 < 30 ? random() % 60 : random() % 5000;
    return "w" + std::to_string(rank);
  };
  std::vector<std::vector<std::string>> texts;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t kind = random() % 10;
    if (i == 0 || kind < 5) {
      texts.emplace_back(4 + random() % 40);
      for (std::string& each : texts.back()) {
        each = word();
      }
      continue;
    }
    const std::size_t from = kind < 8 ? i - 1 - random() % std::min<std::size_t>(i, 8)
                                      : random() % i;  // recent or anywhere
    std::vector<std::string> text = texts[from];
    if (kind != 9) {
      for (std::uint64_t edits = random() % 4; edits > 0; --edits) {
        text[random() % text.size()] = word();
      }
      if (random() % 4 == 0 && text.size() > 6) {
        text.pop_back();
      }
    }
    texts.push_back(std::move(text));
  }
  std::vector<std::string> bodies;
  for (const std::vector<std::string>& text : texts) {
    std::string body;
    for (const std::string& each : text) {
      body += each + ' ';
    }
    bodies.push_back(std::move(body));
  }
  SimhashOptions verification;
  verification.weight = WeightScheme::binary;
  RowFeatureBuilder builder(SimhashOptions{}, verification, 1);
  const std::vector<std::string_view> views(bodies.begin(), bodies.end());
  std::vector<RowFeatures> built;
  builder.build(views, built);
  std::vector<testing::Row> rows;
  for (std::size_t i = 0; i < built.size(); ++i) {
    if (built[i].fingerprint) {
      rows.push_back(testing::Row{static_cast<std::int64_t>(count - i), *built[i].fingerprint,
                                  built[i].features});
    }
  }
  return rows;
}

// The join on threads: the same rows (clusters, distances, similarities)
// and the same counts as on one, which is brute force's answer, on random,
// edited and text-like rows, with and without a radius; enough rows for
// many blocks, several of which the threads share.
TEST(VerifiedDedup, ThresholdJoinOnThreadsEqualsOneThreadAndBruteForce) {
  // One seed under the sanitizers, two in the Release and clang++ builds.
  const std::uint64_t seeds = kSanitizedBuild ? 1 : 2;
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    for (const int kind : {0, 1, 2}) {
      const std::vector<Row> rows = kind == 0   ? random_rows(700, seed, false)
                                    : kind == 1 ? edited_binary_rows(900, seed)
                                                : real_like_rows(1200, seed);
      VerifiedDedup dedup;
      for (const Row& row : rows) {
        dedup.add(row.id, row.fp, row.features);
      }
      dedup.finish_adding();  // as simhash_dedup does
      for (const double threshold : {0.5, 0.8}) {
        for (const std::optional<int> radius : {std::optional<int>(), std::optional<int>(10)}) {
          const std::vector<DedupRow> expected = brute_force(rows, threshold, radius.value_or(64));
          DedupCounts one_counts;
          const std::vector<DedupRow> one =
              dedup.groups_by_threshold_join(threshold, {}, &one_counts, radius, 1);
          const std::string where =
              "seed " + std::to_string(seed) + " kind " + std::to_string(kind) + " threshold " +
              std::to_string(threshold) + " radius " + std::to_string(radius.value_or(-1));
          EXPECT_EQ(one, expected) << where;
          if (threshold == 0.8 && !radius) {
            EXPECT_GT(expected.size(), rows.size() / 10) << "the data makes groups; " << where;
          }
          for (const unsigned threads : {2U, 3U, 8U}) {
            DedupCounts counts;
            EXPECT_EQ(dedup.groups_by_threshold_join(threshold, {}, &counts, radius, threads), one)
                << where << " threads " << threads;
            EXPECT_EQ(counts, one_counts) << where << " threads " << threads;
          }
        }
      }
    }
  }
}

// Runs `search` over 3,000 text-like rows with a check that throws at its
// `stop_at`-th call: the search ends with the exception, every thread
// joined (no crash, no hang), and only the caller's thread was asked.
void expect_stopped_by_callers_check(
    int stop_at, const std::function<void(const VerifiedDedup&, const CheckPoint&)>& search) {
  const std::vector<Row> rows = real_like_rows(3000, 7);
  VerifiedDedup dedup;
  for (const Row& row : rows) {
    dedup.add(row.id, row.fp, row.features);
  }
  const std::thread::id caller = std::this_thread::get_id();
  int checks = 0;
  bool other_thread_asked = false;
  const CheckPoint check = [&] {
    other_thread_asked |= std::this_thread::get_id() != caller;
    if (++checks == stop_at) {
      throw std::runtime_error("stop");
    }
  };
  EXPECT_THROW(search(dedup, check), std::runtime_error);
  EXPECT_EQ(checks, stop_at);
  EXPECT_FALSE(other_thread_asked);
}

TEST(VerifiedDedup, ThresholdJoinOnThreadsStopsWhenTheCheckThrows) {
  expect_stopped_by_callers_check(5, [](const VerifiedDedup& dedup, const CheckPoint& check) {
    dedup.groups_by_threshold_join(0.5, check, nullptr, std::nullopt, 4);
  });
}

// Within a radius on threads: the same rows (clusters, distances,
// similarities) and the same counts as on one, which is brute force's
// answer, on random rows (weighted and binary), edited and text-like rows.
// Radius 64 makes every pair a candidate: several of the windows the
// threads verify (16K candidates each), so the settling order across
// windows is tested too.
TEST(VerifiedDedup, WithinRadiusOnThreadsEqualsOneThreadAndBruteForce) {
  // One seed under the sanitizers, two in the Release and clang++ builds.
  const std::uint64_t seeds = kSanitizedBuild ? 1 : 2;
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    for (const int kind : {0, 1, 2, 3}) {
      const std::vector<Row> rows = kind == 0   ? random_rows(500, seed, false)
                                    : kind == 1 ? random_rows(500, seed, true)
                                    : kind == 2 ? edited_binary_rows(600, seed)
                                                : real_like_rows(800, seed);
      VerifiedDedup dedup;
      for (const Row& row : rows) {
        dedup.add(row.id, row.fp, row.features);
      }
      dedup.finish_adding();  // as simhash_dedup does
      for (const double threshold : {0.5, 0.8}) {
        for (const int radius : {10, 64}) {
          const std::string where = "seed " + std::to_string(seed) + " kind " +
                                    std::to_string(kind) + " threshold " +
                                    std::to_string(threshold) + " radius " + std::to_string(radius);
          DedupCounts one_counts;
          const std::vector<DedupRow> one =
              dedup.groups_within_radius(threshold, radius, {}, &one_counts, 1);
          EXPECT_EQ(one, brute_force(rows, threshold, radius)) << where;
          if (radius == 64) {
            EXPECT_GT(one_counts.candidates, 3U * 16384U) << "several windows; " << where;
          }
          if (threshold == 0.5) {
            EXPECT_GT(one.size(), rows.size() / 20) << "the data makes groups; " << where;
          }
          for (const unsigned threads : {2U, 3U, 8U}) {
            DedupCounts counts;
            EXPECT_EQ(dedup.groups_within_radius(threshold, radius, {}, &counts, threads), one)
                << where << " threads " << threads;
            EXPECT_EQ(counts, one_counts) << where << " threads " << threads;
          }
        }
      }
    }
  }
}

// The radius search too, asked both while the caller searches and while
// the threads verify.
TEST(VerifiedDedup, WithinRadiusOnThreadsStopsWhenTheCheckThrows) {
  expect_stopped_by_callers_check(40, [](const VerifiedDedup& dedup, const CheckPoint& check) {
    dedup.groups_within_radius(0.5, 64, check, nullptr, 4);
  });
}

// finish_adding() frees only what adding needs: the same groups on both
// paths as without it (brute force's), exact duplicates still one node, and
// a row added after it refused with nothing changed.
TEST(VerifiedDedup, FinishingAddingChangesNoGroupsAndRefusesMoreRows) {
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    const std::vector<Row> rows = real_like_rows(900, seed);
    VerifiedDedup open;
    VerifiedDedup finished;
    for (const Row& row : rows) {
      open.add(row.id, row.fp, row.features);
      finished.add(row.id, row.fp, row.features);
    }
    finished.finish_adding();
    EXPECT_EQ(finished.row_count(), rows.size());
    EXPECT_EQ(finished.distinct_count(), open.distinct_count());
    EXPECT_LT(open.distinct_count(), rows.size()) << "the data has exact copies";
    const std::vector<DedupRow> joined = open.groups_by_threshold_join(0.8);
    EXPECT_EQ(joined, brute_force(rows, 0.8, 64));
    EXPECT_GT(joined.size(), rows.size() / 10) << "the data makes groups";
    EXPECT_EQ(finished.groups_by_threshold_join(0.8), joined);
    EXPECT_EQ(finished.groups_by_threshold_join(0.8, {}, nullptr, 10),
              open.groups_by_threshold_join(0.8, {}, nullptr, 10));
    EXPECT_EQ(finished.groups_within_radius(0.8, 10), open.groups_within_radius(0.8, 10));
    EXPECT_THROW(finished.add(-1, rows[0].fp, rows[0].features), std::logic_error);
    EXPECT_EQ(finished.row_count(), rows.size());
    EXPECT_EQ(finished.distinct_count(), open.distinct_count());
    EXPECT_EQ(finished.groups_by_threshold_join(0.8), joined);
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

TEST(VerifiedDedup, ThresholdJoinChecksWhileItWalksPostingsThatMakeNoCandidate) {
  // Rows of kSize features: a third and a few of their own first (each in
  // slots of its own: a counter in the top bits), then features every row
  // has. Their prefixes hold about a sixth of common features, at places
  // the positional filter refuses (no two rows can share two thirds), so
  // each probe walks every earlier row's postings under those slots and
  // none becomes a candidate: work that only the postings walked count.
  // The check must come after every so many steps of it, not once a block.
  const std::size_t rows = kSanitizedBuild ? 1000 : 3000;
  constexpr std::size_t kSize = 960;
  // A common feature whose slot meets a row's own moves a few of that
  // row's own features after the common ones: the margin keeps those rows
  // apart too.
  constexpr std::size_t kOwn = kSize / 3 + 32;
  std::mt19937_64 random(11);
  std::vector<std::uint64_t> common(kSize - kOwn);
  for (std::uint64_t& hash : common) {
    hash = random();
  }
  VerifiedDedup dedup;
  std::uint64_t own = 0;
  for (std::size_t row = 0; row < rows; ++row) {
    std::map<std::uint64_t, double> weights;
    while (weights.size() < kOwn) {
      weights[(own++ << 43) | (random() >> 21)] = 1;
    }
    for (const std::uint64_t hash : common) {
      weights[hash] = 1;
    }
    dedup.add(static_cast<std::int64_t>(row), random(), vector_of(weights));
  }
  std::uint64_t checks = 0;
  DedupCounts counts;
  const CheckPoint count_checks = [&] { ++checks; };
  EXPECT_TRUE(dedup.groups_by_threshold_join(0.5, count_checks, &counts).empty());
  EXPECT_EQ(counts.checked, 0U);
  // Each row walks its prefix's common slots under every row made before
  // its block (at least 15/16 of those before it). Counted at half that,
  // the postings walked still need about twice the checks the join makes
  // between its blocks.
  const std::uint64_t common_in_prefix = SlotRanking::prefix_length(kSize, 0.5) - kOwn;
  const std::uint64_t walked = common_in_prefix * rows * rows / 2 * 15 / 16;
  EXPECT_GE(checks, walked / 2 / PairVerifier::kStepsBetweenChecks)
      << "over " << walked << " postings walked";
}

}  // namespace
}  // namespace simhash
