// Chooses between block-permutation plans and the all-pairs loop with a cost
// model for evenly spread fingerprints (constants in rough nanoseconds,
// calibrated on bench/batch_benchmark.cpp).
#include "batch_plan.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace simhash {
namespace {

constexpr double kPermuteCost = 2.0;    // building one key
constexpr double kSortPassCost = 2.5;   // one radix pass over one key and payload
constexpr double kWalkCost = 1.0;       // one key in the run walk
constexpr double kCompareCost = 0.7;    // one candidate pair compared by popcount
constexpr double kTableCost = 20000.0;  // fixed cost of a table (histograms, setup)
constexpr int kDigitBits = 11;          // as in radix_sort.cpp

void check_radius(int radius) {
  if (radius < 0) {
    throw std::invalid_argument("radius " + std::to_string(radius) + " is negative");
  }
}

// Estimated cost of the block-permutation search with k = radius and `blocks`.
double tables_cost(int radius, int blocks, int tables, double count) {
  const double prefix_bits = (blocks - radius) * 64.0 / blocks;
  const double passes = std::ceil(prefix_bits / kDigitBits);
  const double candidates = count * (count - 1) / 2 / std::exp2(prefix_bits);
  return tables * (kTableCost + count * (kPermuteCost + passes * kSortPassCost + kWalkCost) +
                   candidates * kCompareCost);
}

}  // namespace

BatchPlan BatchPlan::choose(int radius, std::size_t distinct_count) {
  check_radius(radius);
  if (radius == 0) {
    return BatchPlan(radius, Method::kIdenticalOnly, std::nullopt);
  }
  if (radius >= 64) {
    return all_pairs(radius);
  }
  const double count = static_cast<double>(distinct_count);
  double best_cost = count * (count - 1) / 2 * kCompareCost;
  int best_blocks = 0;
  std::string error;
  for (int blocks = radius + 1; blocks <= 64; ++blocks) {
    // Tables grow with blocks (C(blocks, radius)); stop at the plan limit.
    auto plan = PermutationPlan::create(radius, blocks, error);
    if (!plan) {
      break;
    }
    const double cost = tables_cost(radius, blocks, plan->table_count(), count);
    if (cost < best_cost) {
      best_cost = cost;
      best_blocks = blocks;
    }
  }
  if (best_blocks == 0) {
    return all_pairs(radius);
  }
  return block_permutation(radius, *PermutationPlan::create(radius, best_blocks, error));
}

BatchPlan BatchPlan::all_pairs(int radius) {
  check_radius(radius);
  return BatchPlan(radius, Method::kAllPairs, std::nullopt);
}

BatchPlan BatchPlan::block_permutation(int radius, PermutationPlan tables) {
  check_radius(radius);
  if (tables.k() < radius) {
    throw std::invalid_argument("a plan for k=" + std::to_string(tables.k()) +
                                " cannot find pairs at radius " + std::to_string(radius));
  }
  return BatchPlan(radius, Method::kBlockPermutation, std::move(tables));
}

std::string BatchPlan::describe() const {
  switch (method_) {
    case Method::kIdenticalOnly:
      return "identical fingerprints only (radius 0)";
    case Method::kBlockPermutation:
      return "block permutation, " + std::to_string(tables_->table_count()) +
             " sorted tables (k=" + std::to_string(tables_->k()) +
             ", blocks=" + std::to_string(tables_->blocks()) + ")";
    case Method::kAllPairs:
      break;
  }
  return "all pairs compared (radius " + std::to_string(radius_) + ")";
}

}  // namespace simhash
