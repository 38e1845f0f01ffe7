// SPDX-License-Identifier: MIT
// The batch search over distinct fingerprints: every pair within the radius,
// each exactly once, produced a bounded piece at a time (at most
// kComparisonsBetweenChecks comparisons and about kPairsBetweenChecks pairs),
// so memory follows the output, not the square of the input, and a check
// point comes every few milliseconds whatever the plan and the radius. Two forms:
// the pairs within one set, and the pairs between two sets (new data against
// a collection), which compares no two fingerprints of the same set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "batch/batch_plan.h"
#include "util/check_point.h"
#include "util/radix_sort.h"

namespace simhash {

// Two fingerprints by their index in the searched spans: within one set, two
// distinct ones, first < second; between two sets, first in the left set and
// second in the right (possibly equal fingerprints).
struct GroupPair {
  std::uint32_t first;
  std::uint32_t second;
  int distance;
};

// Where a run walk resumes: the runs being compared (positions in each
// side's sorted order) and the next comparison in them.
struct RunWalkCursor {
  std::size_t left_begin = 0;
  std::size_t right_begin = 0;
  std::size_t left_end = 0;
  std::size_t right_end = 0;
  std::size_t row = 0;     // left position
  std::size_t column = 0;  // right position
  bool in_run = false;     // false: the next run is still to be found from the begins
};

class GroupPairSearch {
 public:
  // The pairs within `fingerprints`, which must be distinct, ascending, and
  // outlive the search. `check` runs before each piece.
  GroupPairSearch(std::span<const std::uint64_t> fingerprints, BatchPlan plan,
                  CheckPoint check = {});
  // The pairs between `left` and `right`, each distinct and ascending.
  GroupPairSearch(std::span<const std::uint64_t> left, std::span<const std::uint64_t> right,
                  BatchPlan plan, CheckPoint check = {});

  // Replaces `out` with the pairs of the next piece (possibly none): part of
  // a table's walk, or of the all-pairs loop. Returns false, with `out`
  // empty, once the search is over.
  bool next(std::vector<GroupPair>& out);

  const BatchPlan& plan() const { return plan_; }

 private:
  GroupPairSearch(std::span<const std::uint64_t> left, std::span<const std::uint64_t> right,
                  bool between_sets, BatchPlan plan, CheckPoint check);
  // Sorts a side by `mask` (into `copy` unless its ascending order will do).
  const std::uint64_t* sorted_by(std::span<const std::uint64_t> side, std::uint64_t mask,
                                 bool top_bits, std::vector<std::uint64_t>& copy);
  // The next piece of table next_table_ (sorting first if it is new); true
  // once the table is done.
  bool search_table(std::vector<GroupPair>& out);

  std::span<const std::uint64_t> left_;
  std::span<const std::uint64_t> right_;  // the same span as left_ within one set
  bool between_sets_;
  BatchPlan plan_;
  CheckPoint check_;
  bool done_ = false;
  int next_table_ = 0;     // kBlockPermutation: the table being searched
  int sorted_table_ = -1;  // the table the sorted orders below are for
  RunWalkCursor cursor_;   // where the current table's (or the one loop's) walk resumes
  RadixSorter sorter_;
  // Each side sorted by the current table's prefix (right unused within one
  // set), and where each side's order is (the copy, or the span itself).
  std::vector<std::uint64_t> sorted_left_;
  std::vector<std::uint64_t> sorted_right_;
  const std::uint64_t* left_order_ = nullptr;
  const std::uint64_t* right_order_ = nullptr;
  std::vector<std::uint64_t> earlier_masks_;  // the prefix masks of the tables before it
};

}  // namespace simhash
