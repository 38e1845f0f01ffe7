// Per-bit weighted vote of the simhash fingerprint.
#include "fingerprint_accumulator.h"

namespace simhash {

void FingerprintAccumulator::add(std::uint64_t feature_hash, double weight) {
  has_features_ = true;
  for (int bit = 0; bit < 64; ++bit) {
    totals_[bit] += ((feature_hash >> bit) & 1U) != 0 ? weight : -weight;
  }
}

std::uint64_t FingerprintAccumulator::fingerprint() const {
  std::uint64_t result = 0;
  for (int bit = 0; bit < 64; ++bit) {
    if (totals_[bit] > 0) {
      result |= std::uint64_t{1} << bit;
    }
  }
  return result;
}

void FingerprintAccumulator::reset() {
  totals_.fill(0);
  has_features_ = false;
}

}  // namespace simhash
