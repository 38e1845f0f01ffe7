// Every pair of records whose fingerprints are within a radius, a < b, each
// pair exactly once, handed out in batches (simhash_pairs reads it).
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "batch_plan.h"
#include "check_point.h"
#include "fingerprint_groups.h"
#include "group_pair_search.h"

namespace simhash {

struct NearPair {
  std::int64_t a;  // the smaller id
  std::int64_t b;
  int distance;

  friend auto operator<=>(const NearPair&, const NearPair&) = default;
};

class PairFinder {
 public:
  // The cheapest plan for the radius (BatchPlan::choose); throws
  // std::invalid_argument for a negative radius or repeated ids. `check`
  // runs between bounded pieces of the search (check_point.h).
  PairFinder(std::vector<IdFingerprint> records, int radius, CheckPoint check = {});
  // A plan chosen by the caller (tests use it to exercise several plans);
  // `make_plan` gets the number of distinct fingerprints.
  template <typename MakePlan>
  PairFinder(std::vector<IdFingerprint> records, MakePlan make_plan, CheckPoint check = {})
      : groups_(std::move(records)),
        search_(groups_.fingerprints(), make_plan(groups_.group_count()), std::move(check)) {}

  PairFinder(const PairFinder&) = delete;
  PairFinder& operator=(const PairFinder&) = delete;

  // Replaces `out` with the next pairs (at most kBatchSize, at least one while
  // any remain); returns false, with `out` empty, when every pair was given.
  bool next(std::vector<NearPair>& out);

  const BatchPlan& plan() const { return search_.plan(); }

  static constexpr std::size_t kBatchSize = 4096;

 private:
  // Adds the pairs of records sharing group_'s fingerprint (distance 0) from
  // (first_, second_) on; false if `out` filled up first.
  bool expand_identical(std::vector<NearPair>& out);
  // Adds the record pairs of the group pair at found_[next_found_].
  bool expand_found(std::vector<NearPair>& out);
  std::int64_t id_at(std::uint32_t position) const { return groups_.records()[position].id; }

  FingerprintGroups groups_;
  GroupPairSearch search_;
  std::size_t group_ = 0;  // the identical groups are done at group_count()
  std::vector<GroupPair> found_;
  std::size_t next_found_ = 0;
  // Where the current group (or group pair) resumes: member indices.
  std::size_t first_ = 0;
  std::size_t second_ = 1;
};

}  // namespace simhash
