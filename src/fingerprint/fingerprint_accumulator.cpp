// SPDX-License-Identifier: MIT
// Per-bit weighted vote of the simhash fingerprint; the arithmetic is in the
// vote kernels (vote_kernels.h).
#include "fingerprint/fingerprint_accumulator.h"

#include <stdexcept>

namespace simhash {

void FingerprintAccumulator::add(std::uint64_t feature_hash, double weight) {
  has_features_ = true;
  vote_(totals_.data(), &feature_hash, &weight, 1);
}

void FingerprintAccumulator::add(std::span<const std::uint64_t> hashes,
                                 std::span<const double> weights) {
  if (hashes.size() != weights.size()) {
    throw std::invalid_argument("FingerprintAccumulator::add: hashes and weights differ in size");
  }
  if (hashes.empty()) {
    return;
  }
  has_features_ = true;
  vote_(totals_.data(), hashes.data(), weights.data(), hashes.size());
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
