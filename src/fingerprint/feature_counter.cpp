// SPDX-License-Identifier: MIT
// Linear-probing hash table from feature hash to its entry; the hashes are
// XXH3 output, so their low bits are already uniformly spread.
#include "fingerprint/feature_counter.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>

namespace simhash {
namespace {

constexpr std::size_t kMinimumSlots = 256;
// The guess never allocates more than 1 MiB up front (a 10 MB text of ten
// distinct words needs 256 slots); larger tables come from growing.
constexpr std::size_t kMaximumInitialSlots = std::size_t{1} << 16U;

std::size_t power_of_two_at_least(std::size_t value) {
  std::size_t power = kMinimumSlots;
  while (power < value) {
    power *= 2;
  }
  return power;
}

}  // namespace

bool FeatureCounter::add(std::uint64_t hash) {
  if (2 * (entries_.size() + 1) > slots_.size()) {
    grow();
  }
  const std::size_t mask = slots_.size() - 1;
  const auto tag = static_cast<std::uint32_t>(hash >> 32U);
  for (std::size_t index = static_cast<std::size_t>(hash) & mask;; index = (index + 1) & mask) {
    Slot& slot = slots_[index];
    if (slot.entry == 0) {
      entries_.push_back({hash, 1});
      slot = {tag, static_cast<std::uint32_t>(entries_.size())};
      return true;
    }
    if (slot.tag == tag) {
      Entry& entry = entries_[slot.entry - 1];
      if (entry.hash == hash) {
        ++entry.count;
        return false;
      }
    }
  }
}

void FeatureCounter::clear(std::size_t expected_features, std::size_t most_features) {
  entries_.clear();
  most_features_ = most_features;
  if (most_features > entries_.capacity()) {
    entries_.reserve(most_features);
  }
  // A table sized for this text, at most half full: a small text then probes
  // a few kilobytes that stay in the L1 cache, instead of the table a large
  // text left behind.
  const std::size_t wanted =
      power_of_two_at_least(std::min(kMaximumInitialSlots, 2 * (expected_features + 1)));
  if (slots_.size() != wanted) {
    slots_.assign(wanted, Slot{0, 0});
  } else {
    std::fill(slots_.begin(), slots_.end(), Slot{0, 0});
  }
}

void FeatureCounter::grow() {
  // At most half full, as clear() sizes it: room for most_features_ at once
  // when that is more than twice the table (grow() then never runs again).
  const std::size_t size = std::max(
      {kMinimumSlots, 2 * slots_.size(),
       most_features_ > entries_.size() ? power_of_two_at_least(2 * (most_features_ + 1)) : 0});
  // Entry indexes are 32-bit (compared in 64 bits: a 32-bit size_t cannot
  // be shifted by 32).
  if (static_cast<std::uint64_t>(size) > (std::uint64_t{1} << 32U)) {
    throw std::length_error("simhash: too many distinct features");
  }
  slots_.assign(size, Slot{0, 0});
  const std::size_t mask = size - 1;
  for (std::size_t entry = 0; entry < entries_.size(); ++entry) {
    const std::uint64_t hash = entries_[entry].hash;
    std::size_t index = static_cast<std::size_t>(hash) & mask;
    while (slots_[index].entry != 0) {
      index = (index + 1) & mask;
    }
    slots_[index] = {static_cast<std::uint32_t>(hash >> 32U),
                     static_cast<std::uint32_t>(entry + 1)};
  }
}

}  // namespace simhash
