// SPDX-License-Identifier: MIT
// ExactVoteTotals against a portable exact model: each weight split into a
// high and a low 32-bit part summed separately, so no total overflows or
// rounds. Weights up to the int64 extremes, votes taken back in any order,
// agreement with FingerprintAccumulator below 2^53, and mixed real weights.
#include "fingerprint/exact_vote_totals.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "fingerprint/fingerprint_accumulator.h"

namespace simhash::testing {
namespace {

// Per bit: the sum of the votes as high * 2^32 + low, exactly.
class ExactModel {
 public:
  void vote(std::uint64_t hash, std::int64_t weight, int direction) {
    // weight = high * 2^32 + low with low in [0, 2^32).
    const std::int64_t high = weight >> 32;  // arithmetic shift: floor
    const auto low = static_cast<std::int64_t>(static_cast<std::uint64_t>(weight) & 0xffffffffU);
    for (int bit = 0; bit < 64; ++bit) {
      const int sign = ((hash >> bit) & 1) != 0 ? direction : -direction;
      high_[bit] += sign * high;
      low_[bit] += sign * low;
    }
  }
  std::uint64_t fingerprint() const {
    std::uint64_t result = 0;
    for (int bit = 0; bit < 64; ++bit) {
      const std::int64_t high = high_[bit] + (low_[bit] >> 32);  // carry the low part up
      const std::int64_t low = low_[bit] & 0xffffffff;
      if (high > 0 || (high == 0 && low > 0)) {
        result |= std::uint64_t{1} << bit;
      }
    }
    return result;
  }

 private:
  std::array<std::int64_t, 64> high_{};  // sums of at most 2^30 votes of < 2^31 each
  std::array<std::int64_t, 64> low_{};
};

std::int64_t extreme_weight(std::mt19937_64& random) {
  switch (random() % 5) {
    case 0:
      return INT64_MAX;
    case 1:
      return INT64_MIN;
    case 2:
      return static_cast<std::int64_t>(random());  // anything
    case 3:
      return (std::int64_t{1} << 53) + static_cast<std::int64_t>(random() % 3) - 1;
    default:
      return static_cast<std::int64_t>(random() % 7) - 3;
  }
}

TEST(ExactVoteTotals, LargeWeightsAreSummedExactly) {
  std::mt19937_64 random(21);
  for (int round = 0; round < 200; ++round) {
    ExactVoteTotals totals;
    ExactModel model;
    const int features = 1 + static_cast<int>(random() % 12);
    for (int i = 0; i < features; ++i) {
      // Few distinct hashes, so large votes cancel and small ones decide.
      const std::uint64_t hash = random() % 2 == 0 ? 0x5555aaaa0f0fF0f0ULL : random();
      const std::int64_t weight = extreme_weight(random);
      totals.add_integer(hash, weight);
      model.vote(hash, weight, +1);
    }
    ASSERT_EQ(totals.fingerprint(), model.fingerprint()) << "round " << round;
  }
}

TEST(ExactVoteTotals, RemovingAVoteRestoresTheTotals) {
  std::mt19937_64 random(22);
  for (int round = 0; round < 100; ++round) {
    ExactVoteTotals sliding;
    ExactVoteTotals kept_only;
    struct Vote {
      std::uint64_t hash;
      std::int64_t weight;
    };
    std::vector<Vote> votes;
    for (int i = 0; i < 10; ++i) {
      votes.push_back(Vote{random(), extreme_weight(random)});
      sliding.add_integer(votes.back().hash, votes.back().weight);
    }
    // Take back the first half (a window frame moving on), keep the rest.
    for (std::size_t i = 0; i < votes.size(); ++i) {
      if (i < votes.size() / 2) {
        sliding.remove_integer(votes[i].hash, votes[i].weight);
      } else {
        kept_only.add_integer(votes[i].hash, votes[i].weight);
      }
    }
    ASSERT_EQ(sliding.fingerprint(), kept_only.fingerprint()) << "round " << round;
  }
}

TEST(ExactVoteTotals, AgreesWithTheDoubleAccumulatorBelow2To53) {
  std::mt19937_64 random(23);
  for (int round = 0; round < 100; ++round) {
    ExactVoteTotals totals;
    FingerprintAccumulator doubles;
    for (int i = 0; i < 20; ++i) {
      const std::uint64_t hash = random();
      const auto weight = static_cast<std::int64_t>(random() % 2001) - 1000;
      totals.add_integer(hash, weight);
      doubles.add(hash, static_cast<double>(weight));
    }
    ASSERT_EQ(totals.fingerprint(), doubles.fingerprint()) << "round " << round;
  }
}

TEST(ExactVoteTotals, RealWeightsAddToTheIntegerTotals) {
  ExactVoteTotals totals;
  const std::uint64_t hash = 0x00000000ffffffffULL;
  totals.add_integer(hash, -1);  // bits 0..31: -1, bits 32..63: +1
  totals.add_real(hash, 1.5);    // bits 0..31: +0.5, bits 32..63: -0.5
  EXPECT_EQ(totals.fingerprint(), hash);
  totals.add_real(~hash, 1.0);  // bits 0..31: -0.5, bits 32..63: +0.5
  EXPECT_EQ(totals.fingerprint(), ~hash);
}

}  // namespace
}  // namespace simhash::testing
