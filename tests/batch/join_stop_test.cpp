// SPDX-License-Identifier: MIT
// The threshold joins on two threads stop soon after their check throws
// (as the SQL glue's does once the statement is interrupted), although the
// other thread is then deep in a long range of probes: its range ends at
// its next check (thread_team.h's check points), not at the range's end.
//
// Rows of 66,000 features that all share 43,000: every pair is a candidate
// (past 65,535 features no position filter applies) and none links at 0.5
// (0.48), so each verification merges nearly all of 132,000 features. A
// range of 8 probes in the last block verifies each against every earlier
// row: a large share of the join, where a check comes every few
// verifications. The check throws a few checks after the join reports
// that it reached that block, while both threads are in such a range.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "batch/similar_pairs.h"
#include "batch/verified_dedup.h"
#include "fingerprint/feature_similarity.h"
#include "sanitized_build.h"
#include "util/check_point.h"
#include "util/progress.h"

namespace simhash {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kFeatures = 66000;
constexpr std::size_t kShared = 43000;
constexpr double kThreshold = 0.5;
// The join's blocks are 16 rows while fewer than 256 come before them.
constexpr std::size_t kBlockRows = 16;
constexpr unsigned kThreads = 2;
// Blocks of rows (the sanitized builds, several times slower, one fewer):
// the last block's probes verify each against the rows of the others.
constexpr std::size_t kBlocks = testing::kSanitizedBuild ? 2 : 3;

// Row `row` (features binary, ascending): the shared features, then its own.
FeatureVector row_features(std::size_t row) {
  std::mt19937_64 shared(1);
  std::mt19937_64 own(1000 + row);
  FeatureVector features;
  features.hashes.reserve(kFeatures);
  for (std::size_t i = 0; i < kFeatures; ++i) {
    features.hashes.push_back(i < kShared ? shared() : own());
  }
  std::sort(features.hashes.begin(), features.hashes.end());
  features.hashes.erase(std::unique(features.hashes.begin(), features.hashes.end()),
                        features.hashes.end());
  features.weights.assign(features.hashes.size(), 1.0);
  features.sum_of_weights = static_cast<double>(features.hashes.size());
  features.sum_of_squares = features.sum_of_weights;
  return features;
}

// The exception of the test's check.
struct Interrupted {};

// A check point that, from the kChecksToStop-th call after arm() on,
// throws at every call, and the time of its first throw.
class Interrupter {
 public:
  static constexpr int kChecksToStop = 5;

  void arm() { armed_ = true; }
  CheckPoint check() {
    return [this] {
      if (armed_ && ++calls_ >= kChecksToStop) {
        if (!first_throw_) {
          first_throw_ = Clock::now();
        }
        throw Interrupted{};
      }
    };
  }
  std::optional<Clock::time_point> first_throw() const { return first_throw_; }

 private:
  bool armed_ = false;  // the check and the progress run on the caller's thread
  int calls_ = 0;
  std::optional<Clock::time_point> first_throw_;
};

// Runs `join(interrupter)` (which must throw Interrupted) three times; the
// least time from the check's first throw to the join's return, so that a
// moment of load on a shared machine does not count against the join.
template <typename Join>
Clock::duration least_time_to_stop(Join&& join) {
  Clock::duration least = Clock::duration::max();
  for (int run = 0; run < 3; ++run) {
    Interrupter interrupter;
    EXPECT_THROW(join(interrupter), Interrupted);
    const Clock::time_point returned = Clock::now();
    EXPECT_TRUE(interrupter.first_throw()) << "the join ended before its check threw";
    if (interrupter.first_throw()) {
      least = std::min(least, returned - *interrupter.first_throw());
    }
  }
  return least;
}

long long ms(Clock::duration duration) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(duration).count();
}

TEST(JoinStop, DedupJoinOnThreadsStopsSoonAfterItsCheckThrows) {
  constexpr std::size_t kRows = kBlocks * kBlockRows;
  VerifiedDedup dedup;
  for (std::size_t row = 0; row < kRows; ++row) {
    dedup.add(static_cast<std::int64_t>(row), row, row_features(row));
  }
  // The whole join: every pair a candidate, none linked; its time the scale
  // of the bound, on this machine and build as it runs now.
  DedupCounts counts;
  const Clock::time_point started = Clock::now();
  EXPECT_TRUE(
      dedup.groups_by_threshold_join(kThreshold, {}, &counts, std::nullopt, kThreads).empty());
  const Clock::duration whole = Clock::now() - started;
  EXPECT_EQ(counts.candidates, kRows * (kRows - 1) / 2);
  EXPECT_EQ(counts.verified, 0U);

  Interrupter* current = nullptr;
  dedup.set_progress([&](const ProgressStep& step) {
    if (step.phase == "joining" && step.done == kRows - kBlockRows) {
      current->arm();  // the last block comes next
    }
  });
  const Clock::duration late = least_time_to_stop([&](Interrupter& interrupter) {
    current = &interrupter;
    dedup.groups_by_threshold_join(kThreshold, interrupter.check(), nullptr, std::nullopt,
                                   kThreads);
  });
  RecordProperty("whole_ms", static_cast<int>(ms(whole)));
  RecordProperty("late_ms", static_cast<int>(ms(late)));
  // The other thread's range, had it run to its end, is about a third of
  // the whole join.
  EXPECT_LT(late, whole / 10) << "the whole join took " << ms(whole) << " ms; stopped " << ms(late)
                              << " ms after its check threw";
}

TEST(JoinStop, VerifiedPairsOnThreadsStopSoonAfterTheirCheckThrows) {
  // Each new row probes every kept row: two ranges of 8 probes, one a thread.
  constexpr std::size_t kKept = (kBlocks - 1) * kBlockRows;
  constexpr std::size_t kNew = kBlockRows;
  SimilarPairs pairs;
  for (std::size_t row = 0; row < kKept + kNew; ++row) {
    if (row < kKept) {
      pairs.add(static_cast<std::int64_t>(row), row, row_features(row));
    } else {
      pairs.add_new(static_cast<std::int64_t>(row), row, row_features(row));
    }
  }
  DedupCounts counts;
  const Clock::time_point started = Clock::now();
  EXPECT_TRUE(pairs.pairs_between(kThreshold, {}, &counts, kThreads).empty());
  const Clock::duration whole = Clock::now() - started;
  EXPECT_EQ(counts.candidates, kKept * kNew);

  Interrupter* current = nullptr;
  pairs.set_progress([&](const ProgressStep& step) {
    if (step.phase == "joining") {
      current->arm();  // reported at the caller's checks while it probes
    }
  });
  const Clock::duration late = least_time_to_stop([&](Interrupter& interrupter) {
    current = &interrupter;
    pairs.pairs_between(kThreshold, interrupter.check(), nullptr, kThreads);
  });
  RecordProperty("whole_ms", static_cast<int>(ms(whole)));
  RecordProperty("late_ms", static_cast<int>(ms(late)));
  EXPECT_LT(late, whole / 10) << "the whole join took " << ms(whole) << " ms; stopped " << ms(late)
                              << " ms after its check threw";
}

}  // namespace
}  // namespace simhash
