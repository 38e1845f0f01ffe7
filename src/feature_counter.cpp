// Linear-probing hash table from feature hash to its entry; the hashes are
// XXH3 output, so their low bits are already uniformly spread.
#include "feature_counter.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>

namespace simhash {
namespace {

constexpr std::size_t kInitialSlots = 256;
// After a text that needed fewer than 1/64 of the slots, free the table rather
// than clearing all of it for every later small text.
constexpr std::size_t kShrinkRatio = 64;

}  // namespace

bool FeatureCounter::add(std::uint64_t hash) {
  if (2 * (entries_.size() + 1) > slots_.size()) {
    grow();
  }
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t slot = static_cast<std::size_t>(hash) & mask;; slot = (slot + 1) & mask) {
    const std::uint32_t occupant = slots_[slot];
    if (occupant == 0) {
      entries_.push_back({hash, 1});
      slots_[slot] = static_cast<std::uint32_t>(entries_.size());
      return true;
    }
    Entry& entry = entries_[occupant - 1];
    if (entry.hash == hash) {
      ++entry.count;
      return false;
    }
  }
}

void FeatureCounter::clear() {
  if (slots_.size() > kShrinkRatio * std::max<std::size_t>(entries_.size(), kInitialSlots)) {
    slots_.clear();
    slots_.shrink_to_fit();
    entries_.clear();
    entries_.shrink_to_fit();
    return;
  }
  std::fill(slots_.begin(), slots_.end(), 0U);
  entries_.clear();
}

void FeatureCounter::grow() {
  const std::size_t size = std::max(kInitialSlots, 2 * slots_.size());
  if (size > (std::size_t{1} << 32U)) {
    throw std::length_error("simhash: too many distinct features");
  }
  slots_.assign(size, 0U);
  const std::size_t mask = size - 1;
  for (std::size_t index = 0; index < entries_.size(); ++index) {
    std::size_t slot = static_cast<std::size_t>(entries_[index].hash) & mask;
    while (slots_[slot] != 0) {
      slot = (slot + 1) & mask;
    }
    slots_[slot] = static_cast<std::uint32_t>(index + 1);
  }
}

}  // namespace simhash
