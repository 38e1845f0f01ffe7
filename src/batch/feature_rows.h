// SPDX-License-Identifier: MIT
// The distinct rows a similarity join compares: each one's fingerprint and
// feature vector, all the features in one flat array (no weights while
// every weight is 1), identical rows (same fingerprint, same features)
// stored once. Memory: 8 bytes a feature (16 once a weight is not 1), 32
// bytes a distinct row and 21 to 43 in the table that finds identical ones
// (64 while it doubles).
// The features are kept in blocks that never move (as in chunked_array.h:
// no long copy while rows are added). All of it is charged to the memory
// limit (memory_budget.h) before it grows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "fingerprint/feature_similarity.h"
#include "util/memory_budget.h"

namespace simhash {

// What finds a row's identical rows: a hash of its fingerprint and
// features, and whether every weight is 1. Computing it is a pass over the
// features, so the threads that build them compute it too (key_of below),
// and the thread that adds every row only looks it up.
struct RowKey {
  std::uint64_t hash = 0;
  bool binary = true;
};

class FeatureRows {
 public:
  // The key add() looks `features` up by; the same for the same fingerprint,
  // hashes and weights (weights all 1 hash as none).
  static RowKey key_of(std::uint64_t fingerprint, const FeatureVector& features);

  // The row's node: a new one, or the node of an identical earlier row.
  // `features` must not be empty (std::invalid_argument). `key` must be
  // key_of(fingerprint, features).
  std::uint32_t add(std::uint64_t fingerprint, const FeatureVector& features, RowKey key);
  std::uint32_t add(std::uint64_t fingerprint, const FeatureVector& features) {
    return add(fingerprint, features, key_of(fingerprint, features));
  }
  // Frees what only add() needs, the table that finds identical rows (about
  // 40 bytes a distinct row) and the node array's spare room, and gives
  // their charge back: a join holds the rows long after the last is added.
  // add() after it throws std::logic_error.
  void finish_adding();
  bool finished() const { return finished_; }

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
  // The lookup's slots: 16 bytes, at most 3/4 of them used; while it
  // doubles, the old table and the new, 64 bytes a node.
  static constexpr std::size_t kLookupBytesPerNode = 64;
  struct Slot {
    std::uint64_t hash;
    std::uint32_t node;  // kEmpty for none
  };
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFF;
  // Doubles `lookup_` (from 1024 slots) when one more node would fill it
  // past 3/4.
  void grow_lookup();
  MemoryCharge charge_;          // first: given back after everything below is freed
  std::size_t block_bytes_ = 0;  // the hash blocks' capacity, in bytes
  std::vector<Node> nodes_;
  std::vector<std::vector<std::uint64_t>> hash_blocks_;
  // Filled from the first node with a weight other than 1, block for block.
  std::vector<std::vector<double>> weight_blocks_;
  std::size_t hash_count_ = 0;
  bool weighted_ = false;
  bool finished_ = false;  // finish_adding() was called
  // Nodes by a hash of fingerprint and features, open addressing with
  // linear probing (a power of two of slots); equality is checked. One
  // array: no allocation a node, one cache miss a lookup.
  std::vector<Slot> lookup_;
};

}  // namespace simhash
