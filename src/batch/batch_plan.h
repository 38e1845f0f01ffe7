// SPDX-License-Identifier: MIT
// How a batch search finds every pair of distinct fingerprints within a
// radius: by the block-permutation tables of Manku et al. (sort each table's
// keys, compare only inside runs sharing the prefix), or, when the radius is
// so large that prefixes would be tiny, by comparing every pair.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "index/permutation_plan.h"

namespace simhash {

class BatchPlan {
 public:
  enum class Method {
    kIdenticalOnly,     // radius 0: only identical fingerprints (none within one set)
    kBlockPermutation,  // the tables of a PermutationPlan with k >= radius
    kAllPairs,          // every pair compared (every pair emitted at radius >= 64)
  };

  // The plan expected to be cheapest for `distinct_count` fingerprints spread
  // evenly over the 64 bits: a PermutationPlan(k = radius, blocks) for the
  // best blocks, or all pairs. Throws std::invalid_argument for radius < 0.
  static BatchPlan choose(int radius, std::size_t distinct_count);
  // The same for the pairs between two sets (GroupPairSearch's cross form):
  // `left_count` and `right_count` distinct fingerprints.
  static BatchPlan choose_between(int radius, std::size_t left_count, std::size_t right_count);
  static BatchPlan all_pairs(int radius);
  // Uses the given tables; throws std::invalid_argument unless tables.k() >=
  // radius (the pigeonhole guarantee needs it).
  static BatchPlan block_permutation(int radius, PermutationPlan tables);

  int radius() const { return radius_; }
  Method method() const { return method_; }
  // The tables for kBlockPermutation, otherwise nullptr.
  const PermutationPlan* tables() const { return tables_ ? &*tables_ : nullptr; }
  // For people: e.g. "block permutation, 10 tables (k=3, blocks=5)".
  std::string describe() const;
  // For EXPLAIN QUERY PLAN, before the rows are known: what choose() picks
  // for `radius` as the distinct fingerprints grow from 10^3 to 10^8, e.g.
  // "every pair compared below 10^4 fingerprints; from 10^4 block
  // permutation, ..." or "every pair compared at any size".
  static std::string describe_by_size(int radius);

 private:
  BatchPlan(int radius, Method method, std::optional<PermutationPlan> tables)
      : radius_(radius), method_(method), tables_(std::move(tables)) {}
  // `keys` fingerprints are sorted per table; `candidate_pairs` is the number
  // of pairs all-pairs would compare.
  static BatchPlan cheapest(int radius, double keys, double candidate_pairs);

  int radius_;
  Method method_;
  std::optional<PermutationPlan> tables_;
};

}  // namespace simhash
