// SPDX-License-Identifier: MIT
// The check every candidate pair of the verified batch searches passes
// (verified_dedup.h's dedup, similar_pairs.h's pairs), written once: a pair
// whose sizes cannot reach the threshold is dropped before its merge
// (prefix_filter.h's may_reach), the rest get the exact similarity, the
// number simhash_jaccard() gives; each step is counted, and the caller's
// check point runs between bounded pieces of the work (check_point.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "batch/prefix_filter.h"
#include "fingerprint/feature_similarity.h"
#include "util/check_point.h"

namespace simhash {

// What a verified search compared: for benchmarks and for the tests that
// show a filter works.
struct DedupCounts {
  // Pairs considered: within the radius, or sharing a prefix slot at places
  // that allow the threshold (prefix_filter.h).
  std::uint64_t candidates = 0;
  std::uint64_t checked = 0;   // pairs whose similarity was computed (sizes allow the threshold)
  std::uint64_t verified = 0;  // pairs at the threshold or more

  DedupCounts& operator+=(const DedupCounts& other);
  bool operator==(const DedupCounts&) const = default;
};

// One thread's verifier: a search on several threads keeps one per thread,
// each on cache lines of its own (it counts every candidate: threads
// writing counts on one line would take it from each other at every
// step), and so is whatever holds one (a thread's state in an array).
class alignas(64) PairVerifier {
 public:
  // Steps between two checks: a step (a candidate met, a feature merged, a
  // posting walked: a compare and a branch the predictor often misses, or
  // a bit looked up in a table) costs a few fingerprint comparisons, so a
  // quarter of their count, about 10 ms.
  static constexpr std::size_t kStepsBetweenChecks = kComparisonsBetweenChecks / 4;

  // `weighted`: the rows carry weights (weighted Jaccard), else set Jaccard
  // with its early stop. `check` (not owned, or none; on several threads,
  // each thread's check point, thread_team.h) runs between pieces of work.
  PairVerifier(double threshold, bool weighted, const CheckPoint* check)
      : threshold_(threshold), weighted_(weighted), check_(check) {}

  // Counts a candidate met (a step of work, checked in its piece).
  void count_candidate() {
    ++counts_.candidates;
    add_work(1);
  }

  // The exact similarity of `a` and `b` when it is at least the threshold.
  // The size bound inline: most candidates stop there.
  std::optional<double> verify(FeatureView a, FeatureView b) {
    return may_reach(a, b, threshold_) ? similarity_if_reached(a, b) : std::nullopt;
  }

  // verify(a, b) counted as work between checks but not in counts(): for
  // a pair verified ahead of the point where it counts (count_verified_elsewhere
  // counts it there).
  std::optional<double> verify_uncounted(FeatureView a, FeatureView b) {
    const DedupCounts kept = counts_;
    const std::optional<double> similarity = verify(a, b);
    counts_ = kept;
    return similarity;
  }

  // Counts `steps` of other work between checks (pairs written, a list
  // walked): the check comes after so many steps of any kind, so no loop
  // that only walks runs unchecked however long it is.
  void count_steps(std::size_t steps) { add_work(steps); }
  // A cache miss as steps: as dear as merging a few dozen features.
  static constexpr std::size_t kStepsPerMiss = 32;
  // Counts a slot of a posting index (prefix_filter.h) looked at, with
  // `postings` of its postings walked: the slot a miss, each posting a step.
  void count_slot(std::size_t postings) { add_work(kStepsPerMiss + postings); }

  // Counts what verify(a, b) counts, without the merge: for a pair another
  // verifier found `linked` or not, so that the counts are those of one
  // verifier doing all the work.
  void count_verified_elsewhere(FeatureView a, FeatureView b, bool linked) {
    if (linked || may_reach(a, b, threshold_)) {
      ++counts_.checked;
      counts_.verified += linked ? 1 : 0;
      add_work(a.hashes.size() + b.hashes.size());
    }
  }

  const DedupCounts& counts() const { return counts_; }

 private:
  // The merge, for a pair the size bound let through.
  std::optional<double> similarity_if_reached(FeatureView a, FeatureView b);
  // Called per candidate: the count inline, the check out of line.
  void add_work(std::size_t steps) {
    work_ += steps;
    if (work_ >= kStepsBetweenChecks) {
      check_now();
    }
  }
  void check_now();

  double threshold_;
  bool weighted_;
  const CheckPoint* check_;
  DedupCounts counts_;
  std::size_t work_ = 0;  // steps since the last check
};

}  // namespace simhash
