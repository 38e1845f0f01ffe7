// SPDX-License-Identifier: MIT
// The features two texts share, with each text's weight: what a verified
// pair has in common, listed by simhash_shared_features.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fingerprint/feature_extractor.h"

namespace simhash {

struct SharedFeature {
  std::string text;
  double weight_a = 0;
  double weight_b = 0;
  std::uint64_t hash = 0;
};

// The features of `a` that `b` has too (by feature hash, as every
// similarity compares them), in `a`'s order; each list as
// FeatureExtractor::features gives it (distinct features).
std::vector<SharedFeature> shared_features(std::span<const Feature> a, std::span<const Feature> b);

}  // namespace simhash
