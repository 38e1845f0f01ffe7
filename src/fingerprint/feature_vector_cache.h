// SPDX-License-Identifier: MIT
// Feature vectors of recently seen texts, so that verifying many pairs over
// the same texts tokenizes each text once rather than once per pair.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "fingerprint/feature_extractor.h"
#include "fingerprint/feature_similarity.h"

namespace simhash {

// A least-recently-used cache from (options, text) to the text's feature
// vector, holding at most about `byte_budget` bytes of texts and vectors.
// Entries are found by a hash of the text and confirmed by comparing the
// text itself, so an entry is never served for another text.
class FeatureVectorCache {
 public:
  explicit FeatureVectorCache(std::size_t byte_budget) : byte_budget_(byte_budget) {}

  // The vector of `text` under `extractor`, whose options `options_key`
  // names (vectors under different keys are never shared). The result stays
  // valid however the cache changes afterwards.
  std::shared_ptr<const FeatureVector> vector_of(FeatureExtractor& extractor,
                                                 std::string_view options_key,
                                                 std::string_view text);

  std::size_t entries() const { return recency_.size(); }
  std::size_t bytes() const { return bytes_; }

 private:
  struct Entry {
    std::uint64_t text_hash;
    std::string options_key;
    std::string text;
    std::shared_ptr<const FeatureVector> vector;
    std::size_t bytes;
  };
  using Recency = std::list<Entry>;  // most recently used first

  void evict_beyond_budget();

  std::size_t byte_budget_;
  std::size_t bytes_ = 0;
  Recency recency_;
  std::unordered_multimap<std::uint64_t, Recency::iterator> by_text_hash_;
};

}  // namespace simhash
