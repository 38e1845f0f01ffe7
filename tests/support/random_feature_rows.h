// SPDX-License-Identifier: MIT
// Random rows for the engine's dedup and pair tests: ids, fingerprints and
// feature vectors drawn so that exact duplicates, shared fingerprints with
// different features and ties in similarity are common.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <random>
#include <vector>

#include "fingerprint/feature_similarity.h"

namespace simhash::testing {

struct Row {
  std::int64_t id;
  std::uint64_t fp;
  FeatureVector features;
};

inline FeatureVector vector_of(const std::map<std::uint64_t, double>& weights) {
  FeatureVector vector;
  for (const auto& [hash, weight] : weights) {
    vector.hashes.push_back(hash);
    vector.weights.push_back(weight);
    vector.sum_of_squares += weight * weight;
    vector.sum_of_weights += weight;
  }
  return vector;
}

// `count` rows in visit order with ids shuffled (so visit order is not id
// order): fingerprints near one of a few bases, features a random subset of
// a small universe, with weights 1 (binary) or 1..3 (tf).
inline std::vector<Row> random_rows(std::size_t count, std::uint64_t seed, bool weighted) {
  std::mt19937_64 random(seed);
  std::vector<std::uint64_t> bases(6);
  for (auto& base : bases) {
    base = random();
  }
  std::vector<std::int64_t> ids(count);
  for (std::size_t i = 0; i < count; ++i) {
    ids[i] = static_cast<std::int64_t>(i * 3) - 50;
  }
  std::shuffle(ids.begin(), ids.end(), random);
  std::vector<Row> rows;
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0 && random() % 5 == 0) {  // an exact duplicate of an earlier row
      Row copy = rows[random() % rows.size()];
      copy.id = ids[i];
      rows.push_back(copy);
      continue;
    }
    std::uint64_t fp = bases[random() % bases.size()];
    for (int flips = static_cast<int>(random() % 5); flips > 0; --flips) {
      fp ^= std::uint64_t{1} << (random() % 64);
    }
    std::map<std::uint64_t, double> weights;
    while (weights.empty()) {
      for (std::uint64_t hash = 1; hash <= 8; ++hash) {
        if (random() % 3 != 0) {
          weights[hash * 0x1000193] = weighted ? static_cast<double>(1 + random() % 3) : 1.0;
        }
      }
    }
    rows.push_back(Row{ids[i], fp, vector_of(weights)});
  }
  return rows;
}

// Binary rows over a universe of 60 features, edited copies of a few bases
// (a few features dropped or added, so sizes and similarities spread),
// with exact duplicates; fingerprints random, as the join ignores them.
inline std::vector<Row> edited_binary_rows(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<std::map<std::uint64_t, double>> bases(8);
  for (auto& base : bases) {
    const std::uint64_t size = 3 + random() % 30;
    while (base.size() < size) {
      base[1 + random() % 60] = 1;
    }
  }
  std::vector<Row> rows;
  for (std::size_t i = 0; i < count; ++i) {
    const std::int64_t id = static_cast<std::int64_t>(count - i);  // visit order is not id order
    if (i > 0 && random() % 6 == 0) {
      Row copy = rows[random() % rows.size()];
      copy.id = id;
      rows.push_back(copy);
      continue;
    }
    std::map<std::uint64_t, double> features = bases[random() % bases.size()];
    for (int edits = static_cast<int>(random() % 5); edits > 0; --edits) {
      if (random() % 2 == 0 && features.size() > 1) {
        features.erase(
            std::next(features.begin(), static_cast<std::ptrdiff_t>(random() % features.size())));
      } else {
        features[1 + random() % 60] = 1;
      }
    }
    rows.push_back(Row{id, random() % 4, vector_of(features)});
  }
  return rows;
}

}  // namespace simhash::testing
