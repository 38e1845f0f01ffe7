// SPDX-License-Identifier: MIT
// ExactVoteTotals (see exact_vote_totals.h).
#include "fingerprint/exact_vote_totals.h"

#include <cmath>
#include <cstddef>

namespace simhash {

void ExactVoteTotals::Total::add(std::int64_t value) {
  // Two's complement addition, which wraps; it overflowed when adding a
  // positive value made the sum smaller, or a negative one made it larger.
  const auto sum = static_cast<std::int64_t>(static_cast<std::uint64_t>(low) +
                                             static_cast<std::uint64_t>(value));
  if (value > 0 && sum < low) {
    ++high;  // the true sum is sum + 2^64
  } else if (value < 0 && sum > low) {
    --high;  // the true sum is sum - 2^64
  }
  low = sum;
}

double ExactVoteTotals::Total::to_double() const {
  return std::ldexp(static_cast<double>(high), 64) + static_cast<double>(low);
}

void ExactVoteTotals::Total::subtract(std::int64_t value) {
  if (value == INT64_MIN) {  // -INT64_MIN does not exist: subtract in two steps
    add(INT64_MAX);
    add(1);
  } else {
    add(-value);
  }
}

void ExactVoteTotals::widen() {
  for (std::size_t bit = 0; bit < 64; ++bit) {
    integer_totals_[bit] = Total{0, static_cast<std::int64_t>(small_totals_.totals()[bit])};
  }
  wide_ = true;
}

void ExactVoteTotals::vote(std::uint64_t feature_hash, std::int64_t weight, bool remove) {
  if (!wide_) {
    const std::uint64_t size = weight < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(weight)
                                          : static_cast<std::uint64_t>(weight);
    if (size <= kExactInDoubles - magnitude_) {
      // |weight| <= 2^53 converts exactly, and every partial sum stays within
      // magnitude_ <= 2^53, where doubles are exact integers.
      const auto value = static_cast<double>(weight);
      small_totals_.add(feature_hash, remove ? -value : value);
      magnitude_ += size;
      return;
    }
    widen();
  }
  for (int bit = 0; bit < 64; ++bit) {
    Total& total = integer_totals_[static_cast<std::size_t>(bit)];
    if ((((feature_hash >> bit) & 1) != 0) != remove) {
      total.add(weight);
    } else {
      total.subtract(weight);
    }
  }
}

void ExactVoteTotals::add_real(std::uint64_t feature_hash, double weight) {
  real_totals_.add(feature_hash, weight);
  has_real_ = true;
}

std::uint64_t ExactVoteTotals::fingerprint() const {
  if (!wide_ && !has_real_) {
    return small_totals_.fingerprint();  // the common case, as fast as simhash()
  }
  std::uint64_t result = 0;
  for (std::size_t bit = 0; bit < 64; ++bit) {
    bool positive = false;
    if (has_real_) {
      const double integer_total =
          wide_ ? integer_totals_[bit].to_double() : small_totals_.totals()[bit];
      positive = integer_total + real_totals_.totals()[bit] > 0;
    } else {
      positive = wide_ ? integer_totals_[bit].positive() : small_totals_.totals()[bit] > 0;
    }
    if (positive) {
      result |= std::uint64_t{1} << bit;
    }
  }
  return result;
}

}  // namespace simhash
