// The batch search over distinct fingerprints: every pair within the radius,
// each exactly once, produced a table (or a slice of the all-pairs loop) at a
// time so memory follows the output, not the square of the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "batch_plan.h"
#include "check_point.h"
#include "radix_sort.h"

namespace simhash {

// Two distinct fingerprints, by their index in the searched span.
struct GroupPair {
  std::uint32_t first;
  std::uint32_t second;
  int distance;
};

class GroupPairSearch {
 public:
  // `fingerprints` must be distinct, ascending, and outlive the search.
  // `check` runs before each table or slice.
  GroupPairSearch(std::span<const std::uint64_t> fingerprints, BatchPlan plan,
                  CheckPoint check = {});

  // Replaces `out` with the pairs of the next table or slice (possibly none);
  // returns false, with `out` empty, once the search is over.
  bool next(std::vector<GroupPair>& out);

  const BatchPlan& plan() const { return plan_; }

 private:
  void search_table(int table, std::vector<GroupPair>& out);
  void search_all_pairs_slice(std::vector<GroupPair>& out);

  std::span<const std::uint64_t> fingerprints_;
  BatchPlan plan_;
  CheckPoint check_;
  int next_table_ = 0;
  std::size_t next_row_ = 0;
  RadixSorter sorter_;
  std::vector<std::uint64_t> sorted_;  // the fingerprints, sorted by the last table's prefix
};

}  // namespace simhash
