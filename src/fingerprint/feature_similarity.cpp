// SPDX-License-Identifier: MIT
// Cosine, weighted Jaccard and containment of two feature vectors by one
// merge of their ascending hash lists.
#include "fingerprint/feature_similarity.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace simhash {

namespace {

// Calls on_common(weight_a, weight_b) for every hash the two vectors share.
template <typename OnCommon>
void for_each_common(FeatureView a, FeatureView b, OnCommon&& on_common) {
  std::size_t i = 0;
  std::size_t j = 0;
  const std::size_t size_a = a.hashes.size();
  const std::size_t size_b = b.hashes.size();
  while (i < size_a && j < size_b) {
    const std::uint64_t hash_a = a.hashes[i];
    const std::uint64_t hash_b = b.hashes[j];
    if (hash_a == hash_b) {
      on_common(a.weight(i), b.weight(j));
      ++i;
      ++j;
    } else if (hash_a < hash_b) {
      ++i;
    } else {
      ++j;
    }
  }
}

// The Jaccard from the sum of minima. Over the union, max = a + b - min
// feature by feature (a feature missing from one side has weight 0 there).
// Weights are integers or multiples of 2^-20, so these sums are exact and
// equal vectors give exactly 1.
double jaccard_of(double sum_of_minima, FeatureView a, FeatureView b) {
  const double sum_of_maxima = a.sum_of_weights + b.sum_of_weights - sum_of_minima;
  return std::clamp(sum_of_minima / sum_of_maxima, 0.0, 1.0);
}

}  // namespace

double cosine_similarity(const FeatureVector& a, const FeatureVector& b) {
  double dot = 0;
  for_each_common(a, b, [&](double weight_a, double weight_b) { dot += weight_a * weight_b; });
  // sqrt(x * x) == x exactly in IEEE arithmetic, so equal vectors give 1;
  // the clamp only absorbs rounding in near-equal ones.
  const double similarity = dot / std::sqrt(a.sum_of_squares * b.sum_of_squares);
  return std::clamp(similarity, 0.0, 1.0);
}

double weighted_jaccard(FeatureView a, FeatureView b) {
  double sum_of_minima = 0;
  for_each_common(a, b, [&](double weight_a, double weight_b) {
    sum_of_minima += std::min(weight_a, weight_b);
  });
  return jaccard_of(sum_of_minima, a, b);
}

double weighted_jaccard(const FeatureVector& a, const FeatureVector& b) {
  return weighted_jaccard(FeatureView(a), FeatureView(b));
}

double containment(FeatureView a, FeatureView b) {
  double sum_of_minima = 0;
  for_each_common(a, b, [&](double weight_a, double weight_b) {
    sum_of_minima += std::min(weight_a, weight_b);
  });
  // Both sums add the same minima in hash order when B holds all of A, so
  // a text inside itself gives exactly 1.
  return std::clamp(sum_of_minima / a.sum_of_weights, 0.0, 1.0);
}

double containment(const FeatureVector& a, const FeatureVector& b) {
  return containment(FeatureView(a), FeatureView(b));
}

// An integer overlap is at least a number when it is at least its ceiling.
std::size_t needed_overlap(std::size_t size_a, std::size_t size_b, double threshold) {
  const double bound =
      threshold * (1 - 1e-9) * static_cast<double>(size_a + size_b) / (1 + threshold) - 1e-6;
  return bound <= 0 ? 0 : static_cast<std::size_t>(std::ceil(bound));
}

SetJaccardMerge::SetJaccardMerge(std::span<const std::uint64_t> a, std::size_t size_b,
                                 double threshold)
    : a_(a),
      size_b_(size_b),
      threshold_(threshold),
      needed_(needed_overlap(a.size(), size_b, threshold)) {}

bool SetJaccardMerge::out_of_reach() const {
  const std::size_t b_left = size_b_ > read_ ? size_b_ - read_ : 0;
  return overlap_ + std::min(a_.size() - next_, b_left) < needed_;
}

bool SetJaccardMerge::take(std::span<const std::uint64_t> piece) {
  // The lockstep merge of the two sides, in locals (the hot loop of
  // simhash_dedup's verification), with `b`'s place carried across pieces.
  const std::size_t size_a = a_.size();
  const std::size_t b_left_before = size_b_ > read_ ? size_b_ - read_ : 0;
  std::size_t i = next_;
  std::size_t j = 0;
  std::size_t overlap = overlap_;
  bool reachable = true;
  while (i < size_a && j < piece.size()) {
    if (overlap + std::min(size_a - i, b_left_before > j ? b_left_before - j : 0) < needed_) {
      reachable = false;
      break;
    }
    const std::uint64_t hash_a = a_[i];
    const std::uint64_t hash_b = piece[j];
    overlap += hash_a == hash_b ? 1 : 0;
    i += hash_a <= hash_b ? 1 : 0;
    j += hash_b <= hash_a ? 1 : 0;
  }
  next_ = i;
  read_ += j;
  overlap_ = overlap;
  // Every feature of `a` passed: nothing of `b` from here on is shared.
  return reachable && next_ < size_a && !out_of_reach();
}

std::optional<double> SetJaccardMerge::similarity() const {
  if (overlap_ < needed_) {
    return std::nullopt;
  }
  // Summed one by one, as weighted_jaccard adds each minimum of 1: exact.
  const double similarity =
      jaccard_of(static_cast<double>(overlap_), FeatureView({}, {}, static_cast<double>(a_.size())),
                 FeatureView({}, {}, static_cast<double>(size_b_)));
  return similarity >= threshold_ ? std::optional<double>(similarity) : std::nullopt;
}

std::optional<double> set_jaccard_if_at_least(FeatureView a, FeatureView b, double threshold) {
  SetJaccardMerge merge(a.hashes, b.hashes.size(), threshold);
  merge.take(b.hashes);
  return merge.similarity();
}

}  // namespace simhash
