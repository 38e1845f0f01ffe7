// Exact similarity of two texts over the features simhash() uses: a sorted
// weighted feature vector per text, cosine and weighted Jaccard by merge.
#pragma once

#include <cstdint>
#include <vector>

namespace simhash {

// The distinct features of one text, identified by their 64-bit feature hash
// as FeatureCounter does, ascending, with their weights. Filled by
// FeatureExtractor::feature_vector(); empty means the text has no features.
// The sums are accumulated in hash order, the order the merges below visit,
// so a vector compared with itself gives exactly 1.
struct FeatureVector {
  std::vector<std::uint64_t> hashes;  // ascending, distinct
  std::vector<double> weights;        // weights[i] belongs to hashes[i]
  double sum_of_squares = 0;          // sum of weights^2, for cosine
  double sum_of_weights = 0;          // sum of weights, for Jaccard

  bool empty() const { return hashes.empty(); }
  void clear() {
    hashes.clear();
    weights.clear();
    sum_of_squares = 0;
    sum_of_weights = 0;
  }
};

// dot / sqrt(|a|^2 |b|^2), clamped to [0, 1]; equal vectors give exactly 1.
// Both vectors must be non-empty.
double cosine_similarity(const FeatureVector& a, const FeatureVector& b);

// Sum of min weights / sum of max weights over the union of features; equal
// vectors give exactly 1. Both vectors must be non-empty.
double weighted_jaccard(const FeatureVector& a, const FeatureVector& b);

}  // namespace simhash
