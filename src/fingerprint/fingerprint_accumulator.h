// SPDX-License-Identifier: MIT
// Charikar's simhash vote: every feature adds its weight to the bits set in its
// hash and subtracts it from the bits clear in it; bit i of the fingerprint is
// set where the total is positive (a tie gives 0).
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "fingerprint/vote_kernels.h"

namespace simhash {

class FingerprintAccumulator {
 public:
  // Votes with the process's active kernel (the fastest this CPU runs).
  FingerprintAccumulator() : vote_(active_vote_kernel().vote) {}
  // Votes with the given kernel (tests and benchmarks compare kernels).
  explicit FingerprintAccumulator(const VoteKernel& kernel) : vote_(kernel.vote) {}

  // Order matters only in the last bit of a real-valued total; callers that
  // must agree with each other (simhash and simhash_agg) add in the same order.
  void add(std::uint64_t feature_hash, double weight);

  // Adds hashes[i] with weights[i] in increasing i: the same totals as that
  // many single adds, faster (the totals stay in registers). The spans must
  // have the same size (std::invalid_argument otherwise).
  void add(std::span<const std::uint64_t> hashes, std::span<const double> weights);

  // True once any feature was added, even one of weight zero.
  bool has_features() const { return has_features_; }

  std::uint64_t fingerprint() const;

  // The per-bit totals (bit i at index i), for tests that compare kernels.
  const std::array<double, 64>& totals() const { return totals_; }

  void reset();

 private:
  alignas(64) std::array<double, 64> totals_{};
  VoteFunction vote_;
  bool has_features_ = false;
};

}  // namespace simhash
