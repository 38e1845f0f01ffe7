// SPDX-License-Identifier: MIT
// A set of row ids charged to the memory limit (memory_budget.h) before it
// grows: the batch functions keep the ids of the rows whose text has no
// fingerprint, which an input of wordless texts makes as many as its rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_set>

#include "util/memory_budget.h"

namespace simhash {

class ChargedIdSet {
 public:
  // What an id holds: its node (the id and a link, with the allocator's
  // header) and about a bucket.
  static constexpr std::size_t kBytesPerId = 48;

  void insert(std::int64_t id) {
    charge_.grow_to((ids_.size() + 1) * kBytesPerId);
    ids_.insert(id);
  }
  bool contains(std::int64_t id) const { return ids_.contains(id); }
  bool empty() const { return ids_.empty(); }
  // Frees the set and gives its charge back.
  void clear() {
    ids_ = std::unordered_set<std::int64_t>();
    charge_.release();
  }

 private:
  MemoryCharge charge_;  // first: given back after the set is freed
  std::unordered_set<std::int64_t> ids_;
};

}  // namespace simhash
