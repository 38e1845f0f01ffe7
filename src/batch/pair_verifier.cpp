// SPDX-License-Identifier: MIT
// The verification of candidate pairs (pair_verifier.h).
#include "batch/pair_verifier.h"

namespace simhash {

DedupCounts& DedupCounts::operator+=(const DedupCounts& other) {
  candidates += other.candidates;
  checked += other.checked;
  verified += other.verified;
  return *this;
}

std::optional<double> PairVerifier::similarity_if_reached(FeatureView a, FeatureView b) {
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

void PairVerifier::check_now() {
  work_ = 0;
  if (check_ != nullptr && *check_) {
    (*check_)();
  }
}

}  // namespace simhash
