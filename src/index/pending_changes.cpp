// SPDX-License-Identifier: MIT
// PendingChanges: the change log, its sorted runs and the correction of a
// stored answer (see pending_changes.h).
#include "index/pending_changes.h"

#include <algorithm>
#include <numeric>

#include "fingerprint/hamming.h"

namespace simhash {

PendingChanges::PendingChanges(const PermutationPlan& plan) : k_(plan.k()) {
  for (int table = 0; table < plan.table_count(); ++table) {
    prefix_masks_.push_back(plan.prefix_mask(table));
  }
}

void PendingChanges::clear() {
  if (rows_.capacity() > kKeptCapacity) {
    std::vector<Row>().swap(rows_);
    std::vector<bool>().swap(inserts_);
  }
  rows_.clear();
  inserts_.clear();
  deletes_ = 0;
  runs_.clear();
  rows_charge_.set(rows_.capacity() * sizeof(Row));
  runs_charge_.release();
}

void PendingChanges::truncate(std::size_t count) {
  if (count >= rows_.size()) {
    return;
  }
  for (std::size_t i = count; i < rows_.size(); ++i) {
    deletes_ -= inserts_[i] ? 0 : 1;
  }
  rows_.resize(count);
  inserts_.resize(count);
  // Runs are oldest first and cover [0, sorted_end()) in order: those that
  // reach past `count` go; the changes of a dropped run that remain are
  // searched one by one, or sorted again when a query finds many.
  while (!runs_.empty() && runs_.back().end > count) {
    runs_.pop_back();
  }
}

PendingChanges::Saved PendingChanges::save(std::size_t count) const {
  Saved saved;
  count = std::min(count, rows_.size());
  saved.charge_.grow_to(count * (sizeof(Row) + 1));
  saved.rows_.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    saved.rows_.emplace_back(rows_[i].id, rows_[i].fp);
  }
  saved.inserts_.assign(inserts_.begin(), inserts_.begin() + static_cast<std::ptrdiff_t>(count));
  return saved;
}

void PendingChanges::restore(const Saved& saved, std::size_t count) {
  clear();
  count = std::min(count, saved.size());
  reserve_charged(rows_, count, rows_charge_);
  inserts_.reserve(count);  // as push(): neither array grows in the loop
  for (std::size_t i = 0; i < count; ++i) {
    rows_.push_back(Row{saved.rows_[i].first, saved.rows_[i].second});
    inserts_.push_back(saved.inserts_[i]);
    deletes_ += saved.inserts_[i] ? 0 : 1;
  }
}

bool PendingChanges::room_for_one_more() {
  try {
    reserve_charged(rows_, rows_.size() + 1, rows_charge_);
    return true;
  } catch (const MemoryLimitExceeded&) {
    return false;
  }
}

PendingChanges::SortedRun PendingChanges::make_run(std::uint32_t begin, std::uint32_t end) const {
  SortedRun run;
  run.begin = begin;
  run.end = end;
  run.by_table.resize(prefix_masks_.size());
  for (std::size_t table = 0; table < prefix_masks_.size(); ++table) {
    std::vector<std::uint32_t>& order = run.by_table[table];
    order.resize(end - begin);
    std::iota(order.begin(), order.end(), begin);
    const std::uint64_t mask = prefix_masks_[table];
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return (rows_[a].fp & mask) < (rows_[b].fp & mask);
    });
  }
  return run;
}

PendingChanges::SortedRun PendingChanges::merge_runs(const SortedRun& older,
                                                     const SortedRun& newer) const {
  SortedRun run;
  run.begin = older.begin;
  run.end = newer.end;
  run.by_table.resize(prefix_masks_.size());
  for (std::size_t table = 0; table < prefix_masks_.size(); ++table) {
    const std::uint64_t mask = prefix_masks_[table];
    const auto& a = older.by_table[table];
    const auto& b = newer.by_table[table];
    run.by_table[table].resize(a.size() + b.size());
    std::merge(a.begin(), a.end(), b.begin(), b.end(), run.by_table[table].begin(),
               [&](std::uint32_t x, std::uint32_t y) {
                 return (rows_[x].fp & mask) < (rows_[y].fp & mask);
               });
  }
  return run;
}

void PendingChanges::sort_new_changes() {
  // Every change sorted once per table, and a merge's copy beside the runs.
  runs_charge_.grow_to(2 * rows_.size() * prefix_masks_.size() * sizeof(std::uint32_t));
  runs_.push_back(make_run(sorted_end(), static_cast<std::uint32_t>(rows_.size())));
  // Binary-counter merging: a run is merged into its predecessor while that
  // one is at most twice its size.
  while (runs_.size() >= 2) {
    const SortedRun& older = runs_[runs_.size() - 2];
    const SortedRun& newer = runs_.back();
    if (older.end - older.begin > 2 * (newer.end - newer.begin)) {
      break;
    }
    SortedRun merged = merge_runs(older, newer);
    runs_.pop_back();
    runs_.back() = std::move(merged);
  }
}

void PendingChanges::find_within(std::uint64_t query, int radius, std::vector<std::uint32_t>& out) {
  if (radius > k_) {  // beyond the pigeonhole argument: look at every change
    scan_within(0, query, radius, out);
    return;
  }
  if (rows_.size() - sorted_end() > kUnsortedLimit) {
    sort_new_changes();
  }
  for (const SortedRun& run : runs_) {
    for (std::size_t table = 0; table < prefix_masks_.size(); ++table) {
      const std::uint64_t mask = prefix_masks_[table];
      const std::uint64_t key = query & mask;
      const auto& order = run.by_table[table];
      auto it = std::lower_bound(
          order.begin(), order.end(), key,
          [&](std::uint32_t i, std::uint64_t k) { return (rows_[i].fp & mask) < k; });
      for (; it != order.end() && (rows_[*it].fp & mask) == key; ++it) {
        // A change that shares several tables' blocks with the query is
        // found once per table; apply_to does not mind repeats.
        if (hamming_distance(rows_[*it].fp, query) <= radius) {
          out.push_back(*it);
        }
      }
    }
  }
  scan_within(sorted_end(), query, radius, out);
}

void PendingChanges::scan_within(std::size_t from, std::uint64_t query, int radius,
                                 std::vector<std::uint32_t>& out) const {
  for (std::size_t i = from; i < rows_.size(); ++i) {
    if (hamming_distance(rows_[i].fp, query) <= radius) {
      out.push_back(static_cast<std::uint32_t>(i));
    }
  }
}

void PendingChanges::apply_to(std::uint64_t query, int radius, std::vector<IndexHit>& hits,
                              std::size_t first) {
  if (rows_.empty()) {
    return;
  }
  matches_.clear();
  find_within(query, radius, matches_);
  if (matches_.empty()) {
    return;
  }
  // A row's changes alternate insert(a), delete(a), insert(b), ... (a stored
  // row starts with delete(its fp)), each delete carrying the fingerprint the
  // insert before it gave. Keeping only the changes within the radius keeps
  // or drops such pairs whole, so among the kept changes of a row the last
  // one says whether the row is now within the radius, and a stored hit was
  // changed exactly when its row has a kept change.
  std::sort(matches_.begin(), matches_.end(), [&](std::uint32_t a, std::uint32_t b) {
    return rows_[a].id != rows_[b].id ? rows_[a].id < rows_[b].id : a < b;
  });
  const auto changed = [&](std::int64_t id) {
    const auto it =
        std::lower_bound(matches_.begin(), matches_.end(), id,
                         [&](std::uint32_t i, std::int64_t v) { return rows_[i].id < v; });
    return it != matches_.end() && rows_[*it].id == id;
  };
  hits.erase(std::remove_if(hits.begin() + static_cast<std::ptrdiff_t>(first), hits.end(),
                            [&](const IndexHit& hit) { return changed(hit.id); }),
             hits.end());
  for (std::size_t i = 0; i < matches_.size(); ++i) {
    const std::uint32_t change = matches_[i];
    const bool last_of_row =
        i + 1 == matches_.size() || rows_[matches_[i + 1]].id != rows_[change].id;
    if (last_of_row && inserts_[change]) {
      hits.push_back(IndexHit{rows_[change].id, static_cast<std::int64_t>(rows_[change].fp),
                              hamming_distance(rows_[change].fp, query)});
    }
  }
}

void PendingChanges::undo(std::vector<std::pair<std::int64_t, std::uint64_t>>& rows) const {
  if (rows_.empty()) {
    return;
  }
  // A row's first change says how it was: a delete carries the fingerprint
  // it had, an insert means it was absent.
  std::vector<std::uint32_t> order(rows_.size());
  std::iota(order.begin(), order.end(), 0U);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return rows_[a].id < rows_[b].id; });
  std::vector<std::pair<std::int64_t, std::uint64_t>> before;
  before.reserve(rows.size());
  auto row = rows.begin();
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::int64_t id = rows_[order[i]].id;
    if (i > 0 && rows_[order[i - 1]].id == id) {
      continue;  // not the row's first change
    }
    for (; row != rows.end() && row->first < id; ++row) {
      before.push_back(*row);
    }
    if (row != rows.end() && row->first == id) {
      ++row;  // its current state gives way to the state before
    }
    if (!inserts_[order[i]]) {
      before.emplace_back(id, rows_[order[i]].fp);
    }
  }
  before.insert(before.end(), row, rows.end());
  rows = std::move(before);
}

}  // namespace simhash
