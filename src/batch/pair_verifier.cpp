// SPDX-License-Identifier: MIT
// The verification of candidate pairs (pair_verifier.h).
#include "batch/pair_verifier.h"

#include "batch/prefix_filter.h"

namespace simhash {
namespace {

// Steps between two checks: a step (a candidate met, a feature merged: a
// compare and a branch the predictor often misses) costs a few fingerprint
// comparisons, so a quarter of their count, about 10 ms.
constexpr std::size_t kStepsBetweenChecks = kComparisonsBetweenChecks / 4;

}  // namespace

DedupCounts& DedupCounts::operator+=(const DedupCounts& other) {
  candidates += other.candidates;
  checked += other.checked;
  verified += other.verified;
  return *this;
}

std::optional<double> PairVerifier::verify(FeatureView a, FeatureView b) {
  if (!may_reach(a, b, threshold_)) {
    return std::nullopt;
  }
  ++counts_.checked;
  add_work(a.hashes.size() + b.hashes.size());
  std::optional<double> similarity;
  if (weighted_) {
    const double exact = weighted_jaccard(a, b);
    similarity = exact >= threshold_ ? std::optional<double>(exact) : std::nullopt;
  } else {
    similarity = set_jaccard_if_at_least(a, b, threshold_);
  }
  if (similarity) {
    ++counts_.verified;
  }
  return similarity;
}

void PairVerifier::add_work(std::size_t steps) {
  work_ += steps;
  if (work_ >= kStepsBetweenChecks) {
    work_ = 0;
    if (check_ != nullptr && *check_) {
      (*check_)();
    }
  }
}

}  // namespace simhash
