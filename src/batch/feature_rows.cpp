// SPDX-License-Identifier: MIT
// Identical rows are found by a hash of fingerprint and features, then
// compared feature by feature. The hash is spread (Fibonacci hashing) to
// pick the first slot, so keys that differ only in high bits still spread.
#include "batch/feature_rows.h"

#include <algorithm>
#include <bit>
#include <cstdint>
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

std::uint32_t FeatureRows::add(std::uint64_t fingerprint, FeatureView features, RowKey key,
                               std::optional<std::uint32_t> adopted_block) {
  if (features.hashes.empty()) {
    throw std::invalid_argument("simhash: a row to compare has no features");
  }
  if (finished_) {
    throw std::logic_error("simhash: a row added after the rows were finished");
  }
  // The block the caller says the features lie in (laid out there: they
  // stay, with their weights when they have any but 1), and their offset in
  // it: one subtraction both finds the offset the node keeps and checks the
  // claim (a pointer before the block wraps to an offset past its end).
  std::size_t in_block = kNoBlock;
  std::size_t offset = 0;
  if (adopted_block) {
    in_block = *adopted_block < adopted_.size() ? adopted_[*adopted_block] : kNoBlock;
    const Block* block = in_block == kNoBlock ? nullptr : &blocks_[in_block];
    const std::uintptr_t distance = block == nullptr
                                        ? 0
                                        : reinterpret_cast<std::uintptr_t>(features.hashes.data()) -
                                              reinterpret_cast<std::uintptr_t>(block->hashes.get());
    offset = distance / sizeof(std::uint64_t);
    if (block == nullptr || distance % sizeof(std::uint64_t) != 0 || offset > block->size ||
        block->size - offset < features.hashes.size() || (!key.binary && !block->weights)) {
      throw std::logic_error("simhash: a row's features are not in the block adopted for it");
    }
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
  const bool in_adopted = in_block != kNoBlock;
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
    nodes_.push_back(Node{fingerprint, static_cast<std::uint32_t>(in_block),
                          static_cast<std::uint32_t>(offset), size, features.sum_of_weights});
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

void FeatureRows::adopt(std::vector<FeatureBlock> blocks) {
  if (finished_) {
    throw std::logic_error("simhash: a block adopted after the rows were finished");
  }
  std::size_t size = 0;
  std::size_t laid_out = 0;  // of them with weights
  for (const FeatureBlock& block : blocks) {
    if (block.size >= std::numeric_limits<std::uint32_t>::max()) {
      throw std::length_error("simhash: a block of features too large");
    }
    size += block.size;
    laid_out += block.weights ? block.size : 0;
  }
  close_adopted();
  charge_.grow_to(
      charged_bytes(capacity_ + size, laid_out_weights_ + laid_out, weighted_, nodes_.size()));
  adopted_first_node_ = static_cast<std::uint32_t>(nodes_.size());
  for (FeatureBlock& block : blocks) {
    if (block.size == 0) {
      adopted_.push_back(kNoBlock);
      continue;
    }
    Block taken{std::move(block.hashes), std::move(block.weights), block.size, block.size};
    if (!weighted_) {
      laid_out_weights_ += taken.weights ? taken.size : 0;
    } else if (!taken.weights) {
      taken.weights = std::make_unique_for_overwrite<double[]>(taken.size);
      std::fill_n(taken.weights.get(), taken.size, 1.0);
    }
    capacity_ += taken.capacity;
    blocks_.push_back(std::move(taken));
    adopted_.push_back(blocks_.size() - 1);
  }
}

void FeatureRows::close_adopted() {
  // adopt() put its blocks side by side in blocks_: [first, last).
  std::size_t first = blocks_.size();
  std::size_t last = 0;
  for (const std::size_t index : adopted_) {
    if (index != kNoBlock) {
      first = std::min(first, index);
      last = std::max(last, index + 1);
    }
  }
  adopted_.clear();
  if (first >= last) {
    return;
  }
  // What the rows added since use of each.
  std::vector<std::size_t> used(last - first, 0);
  for (std::size_t node = adopted_first_node_; node < nodes_.size(); ++node) {
    if (nodes_[node].block >= first && nodes_[node].block < last) {
      used[nodes_[node].block - first] += nodes_[node].size;
    }
  }
  // The blocks mostly of identical rows: their room goes, at the price of
  // one copy of the rows kept, the copies and the blocks together charged
  // for a moment.
  std::size_t copies = 0;
  std::size_t laid_out = 0;  // of the copies, those with weights laid out
  std::vector<bool> compact(used.size(), false);
  bool any = false;  // a block to compact (to nothing where no row kept is in it)
  for (std::size_t i = 0; i < used.size(); ++i) {
    if (8 * used[i] < 7 * blocks_[first + i].capacity) {
      compact[i] = true;
      any = true;
      copies += used[i];
      laid_out += blocks_[first + i].weights && !weighted_ ? used[i] : 0;
    }
  }
  if (!any) {
    return;
  }
  charge_.grow_to(
      charged_bytes(capacity_ + copies, laid_out_weights_ + laid_out, weighted_, nodes_.size()));
  std::vector<Block> tight(used.size());
  for (std::size_t i = 0; i < used.size(); ++i) {
    if (compact[i] && used[i] > 0) {
      tight[i].hashes = std::make_unique_for_overwrite<std::uint64_t[]>(used[i]);
      if (blocks_[first + i].weights) {
        tight[i].weights = std::make_unique_for_overwrite<double[]>(used[i]);
      }
      tight[i].capacity = used[i];
    }
  }
  for (std::size_t node = adopted_first_node_; node < nodes_.size(); ++node) {
    Node& moved = nodes_[node];
    if (moved.block < first || moved.block >= last || !compact[moved.block - first]) {
      continue;
    }
    Block& to = tight[moved.block - first];
    const Block& from = blocks_[moved.block];
    std::copy_n(from.hashes.get() + moved.offset, moved.size, to.hashes.get() + to.size);
    if (to.weights) {
      std::copy_n(from.weights.get() + moved.offset, moved.size, to.weights.get() + to.size);
    }
    moved.offset = static_cast<std::uint32_t>(to.size);
    to.size += moved.size;
  }
  for (std::size_t i = 0; i < tight.size(); ++i) {
    if (compact[i]) {
      Block& block = blocks_[first + i];
      capacity_ -= block.capacity - tight[i].capacity;
      laid_out_weights_ -= block.weights && !weighted_ ? block.capacity - tight[i].capacity : 0;
      block = std::move(tight[i]);
    }
  }
  charge_.set(charged_bytes(capacity_, laid_out_weights_, weighted_, nodes_.size()));
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
