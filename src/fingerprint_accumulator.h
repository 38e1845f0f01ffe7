// Charikar's simhash vote: every feature adds its weight to the bits set in its
// hash and subtracts it from the bits clear in it; bit i of the fingerprint is
// set where the total is positive (a tie gives 0).
#pragma once

#include <array>
#include <cstdint>

namespace simhash {

class FingerprintAccumulator {
 public:
  // Order matters only in the last bit of a real-valued total; callers that
  // must agree with each other (simhash and simhash_agg) add in the same order.
  void add(std::uint64_t feature_hash, double weight);

  // True once any feature was added, even one of weight zero.
  bool has_features() const { return has_features_; }

  std::uint64_t fingerprint() const;

  void reset();

 private:
  std::array<double, 64> totals_{};
  bool has_features_ = false;
};

}  // namespace simhash
