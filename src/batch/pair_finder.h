// SPDX-License-Identifier: MIT
// Every pair of records whose fingerprints are within a radius, each pair
// exactly once, handed out in batches: within one set of records, a < b
// (simhash_pairs), or between two sets, a from the left and b from the right
// (simhash_pairs_between).
#pragma once

#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "batch/batch_plan.h"
#include "batch/fingerprint_groups.h"
#include "batch/group_pair_search.h"
#include "util/check_point.h"

namespace simhash {

struct NearPair {
  std::int64_t a;  // the smaller id; between two sets, the left record's
  std::int64_t b;
  int distance;

  friend auto operator<=>(const NearPair&, const NearPair&) = default;
};

class PairFinder {
 public:
  // The pairs within `records`, by the cheapest plan for the radius
  // (BatchPlan::choose); throws std::invalid_argument for a negative radius
  // or repeated ids. `check` runs between bounded pieces of the search
  // (check_point.h).
  PairFinder(std::vector<IdFingerprint> records, int radius, CheckPoint check = {});
  // The pairs between `left` and `right` (BatchPlan::choose_between); an id
  // may be in both sets, but not twice in one.
  PairFinder(std::vector<IdFingerprint> left, std::vector<IdFingerprint> right, int radius,
             CheckPoint check = {});
  // Plans chosen by the caller (tests use them to exercise several plans):
  // `make_plan` gets the number of distinct fingerprints (of each set).
  template <std::invocable<std::size_t> MakePlan>
  PairFinder(std::vector<IdFingerprint> records, MakePlan make_plan, CheckPoint check = {})
      : groups_(std::move(records)),
        right_groups_(std::vector<IdFingerprint>{}),
        search_(groups_.fingerprints(), make_plan(groups_.group_count()), std::move(check)) {}
  template <std::invocable<std::size_t, std::size_t> MakePlan>
  PairFinder(std::vector<IdFingerprint> left, std::vector<IdFingerprint> right, MakePlan make_plan,
             CheckPoint check = {})
      : groups_(std::move(left)),
        right_groups_(std::move(right)),
        between_sets_(true),
        search_(groups_.fingerprints(), right_groups_.fingerprints(),
                make_plan(groups_.group_count(), right_groups_.group_count()), std::move(check)),
        group_(groups_.group_count()) {}

  PairFinder(const PairFinder&) = delete;
  PairFinder& operator=(const PairFinder&) = delete;

  // Replaces `out` with the next pairs (at most kBatchSize, at least one while
  // any remain); returns false, with `out` empty, when every pair was given.
  bool next(std::vector<NearPair>& out);

  const BatchPlan& plan() const { return search_.plan(); }

  static constexpr std::size_t kBatchSize = 4096;

 private:
  // Adds the pairs of records sharing group_'s fingerprint (distance 0) from
  // (first_, second_) on; false if `out` filled up first. Within one set only:
  // between sets, equal fingerprints are group pairs at distance 0.
  bool expand_identical(std::vector<NearPair>& out);
  // Adds the record pairs of the group pair at found_[next_found_].
  bool expand_found(std::vector<NearPair>& out);
  std::int64_t id_at(std::uint32_t position) const { return groups_.records()[position].id; }

  FingerprintGroups groups_;        // the records, or the left set
  FingerprintGroups right_groups_;  // the right set; empty within one set
  bool between_sets_ = false;
  GroupPairSearch search_;
  std::size_t group_ = 0;  // the identical groups are done at group_count()
  std::vector<GroupPair> found_;
  std::size_t next_found_ = 0;
  // Where the current group (or group pair) resumes: member indices.
  std::size_t first_ = 0;
  std::size_t second_ = 1;
};

}  // namespace simhash
