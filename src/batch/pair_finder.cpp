// SPDX-License-Identifier: MIT
// Expands the pairs of distinct fingerprints found by GroupPairSearch into
// pairs of record ids, plus the pairs of records sharing one fingerprint;
// resumable at any point so a huge group never has to be held at once.
#include "batch/pair_finder.h"

#include <algorithm>
#include <utility>

namespace simhash {

PairFinder::PairFinder(std::vector<IdFingerprint> records, int radius, CheckPoint check)
    : PairFinder(
          std::move(records),
          [radius](std::size_t distinct) { return BatchPlan::choose(radius, distinct); },
          std::move(check)) {}

PairFinder::PairFinder(std::vector<IdFingerprint> left, std::vector<IdFingerprint> right,
                       int radius, CheckPoint check)
    : PairFinder(
          std::move(left), std::move(right),
          [radius](std::size_t left_count, std::size_t right_count) {
            return BatchPlan::choose_between(radius, left_count, right_count);
          },
          std::move(check)) {}

bool PairFinder::expand_identical(std::vector<NearPair>& out) {
  const auto members = groups_.members(group_);
  for (; first_ < members.size(); ++first_, second_ = first_ + 1) {
    for (; second_ < members.size(); ++second_) {
      if (out.size() == kBatchSize) {
        return false;
      }
      // Members are in id order, so the first is the smaller id.
      out.push_back(NearPair{id_at(members[first_]), id_at(members[second_]), 0});
    }
  }
  return true;
}

bool PairFinder::expand_found(std::vector<NearPair>& out) {
  const GroupPair& pair = found_[next_found_];
  const FingerprintGroups& second_groups = between_sets_ ? right_groups_ : groups_;
  const auto firsts = groups_.members(pair.first);
  const auto seconds = second_groups.members(pair.second);
  for (; first_ < firsts.size(); ++first_, second_ = 0) {
    for (; second_ < seconds.size(); ++second_) {
      if (out.size() == kBatchSize) {
        return false;
      }
      const std::int64_t x = id_at(firsts[first_]);
      const std::int64_t y = second_groups.records()[seconds[second_]].id;
      out.push_back(between_sets_ ? NearPair{x, y, pair.distance}
                                  : NearPair{std::min(x, y), std::max(x, y), pair.distance});
    }
  }
  return true;
}

bool PairFinder::next(std::vector<NearPair>& out) {
  out.clear();
  for (; group_ < groups_.group_count(); ++group_, first_ = 0, second_ = 1) {
    if (!expand_identical(out)) {
      return true;
    }
  }
  while (true) {
    if (next_found_ == found_.size()) {
      if (!out.empty()) {
        return true;  // hand these over before searching the next table
      }
      // Group pairs resume from their first members (this also leaves the
      // identical groups' cursor behind).
      next_found_ = 0;
      first_ = 0;
      second_ = 0;
      if (!search_.next(found_)) {
        found_.clear();
        return false;
      }
      continue;
    }
    if (!expand_found(out)) {
      return true;
    }
    ++next_found_;
    first_ = 0;
    second_ = 0;
  }
}

}  // namespace simhash
