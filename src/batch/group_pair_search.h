// The batch search over distinct fingerprints: every pair within the radius,
// each exactly once, produced a table (or a slice of the all-pairs loop) at a
// time so memory follows the output, not the square of the input. Two forms:
// the pairs within one set, and the pairs between two sets (new data against
// a collection), which compares no two fingerprints of the same set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "batch/batch_plan.h"
#include "batch/radix_sort.h"
#include "util/check_point.h"

namespace simhash {

// Two fingerprints by their index in the searched spans: within one set, two
// distinct ones, first < second; between two sets, first in the left set and
// second in the right (possibly equal fingerprints).
struct GroupPair {
  std::uint32_t first;
  std::uint32_t second;
  int distance;
};

class GroupPairSearch {
 public:
  // The pairs within `fingerprints`, which must be distinct, ascending, and
  // outlive the search. `check` runs before each table or slice.
  GroupPairSearch(std::span<const std::uint64_t> fingerprints, BatchPlan plan,
                  CheckPoint check = {});
  // The pairs between `left` and `right`, each distinct and ascending.
  GroupPairSearch(std::span<const std::uint64_t> left, std::span<const std::uint64_t> right,
                  BatchPlan plan, CheckPoint check = {});

  // Replaces `out` with the pairs of the next table or slice (possibly none);
  // returns false, with `out` empty, once the search is over.
  bool next(std::vector<GroupPair>& out);

  const BatchPlan& plan() const { return plan_; }

 private:
  GroupPairSearch(std::span<const std::uint64_t> left, std::span<const std::uint64_t> right,
                  bool between_sets, BatchPlan plan, CheckPoint check);
  // Sorts a side by `mask` (into `copy` unless its ascending order will do).
  const std::uint64_t* sorted_by(std::span<const std::uint64_t> side, std::uint64_t mask,
                                 bool top_bits, std::vector<std::uint64_t>& copy);
  void search_table(int table, std::vector<GroupPair>& out);
  void search_identical(std::vector<GroupPair>& out);
  void search_all_pairs_slice(std::vector<GroupPair>& out);

  std::span<const std::uint64_t> left_;
  std::span<const std::uint64_t> right_;  // the same span as left_ within one set
  bool between_sets_;
  BatchPlan plan_;
  CheckPoint check_;
  int next_table_ = 0;               // kBlockPermutation: the next table to search
  std::size_t next_row_ = 0;         // kAllPairs: the next left row
  bool identical_searched_ = false;  // kIdenticalOnly: the one search is done
  RadixSorter sorter_;
  // Each side sorted by the last table's prefix (right unused within one set).
  std::vector<std::uint64_t> sorted_left_;
  std::vector<std::uint64_t> sorted_right_;
};

}  // namespace simhash
