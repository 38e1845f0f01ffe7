// The paper's batch mode: for each table, sort the fingerprints by the
// table's prefix blocks, and compare only within runs that share them. A pair is
// reported by the first table whose prefix both share, so no set of reported
// pairs is kept. The hot loops are built twice (with and without the POPCNT
// instruction) and the CPU picks at load time.
#include "group_pair_search.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <utility>

#include "cpu_dispatch.h"

namespace simhash {
namespace {

// Walks the runs of sorted fingerprints equal under `mask` (the table's
// prefix blocks) and reports the pairs within `radius` that no earlier table
// shares, by their index in `fingerprints` (sorted, distinct).
SIMHASH_POPCNT_CLONES void walk_runs(const std::uint64_t* sorted, std::size_t count,
                                     std::uint64_t mask, int radius,
                                     std::span<const std::uint64_t> fingerprints,
                                     const std::uint64_t* earlier_masks, int earlier_count,
                                     std::vector<GroupPair>& out) {
  const auto index_of = [&](std::uint64_t fp) {
    return static_cast<std::uint32_t>(
        std::lower_bound(fingerprints.begin(), fingerprints.end(), fp) - fingerprints.begin());
  };
  std::size_t run_begin = 0;
  while (run_begin < count) {
    const std::uint64_t prefix = sorted[run_begin] & mask;
    std::size_t run_end = run_begin + 1;
    while (run_end < count && (sorted[run_end] & mask) == prefix) {
      ++run_end;
    }
    for (std::size_t i = run_begin; i + 1 < run_end; ++i) {
      const std::uint64_t fp = sorted[i];
      for (std::size_t j = i + 1; j < run_end; ++j) {
        const std::uint64_t differing = fp ^ sorted[j];
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
          out.push_back(GroupPair{index_of(fp), index_of(sorted[j]), distance});
        }
      }
    }
    run_begin = run_end;
  }
}

SIMHASH_POPCNT_CLONES void compare_rows(const std::uint64_t* fingerprints, std::size_t count,
                                        std::size_t row_begin, std::size_t row_end, int radius,
                                        std::vector<GroupPair>& out) {
  for (std::size_t i = row_begin; i < row_end; ++i) {
    const std::uint64_t fp = fingerprints[i];
    for (std::size_t j = i + 1; j < count; ++j) {
      const int distance = std::popcount(fp ^ fingerprints[j]);
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
    : fingerprints_(fingerprints), plan_(std::move(plan)), check_(std::move(check)) {}

bool GroupPairSearch::next(std::vector<GroupPair>& out) {
  out.clear();
  if (check_) {
    check_();
  }
  switch (plan_.method()) {
    case BatchPlan::Method::kIdenticalOnly:
      return false;
    case BatchPlan::Method::kBlockPermutation:
      if (fingerprints_.size() < 2 || next_table_ == plan_.tables()->table_count()) {
        return false;
      }
      search_table(next_table_++, out);
      return true;
    case BatchPlan::Method::kAllPairs:
      if (next_row_ + 1 >= fingerprints_.size()) {
        return false;
      }
      search_all_pairs_slice(out);
      return true;
  }
  return false;
}

void GroupPairSearch::search_table(int table, std::vector<GroupPair>& out) {
  const PermutationPlan& tables = *plan_.tables();
  // The permutation only moves bits, so sorting the fingerprints themselves
  // by the table's prefix mask groups the same runs as sorting permuted keys,
  // and distances need no unpermuting. Any starting order will do, so each
  // table sorts what the previous one left.
  const std::uint64_t mask = tables.prefix_mask(table);
  const std::uint64_t* sorted = fingerprints_.data();
  // A prefix of top bits is already grouped in the ascending fingerprints;
  // other tables sort a copy.
  if (!tables.prefix_is_top_bits(table)) {
    if (sorted_.size() != fingerprints_.size()) {
      sorted_.assign(fingerprints_.begin(), fingerprints_.end());
    }
    sorter_.sort_by_mask(sorted_, mask);
    sorted = sorted_.data();
  }
  std::vector<std::uint64_t> earlier_masks(static_cast<std::size_t>(table));
  for (int earlier = 0; earlier < table; ++earlier) {
    earlier_masks[earlier] = tables.prefix_mask(earlier);
  }
  walk_runs(sorted, fingerprints_.size(), mask, plan_.radius(), fingerprints_, earlier_masks.data(),
            table, out);
}

void GroupPairSearch::search_all_pairs_slice(std::vector<GroupPair>& out) {
  const std::size_t count = fingerprints_.size();
  const std::size_t row_begin = next_row_;
  std::size_t row_end = row_begin;
  std::size_t comparisons = 0;
  while (row_end + 1 < count && comparisons < kComparisonsBetweenChecks) {
    comparisons += count - 1 - row_end;
    ++row_end;
  }
  compare_rows(fingerprints_.data(), count, row_begin, row_end, plan_.radius(), out);
  next_row_ = row_end;
}

}  // namespace simhash
