// SPDX-License-Identifier: MIT
// Charikar's vote with integer weights summed exactly, so adding a weight and
// later subtracting it (a row leaving a SQL window frame) restores the total
// exactly, and no total loses a unit however large the weights. While the
// magnitudes of all integer votes so far add up to at most 2^53, doubles hold
// every total exactly and the fast FingerprintAccumulator sums them; beyond
// that, totals are kept as 128-bit integers (high and low words). Real
// weights go to a second FingerprintAccumulator; a bit's total is then the
// sum of both, and may round.
#pragma once

#include <array>
#include <cstdint>

#include "fingerprint/fingerprint_accumulator.h"

namespace simhash {

class ExactVoteTotals {
 public:
  void add_integer(std::uint64_t feature_hash, std::int64_t weight) {
    vote(feature_hash, weight, false);
  }
  // Takes back an add_integer of the same feature and weight, exactly.
  void remove_integer(std::uint64_t feature_hash, std::int64_t weight) {
    vote(feature_hash, weight, true);
  }
  void add_real(std::uint64_t feature_hash, double weight);
  // Bit i is set where the total is positive (a tie gives 0), as in
  // FingerprintAccumulator; equal to it while every integer total is below
  // 2^53 in magnitude.
  std::uint64_t fingerprint() const;

 private:
  // Value = high * 2^64 + low, low taken as signed: a carry out of low moves
  // to high.
  struct Total {
    std::int64_t high = 0;
    std::int64_t low = 0;
    void add(std::int64_t value);
    void subtract(std::int64_t value);
    bool positive() const { return high > 0 || (high == 0 && low > 0); }
    double to_double() const;
  };
  static constexpr std::uint64_t kExactInDoubles = std::uint64_t{1} << 53;

  void vote(std::uint64_t feature_hash, std::int64_t weight, bool remove);
  // Moves the integer totals from doubles to 128-bit integers.
  void widen();

  FingerprintAccumulator small_totals_;     // integer votes while magnitude_ <= 2^53
  FingerprintAccumulator real_totals_;      // real votes
  std::array<Total, 64> integer_totals_{};  // integer votes once wide_
  std::uint64_t magnitude_ = 0;             // sum of |weight| of small_totals_' votes
  bool wide_ = false;
  bool has_real_ = false;
};

}  // namespace simhash
