// SPDX-License-Identifier: MIT
// The cache's bookkeeping: a recency list owning the entries and a hash index
// into it; eviction from the least recently used end.
#include "fingerprint/feature_vector_cache.h"

#include <utility>

#include "fingerprint/feature_hash.h"

namespace simhash {

namespace {

// What an entry costs beyond its payload: list and index nodes, headers.
constexpr std::size_t kEntryOverhead = 160;

std::size_t bytes_of(const std::string& options_key, const std::string& text,
                     const FeatureVector& vector) {
  return kEntryOverhead + options_key.size() + text.size() +
         vector.hashes.capacity() * sizeof(std::uint64_t) +
         vector.weights.capacity() * sizeof(double);
}

}  // namespace

std::shared_ptr<const FeatureVector> FeatureVectorCache::vector_of(FeatureExtractor& extractor,
                                                                   std::string_view options_key,
                                                                   std::string_view text) {
  const std::uint64_t text_hash = feature_hash(text);
  const auto [first, last] = by_text_hash_.equal_range(text_hash);
  for (auto found = first; found != last; ++found) {
    const Recency::iterator entry = found->second;
    if (entry->text == text && entry->options_key == options_key) {
      recency_.splice(recency_.begin(), recency_, entry);
      return entry->vector;
    }
  }
  auto vector = std::make_shared<FeatureVector>();
  extractor.feature_vector(text, *vector);
  Entry entry{text_hash, std::string(options_key), std::string(text), vector, 0};
  entry.bytes = bytes_of(entry.options_key, entry.text, *vector);
  if (entry.bytes <= byte_budget_) {
    bytes_ += entry.bytes;
    recency_.push_front(std::move(entry));
    by_text_hash_.emplace(text_hash, recency_.begin());
    evict_beyond_budget();
  }
  return vector;
}

void FeatureVectorCache::evict_beyond_budget() {
  while (bytes_ > byte_budget_ && !recency_.empty()) {
    const Recency::iterator oldest = std::prev(recency_.end());
    const auto [first, last] = by_text_hash_.equal_range(oldest->text_hash);
    for (auto found = first; found != last; ++found) {
      if (found->second == oldest) {
        by_text_hash_.erase(found);
        break;
      }
    }
    bytes_ -= oldest->bytes;
    recency_.erase(oldest);
  }
}

}  // namespace simhash
