// SPDX-License-Identifier: MIT
// The distinct rows a similarity join compares: each one's fingerprint and
// feature vector, all the features in one flat array (no weights while
// every weight is 1), identical rows (same fingerprint, same features)
// stored once. Memory: 8 bytes a feature (16 once a weight is not 1), 32
// bytes a distinct row and about 40 in the table that finds identical ones.
// The features are kept in blocks that never move (as in chunked_array.h:
// no long copy while rows are added). All of it is charged to the memory
// limit (memory_budget.h) before it grows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "fingerprint/feature_similarity.h"
#include "util/memory_budget.h"

namespace simhash {

class FeatureRows {
 public:
  // The row's node: a new one, or the node of an identical earlier row.
  // `features` must not be empty (std::invalid_argument).
  std::uint32_t add(std::uint64_t fingerprint, const FeatureVector& features);
  // Frees what only add() needs, the table that finds identical rows (about
  // 40 bytes a distinct row) and the node array's spare room, and gives
  // their charge back: a join holds the rows long after the last is added.
  // add() after it throws std::logic_error.
  void finish_adding();

  std::size_t size() const { return nodes_.size(); }
  FeatureView features_of(std::uint32_t node) const;
  std::uint64_t fingerprint_of(std::uint32_t node) const { return nodes_[node].fingerprint; }
  // False while every weight added is 1 (weight=binary).
  bool weighted() const { return weighted_; }
  // The number of feature hashes of all nodes together.
  std::size_t hash_count() const { return hash_count_; }

 private:
  // Features are appended to the last block while it has room, else to a
  // new one of kBlockSize, or of their own size when larger.
  static constexpr std::size_t kBlockSize = std::size_t{1} << 15;
  struct Node {
    std::uint64_t fingerprint;
    std::uint32_t block;   // into hash_blocks_ (and weight_blocks_ when weighted_)
    std::uint32_t offset;  // within the block
    std::size_t size;
    double sum_of_weights;
  };
  // An unordered_multimap entry (node, hash and value, the allocator's
  // header) and its bucket.
  static constexpr std::size_t kLookupBytesPerNode = 64;
  MemoryCharge charge_;          // first: given back after everything below is freed
  std::size_t block_bytes_ = 0;  // the hash blocks' capacity, in bytes
  std::vector<Node> nodes_;
  std::vector<std::vector<std::uint64_t>> hash_blocks_;
  // Filled from the first node with a weight other than 1, block for block.
  std::vector<std::vector<double>> weight_blocks_;
  std::size_t hash_count_ = 0;
  bool weighted_ = false;
  bool finished_ = false;  // finish_adding() was called
  // Nodes by a hash of fingerprint and features; equality is checked.
  std::unordered_multimap<std::uint64_t, std::uint32_t> node_by_key_;
};

}  // namespace simhash
