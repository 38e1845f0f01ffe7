// SPDX-License-Identifier: MIT
// The index's changes not yet merged into its stored buckets, in the order
// they happened, and the search that lets a query see them without merging
// them first. Merging writes shadow tables; a read that merged would change
// the caller's changes() and total_changes(), so reads search the buffer and
// correct what the stored buckets answer (apply_to).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "index/permutation_plan.h"
#include "util/memory_budget.h"

namespace simhash {

struct IndexHit {
  std::int64_t id;
  std::int64_t fp;
  int distance;
};

// The order of "nearest first": by distance, ties by rowid.
inline bool nearer(const IndexHit& a, const IndexHit& b) {
  return a.distance != b.distance ? a.distance < b.distance : a.id < b.id;
}

class PendingChanges {
 public:
  explicit PendingChanges(const PermutationPlan& plan);

  // A change: the row `id` gained fingerprint `fp` (insert) or lost it
  // (delete, with the fingerprint it had). An update is a delete then an
  // insert.
  // Charged against the memory limit (memory_budget.h) before it grows;
  // room_for_one_more() says beforehand whether it can.
  void push(std::int64_t id, std::uint64_t fp, bool insert) {
    reserve_charged(rows_, rows_.size() + 1, rows_charge_);
    // Both arrays grow before either changes: an allocation that fails
    // leaves them the same length (a ROLLBACK TO truncates both).
    inserts_.reserve(rows_.capacity());
    rows_.push_back(Row{id, fp});
    inserts_.push_back(insert);
    deletes_ += insert ? 0 : 1;
  }
  std::size_t size() const { return rows_.size(); }
  // How many of the changes are deletes: at most this many stored rows
  // are gone or moved (each has a delete among its changes).
  std::size_t deletes() const { return deletes_; }
  // False when the next push would pass the memory limit: the caller
  // merges the changes first rather than fail.
  bool room_for_one_more();
  bool empty() const { return rows_.empty(); }
  std::int64_t id(std::size_t i) const { return rows_[i].id; }
  std::uint64_t fp(std::size_t i) const { return rows_[i].fp; }
  bool is_insert(std::size_t i) const { return inserts_[i]; }
  // Forgets every change (merged, or rolled back); also returns the memory
  // when it is large (after a big transaction).
  void clear();
  // Forgets the changes from `count` on (a savepoint rolled back: they came
  // after it), keeping the sorted runs that lie wholly before it.
  void truncate(std::size_t count);

  // A copy of the first changes, kept while a savepoint that came after them
  // is open: a merge writes them to the buckets, and if SQLite then rolls
  // back to that savepoint it undoes the merge, so they are pending again
  // (restore). Charged against the memory limit like the changes.
  class Saved {
   public:
    std::size_t size() const { return rows_.size(); }

   private:
    friend class PendingChanges;
    std::vector<std::pair<std::int64_t, std::uint64_t>> rows_;
    std::vector<bool> inserts_;
    MemoryCharge charge_;
  };
  // The first `count` changes (count <= size()).
  Saved save(std::size_t count) const;
  // Replaces every change by the first `count` of `saved` (count <= its size).
  void restore(const Saved& saved, std::size_t count);

  // Whether queries have sorted changes into runs (they cost 4 bytes per
  // change per table on top of the 17 of the change itself).
  bool searched() const { return !runs_.empty(); }

  // `hits[first..]` holds what the stored buckets answer for `query` within
  // `radius`; corrects it to what they would answer with
  // every change merged: rows deleted or moved away since are removed, rows
  // inserted or moved within `radius` are added. Order is not kept.
  void apply_to(std::uint64_t query, int radius, std::vector<IndexHit>& hits, std::size_t first);

  // `rows` holds every (id, fp) as they are now, sorted by id; turns it into
  // the rows as they were before the pending changes (what the stored
  // buckets hold), sorted by id.
  void undo(std::vector<std::pair<std::int64_t, std::uint64_t>>& rows) const;

 private:
  struct Row {
    std::int64_t id;
    std::uint64_t fp;
  };
  // Changes [begin, end), as indexes sorted per table by the fingerprint's
  // bits in that table's leading blocks: the changes within k of a query are
  // in one equal range per table (the plan's pigeonhole argument).
  struct SortedRun {
    std::uint32_t begin = 0;
    std::uint32_t end = 0;
    std::vector<std::vector<std::uint32_t>> by_table;
  };
  // Up to this many newest changes are searched one by one; beyond it they
  // are sorted into a run when a query comes.
  static constexpr std::size_t kUnsortedLimit = 512;
  static constexpr std::size_t kKeptCapacity = 4096;

  // Sorts the unsorted changes into a run and merges runs of similar size,
  // so a query looks at O(log n) runs and each change is merged O(log n) times.
  void sort_new_changes();
  SortedRun make_run(std::uint32_t begin, std::uint32_t end) const;
  SortedRun merge_runs(const SortedRun& older, const SortedRun& newer) const;
  // Appends to `out` the index of every change within `radius` of `query`,
  // some more than once.
  void find_within(std::uint64_t query, int radius, std::vector<std::uint32_t>& out);
  // The same for changes [from, size()), one by one.
  void scan_within(std::size_t from, std::uint64_t query, int radius,
                   std::vector<std::uint32_t>& out) const;

  std::uint32_t sorted_end() const { return runs_.empty() ? 0 : runs_.back().end; }

  int k_;
  MemoryCharge rows_charge_;                 // rows_ and inserts_
  MemoryCharge runs_charge_;                 // runs_, and a merge's copy
  std::vector<std::uint64_t> prefix_masks_;  // per table, in fingerprint bits
  std::vector<Row> rows_;
  std::vector<bool> inserts_;
  std::size_t deletes_ = 0;             // the false ones of inserts_
  std::vector<SortedRun> runs_;         // oldest (largest) first; they cover [0, sorted_end())
  std::vector<std::uint32_t> matches_;  // scratch of apply_to
};

}  // namespace simhash
