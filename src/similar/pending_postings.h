// SPDX-License-Identifier: MIT
// PendingPostings: the postings simhash_similar's writes have not yet
// written to its postings table, in the order they happened. A row's
// postings are one B-tree entry per feature, each on a page of its own; a
// trigger-driven insert runs inside a statement savepoint, where writing them
// at once copies every such page to the statement journal, once per row. Kept
// here they are written together at commit (merged_changes: sorted, each net
// change once), and a search reads them beside the stored ones (net_of).
//
// The log is one array; each entry links to the previous change of its
// feature, and an open-addressing table maps a feature to its newest change.
// A push is an append and a table probe, with no allocation of its own, so a
// load that never searches pays for little more than the log.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "util/memory_budget.h"

namespace simhash {

class PendingPostings {
 public:
  struct Change {
    std::uint64_t feature;
    std::int64_t size;
    std::int64_t id;
    bool insert;  // else a delete of a posting stored (or pending) before
  };

  // Charges (util/memory_budget.h) and allocates first, then appends: a
  // refusal or a failed allocation leaves the log and the table in step.
  void push(const Change& change);
  std::size_t size() const { return log_.size(); }
  bool empty() const { return log_.empty(); }
  // Empties the log, and gives back the table and a large log's memory.
  void clear();
  // Drops the changes from `count` on (a savepoint rolled back).
  void truncate(std::size_t count);

  // Per row (size, id) of `feature` with a size in [lowest, highest], what the
  // pending changes do to its posting: +1 added, -1 removed (stored before);
  // rows they leave as they were are left out. In (size, id) order.
  struct Net {
    std::int64_t id;
    std::int64_t size;
    int net;
  };
  void net_of(std::uint64_t feature, std::int64_t lowest, std::int64_t highest,
              std::vector<Net>& out) const;

  // The net change the pending changes make to the number of postings of
  // `feature` (of any size): what a kept count of it lacks until the flush.
  std::int64_t net_count(std::uint64_t feature) const;

  // A copy of the first changes (ext/common/savepoint_marks.h).
  struct Saved {
    std::vector<Change> changes;
    MemoryCharge charge;
    std::size_t size() const { return changes.size(); }
  };
  Saved save(std::size_t count) const;
  void restore(const Saved& saved, std::size_t count);

  // The net change per posting, sorted by (feature as a signed SQL integer,
  // size, id) so that the writes walk the postings B-tree in order: an insert
  // where the first and last change of a posting are inserts (it was absent
  // and is present), a delete where both are deletes; nothing where they
  // differ. `charge` covers the answer (and the copy sorted on the way)
  // while it is held.
  std::vector<Change> merged_changes(MemoryCharge& charge) const;

 private:
  // No change: the end of a feature's chain.
  static constexpr std::uint32_t kNoChange = 0xFFFFFFFF;
  // A log entry: the change, and the index of the previous change of the
  // same feature (kNoChange for the first).
  struct Logged {
    std::uint64_t feature;
    std::int64_t size;
    std::int64_t id;
    std::uint32_t previous;
    bool insert;
  };
  // A slot of the table: a feature and the index of its newest change. A
  // slot is free while `newest` is kFreeSlot; a feature whose changes were
  // all cut off by truncate keeps its slot with kNoChange until a rebuild.
  static constexpr std::uint32_t kFreeSlot = 0xFFFFFFFE;
  struct Slot {
    std::uint64_t feature;
    std::uint32_t newest;
  };
  // A log this long or shorter keeps its memory when cleared.
  static constexpr std::size_t kKeptCapacity = 4096;
  static constexpr std::size_t kSmallestTable = 64;

  // The slot of `feature`: its own, or the free one where it would go.
  std::size_t slot_of(std::uint64_t feature) const;
  // The newest change of `feature`, or kNoChange.
  std::uint32_t newest_of(std::uint64_t feature) const;
  // Makes the table hold `keys` features at a load of at most one half.
  void reserve_slots(std::size_t keys);
  // The table anew, sized for the features the log holds (a truncate that
  // left most slots without changes).
  void rebuild_table();

  std::vector<Logged> log_;
  MemoryCharge log_charge_;
  std::vector<Slot> slots_;  // a power of two long, or empty
  MemoryCharge slots_charge_;
  std::size_t used_slots_ = 0;  // slots not free
  std::size_t live_keys_ = 0;   // slots whose feature has a change in the log
};

}  // namespace simhash
