// SPDX-License-Identifier: MIT
// Chooses between block-permutation plans and the all-pairs loop with a cost
// model for evenly spread fingerprints (constants in rough nanoseconds,
// calibrated on bench/batch_benchmark.cpp).
#include "batch/batch_plan.h"

#include "util/radix_sort.h"

#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

namespace simhash {
namespace {

constexpr double kCountCost = 1.0;      // counting one key's digits (per pass)
constexpr double kSortPassCost = 3.0;   // moving one key in one radix pass
constexpr double kWalkCost = 1.0;       // one key in the run walk
constexpr double kCompareCost = 0.7;    // one candidate pair compared by popcount
constexpr double kTableCost = 20000.0;  // fixed cost of a table (counters, setup)

void check_radius(int radius) {
  if (radius < 0) {
    throw std::invalid_argument("radius " + std::to_string(radius) + " is negative");
  }
}

// Estimated cost of the search with `tables`, sorting `keys` fingerprints
// per table, when all-pairs would compare `candidate_pairs`.
double tables_cost(const PermutationPlan& tables, double keys, double candidate_pairs) {
  double cost = 0;
  for (int table = 0; table < tables.table_count(); ++table) {
    // A top-bits prefix needs no sort (see group_pair_search.cpp).
    const double passes =
        tables.prefix_is_top_bits(table) ? 0 : RadixSorter::pass_count(tables.prefix_mask(table));
    const double candidates = candidate_pairs / std::exp2(tables.prefix_bits(table));
    cost += kTableCost + keys * (passes * (kCountCost + kSortPassCost) + kWalkCost) +
            candidates * kCompareCost;
  }
  return cost;
}

}  // namespace

BatchPlan BatchPlan::choose(int radius, std::size_t distinct_count) {
  const double count = static_cast<double>(distinct_count);
  return cheapest(radius, count, count * (count - 1) / 2);
}

BatchPlan BatchPlan::choose_between(int radius, std::size_t left_count, std::size_t right_count) {
  const auto left = static_cast<double>(left_count);
  const auto right = static_cast<double>(right_count);
  return cheapest(radius, left + right, left * right);
}

BatchPlan BatchPlan::cheapest(int radius, double keys, double candidate_pairs) {
  check_radius(radius);
  if (radius == 0) {
    return BatchPlan(radius, Method::kIdenticalOnly, std::nullopt);
  }
  if (radius >= 64) {
    return all_pairs(radius);
  }
  double best_cost = candidate_pairs * kCompareCost;
  std::optional<PermutationPlan> best_tables;  // none: all pairs is cheapest
  std::string error;
  for (int blocks = radius + 1; blocks <= 64; ++blocks) {
    // Tables grow with blocks (C(blocks, radius)); stop at the plan limit.
    auto plan = PermutationPlan::create(radius, blocks, error);
    if (!plan) {
      break;
    }
    const double cost = tables_cost(*plan, keys, candidate_pairs);
    if (cost < best_cost) {
      best_cost = cost;
      best_tables = std::move(plan);
    }
  }
  if (!best_tables) {
    return all_pairs(radius);
  }
  return block_permutation(radius, std::move(*best_tables));
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

std::string BatchPlan::describe_by_size(int radius) {
  check_radius(radius);
  // Each choose() builds dozens of permutation plans (up to 1024 tables
  // each): worth doing once per radius, not at every prepare that asks.
  static std::mutex mutex;
  static std::map<int, std::string> described;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto found = described.find(radius); found != described.end()) {
    return found->second;
  }
  std::string text;
  if (radius == 0) {
    text = choose(radius, 2).describe();
  } else {
    std::string previous;
    std::size_t count = 1000;
    for (int power = 3; power <= 8; ++power, count *= 10) {
      const std::string plan = choose(radius, count).describe();
      if (plan == previous) {
        continue;
      }
      if (!text.empty()) {
        text += "; ";
      }
      text += "from 10^" + std::to_string(power) + " fingerprints " + plan;
      previous = plan;
    }
    if (text.find(';') == std::string::npos) {
      text = previous + " at any size";
    }
  }
  described.emplace(radius, text);
  return text;
}

}  // namespace simhash
