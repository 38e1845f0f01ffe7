// SPDX-License-Identifier: MIT
// The records of a batch search, grouped by identical fingerprint: the search
// compares distinct fingerprints only, so a fingerprint shared by many rows
// costs one comparison, not one per row pair.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "util/memory_budget.h"

namespace simhash {

// One row of an index: its id (rowid) and fingerprint.
struct IdFingerprint {
  std::int64_t id;
  std::uint64_t fp;
};

class FingerprintGroups {
 public:
  // Takes the records in any order; throws std::invalid_argument on a repeated
  // id and std::length_error beyond 2^32 - 1 records.
  explicit FingerprintGroups(std::vector<IdFingerprint> records);

  // Records in ascending id order; a record's position is its index here.
  std::span<const IdFingerprint> records() const { return records_; }
  std::size_t group_count() const { return fingerprints_.size(); }
  // The distinct fingerprints, ascending; group g has fingerprints()[g].
  std::span<const std::uint64_t> fingerprints() const { return fingerprints_; }
  // Positions of the records of group g, ascending (so ascending ids).
  std::span<const std::uint32_t> members(std::size_t group) const {
    return std::span<const std::uint32_t>(members_).subspan(
        group_start_[group], group_start_[group + 1] - group_start_[group]);
  }

 private:
  // Charged per record for these arrays and for the work done over them:
  // the search's sorted copies and radix scratch (group_pair_search.h) and
  // the groupings' per-record arrays (leader_groups.h, near_duplicate_clusters.h),
  // measured at 50 (pairs) to 90 bytes (clusters) in
  // tests/faults/memory_limit_test.cpp.
  static constexpr std::size_t kWorkingBytesPerRecord = 96;
  MemoryCharge charge_;  // first: charged before the records are taken
  std::vector<IdFingerprint> records_;
  std::vector<std::uint64_t> fingerprints_;
  std::vector<std::uint32_t> group_start_;  // group_count() + 1 offsets into members_
  std::vector<std::uint32_t> members_;
};

}  // namespace simhash
