// SPDX-License-Identifier: MIT
// Chooses the parts and thresholds of a search above k (multi_probe.h) and
// prices it against a scan.
#include "index/multi_probe.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <span>

#include "index/packed_codes.h"
#include "util/cpu_dispatch.h"

namespace simhash {
namespace {

// Buckets within `threshold` bits of one value of `bits` bits: the Hamming
// ball's size, sum of C(bits, j) for j <= threshold (0 for -1).
double ball_size(int bits, int threshold) {
  double size = 0;
  double binomial = 1;  // C(bits, j)
  for (int j = 0; j <= threshold && j <= bits; ++j) {
    size += binomial;
    binomial = binomial * (bits - j) / (j + 1);
  }
  return size;
}

}  // namespace

MultiProbePlan::MultiProbePlan(const PermutationPlan& plan, const BucketLayout& layout, int radius)
    : radius_(radius) {
  std::uint64_t taken = 0;
  for (int table = 0; table < plan.table_count(); ++table) {
    const int bits = layout.bucket_bits(table);
    const std::uint64_t top_bits = ~std::uint64_t{0} << (64 - bits);
    const std::uint64_t mask = plan.unpermute(table, top_bits);
    if ((mask & taken) == 0) {
      taken |= mask;
      parts_.push_back(ProbePart{table, mask, bits, -1});
    }
  }
  // radius + 1 units, each raising one threshold by one, where it adds the
  // fewest bucket reads (the ball grows fastest in its middle, so equal
  // parts end up with thresholds that differ by at most one).
  for (int unit = 0; unit <= radius; ++unit) {
    ProbePart* cheapest = nullptr;
    double cheapest_growth = std::numeric_limits<double>::infinity();
    for (ProbePart& part : parts_) {
      const double growth =
          ball_size(part.bits, part.threshold + 1) - ball_size(part.bits, part.threshold);
      // A part already at its full width gains nothing and covers no more.
      if (part.threshold < part.bits && growth < cheapest_growth) {
        cheapest = &part;
        cheapest_growth = growth;
      }
    }
    if (cheapest == nullptr) {
      break;  // every bucket of every part is read: the search is a scan
    }
    ++cheapest->threshold;
  }
  for (const ProbePart& part : parts_) {
    const double reads = ball_size(part.bits, part.threshold);
    bucket_reads_ += reads;
    row_fraction_ += reads / std::ldexp(1.0, part.bits);
  }
}

namespace {

// reporting_part's loop, called for every entry a probe finds close: built
// twice so that CPUs with POPCNT use the instruction.
SIMHASH_POPCNT_CLONES int first_close_part(std::span<const ProbePart> parts,
                                           std::uint64_t difference) {
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (std::popcount(difference & parts[i].mask) <= parts[i].threshold) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

}  // namespace

int MultiProbePlan::reporting_part(std::uint64_t difference) const {
  return first_close_part(parts_, difference);
}

bool MultiProbePlan::cheaper_than_scan(std::int64_t rows) const {
  const double n = static_cast<double>(rows);
  return kBucketReadCost * bucket_reads_ + kEntryCost * n * row_fraction_ < kScanCostPerRow * n;
}

bool MultiProbePlan::cheaper_than_packed_scan(std::int64_t rows, std::int64_t buckets) const {
  const double n = static_cast<double>(rows);
  return kBucketReadCost * bucket_reads_ + kEntryCost * n * row_fraction_ <
         packed_scan_cost(rows, buckets);
}

double MultiProbePlan::search_cost(std::int64_t rows) const {
  return kBucketReadCost * bucket_reads_ + kEntryCost * static_cast<double>(rows) * row_fraction_;
}

double MultiProbePlan::unmeasured_cached_row_cost() {
  return PackedCodes::vector_loop_runs() ? kCachedVectorCodeCost : kCachedCodeCost;
}

int MultiProbePlan::radius_holding(double found, int within, double wanted) {
  const double around = ball_size(64, std::clamp(within, 0, 64));
  for (int radius = std::clamp(within, 0, 64); radius < 64; ++radius) {
    if (found * (ball_size(64, radius) / around) >= wanted) {
      return radius;
    }
  }
  return 64;
}

int MultiProbePlan::expected_radius(std::int64_t rows, double wanted) {
  for (int radius = 0; radius < 64; ++radius) {
    if (static_cast<double>(rows) * std::ldexp(ball_size(64, radius), -64) >= wanted) {
      return radius;
    }
  }
  return 64;
}

std::int64_t MultiProbePlan::rows_where_cheaper() const {
  const double saving_per_row = kScanCostPerRow - kEntryCost * row_fraction_;
  if (saving_per_row <= 0) {
    return -1;
  }
  const double rows = std::floor(kBucketReadCost * bucket_reads_ / saving_per_row) + 1;
  return rows > 9e18 ? -1 : static_cast<std::int64_t>(rows);
}

}  // namespace simhash
