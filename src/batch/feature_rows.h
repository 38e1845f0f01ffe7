// The distinct rows a similarity join compares: each one's fingerprint and
// feature vector, all the features in one flat array (no weights while
// every weight is 1), identical rows (same fingerprint, same features)
// stored once. Memory: 8 bytes a feature (16 once a weight is not 1), 32
// bytes a distinct row and about 40 in the table that finds identical ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "fingerprint/feature_similarity.h"

namespace simhash {

class FeatureRows {
 public:
  // The row's node: a new one, or the node of an identical earlier row.
  // `features` must not be empty (std::invalid_argument).
  std::uint32_t add(std::uint64_t fingerprint, const FeatureVector& features);

  std::size_t size() const { return nodes_.size(); }
  FeatureView features_of(std::uint32_t node) const;
  std::uint64_t fingerprint_of(std::uint32_t node) const { return nodes_[node].fingerprint; }
  // False while every weight added is 1 (weight=binary).
  bool weighted() const { return weighted_; }
  // Every node's feature hashes, one node after the other.
  std::span<const std::uint64_t> all_hashes() const { return hashes_; }

 private:
  struct Node {
    std::uint64_t fingerprint;
    std::size_t first;  // into hashes_ (and weights_ when weighted_)
    std::size_t size;
    double sum_of_weights;
  };
  std::vector<Node> nodes_;
  std::vector<std::uint64_t> hashes_;
  std::vector<double> weights_;  // filled from the first node with a weight other than 1
  bool weighted_ = false;
  // Nodes by a hash of fingerprint and features; equality is checked.
  std::unordered_multimap<std::uint64_t, std::uint32_t> node_by_key_;
};

}  // namespace simhash
