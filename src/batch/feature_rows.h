// SPDX-License-Identifier: MIT
// The distinct rows a similarity join compares: each one's fingerprint and
// feature vector, all the features in one flat array (no weights while
// every weight is 1), identical rows (same fingerprint, same features)
// stored once. Memory: 8 bytes a feature (16 once a weight is not 1; up to
// 8/7 of that where identical rows leave an adopted block unused), 32
// bytes a distinct row and 21 to 43 in the table that finds identical ones
// (64 while it doubles).
// The features are kept in blocks that never move (as in chunked_array.h:
// no long copy while rows are added). A block is either filled here, row by
// row, or laid out whole by a thread that built some of a batch's features
// (FeatureBlock, row_features.h: a block per thread) and adopted: the new
// rows its caller says lie there only point into it, so the thread adding
// the rows copies no feature. All of it is charged to the memory limit
// (memory_budget.h) before it grows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
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

// A batch's features laid out end to end, row after row: the hashes, and the
// weights (1 for a row without) only when some row of the batch has a weight
// other than 1. Arrays of their exact size, written once, so that the pages
// are first touched by the threads that lay them out.
struct FeatureBlock {
  std::unique_ptr<std::uint64_t[]> hashes;
  std::unique_ptr<double[]> weights;  // null: every weight is 1
  std::size_t size = 0;
};

class FeatureRows {
 public:
  // The key add() looks `features` up by; the same for the same fingerprint,
  // hashes and weights (weights all 1 hash as none).
  static RowKey key_of(std::uint64_t fingerprint, const FeatureVector& features);

  // The row's node: a new one, or the node of an identical earlier row.
  // `features` must not be empty (std::invalid_argument). `key` must be
  // key_of(fingerprint, features). With `adopted_block` the caller says
  // that `features` lie in that block (its index among the blocks of the
  // last adopt()): a new node then points into it, nothing is copied
  // (std::logic_error when they do not lie there, or have weights other
  // than 1 the block lacks). Without it the features are copied.
  std::uint32_t add(std::uint64_t fingerprint, FeatureView features, RowKey key,
                    std::optional<std::uint32_t> adopted_block);
  std::uint32_t add(std::uint64_t fingerprint, const FeatureVector& features) {
    return add(fingerprint, features, key_of(fingerprint, features), std::nullopt);
  }
  // Takes `blocks` as the blocks the next rows' features lie in (one batch's,
  // one block per thread that laid them out; an empty one holds no row),
  // charged whole before they are taken. The blocks adopted before are
  // closed: each one whose identical rows (not kept: their node is an
  // earlier one) left more than an eighth of it unused has the rows kept
  // copied into a block of their size, so unused room stays under a seventh
  // of what is kept (the memory bound's 8 bytes a feature become at most
  // 9.2). std::logic_error after finish_adding().
  void adopt(std::vector<FeatureBlock> blocks);
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
  // Arrays of `capacity`, the first `size` used (adopted: all of it,
  // though identical rows leave parts of it no node points to).
  struct Block {
    std::unique_ptr<std::uint64_t[]> hashes;
    std::unique_ptr<double[]> weights;  // from the first weighted node on
    std::size_t size = 0;
    std::size_t capacity = 0;
  };
  struct Node {
    std::uint64_t fingerprint;
    std::uint32_t block;   // into blocks_
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
  // What charge_ holds for blocks of `capacity` features, `laid_out_weights`
  // of them with weights (all once `weighted`), and `nodes` nodes (their
  // lookup entries too while adding).
  std::size_t charged_bytes(std::size_t capacity, std::size_t laid_out_weights, bool weighted,
                            std::size_t nodes) const;
  // Gives every block weights (1 where none was laid out).
  void add_weights();
  // Copies each adopted block's kept rows into one of their size when they
  // use less than 7/8 of it (the header's adopt()).
  void close_adopted();
  MemoryCharge charge_;               // first: given back after everything below is freed
  std::size_t capacity_ = 0;          // the blocks' capacity, in features
  std::size_t laid_out_weights_ = 0;  // capacity of the blocks adopted with weights
  std::vector<Node> nodes_;
  std::vector<Block> blocks_;
  // The block rows are appended to (the last one filled here): kNoBlock for
  // none. The blocks adopted last, by their index in that adopt() call
  // (kNoBlock for an empty one), and the first node added after it.
  static constexpr std::size_t kNoBlock = static_cast<std::size_t>(-1);
  std::size_t append_block_ = kNoBlock;
  std::vector<std::size_t> adopted_;
  std::uint32_t adopted_first_node_ = 0;
  std::size_t hash_count_ = 0;
  bool weighted_ = false;
  bool finished_ = false;  // finish_adding() was called
  // Nodes by a hash of fingerprint and features, open addressing with
  // linear probing (a power of two of slots); equality is checked. One
  // array: no allocation a node, one cache miss a lookup.
  std::vector<Slot> lookup_;
};

}  // namespace simhash
