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
//
// Each prefix is kept in that order, so a probe meets an entry first at the
// earliest slot their prefixes share, and that slot's place in each set
// bounds the overlap (the positional filter of PPJoin: Xiao, Wang, Lin and
// Yu, WWW 2008), which drops most candidates before their features are
// read (on 1M real-like rows, 3 of 4; positions_allow says why slots keep
// it exact).
#pragma once

#include <algorithm>
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

// Whether two binary sets may reach Jaccard `threshold` when the earliest
// slot their prefixes share holds the feature at `position_a` of `a` (the
// first of `a`'s in that slot) and at `position_b` of `b`: no shared
// feature comes before either. One that did would be in both prefixes, and
// in a slot met earlier, unless it fell in this slot, whose features are
// next to each other in the order (the slot is the order's second key):
// then it would be the slot's first in `a` or in `b`. So the overlap is at
// most min(|a| - position_a, |b| - position_b).
bool positions_allow(std::size_t size_a, std::size_t position_a, std::size_t size_b,
                     std::size_t position_b, double threshold);

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

// The prefix (as slots, in the global order: a slot a prefix holds twice is
// next to itself) of every node of one FeatureRows, built on `threads`
// threads (the same prefixes for any count); `check` runs on the caller's
// thread only.
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
  // Keeps the entry marked last marked, but takes it out of marked(): one
  // a probe must not report, nor meet again.
  void unlist_last() {
    unlisted_.push_back(marked_.back());
    marked_.pop_back();
  }
  // The entries marked since the last clear(), in the order marked.
  const std::vector<std::uint32_t>& marked() const { return marked_; }
  void clear() {
    for (const std::uint32_t entry : marked_) {
      bits_[entry / 64] = 0;
    }
    for (const std::uint32_t entry : unlisted_) {
      bits_[entry / 64] = 0;
    }
    marked_.clear();
    unlisted_.clear();
  }

 private:
  std::vector<std::uint64_t> bits_;
  std::vector<std::uint32_t> marked_;
  std::vector<std::uint32_t> unlisted_;
};

// Entries (numbered 0, 1, ... in the order added) by the slots of their
// prefix, each posting with the slot's place in the entry's prefix and the
// entry's size, for positions_allow. Room is made up front for every prefix
// that may be added. Probes only read it, so any number of threads may
// probe at once while nothing is added.
class PostingIndex {
 public:
  // An entry under one slot: 8 bytes. A size of kUnknownSize or more is
  // kept as kUnknownSize, and such an entry is never filtered by position.
  static constexpr std::uint16_t kUnknownSize = 0xFFFF;
  struct Posting {
    std::uint32_t entry;
    std::uint16_t position;  // of the slot's first feature in the entry's order
    std::uint16_t size;      // the entry's features, or kUnknownSize
  };
  static Posting posting(std::uint32_t entry, std::size_t position, std::size_t size) {
    const bool known = size < kUnknownSize;
    return Posting{entry, static_cast<std::uint16_t>(known ? position : 0),
                   known ? static_cast<std::uint16_t>(size) : kUnknownSize};
  }

  // Its tables are sized and filled on `threads` threads (the same tables
  // for any count); `check` runs on the caller's thread only.
  PostingIndex(std::size_t slot_count, std::span<const std::uint32_t> every_slot_to_come,
               const CheckPoint& check = {}, unsigned threads = 1);

  // Adds the next entry, of `size` features, under its prefix's `slots`;
  // returns its number.
  std::uint32_t add(std::span<const std::uint32_t> slots, std::size_t size);
  // Numbers the next `count` entries, the first returned, and leaves their
  // postings to enter(): so threads may enter them, each its own slots.
  std::uint32_t number(std::uint32_t count) {
    const std::uint32_t first = size_;
    size_ += count;
    return first;
  }
  // Enters `posting` under `slot`: a slot's entries in ascending order, by
  // one thread at a time.
  void enter(std::uint32_t slot, Posting posting) { postings_[bounds_[slot].end++] = posting; }
  // Calls on_posting(slot, posting) for each slot of the prefix `slots` of
  // `entry`, of `size` features: a slot the prefix holds twice, once, at
  // its first place.
  template <typename OnPosting>
  static void each_posting(std::uint32_t entry, std::span<const std::uint32_t> slots,
                           std::size_t size, OnPosting&& on_posting) {
    for (std::size_t i = 0; i < slots.size(); ++i) {
      if (i == 0 || slots[i] != slots[i - 1]) {
        on_posting(slots[i], posting(entry, i, size));
      }
    }
  }
  // Enters the entries [first, end), entry e under those of slots_of(e)
  // (of size_of(e) features) that owns(slot): threads whose slots are
  // disjoint may enter at once. The slots' bounds and then their postings'
  // lines are asked for some entries ahead (each a cache miss, else waited
  // for one at a time).
  template <typename SlotsOf, typename SizeOf, typename Owns>
  void enter(std::uint32_t first, std::uint32_t end, SlotsOf&& slots_of, SizeOf&& size_of,
             Owns&& owns) {
    constexpr std::uint32_t kAhead = 4;  // entries between each step
    for (std::uint32_t entry = first; entry < end + 2 * kAhead; ++entry) {
      if (entry < end) {
        for (const std::uint32_t slot : slots_of(entry)) {
          if (owns(slot)) {
            __builtin_prefetch(&bounds_[slot], 1);
          }
        }
      }
      if (entry >= first + kAhead && entry - kAhead < end) {
        for (const std::uint32_t slot : slots_of(entry - kAhead)) {
          if (owns(slot)) {
            __builtin_prefetch(&postings_[bounds_[slot].end], 1);
          }
        }
      }
      if (entry >= first + 2 * kAhead) {
        const std::uint32_t entering = entry - 2 * kAhead;
        each_posting(entering, slots_of(entering), size_of(entering),
                     [&](std::uint32_t slot, Posting posting) {
                       if (owns(slot)) {
                         enter(slot, posting);
                       }
                     });
      }
    }
  }
  // One posting to enter, under `slot`.
  struct Entering {
    std::uint32_t slot;
    Posting posting;
  };
  // Enters `postings` in their order (each slot's entries ascending), asking
  // for bounds and posting lines ahead as above.
  void enter(std::span<const Entering> postings) {
    constexpr std::size_t kAhead = 8;
    for (std::size_t i = 0; i < postings.size(); ++i) {
      if (i + 2 * kAhead < postings.size()) {
        __builtin_prefetch(&bounds_[postings[i + 2 * kAhead].slot], 1);
      }
      if (i + kAhead < postings.size()) {
        __builtin_prefetch(&postings_[bounds_[postings[i + kAhead].slot].end], 1);
      }
      enter(postings[i].slot, postings[i].posting);
    }
  }
  std::size_t size() const { return size_; }

  // A probe: the prefix `slots` of a set of `size` features, for the
  // entries that may reach Jaccard `threshold` with it.
  struct Probe {
    std::span<const std::uint32_t> slots;
    std::size_t size;
    double threshold;
  };
  // Calls on_entry(entry) once for each entry numbered in [from, to) under
  // one of the probe's slots whose positions allow the threshold (at the
  // first slot it is met under), in the order met (slot by slot, newest
  // first within a slot). `marks` is the caller's own (one per thread) and
  // is left clear. After each slot, on_walked(postings) says how many of
  // its postings were looked at (or skipped past, once past the budget
  // below): a probe of common slots walks many that
  // no entry comes of, work the caller counts between its checks (if
  // on_walked throws, `marks` is left as it is, for no later probe).
  template <typename OnEntry, typename OnWalked>
  void for_each_entry(const Probe& probe, std::uint32_t from, std::uint32_t to, EntryMarks& marks,
                      OnEntry&& on_entry, OnWalked&& on_walked) const {
    for_each_entry(probe, from, to, to, 0, marks, on_entry, on_walked);
  }
  // The same, but of the entries in [cut, to) (a join's newest, which a
  // probe may meet many of) at most `budget` postings are looked at: past
  // that, none of them is reported, only those in [from, cut), and it
  // returns false. So a probe costs at most `budget` steps there, however
  // many entries share its slots.
  template <typename OnEntry, typename OnWalked>
  bool for_each_entry(const Probe& probe, std::uint32_t from, std::uint32_t cut, std::uint32_t to,
                      std::size_t budget, EntryMarks& marks, OnEntry&& on_entry,
                      OnWalked&& on_walked) const {
    bool within = true;
    const std::span<const std::uint32_t> slots = probe.slots;
    for (std::size_t position = 0; position < slots.size(); ++position) {
      const std::uint32_t slot = slots[position];
      if (position > 0 && slot == slots[position - 1]) {
        continue;  // met at its first place
      }
      // Marked (met) either way; listed only where the positions allow.
      const auto meet = [&](const Posting& posting) {
        if (marks.mark(posting.entry) && posting.size != kUnknownSize &&
            !positions_allow(probe.size, position, posting.size, posting.position,
                             probe.threshold)) {
          marks.unlist_last();
        }
      };
      const std::uint32_t first = bounds_[slot].begin;
      std::uint32_t at = bounds_[slot].end;
      if (at > first && postings_[at - 1].entry >= to) {
        at = first_at_least(first, at, to);  // entries from `to` on, skipped at once
      }
      const std::uint32_t walk_end = at;
      for (; at > first && postings_[at - 1].entry >= cut; --at) {
        if (!within || budget == 0) {
          within = false;
          at = first_at_least(first, at, cut);
          break;
        }
        --budget;
        meet(postings_[at - 1]);
      }
      for (; at > first && postings_[at - 1].entry >= from; --at) {
        meet(postings_[at - 1]);
      }
      on_walked(std::size_t{walk_end - at});
    }
    for (const std::uint32_t entry : marks.marked()) {
      if (within || entry < cut) {
        on_entry(entry);
      }
    }
    marks.clear();
    return within;
  }

  // Takes out of each of `slots` (each named once) the entries numbered
  // `since` or more for which dead(entry) holds; the rest keep their order
  // and numbers. The cost is the slots' entries since `since`, told to
  // on_walked(postings) after each slot; their bounds are asked for some
  // slots ahead, as enter() does.
  template <typename Dead, typename OnWalked>
  void remove_since(std::span<const std::uint32_t> slots, std::uint32_t since, Dead&& dead,
                    OnWalked&& on_walked) {
    constexpr std::size_t kAhead = 8;
    for (std::size_t i = 0; i < slots.size(); ++i) {
      if (i + kAhead < slots.size()) {
        __builtin_prefetch(&bounds_[slots[i + kAhead]], 1);
      }
      Bounds& bounds = bounds_[slots[i]];
      std::uint32_t kept = bounds.end;
      while (kept > bounds.begin && postings_[kept - 1].entry >= since) {
        --kept;  // the newest are few: no search
      }
      const std::uint32_t newest = kept;
      for (std::uint32_t at = kept; at < bounds.end; ++at) {
        if (!dead(postings_[at].entry)) {
          postings_[kept++] = postings_[at];
        }
      }
      const std::size_t walked = bounds.end - newest;
      bounds.end = kept;
      on_walked(walked);
    }
  }

 private:
  // Slot s's entries are postings_[bounds_[s].begin, bounds_[s].end): the
  // two side by side, so that a probe's look at a slot is one cache line.
  struct Bounds {
    std::uint32_t begin;
    std::uint32_t end;
  };
  MemoryCharge charge_;  // memory_budget.h; first, charged before the rest exists
  TableVector<Bounds> bounds_;
  // Left uninitialized (untouched pages cost nothing): a slot's entries
  // are written by add() before any is read.
  std::unique_ptr<Posting[]> postings_;
  std::uint32_t size_ = 0;

  // Where in [first, end) a slot's entries (ascending) reach `entry`.
  std::uint32_t first_at_least(std::uint32_t first, std::uint32_t end, std::uint32_t entry) const {
    return static_cast<std::uint32_t>(
        std::lower_bound(
            postings_.get() + first, postings_.get() + end, entry,
            [](const Posting& posting, std::uint32_t value) { return posting.entry < value; }) -
        postings_.get());
  }
};

}  // namespace simhash
