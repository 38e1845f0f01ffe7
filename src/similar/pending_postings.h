// SPDX-License-Identifier: MIT
// PendingPostings: the postings simhash_similar's writes have not yet
// written to its postings table, in the order they happened. A row's
// postings are one B-tree entry per feature, each on a page of its own; a
// trigger-driven insert runs inside a statement savepoint, where writing them
// at once copies every such page to the statement journal, once per row. Kept
// here they are written together at commit (merged_changes: sorted, each net
// change once), and a search reads them beside the stored ones (net_of).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <tuple>
#include <unordered_map>
#include <utility>
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
  // refusal or a failed allocation leaves the log and the lookup in step.
  void push(const Change& change) {
    reserve_charged(changes_, changes_.size() + 1, charge_);
    auto it = by_feature_.find(change.feature);
    if (it == by_feature_.end()) {
      lookup_charge_.grow_to(lookup_bytes_ + kEntryBytes);
      it = by_feature_.try_emplace(change.feature).first;
      lookup_bytes_ += kEntryBytes;
    }
    std::vector<Delta>& deltas = it->second;
    if (deltas.size() == deltas.capacity()) {
      // While the vector grows its old and new buffers are both held.
      const std::size_t capacity = std::max<std::size_t>(2, 2 * deltas.capacity());
      lookup_charge_.grow_to(lookup_bytes_ + capacity * sizeof(Delta));
      const std::size_t before = deltas.capacity();
      deltas.reserve(capacity);
      lookup_bytes_ += (deltas.capacity() - before) * sizeof(Delta);
    }
    changes_.push_back(change);
    deltas.push_back(Delta{change.size, change.id, change.insert ? 1 : -1});
  }
  std::size_t size() const { return changes_.size(); }
  bool empty() const { return changes_.empty(); }
  void clear() {
    changes_.clear();
    // Its bucket array too: it is as large as the most features it held.
    std::unordered_map<std::uint64_t, std::vector<Delta>>().swap(by_feature_);
    lookup_bytes_ = 0;
    lookup_charge_.set(0);
    if (changes_.capacity() > kKeptCapacity) {
      std::vector<Change>().swap(changes_);
    }
    charge_.set(changes_.capacity() * sizeof(Change));
  }
  // Drops the changes from `count` on (a savepoint rolled back).
  void truncate(std::size_t count) {
    // A feature's deltas are in the order of the changes: the newest last.
    for (std::size_t i = changes_.size(); i > count; --i) {
      const auto it = by_feature_.find(changes_[i - 1].feature);
      it->second.pop_back();
      if (it->second.empty()) {
        lookup_bytes_ -= kEntryBytes + it->second.capacity() * sizeof(Delta);
        by_feature_.erase(it);
      }
    }
    if (count < changes_.size()) {
      changes_.resize(count);
      lookup_charge_.set(lookup_bytes_);
    }
  }

  // Per row (size, id) of `feature` with a size in [lowest, highest], what the
  // pending changes do to its posting: +1 added, -1 removed (stored before);
  // rows they leave as they were are left out.
  struct Net {
    std::int64_t id;
    std::int64_t size;
    int net;
  };
  void net_of(std::uint64_t feature, std::int64_t lowest, std::int64_t highest,
              std::vector<Net>& out) const {
    out.clear();
    const auto it = by_feature_.find(feature);
    if (it == by_feature_.end()) {
      return;
    }
    std::vector<Delta> deltas;
    for (const Delta& delta : it->second) {
      if (delta.size >= lowest && delta.size <= highest) {
        deltas.push_back(delta);
      }
    }
    std::stable_sort(deltas.begin(), deltas.end(), [](const Delta& a, const Delta& b) {
      return std::pair(a.size, a.id) < std::pair(b.size, b.id);
    });
    for (std::size_t begin = 0; begin < deltas.size();) {
      int net = 0;
      std::size_t end = begin;
      for (; end < deltas.size() && deltas[end].size == deltas[begin].size &&
             deltas[end].id == deltas[begin].id;
           ++end) {
        net += deltas[end].delta;
      }
      if (net != 0) {
        out.push_back({deltas[begin].id, deltas[begin].size, net});
      }
      begin = end;
    }
  }

  // The net change the pending changes make to the number of postings of
  // `feature` (of any size): what a kept count of it lacks until the flush.
  std::int64_t net_count(std::uint64_t feature) const {
    const auto it = by_feature_.find(feature);
    std::int64_t net = 0;
    if (it != by_feature_.end()) {
      for (const Delta& delta : it->second) {
        net += delta.delta;
      }
    }
    return net;
  }

  // A copy of the first changes (ext/common/savepoint_marks.h).
  struct Saved {
    std::vector<Change> changes;
    MemoryCharge charge;
    std::size_t size() const { return changes.size(); }
  };
  Saved save(std::size_t count) const {
    Saved saved;
    count = std::min(count, changes_.size());
    saved.charge.grow_to(count * sizeof(Change));
    saved.changes.assign(changes_.begin(), changes_.begin() + static_cast<std::ptrdiff_t>(count));
    return saved;
  }
  void restore(const Saved& saved, std::size_t count) {
    count = std::min(count, saved.size());
    clear();
    reserve_charged(changes_, count, charge_);
    for (std::size_t i = 0; i < count; ++i) {
      push(saved.changes[i]);
    }
  }

  // The net change per posting, sorted by (feature, size, id) so that the
  // writes walk the postings B-tree in order: an insert where the first and
  // last change of a posting are inserts (it was absent and is present),
  // a delete where both are deletes; nothing where they differ. `charge`
  // covers the answer (and the order sorted on the way) while it is held.
  std::vector<Change> merged_changes(MemoryCharge& charge) const {
    charge.grow_to(changes_.size() * (sizeof(std::uint32_t) + sizeof(Change)));
    std::vector<std::uint32_t> order(changes_.size());
    std::iota(order.begin(), order.end(), 0U);
    const auto key = [&](std::uint32_t i) {
      const Change& c = changes_[i];
      return std::tuple(static_cast<std::int64_t>(c.feature), c.size, c.id);
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
    std::vector<Change> merged;
    merged.reserve(changes_.size());
    for (std::size_t begin = 0; begin < order.size();) {
      std::size_t end = begin + 1;
      while (end < order.size() && key(order[end]) == key(order[begin])) {
        ++end;
      }
      const Change& first = changes_[order[begin]];
      const Change& last = changes_[order[end - 1]];
      if (first.insert == last.insert) {
        merged.push_back(last);
      }
      begin = end;
    }
    return merged;
  }

 private:
  static constexpr std::size_t kKeptCapacity = 4096;
  // A change as a search sees it, grouped by feature.
  struct Delta {
    std::int64_t size;
    std::int64_t id;
    int delta;  // +1 insert, -1 delete
  };
  // What one feature's entry in by_feature_ holds besides its deltas: the
  // hash node (next pointer, key, vector, cached hash) and a bucket pointer
  // of the table, taken a little large (the table's load factor is 1 at most,
  // and a rehash holds the old and new bucket arrays for a moment).
  static constexpr std::size_t kEntryBytes = sizeof(void*) + sizeof(std::uint64_t) +
                                             sizeof(std::vector<Delta>) + sizeof(std::size_t) +
                                             2 * sizeof(void*);
  std::vector<Change> changes_;
  MemoryCharge charge_;  // changes_
  std::unordered_map<std::uint64_t, std::vector<Delta>> by_feature_;
  // by_feature_: its entries and their deltas' capacity, charged as they grow.
  std::size_t lookup_bytes_ = 0;
  MemoryCharge lookup_charge_;
};

}  // namespace simhash
