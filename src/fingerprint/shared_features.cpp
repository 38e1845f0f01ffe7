// SPDX-License-Identifier: MIT
// Shared features by a sorted list of B's hashes and a binary search for
// each of A's, so A's order is kept without a hash table.
#include "fingerprint/shared_features.h"

#include <algorithm>
#include <utility>

namespace simhash {

std::vector<SharedFeature> shared_features(std::span<const Feature> a, std::span<const Feature> b) {
  std::vector<std::pair<std::uint64_t, double>> b_weights;
  b_weights.reserve(b.size());
  for (const Feature& feature : b) {
    b_weights.emplace_back(feature.hash, feature.weight);
  }
  std::sort(b_weights.begin(), b_weights.end());
  std::vector<SharedFeature> shared;
  for (const Feature& feature : a) {
    const auto found = std::lower_bound(b_weights.begin(), b_weights.end(), feature.hash,
                                        [](const std::pair<std::uint64_t, double>& entry,
                                           std::uint64_t hash) { return entry.first < hash; });
    if (found != b_weights.end() && found->first == feature.hash) {
      shared.push_back(SharedFeature{feature.text, feature.weight, found->second, feature.hash});
    }
  }
  return shared;
}

}  // namespace simhash
