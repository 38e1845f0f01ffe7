// SPDX-License-Identifier: MIT
// The filters of an exact set-similarity join (AllPairs: Bayardo, Ma and
// Srikant, WWW 2007): with the features of every row in one global order,
// two sets at Jaccard t or more share one of the first |x| - ceil(t |x|) + 1
// features of each (the prefix), and their sizes are within a factor t.
//
// The order is (how many feature occurrences fall in the feature's slot,
// hash), rarest first, where a slot is the top bits of the hash. Any order
// serves as long as every row uses the same one; rarest first only makes
// fewer candidates. Slots rather than distinct features because counting
// them takes one table of bounded size instead of a sort of every feature
// (on 323K real texts: 328 MB in all instead of 864), and an index keyed by
// slot is an array: features that share a slot only add candidates, they
// never hide one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <vector>

#include "batch/feature_rows.h"
#include "fingerprint/feature_similarity.h"
#include "util/check_point.h"
#include "util/memory_budget.h"
#include "util/parallel_fill.h"

namespace simhash {

// False when two vectors cannot reach `threshold`: the sum of minima is at
// most the smaller sum of weights and the sum of maxima at least the larger,
// so their ratio bounds the weighted Jaccard. The margin keeps the bound from
// refusing a pair the exact merge would accept by a rounding.
bool may_reach(FeatureView a, FeatureView b, double threshold);

// Constructors below take the CheckPoint their work runs between
// (check_point.h): at 1M rows each is hundreds of ms.

// The global order: slot occurrences counted over every row given, on
// `threads` threads; `check` runs on the caller's thread only.
class SlotRanking {
 public:
  explicit SlotRanking(std::initializer_list<const FeatureRows*> rows, const CheckPoint& check = {},
                       unsigned threads = 1);
  std::size_t slot_count() const { return occurrences_.size(); }
  std::uint32_t slot_of(std::uint64_t hash) const {
    return static_cast<std::uint32_t>(hash >> (64 - slot_bits_));
  }
  // How many features of a set of `size` the join compares at `threshold`.
  static std::size_t prefix_length(std::size_t size, double threshold);

 private:
  friend class Prefixes;
  MemoryCharge charge_;  // memory_budget.h
  int slot_bits_;
  TableVector<std::uint32_t> occurrences_;  // by slot, saturating
};

// The prefix (as slots) of every node of one FeatureRows, built on
// `threads` threads (the same prefixes for any count); `check` runs on the
// caller's thread only.
class Prefixes {
 public:
  Prefixes(const FeatureRows& rows, const SlotRanking& ranking, double threshold,
           const CheckPoint& check = {}, unsigned threads = 1);
  std::span<const std::uint32_t> of(std::uint32_t node) const {
    return std::span<const std::uint32_t>(slots_).subspan(start_[node],
                                                          start_[node + 1] - start_[node]);
  }
  std::span<const std::uint32_t> all() const { return slots_; }

 private:
  MemoryCharge charge_;  // memory_budget.h
  TableVector<std::uint32_t> slots_;
  std::vector<std::size_t> start_;  // node n's are [start_[n], start_[n + 1])
};

// The entries one probe has met, one bit each, so that an entry under
// several of its slots is reported once. Each thread keeps its own and each
// probe clears the bits it set, so a set costs a bit an entry, not a word an
// entry for every thread.
class EntryMarks {
 public:
  // True the first time `entry` is marked since the last clear().
  bool mark(std::uint32_t entry) {
    const std::size_t word = entry / 64;
    if (word >= bits_.size()) {
      bits_.resize(word + 1, 0);
    }
    const std::uint64_t bit = std::uint64_t{1} << (entry % 64);
    if ((bits_[word] & bit) != 0) {
      return false;
    }
    bits_[word] |= bit;
    marked_.push_back(entry);
    return true;
  }
  // The entries marked since the last clear(), in the order marked.
  const std::vector<std::uint32_t>& marked() const { return marked_; }
  void clear() {
    for (const std::uint32_t entry : marked_) {
      bits_[entry / 64] = 0;
    }
    marked_.clear();
  }

 private:
  std::vector<std::uint64_t> bits_;
  std::vector<std::uint32_t> marked_;
};

// Entries (numbered 0, 1, ... in the order added) by the slots of their
// prefix. Room is made up front for every prefix that may be added. Probes
// only read it, so any number of threads may probe at once while nothing
// is added.
class PostingIndex {
 public:
  // Its tables are sized and filled on `threads` threads (the same tables
  // for any count); `check` runs on the caller's thread only.
  PostingIndex(std::size_t slot_count, std::span<const std::uint32_t> every_slot_to_come,
               const CheckPoint& check = {}, unsigned threads = 1);

  // Adds the next entry under `slots`; returns its number.
  std::uint32_t add(std::span<const std::uint32_t> slots);
  std::size_t size() const { return size_; }

  // Calls on_entry(entry) once for each entry numbered in [from, to) under
  // one of `slots`, in the order met (slot by slot, newest first within a
  // slot). `marks` is the caller's own (one per thread) and is left clear.
  template <typename OnEntry>
  void for_each_entry(std::span<const std::uint32_t> slots, std::uint32_t from, std::uint32_t to,
                      EntryMarks& marks, OnEntry&& on_entry) const {
    for (const std::uint32_t slot : slots) {
      for (std::uint32_t at = end_[slot]; at > begin_[slot] && postings_[at - 1] >= from; --at) {
        const std::uint32_t entry = postings_[at - 1];
        if (entry < to) {
          marks.mark(entry);
        }
      }
    }
    for (const std::uint32_t entry : marks.marked()) {
      on_entry(entry);
    }
    marks.clear();
  }

 private:
  MemoryCharge charge_;               // memory_budget.h; first, charged before the rest exists
  TableVector<std::uint32_t> begin_;  // slot s's entries are postings_[begin_[s], end_[s])
  TableVector<std::uint32_t> end_;
  // Left uninitialized (untouched pages cost nothing): a slot's entries
  // are written by add() before any is read.
  std::unique_ptr<std::uint32_t[]> postings_;
  std::uint32_t size_ = 0;
};

}  // namespace simhash
