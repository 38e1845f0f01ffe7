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
  std::uint32_t index_of(std::uint64_t fp) const {
    return static_cast<std::uint32_t>(
        std::lower_bound(fingerprints.begin(), fingerprints.end(), fp) - fingerprints.begin());
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

// Walks the runs of `left` and `right` equal under `mask` (the table's prefix
// blocks; both sides ascend by the masked bits) and reports the pairs within
// `radius` that no earlier table shares. Within one set (`left` is `right`)
// each run is compared with itself, later against earlier.
SIMHASH_POPCNT_CLONES void walk_runs(const SortedSide& left, const SortedSide& right,
                                     bool between_sets, std::uint64_t mask, int radius,
                                     const std::uint64_t* earlier_masks, int earlier_count,
                                     std::vector<GroupPair>& out) {
  std::size_t left_begin = 0;
  std::size_t right_begin = 0;
  while (left_begin < left.size() && right_begin < right.size()) {
    const std::uint64_t left_prefix = left.sorted[left_begin] & mask;
    const std::uint64_t right_prefix = right.sorted[right_begin] & mask;
    if (left_prefix != right_prefix) {
      if (left_prefix < right_prefix) {
        left_begin = left.run_end(left_begin, mask);
      } else {
        right_begin = right.run_end(right_begin, mask);
      }
      continue;
    }
    const std::size_t left_end = left.run_end(left_begin, mask);
    const std::size_t right_end = between_sets ? right.run_end(right_begin, mask) : left_end;
    for (std::size_t i = left_begin; i < left_end; ++i) {
      const std::uint64_t fp = left.sorted[i];
      for (std::size_t j = between_sets ? right_begin : i + 1; j < right_end; ++j) {
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
          // Rare next to the comparisons: a binary search each is cheap.
          std::uint32_t first = left.index_of(fp);
          std::uint32_t second = right.index_of(right.sorted[j]);
          if (!between_sets && first > second) {
            std::swap(first, second);
          }
          out.push_back(GroupPair{first, second, distance});
        }
      }
    }
    left_begin = left_end;
    right_begin = right_end;
  }
}

// Compares rows [row_begin, row_end) of `left` with every row of `right`
// (within one set, with the later rows only).
SIMHASH_POPCNT_CLONES void compare_rows(std::span<const std::uint64_t> left,
                                        std::span<const std::uint64_t> right, bool between_sets,
                                        std::size_t row_begin, std::size_t row_end, int radius,
                                        std::vector<GroupPair>& out) {
  for (std::size_t i = row_begin; i < row_end; ++i) {
    const std::uint64_t fp = left[i];
    for (std::size_t j = between_sets ? 0 : i + 1; j < right.size(); ++j) {
      const int distance = std::popcount(fp ^ right[j]);
      if (distance <= radius) {
        out.push_back(
            GroupPair{static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), distance});
      }
    }
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
  switch (plan_.method()) {
    case BatchPlan::Method::kIdenticalOnly:
      // Within one set the fingerprints are distinct: nothing to find.
      if (!between_sets_ || !any_pair || identical_searched_) {
        return false;
      }
      search_identical(out);
      identical_searched_ = true;
      return true;
    case BatchPlan::Method::kBlockPermutation:
      if (!any_pair || next_table_ == plan_.tables()->table_count()) {
        return false;
      }
      search_table(next_table_++, out);
      return true;
    case BatchPlan::Method::kAllPairs:
      if (!any_pair || next_row_ == left_.size()) {
        return false;
      }
      search_all_pairs_slice(out);
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

void GroupPairSearch::search_table(int table, std::vector<GroupPair>& out) {
  const PermutationPlan& tables = *plan_.tables();
  // The permutation only moves bits, so sorting the fingerprints themselves
  // by the table's prefix mask groups the same runs as sorting permuted keys,
  // and distances need no unpermuting.
  const std::uint64_t mask = tables.prefix_mask(table);
  const bool top_bits = tables.prefix_is_top_bits(table);
  const SortedSide left{sorted_by(left_, mask, top_bits, sorted_left_), left_};
  const SortedSide right =
      between_sets_ ? SortedSide{sorted_by(right_, mask, top_bits, sorted_right_), right_} : left;
  std::vector<std::uint64_t> earlier_masks(static_cast<std::size_t>(table));
  for (int earlier = 0; earlier < table; ++earlier) {
    earlier_masks[earlier] = tables.prefix_mask(earlier);
  }
  walk_runs(left, right, between_sets_, mask, plan_.radius(), earlier_masks.data(), table, out);
}

void GroupPairSearch::search_identical(std::vector<GroupPair>& out) {
  // Ascending fingerprints are sorted by every bit: the runs are the equal ones.
  walk_runs(SortedSide{left_.data(), left_}, SortedSide{right_.data(), right_}, between_sets_,
            ~std::uint64_t{0}, 0, nullptr, 0, out);
}

void GroupPairSearch::search_all_pairs_slice(std::vector<GroupPair>& out) {
  const std::size_t row_begin = next_row_;
  std::size_t row_end = row_begin;
  std::size_t comparisons = 0;
  while (row_end < left_.size() && comparisons < kComparisonsBetweenChecks) {
    comparisons += between_sets_ ? right_.size() : right_.size() - 1 - row_end;
    ++row_end;
  }
  compare_rows(left_, right_, between_sets_, row_begin, row_end, plan_.radius(), out);
  next_row_ = row_end;
}

}  // namespace simhash
