// SPDX-License-Identifier: MIT
// Identical rows are found by a hash of fingerprint and features, then
// compared feature by feature. The hash is spread (Fibonacci hashing) to
// pick the first slot, so keys that differ only in high bits still spread.
#include "batch/feature_rows.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string_view>

#include "fingerprint/feature_hash.h"

namespace simhash {
namespace {

// The bytes of a span of numbers, for hashing.
template <typename Number>
std::string_view bytes_of(std::span<const Number> numbers) {
  return {reinterpret_cast<const char*>(numbers.data()), numbers.size_bytes()};
}

bool is_binary(const FeatureVector& features) {
  return std::all_of(features.weights.begin(), features.weights.end(),
                     [](double weight) { return weight == 1.0; });
}

// Weights all 1 hash as no weights, so that a row's key does not depend on
// whether the rows before it were weighted.
std::uint64_t node_key(std::uint64_t fingerprint, const FeatureVector& features, bool binary) {
  const std::uint64_t key =
      fingerprint ^ feature_hash(bytes_of(std::span<const std::uint64_t>(features.hashes)));
  if (binary) {
    return key;
  }
  return key ^ (feature_hash(bytes_of(std::span<const double>(features.weights))) *
                0x9E3779B97F4A7C15ULL);
}

// The slot a hash's probe starts at, in a table of `size` (a power of two).
std::size_t first_slot(std::uint64_t hash, std::size_t size) {
  return static_cast<std::size_t>((hash * 0x9E3779B97F4A7C15ULL) >> (64 - std::countr_zero(size)));
}

bool same_features(FeatureView a, FeatureView b) {
  if (!std::equal(a.hashes.begin(), a.hashes.end(), b.hashes.begin(), b.hashes.end())) {
    return false;
  }
  for (std::size_t i = 0; i < a.hashes.size(); ++i) {
    if (a.weight(i) != b.weight(i)) {
      return false;
    }
  }
  return true;
}

}  // namespace

RowKey FeatureRows::key_of(std::uint64_t fingerprint, const FeatureVector& features) {
  const bool binary = is_binary(features);
  return RowKey{node_key(fingerprint, features, binary), binary};
}

void FeatureRows::grow_lookup() {
  const std::size_t size = std::max<std::size_t>(1024, 2 * lookup_.size());
  std::vector<Slot> grown(size, Slot{0, kEmpty});
  for (const Slot& slot : lookup_) {
    if (slot.node != kEmpty) {
      std::size_t at = first_slot(slot.hash, size);
      while (grown[at].node != kEmpty) {
        at = (at + 1) & (size - 1);
      }
      grown[at] = slot;
    }
  }
  lookup_.swap(grown);
}

std::size_t FeatureRows::charged_bytes(std::size_t capacity, std::size_t laid_out_weights,
                                       bool weighted, std::size_t nodes) const {
  const std::size_t weights = weighted ? capacity : laid_out_weights;
  const std::size_t per_node = finished_ ? sizeof(Node) : 2 * sizeof(Node) + kLookupBytesPerNode;
  return (capacity + weights) * sizeof(std::uint64_t) + nodes * per_node;
}

void FeatureRows::add_weights() {
  for (Block& block : blocks_) {
    if (!block.weights) {
      block.weights = std::make_unique_for_overwrite<double[]>(block.capacity);
      std::fill_n(block.weights.get(), block.size, 1.0);
    }
  }
  laid_out_weights_ = 0;  // every block has them now: charged with the capacity
}

std::uint32_t FeatureRows::add(std::uint64_t fingerprint, FeatureView features, RowKey key) {
  if (features.hashes.empty()) {
    throw std::invalid_argument("simhash: a row to compare has no features");
  }
  if (finished_) {
    throw std::logic_error("simhash: a row added after the rows were finished");
  }
  std::size_t at = lookup_.empty() ? 0 : first_slot(key.hash, lookup_.size());
  for (; !lookup_.empty() && lookup_[at].node != kEmpty; at = (at + 1) & (lookup_.size() - 1)) {
    const std::uint32_t found = lookup_[at].node;
    if (lookup_[at].hash == key.hash && nodes_[found].fingerprint == fingerprint &&
        same_features(features_of(found), features)) {
      return found;
    }
  }
  if (nodes_.size() >= std::numeric_limits<std::uint32_t>::max() - 1) {
    throw std::length_error("simhash: too many distinct rows to compare");
  }
  const std::size_t size = features.hashes.size();
  // A row laid out in the adopted block stays there (with its weights, when
  // it has any but 1).
  const std::less<const std::uint64_t*> before;
  const bool in_adopted =
      adopted_block_ != kNoBlock &&
      !before(features.hashes.data(), blocks_[adopted_block_].hashes.get()) &&
      !before(blocks_[adopted_block_].hashes.get() + blocks_[adopted_block_].size,
              features.hashes.data() + size) &&
      (key.binary || blocks_[adopted_block_].weights);
  const bool new_block =
      !in_adopted && (append_block_ == kNoBlock ||
                      blocks_[append_block_].capacity - blocks_[append_block_].size < size);
  const std::size_t new_capacity = new_block ? std::max(kBlockSize, size) : 0;
  // Charged before anything grows: the blocks (twice once weighted), and per
  // node its record, room for the vector to double and the lookup entry.
  const bool becomes_weighted = !weighted_ && !key.binary;
  charge_.grow_to(charged_bytes(capacity_ + new_capacity, laid_out_weights_,
                                weighted_ || becomes_weighted, nodes_.size() + 1));
  if (4 * (nodes_.size() + 1) > 3 * lookup_.size()) {
    grow_lookup();
    at = first_slot(key.hash, lookup_.size());
    while (lookup_[at].node != kEmpty) {
      at = (at + 1) & (lookup_.size() - 1);
    }
  }
  if (becomes_weighted) {
    add_weights();
    weighted_ = true;
  }
  if (new_block) {
    Block block;
    block.hashes = std::make_unique_for_overwrite<std::uint64_t[]>(new_capacity);
    if (weighted_) {
      block.weights = std::make_unique_for_overwrite<double[]>(new_capacity);
    }
    block.capacity = new_capacity;
    blocks_.push_back(std::move(block));
    capacity_ += new_capacity;
    append_block_ = blocks_.size() - 1;
  }
  const auto node = static_cast<std::uint32_t>(nodes_.size());
  if (in_adopted) {
    const Block& block = blocks_[adopted_block_];
    nodes_.push_back(Node{fingerprint, static_cast<std::uint32_t>(adopted_block_),
                          static_cast<std::uint32_t>(features.hashes.data() - block.hashes.get()),
                          size, features.sum_of_weights});
  } else {
    Block& block = blocks_[append_block_];
    nodes_.push_back(Node{fingerprint, static_cast<std::uint32_t>(append_block_),
                          static_cast<std::uint32_t>(block.size), size, features.sum_of_weights});
    std::copy(features.hashes.begin(), features.hashes.end(), block.hashes.get() + block.size);
    if (weighted_) {
      for (std::size_t i = 0; i < size; ++i) {
        block.weights[block.size + i] = features.weight(i);
      }
    }
    block.size += size;
  }
  hash_count_ += size;
  lookup_[at] = Slot{key.hash, node};
  return node;
}

void FeatureRows::adopt(FeatureBlock block) {
  if (finished_) {
    throw std::logic_error("simhash: a block adopted after the rows were finished");
  }
  if (block.size >= std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error("simhash: a block of features too large");
  }
  close_adopted();
  if (block.size == 0) {
    return;
  }
  const std::size_t laid_out = block.weights ? block.size : 0;
  charge_.grow_to(charged_bytes(capacity_ + block.size, laid_out_weights_ + laid_out, weighted_,
                                nodes_.size()));
  Block adopted{std::move(block.hashes), std::move(block.weights), block.size, block.size};
  if (weighted_ && !adopted.weights) {
    adopted.weights = std::make_unique_for_overwrite<double[]>(adopted.size);
    std::fill_n(adopted.weights.get(), adopted.size, 1.0);
  }
  if (!weighted_) {
    laid_out_weights_ += laid_out;
  }
  capacity_ += adopted.capacity;
  blocks_.push_back(std::move(adopted));
  adopted_block_ = blocks_.size() - 1;
  adopted_first_node_ = static_cast<std::uint32_t>(nodes_.size());
}

void FeatureRows::close_adopted() {
  if (adopted_block_ == kNoBlock) {
    return;
  }
  Block& block = blocks_[adopted_block_];
  std::size_t used = 0;
  for (std::size_t node = adopted_first_node_; node < nodes_.size(); ++node) {
    used += nodes_[node].block == adopted_block_ ? nodes_[node].size : 0;
  }
  if (8 * used < 7 * block.capacity) {
    // Mostly identical rows: their room goes, at the price of one copy.
    const bool weights = block.weights != nullptr;
    const std::size_t laid_out = weights && !weighted_ ? used : 0;
    const std::size_t laid_out_before = weights && !weighted_ ? block.capacity : 0;
    // The copy and the block together for a moment.
    charge_.grow_to(
        charged_bytes(capacity_ + used, laid_out_weights_ + laid_out, weighted_, nodes_.size()));
    Block tight;
    tight.hashes = std::make_unique_for_overwrite<std::uint64_t[]>(used);
    if (weights) {
      tight.weights = std::make_unique_for_overwrite<double[]>(used);
    }
    for (std::size_t node = adopted_first_node_; node < nodes_.size(); ++node) {
      Node& moved = nodes_[node];
      if (moved.block != adopted_block_) {
        continue;
      }
      std::copy_n(block.hashes.get() + moved.offset, moved.size, tight.hashes.get() + tight.size);
      if (weights) {
        std::copy_n(block.weights.get() + moved.offset, moved.size,
                    tight.weights.get() + tight.size);
      }
      moved.offset = static_cast<std::uint32_t>(tight.size);
      tight.size += moved.size;
    }
    tight.capacity = used;
    capacity_ -= block.capacity - used;
    laid_out_weights_ -= laid_out_before - laid_out;
    block = std::move(tight);
    charge_.set(charged_bytes(capacity_, laid_out_weights_, weighted_, nodes_.size()));
  }
  adopted_block_ = kNoBlock;
}

void FeatureRows::finish_adding() {
  // The lookup goes first, so that the node array's copy (shrink_to_fit)
  // and the adopted block's, if any, take less than it freed.
  std::vector<Slot>().swap(lookup_);
  close_adopted();
  finished_ = true;
  nodes_.shrink_to_fit();
  charge_.set(charged_bytes(capacity_, laid_out_weights_, weighted_, 0) +
              nodes_.capacity() * sizeof(Node));
}

FeatureView FeatureRows::features_of(std::uint32_t node) const {
  const Node& stored = nodes_[node];
  const Block& block = blocks_[stored.block];
  const std::span<const std::uint64_t> hashes(block.hashes.get() + stored.offset, stored.size);
  if (!weighted_) {
    return FeatureView(hashes, {}, stored.sum_of_weights);
  }
  return FeatureView(hashes,
                     std::span<const double>(block.weights.get() + stored.offset, stored.size),
                     stored.sum_of_weights);
}

}  // namespace simhash
