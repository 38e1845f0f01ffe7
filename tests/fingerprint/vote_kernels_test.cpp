// SPDX-License-Identifier: MIT
// Every vote kernel this CPU runs against a plain per-bit reference loop, on
// random hashes and real-valued weights (negative, zero, -0.0, ties, values
// whose sum depends on the order of addition): totals must be bit-identical.
#include "fingerprint/vote_kernels.h"
#include "fingerprint/fingerprint_accumulator.h"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using Totals = std::array<double, 64>;

// Written independently of the kernels: the definition of the vote.
Totals reference_totals(const std::vector<std::uint64_t>& hashes,
                        const std::vector<double>& weights) {
  Totals totals{};
  for (std::size_t i = 0; i < hashes.size(); ++i) {
    for (int bit = 0; bit < 64; ++bit) {
      if ((hashes[i] >> bit) & 1U) {
        totals[bit] = totals[bit] + weights[i];
      } else {
        totals[bit] = totals[bit] + (-weights[i]);
      }
    }
  }
  return totals;
}

std::uint64_t reference_fingerprint(const Totals& totals) {
  std::uint64_t fingerprint = 0;
  for (int bit = 0; bit < 64; ++bit) {
    if (totals[bit] > 0) {
      fingerprint |= std::uint64_t{1} << bit;
    }
  }
  return fingerprint;
}

// Bit patterns, except that any two NaNs count as equal (inf - inf).
bool same_bits(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) {
    return true;
  }
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

void expect_same_totals(const Totals& expected, const Totals& actual, const std::string& where) {
  for (int bit = 0; bit < 64; ++bit) {
    ASSERT_TRUE(same_bits(expected[bit], actual[bit]))
        << where << " bit " << bit << ": expected " << expected[bit] << " got " << actual[bit];
  }
}

// Weights drawn from a mix that exposes any deviation from the scalar order:
// small integers (ties), reals of very different magnitudes (the sum depends
// on the order of addition), zeros of both signs, subnormals, infinities.
double random_weight(std::mt19937_64& random) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  switch (random() % 10) {
    case 0:
      return static_cast<double>(static_cast<int>(random() % 7) - 3);
    case 1:
      return 0.0;
    case 2:
      return -0.0;
    case 3:
      return unit(random) * 1e16;
    case 4:
      return unit(random) * 1e-300;
    case 5:
      return std::numeric_limits<double>::denorm_min() * static_cast<double>(random() % 5);
    case 6:
      return random() % 50 == 0 ? -std::numeric_limits<double>::infinity()
                                : 1.0 + std::ldexp(unit(random), -40);
    case 7:
      return std::log1p(static_cast<double>(random() % 100));  // like log tf weights
    default:
      return unit(random);
  }
}

// Hashes with every bit pattern: random, all ones, all zeros, one bit.
std::uint64_t random_hash(std::mt19937_64& random) {
  switch (random() % 8) {
    case 0:
      return ~std::uint64_t{0};
    case 1:
      return 0;
    case 2:
      return std::uint64_t{1} << (random() % 64);
    default:
      return random();
  }
}

TEST(VoteKernels, ScalarComesFirstAndTheActiveKernelIsAvailable) {
  const auto kernels = simhash::vote_kernels_on_this_cpu();
  ASSERT_FALSE(kernels.empty());
  EXPECT_EQ(kernels.front().name, "scalar");
  bool active_listed = false;
  for (const auto& kernel : kernels) {
    active_listed = active_listed || kernel.vote == simhash::active_vote_kernel().vote;
  }
  EXPECT_TRUE(active_listed);
  std::cout << "vote kernels on this CPU:";
  for (const auto& kernel : kernels) {
    std::cout << ' ' << kernel.name;
  }
  std::cout << " (active: " << simhash::active_vote_kernel().name << ")\n";
}

TEST(VoteKernels, EveryKernelMatchesTheReferenceBitForBit) {
  std::mt19937_64 random(20261121);
  for (int trial = 0; trial < 400; ++trial) {
    // Up to 300 features, so long batches and the empty batch both occur.
    const std::size_t count = trial < 5 ? static_cast<std::size_t>(trial) : random() % 300;
    std::vector<std::uint64_t> hashes(count);
    std::vector<double> weights(count);
    for (std::size_t i = 0; i < count; ++i) {
      hashes[i] = random_hash(random);
      weights[i] = random_weight(random);
    }
    const Totals expected = reference_totals(hashes, weights);
    for (const auto& kernel : simhash::vote_kernels_on_this_cpu()) {
      const std::string where = std::string(kernel.name) + " trial " + std::to_string(trial);

      simhash::FingerprintAccumulator one_by_one(kernel);
      for (std::size_t i = 0; i < count; ++i) {
        one_by_one.add(hashes[i], weights[i]);
      }
      expect_same_totals(expected, one_by_one.totals(), where + " (single adds)");
      EXPECT_EQ(one_by_one.fingerprint(), reference_fingerprint(expected)) << where;
      EXPECT_EQ(one_by_one.has_features(), count > 0) << where;

      // A batch split at a random point continues from the earlier totals.
      simhash::FingerprintAccumulator batched(kernel);
      const std::size_t split = count == 0 ? 0 : random() % (count + 1);
      batched.add(std::span(hashes).first(split), std::span(weights).first(split));
      batched.add(std::span(hashes).subspan(split), std::span(weights).subspan(split));
      expect_same_totals(expected, batched.totals(), where + " (batches)");
      EXPECT_EQ(batched.fingerprint(), reference_fingerprint(expected)) << where;
      EXPECT_EQ(batched.has_features(), count > 0) << where;
    }
  }
}

TEST(VoteKernels, OrderOfAdditionIsKeptPerBit) {
  // (1e16 + 1) + 1 == 1e16 in doubles, but 1e16 + (1 + 1) != 1e16: a kernel
  // that paired up features before adding them would differ here.
  const std::vector<std::uint64_t> hashes{~0ULL, ~0ULL, ~0ULL, 0ULL};
  const std::vector<double> weights{1e16, 1.0, 1.0, 1e16};
  const Totals expected = reference_totals(hashes, weights);
  ASSERT_EQ(expected[0], 0.0);  // the order-dependent outcome itself
  for (const auto& kernel : simhash::vote_kernels_on_this_cpu()) {
    simhash::FingerprintAccumulator accumulator(kernel);
    accumulator.add(hashes, weights);
    expect_same_totals(expected, accumulator.totals(), std::string(kernel.name));
    EXPECT_EQ(accumulator.fingerprint(), 0U) << kernel.name;
  }
}

TEST(VoteKernels, TiesAndNegativeZeroGiveClearBits) {
  for (const auto& kernel : simhash::vote_kernels_on_this_cpu()) {
    simhash::FingerprintAccumulator accumulator(kernel);
    accumulator.add(0x0123456789abcdefULL, 0.75);
    accumulator.add(0x0123456789abcdefULL, -0.75);
    accumulator.add(0xfedcba9876543210ULL, -0.0);
    EXPECT_EQ(accumulator.fingerprint(), 0U) << kernel.name;
    accumulator.add(0xfedcba9876543210ULL, 0.5);
    EXPECT_EQ(accumulator.fingerprint(), 0xfedcba9876543210ULL) << kernel.name;
  }
}

TEST(VoteKernels, BatchOfDifferentSizesIsRejected) {
  simhash::FingerprintAccumulator accumulator;
  const std::vector<std::uint64_t> hashes{1, 2};
  const std::vector<double> weights{1.0};
  EXPECT_THROW(accumulator.add(hashes, weights), std::invalid_argument);
  EXPECT_FALSE(accumulator.has_features());
}

TEST(VoteKernels, UseVoteKernelSwitchesNewAccumulators) {
  const simhash::VoteKernel& before = simhash::active_vote_kernel();
  for (const auto& kernel : simhash::vote_kernels_on_this_cpu()) {
    simhash::use_vote_kernel(kernel);
    EXPECT_EQ(simhash::active_vote_kernel().name, kernel.name);
    simhash::FingerprintAccumulator accumulator;
    accumulator.add(0x5555555555555555ULL, 2.0);
    EXPECT_EQ(accumulator.fingerprint(), 0x5555555555555555ULL) << kernel.name;
  }
  simhash::use_vote_kernel(before);
  const auto not_a_kernel = [](double*, const std::uint64_t*, const double*, std::size_t) {};
  EXPECT_THROW(simhash::use_vote_kernel(simhash::VoteKernel{"bogus", +not_a_kernel}),
               std::invalid_argument);
}

}  // namespace
