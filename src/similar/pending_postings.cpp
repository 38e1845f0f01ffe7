// SPDX-License-Identifier: MIT
// PendingPostings: the log, the table from a feature to its newest change,
// and what searches and the flush read from them.
#include "similar/pending_postings.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <tuple>

namespace simhash {
namespace {

// Fibonacci hashing: the features are hashes already, but a caller's text
// chooses them, and the table's index is the product's top bits.
std::size_t home_slot(std::uint64_t feature, std::size_t slot_count) {
  constexpr std::uint64_t kMultiplier = 0x9E3779B97F4A7C15ULL;
  const int shift = 64 - std::countr_zero(slot_count);
  return static_cast<std::size_t>((feature * kMultiplier) >> shift);
}

// What the table's charge adds to its slots: the allocator maps a large
// array in whole pages, a page more than asked at most, for the table and
// the log alike, and this object holds the two arrays.
constexpr std::size_t kPage = 4096;
constexpr std::size_t kTableAllowance = 2 * kPage + sizeof(PendingPostings);

}  // namespace

std::size_t PendingPostings::slot_of(std::uint64_t feature) const {
  const std::size_t mask = slots_.size() - 1;
  std::size_t at = home_slot(feature, slots_.size());
  while (slots_[at].newest != kFreeSlot && slots_[at].feature != feature) {
    at = (at + 1) & mask;
  }
  return at;
}

std::uint32_t PendingPostings::newest_of(std::uint64_t feature) const {
  if (slots_.empty()) {
    return kNoChange;
  }
  const Slot& slot = slots_[slot_of(feature)];
  return slot.newest == kFreeSlot ? kNoChange : slot.newest;
}

void PendingPostings::reserve_slots(std::size_t keys) {
  if (2 * keys <= slots_.size()) {
    return;
  }
  const std::size_t count = std::max(kSmallestTable, std::bit_ceil(2 * keys));
  // While the table grows its old and new arrays are both held.
  slots_charge_.grow_to((slots_.size() + count) * sizeof(Slot) + kTableAllowance);
  std::vector<Slot> old(count, Slot{0, kFreeSlot});
  old.swap(slots_);
  used_slots_ = 0;
  live_keys_ = 0;
  for (const Slot& slot : old) {
    if (slot.newest != kFreeSlot && slot.newest != kNoChange) {
      slots_[slot_of(slot.feature)] = slot;
      ++used_slots_;
      ++live_keys_;
    }
  }
  old = {};
  slots_charge_.set(slots_.size() * sizeof(Slot) + kTableAllowance);
}

void PendingPostings::rebuild_table() {
  std::vector<Slot>().swap(slots_);
  used_slots_ = 0;
  live_keys_ = 0;
  slots_charge_.set(0);
  std::size_t keys = 0;
  for (std::size_t i = 0; i < log_.size(); ++i) {
    keys += log_[i].previous == kNoChange ? 1 : 0;
  }
  if (keys == 0) {
    return;
  }
  reserve_slots(keys);
  // The newest change of each feature is the last in the log.
  for (std::size_t i = 0; i < log_.size(); ++i) {
    Slot& slot = slots_[slot_of(log_[i].feature)];
    if (slot.newest == kFreeSlot) {
      ++used_slots_;
      ++live_keys_;
    }
    slot = Slot{log_[i].feature, static_cast<std::uint32_t>(i)};
  }
}

void PendingPostings::push(const Change& change) {
  if (log_.size() >= kFreeSlot) {
    throw std::length_error("simhash_similar: too many pending postings in one transaction");
  }
  reserve_charged(log_, log_.size() + 1, log_charge_);
  reserve_slots(used_slots_ + 1);
  Slot& slot = slots_[slot_of(change.feature)];
  std::uint32_t previous = kNoChange;
  if (slot.newest == kFreeSlot) {
    ++used_slots_;
    ++live_keys_;
  } else if (slot.newest == kNoChange) {
    ++live_keys_;
  } else {
    previous = slot.newest;
  }
  slot = Slot{change.feature, static_cast<std::uint32_t>(log_.size())};
  log_.push_back(Logged{change.feature, change.size, change.id, previous, change.insert});
}

void PendingPostings::clear() {
  log_.clear();
  if (log_.capacity() > kKeptCapacity) {
    std::vector<Logged>().swap(log_);
  }
  log_charge_.set(log_.capacity() * sizeof(Logged));
  std::vector<Slot>().swap(slots_);
  slots_charge_.set(0);
  used_slots_ = 0;
  live_keys_ = 0;
}

void PendingPostings::truncate(std::size_t count) {
  if (count >= log_.size()) {
    return;
  }
  // A feature's changes are chained newest first: the newest cut off hands
  // its slot to the change before it.
  for (std::size_t i = log_.size(); i > count; --i) {
    const Logged& cut = log_[i - 1];
    Slot& slot = slots_[slot_of(cut.feature)];
    slot.newest = cut.previous;
    live_keys_ -= cut.previous == kNoChange ? 1 : 0;
  }
  log_.resize(count);
  if (log_.capacity() > kKeptCapacity && 4 * count < log_.capacity()) {
    std::vector<Logged>(log_.begin(), log_.end()).swap(log_);
    log_charge_.set(log_.capacity() * sizeof(Logged));
  }
  if (slots_.size() > kSmallestTable && 8 * live_keys_ < slots_.size()) {
    rebuild_table();
  }
}

void PendingPostings::net_of(std::uint64_t feature, std::int64_t lowest, std::int64_t highest,
                             std::vector<Net>& out) const {
  out.clear();
  for (std::uint32_t at = newest_of(feature); at != kNoChange; at = log_[at].previous) {
    const Logged& change = log_[at];
    if (change.size >= lowest && change.size <= highest) {
      out.push_back({change.id, change.size, change.insert ? 1 : -1});
    }
  }
  std::sort(out.begin(), out.end(), [](const Net& a, const Net& b) {
    return std::tie(a.size, a.id) < std::tie(b.size, b.id);
  });
  // Sum each row's changes in place; rows left as they were drop out.
  std::size_t kept = 0;
  for (std::size_t begin = 0; begin < out.size();) {
    Net sum = out[begin];
    std::size_t end = begin + 1;
    for (; end < out.size() && out[end].size == sum.size && out[end].id == sum.id; ++end) {
      sum.net += out[end].net;
    }
    if (sum.net != 0) {
      out[kept++] = sum;
    }
    begin = end;
  }
  out.resize(kept);
}

std::int64_t PendingPostings::net_count(std::uint64_t feature) const {
  std::int64_t net = 0;
  for (std::uint32_t at = newest_of(feature); at != kNoChange; at = log_[at].previous) {
    net += log_[at].insert ? 1 : -1;
  }
  return net;
}

PendingPostings::Saved PendingPostings::save(std::size_t count) const {
  Saved saved;
  count = std::min(count, log_.size());
  saved.charge.grow_to(count * sizeof(Change));
  saved.changes.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    saved.changes.push_back({log_[i].feature, log_[i].size, log_[i].id, log_[i].insert});
  }
  return saved;
}

void PendingPostings::restore(const Saved& saved, std::size_t count) {
  count = std::min(count, saved.size());
  clear();
  reserve_charged(log_, count, log_charge_);
  for (std::size_t i = 0; i < count; ++i) {
    push(saved.changes[i]);
  }
}

std::vector<PendingPostings::Change> PendingPostings::merged_changes(MemoryCharge& charge) const {
  // Each change with its place in the log, sorted by posting and then by
  // place, so that a posting's first and last change are its group's ends.
  struct Placed {
    std::int64_t feature;  // as SQL orders the column
    std::int64_t size;
    std::int64_t id;
    std::uint32_t place;
    bool insert;
  };
  charge.grow_to(log_.size() * (sizeof(Placed) + sizeof(Change)));
  std::vector<Placed> placed;
  placed.reserve(log_.size());
  for (std::size_t i = 0; i < log_.size(); ++i) {
    const Logged& c = log_[i];
    placed.push_back({static_cast<std::int64_t>(c.feature), c.size, c.id,
                      static_cast<std::uint32_t>(i), c.insert});
  }
  std::sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) {
    return std::tie(a.feature, a.size, a.id, a.place) < std::tie(b.feature, b.size, b.id, b.place);
  });
  std::vector<Change> merged;
  merged.reserve(placed.size());
  for (std::size_t begin = 0; begin < placed.size();) {
    std::size_t end = begin + 1;
    while (end < placed.size() && placed[end].feature == placed[begin].feature &&
           placed[end].size == placed[begin].size && placed[end].id == placed[begin].id) {
      ++end;
    }
    const Placed& first = placed[begin];
    const Placed& last = placed[end - 1];
    if (first.insert == last.insert) {
      merged.push_back({static_cast<std::uint64_t>(last.feature), last.size, last.id, last.insert});
    }
    begin = end;
  }
  return merged;
}

}  // namespace simhash
