// SPDX-License-Identifier: MIT
// Identical rows are found by a hash of fingerprint and features, then
// compared feature by feature. The hash is spread (Fibonacci hashing) to
// pick the first slot, so keys that differ only in high bits still spread.
#include "batch/feature_rows.h"

#include <algorithm>
#include <bit>
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

std::uint32_t FeatureRows::add(std::uint64_t fingerprint, const FeatureVector& features,
                               RowKey key) {
  if (features.empty()) {
    throw std::invalid_argument("simhash: a row to compare has no features");
  }
  if (finished_) {
    throw std::logic_error("simhash: a row added after the rows were finished");
  }
  const bool binary = key.binary;
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
  const bool new_block =
      hash_blocks_.empty() || hash_blocks_.back().capacity() - hash_blocks_.back().size() < size;
  // Charged before anything grows: the blocks (twice once weighted), and per
  // node its record, room for the vector to double and the lookup entry.
  const std::size_t block_bytes =
      block_bytes_ + (new_block ? std::max(kBlockSize, size) * sizeof(std::uint64_t) : 0);
  const bool becomes_weighted = !weighted_ && !binary;
  charge_.grow_to(block_bytes * (weighted_ || becomes_weighted ? 2 : 1) +
                  (nodes_.size() + 1) * (2 * sizeof(Node) + kLookupBytesPerNode));
  block_bytes_ = block_bytes;
  if (4 * (nodes_.size() + 1) > 3 * lookup_.size()) {
    grow_lookup();
    at = first_slot(key.hash, lookup_.size());
    while (lookup_[at].node != kEmpty) {
      at = (at + 1) & (lookup_.size() - 1);
    }
  }
  if (becomes_weighted) {
    for (const std::vector<std::uint64_t>& hashes : hash_blocks_) {
      weight_blocks_.emplace_back(hashes.size(), 1.0).reserve(hashes.capacity());
    }
    weighted_ = true;
  }
  if (new_block) {
    hash_blocks_.emplace_back().reserve(std::max(kBlockSize, size));
    if (weighted_) {
      weight_blocks_.emplace_back().reserve(std::max(kBlockSize, size));
    }
  }
  std::vector<std::uint64_t>& hashes = hash_blocks_.back();
  const auto node = static_cast<std::uint32_t>(nodes_.size());
  nodes_.push_back(Node{fingerprint, static_cast<std::uint32_t>(hash_blocks_.size() - 1),
                        static_cast<std::uint32_t>(hashes.size()), size, features.sum_of_weights});
  hashes.insert(hashes.end(), features.hashes.begin(), features.hashes.end());
  if (weighted_) {
    weight_blocks_.back().insert(weight_blocks_.back().end(), features.weights.begin(),
                                 features.weights.end());
  }
  hash_count_ += size;
  lookup_[at] = Slot{key.hash, node};
  return node;
}

void FeatureRows::finish_adding() {
  finished_ = true;
  // The lookup goes first, so that the node array's copy (shrink_to_fit)
  // takes less than it freed and the peak does not rise.
  std::vector<Slot>().swap(lookup_);
  nodes_.shrink_to_fit();
  charge_.set(block_bytes_ * (weighted_ ? 2 : 1) + nodes_.capacity() * sizeof(Node));
}

FeatureView FeatureRows::features_of(std::uint32_t node) const {
  const Node& stored = nodes_[node];
  const std::span<const std::uint64_t> hashes(hash_blocks_[stored.block].data() + stored.offset,
                                              stored.size);
  if (!weighted_) {
    return FeatureView(hashes, {}, stored.sum_of_weights);
  }
  return FeatureView(
      hashes,
      std::span<const double>(weight_blocks_[stored.block].data() + stored.offset, stored.size),
      stored.sum_of_weights);
}

}  // namespace simhash
