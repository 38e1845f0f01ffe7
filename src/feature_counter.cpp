// Linear-probing hash table from feature hash to its entry; the hashes are
// XXH3 output, so their low bits are already uniformly spread.
#include "feature_counter.h"

#include <algorithm>
#include <cstddef>

namespace simhash {
namespace {

constexpr std::size_t kMinimumSlots = 256;
// Expected distinct features per byte of text, for sizing the table: prose
// has a distinct word every 8 to 16 bytes. Too small only costs a rehash.
constexpr std::size_t kBytesPerFeature = 8;
// The estimate never allocates more than 1 MiB up front (a 10 MB text of ten
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
  for (std::size_t index = static_cast<std::size_t>(hash) & mask;; index = (index + 1) & mask) {
    Slot& slot = slots_[index];
    if (slot.entry == 0) {
      entries_.push_back({hash, 1});
      slot = {hash, entries_.size()};
      return true;
    }
    if (slot.hash == hash) {
      ++entries_[slot.entry - 1].count;
      return false;
    }
  }
}

void FeatureCounter::clear(std::size_t text_bytes) {
  entries_.clear();
  // A table sized for this text, at most half full: a small text then probes
  // a few kilobytes that stay in the L1 cache, instead of the table a large
  // text left behind.
  const std::size_t wanted = power_of_two_at_least(
      std::min(kMaximumInitialSlots, 2 * (text_bytes / kBytesPerFeature + 1)));
  if (slots_.size() != wanted) {
    slots_.assign(wanted, Slot{0, 0});
  } else {
    std::fill(slots_.begin(), slots_.end(), Slot{0, 0});
  }
}

void FeatureCounter::grow() {
  const std::size_t size = std::max(kMinimumSlots, 2 * slots_.size());
  slots_.assign(size, Slot{0, 0});
  const std::size_t mask = size - 1;
  for (std::size_t entry = 0; entry < entries_.size(); ++entry) {
    const std::uint64_t hash = entries_[entry].hash;
    std::size_t index = static_cast<std::size_t>(hash) & mask;
    while (slots_[index].entry != 0) {
      index = (index + 1) & mask;
    }
    slots_[index] = {hash, entry + 1};
  }
}

}  // namespace simhash
