// SPDX-License-Identifier: MIT
// Exact similarity of two texts over the features simhash() uses: a sorted
// weighted feature vector per text, cosine and weighted Jaccard by merge.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
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

// A feature vector stored elsewhere (simhash_dedup keeps every row's in one
// flat array): the same hashes, sums and weights, where no weights means
// every weight is 1 (weight=binary), which halves what a row keeps.
struct FeatureView {
  std::span<const std::uint64_t> hashes;  // ascending, distinct
  std::span<const double> weights;        // empty: every weight is 1
  double sum_of_weights = 0;

  FeatureView() = default;
  FeatureView(std::span<const std::uint64_t> hashes_in, std::span<const double> weights_in,
              double sum)
      : hashes(hashes_in), weights(weights_in), sum_of_weights(sum) {}
  FeatureView(const FeatureVector& vector)  // NOLINT(google-explicit-constructor): a view of it
      : hashes(vector.hashes), weights(vector.weights), sum_of_weights(vector.sum_of_weights) {}

  double weight(std::size_t i) const { return weights.empty() ? 1.0 : weights[i]; }
};

// dot / sqrt(|a|^2 |b|^2), clamped to [0, 1]; equal vectors give exactly 1.
// Both vectors must be non-empty.
double cosine_similarity(const FeatureVector& a, const FeatureVector& b);

// Sum of min weights / sum of max weights over the union of features; equal
// vectors give exactly 1. Both vectors must be non-empty.
double weighted_jaccard(FeatureView a, FeatureView b);
double weighted_jaccard(const FeatureVector& a, const FeatureVector& b);

// How much of A is inside B: the sum over shared features of min(wa, wb)
// over the sum of A's weights (weighted Jaccard's numerator over A's side),
// in [0, 1]; 1 when every feature of A is in B at least as heavily. A must be
// non-empty; an empty B gives 0.
double containment(FeatureView a, FeatureView b);
double containment(const FeatureVector& a, const FeatureVector& b);

// The overlap two sets of these sizes need for set Jaccard `threshold`:
// J >= t  <=>  overlap >= t (|a| + |b|) / (1 + t). Taken a little low, so
// that no rounding refuses a pair the exact similarity would accept.
std::size_t needed_overlap(std::size_t size_a, std::size_t size_b, double threshold);

// The set Jaccard of two views without weights (every weight 1) when it is
// at least `threshold`, else nullopt, which the merge often knows early: once
// the shared features still possible (those counted plus the fewer left on
// either side) cannot make the overlap the threshold needs, it stops. The
// number is exactly weighted_jaccard(a, b); the early bound is taken a little
// low, so that no rounding stops a merge weighted_jaccard would accept.
std::optional<double> set_jaccard_if_at_least(FeatureView a, FeatureView b, double threshold);

// The same merge with one side taken a piece at a time (simhash_similar's
// verification of long stored rows, whose pieces the glue reads from the
// file one by one): `a` whole, `b` of `size_b` features in ascending pieces.
// take() reports when the verdict is known, so that the pieces after it are
// never read: once the overlap is out of reach (the shared features so far
// plus the fewer left on either side fall below what the threshold needs,
// the bound set_jaccard_if_at_least stops at), or once every feature of `a`
// is passed (no later feature of `b` can be shared: the overlap, and so the
// similarity, is final). Fed every piece, it decides as the whole merge
// does; set_jaccard_if_at_least is this with `b` as one piece.
class SetJaccardMerge {
 public:
  SetJaccardMerge(std::span<const std::uint64_t> a, std::size_t size_b, double threshold);

  // Takes the next piece of `b`; false once the verdict is known.
  bool take(std::span<const std::uint64_t> piece);

  // The set Jaccard, when the pieces taken decide it at the threshold or
  // above: the number weighted_jaccard gives with every weight 1, to the bit.
  std::optional<double> similarity() const;

 private:
  bool out_of_reach() const;

  std::span<const std::uint64_t> a_;
  std::size_t size_b_;
  double threshold_;
  std::size_t needed_;
  std::size_t next_ = 0;  // the first feature of `a` not yet passed
  std::size_t overlap_ = 0;
  std::size_t read_ = 0;  // the features of `b` taken
};

}  // namespace simhash
