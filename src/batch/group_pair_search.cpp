// SPDX-License-Identifier: MIT
// The paper's batch mode: for each table, sort the fingerprints by the
// table's prefix blocks, and compare only within runs that share them. A pair is
// reported by the first table whose prefix both share, so no set of reported
// pairs is kept. Between two sets, each side is sorted and the runs with the
// same prefix are compared side against side. The hot loops are built twice
// (with and without the POPCNT instruction) and the CPU picks at load time.
#include "batch/group_pair_search.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <utility>

#include "util/cpu_dispatch.h"

namespace simhash {
namespace {

// One side of a run walk: fingerprints sorted by the table's mask, and the
// distinct ascending fingerprints whose indices the pairs report.
struct SortedSide {
  const std::uint64_t* sorted;
  std::span<const std::uint64_t> fingerprints;

  std::size_t size() const { return fingerprints.size(); }
  std::uint32_t index_at(std::size_t position) const {
    // Sorted in ascending order (a top-bits prefix, all pairs): the position is the index.
    if (sorted == fingerprints.data()) {
      return static_cast<std::uint32_t>(position);
    }
    return static_cast<std::uint32_t>(
        std::lower_bound(fingerprints.begin(), fingerprints.end(), sorted[position]) -
        fingerprints.begin());
  }
  std::size_t run_end(std::size_t begin, std::uint64_t mask) const {
    const std::uint64_t prefix = sorted[begin] & mask;
    std::size_t end = begin + 1;
    while (end < size() && (sorted[end] & mask) == prefix) {
      ++end;
    }
    return end;
  }
};

// Columns compared between two looks at the budget: the budget is checked
// inside a row too, since one row of all pairs at 10M fingerprints is 10M
// comparisons and, at radius 64, as many pairs.
constexpr std::size_t kColumnsPerStep = std::size_t{1} << 14;

// Walks the runs of `left` and `right` equal under `mask` (the table's prefix
// blocks; both sides ascend by the masked bits) from `at`, and reports the
// pairs within `radius` that no earlier table shares. Within one set (`left`
// is `right`) each run is compared with itself, later against earlier. A
// mask of 0 makes the whole set one run: the all-pairs loop. Returns true once
// the walk is over, false when a piece's budget (comparisons or pairs) is
// spent first; `at` then says where it resumes.
SIMHASH_POPCNT_CLONES bool walk_runs(const SortedSide& left, const SortedSide& right,
                                     bool between_sets, std::uint64_t mask, int radius,
                                     const std::uint64_t* earlier_masks, int earlier_count,
                                     RunWalkCursor& at, std::vector<GroupPair>& out) {
  std::size_t comparisons = 0;
  while (true) {
    if (!at.in_run) {
      while (at.left_begin < left.size() && at.right_begin < right.size()) {
        const std::uint64_t left_prefix = left.sorted[at.left_begin] & mask;
        const std::uint64_t right_prefix = right.sorted[at.right_begin] & mask;
        if (left_prefix == right_prefix) {
          break;
        }
        if (left_prefix < right_prefix) {
          at.left_begin = left.run_end(at.left_begin, mask);
        } else {
          at.right_begin = right.run_end(at.right_begin, mask);
        }
      }
      if (at.left_begin >= left.size() || at.right_begin >= right.size()) {
        return true;
      }
      at.left_end = left.run_end(at.left_begin, mask);
      at.right_end = between_sets ? right.run_end(at.right_begin, mask) : at.left_end;
      at.row = at.left_begin;
      at.column = between_sets ? at.right_begin : at.row + 1;
      at.in_run = true;
    }
    for (; at.row < at.left_end; ++at.row, at.column = between_sets ? at.right_begin : at.row + 1) {
      const std::uint64_t fp = left.sorted[at.row];
      while (at.column < at.right_end) {
        if (comparisons >= kComparisonsBetweenChecks || out.size() >= kPairsBetweenChecks) {
          return false;
        }
        const std::size_t stop = std::min(at.right_end, at.column + kColumnsPerStep);
        comparisons += stop - at.column;
        for (std::size_t j = at.column; j < stop; ++j) {
          const std::uint64_t differing = fp ^ right.sorted[j];
          const int distance = std::popcount(differing);
          if (distance > radius) {
            continue;
          }
          bool reported_earlier = false;
          for (int table = 0; table < earlier_count; ++table) {
            if ((differing & earlier_masks[table]) == 0) {
              reported_earlier = true;
              break;
            }
          }
          if (!reported_earlier) {
            // Rare next to the comparisons where it costs a binary search.
            std::uint32_t first = left.index_at(at.row);
            std::uint32_t second = right.index_at(j);
            if (!between_sets && first > second) {
              std::swap(first, second);
            }
            out.push_back(GroupPair{first, second, distance});
          }
        }
        at.column = stop;
      }
    }
    at.in_run = false;
    at.left_begin = at.left_end;
    at.right_begin = at.right_end;
  }
}

}  // namespace

GroupPairSearch::GroupPairSearch(std::span<const std::uint64_t> fingerprints, BatchPlan plan,
                                 CheckPoint check)
    : GroupPairSearch(fingerprints, fingerprints, false, std::move(plan), std::move(check)) {}

GroupPairSearch::GroupPairSearch(std::span<const std::uint64_t> left,
                                 std::span<const std::uint64_t> right, BatchPlan plan,
                                 CheckPoint check)
    : GroupPairSearch(left, right, true, std::move(plan), std::move(check)) {}

GroupPairSearch::GroupPairSearch(std::span<const std::uint64_t> left,
                                 std::span<const std::uint64_t> right, bool between_sets,
                                 BatchPlan plan, CheckPoint check)
    : left_(left),
      right_(right),
      between_sets_(between_sets),
      plan_(std::move(plan)),
      check_(std::move(check)) {}

bool GroupPairSearch::next(std::vector<GroupPair>& out) {
  out.clear();
  if (check_) {
    check_();
  }
  const bool any_pair = between_sets_ ? !left_.empty() && !right_.empty() : left_.size() >= 2;
  if (!any_pair || done_) {
    return false;
  }
  switch (plan_.method()) {
    case BatchPlan::Method::kIdenticalOnly:
      // Within one set the fingerprints are distinct: nothing to find.
      if (!between_sets_) {
        return false;
      }
      // Ascending fingerprints are sorted by every bit: the runs are the equal ones.
      done_ = walk_runs(SortedSide{left_.data(), left_}, SortedSide{right_.data(), right_},
                        between_sets_, ~std::uint64_t{0}, 0, nullptr, 0, cursor_, out);
      return true;
    case BatchPlan::Method::kBlockPermutation:
      if (search_table(out)) {
        cursor_ = RunWalkCursor{};
        done_ = ++next_table_ == plan_.tables()->table_count();
      }
      return true;
    case BatchPlan::Method::kAllPairs:
      // A mask of 0: one run, every pair compared.
      done_ = walk_runs(SortedSide{left_.data(), left_}, SortedSide{right_.data(), right_},
                        between_sets_, 0, plan_.radius(), nullptr, 0, cursor_, out);
      return true;
  }
  return false;
}

const std::uint64_t* GroupPairSearch::sorted_by(std::span<const std::uint64_t> side,
                                                std::uint64_t mask, bool top_bits,
                                                std::vector<std::uint64_t>& copy) {
  // A prefix of top bits is already grouped in the ascending fingerprints.
  if (top_bits) {
    return side.data();
  }
  // Any starting order will do, so each table sorts what the previous one left.
  if (copy.size() != side.size()) {
    copy.assign(side.begin(), side.end());
  }
  sorter_.sort_by_mask(copy, mask);
  return copy.data();
}

bool GroupPairSearch::search_table(std::vector<GroupPair>& out) {
  const int table = next_table_;
  const PermutationPlan& tables = *plan_.tables();
  // The permutation only moves bits, so sorting the fingerprints themselves
  // by the table's prefix mask groups the same runs as sorting permuted keys,
  // and distances need no unpermuting.
  const std::uint64_t mask = tables.prefix_mask(table);
  if (sorted_table_ != table) {
    // A table's first piece sorts; its later pieces resume the walk.
    const bool top_bits = tables.prefix_is_top_bits(table);
    left_order_ = sorted_by(left_, mask, top_bits, sorted_left_);
    right_order_ = between_sets_ ? sorted_by(right_, mask, top_bits, sorted_right_) : left_order_;
    earlier_masks_.resize(static_cast<std::size_t>(table));
    for (int earlier = 0; earlier < table; ++earlier) {
      earlier_masks_[earlier] = tables.prefix_mask(earlier);
    }
    sorted_table_ = table;
  }
  return walk_runs(SortedSide{left_order_, left_}, SortedSide{right_order_, right_}, between_sets_,
                   mask, plan_.radius(), earlier_masks_.data(), table, cursor_, out);
}

}  // namespace simhash
