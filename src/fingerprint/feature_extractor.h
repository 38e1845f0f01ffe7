// SPDX-License-Identifier: MIT
// Text to weighted features: normalization (NFKC + case folding), ICU word
// segmentation, word or character shingles, occurrence weights, XXH3 hashes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fingerprint/feature_similarity.h"
#include "fingerprint/simhash_options.h"

namespace simhash {

struct Feature {
  std::string text;  // the shingle: tokens joined by one U+0020, or n code points
  double weight = 0;
  std::uint64_t hash = 0;  // feature_hash(text)
};

// The weight of a feature seen `count` times under weight=log: 1 + ln(count),
// with ln(count) rounded to the nearest multiple of 2^-20 (see the .cpp).
double log_tf_weight(std::uint64_t count);

// Holds the ICU objects for one option set; reuse it across texts. Not
// thread-safe. ICU failures throw std::runtime_error (the SQL glue catches).
class FeatureExtractor {
 public:
  explicit FeatureExtractor(const SimhashOptions& options);
  ~FeatureExtractor();
  FeatureExtractor(const FeatureExtractor&) = delete;
  FeatureExtractor& operator=(const FeatureExtractor&) = delete;

  const SimhashOptions& options() const;

  // Distinct features in first-occurrence order, the order in which
  // fingerprint() adds them. Invalid UTF-8 is read as U+FFFD.
  std::vector<Feature> features(std::string_view utf8_text);

  // The simhash of the text; nullopt when it has no features.
  std::optional<std::uint64_t> fingerprint(std::string_view utf8_text);

  // From this many bytes of text on, fingerprint() with unit=char and n of
  // at least kCountBySortingMinN counts features by sorting their hashes
  // (16 bytes per character) instead of in a hash table (32 to 64 bytes per
  // distinct feature): from 6 characters on nearly every window is a new
  // feature, and sorting is both smaller and faster (13 MB of prose, n=16:
  // 300 MB and 1.9 s against 766 MB and 9.7 s). The result is the same: the
  // vote's sums are exact in any order (log_tf_weight).
  static constexpr std::size_t kCountBySortingBytes = std::size_t{1} << 20;
  static constexpr int kCountBySortingMinN = 6;

  // The same features as `out`, sorted by hash for cosine_similarity() and
  // weighted_jaccard(); `out` keeps its buffers between texts.
  void feature_vector(std::string_view utf8_text, FeatureVector& out);

  // feature_vector() in two steps, for a caller that may not need the
  // vector: count_features() counts the text's distinct features (the size
  // its vector would have), counted_feature_vector() then makes the vector
  // of the text counted last. simhash_similar needs only the size to find
  // that no stored row can match a huge query, and skips the sort.
  // With `most`, counting may stop once the distinct features are more than
  // `most`: a result above `most` then says only that the text has at least
  // that many (a caller that needs no more, as simhash_similar when no
  // stored row is that large), and counted_feature_vector() throws
  // std::logic_error until count_features() counts a text whole. Shingles of one word
  // are always counted whole.
  std::size_t count_features(std::string_view utf8_text, std::size_t most = SIZE_MAX);
  void counted_feature_vector(FeatureVector& out);

  // fingerprint(utf8_text), and when there is one, `verification`'s
  // feature_vector(utf8_text, out): the same results, but the text is
  // repaired and cut into units once when both extractors use the same unit,
  // or both words with symbols kept in one and dropped in the other (the
  // default of simhash_dedup, which needs both of every text; cutting was
  // half the work).
  std::optional<std::uint64_t> fingerprint_and_feature_vector(std::string_view utf8_text,
                                                              FeatureExtractor& verification,
                                                              FeatureVector& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace simhash
