// Text to weighted features: normalization (NFKC + case folding), ICU word
// segmentation, word or character shingles, occurrence weights, XXH3 hashes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "feature_similarity.h"
#include "simhash_options.h"

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

  // The same features as `out`, sorted by hash for cosine_similarity() and
  // weighted_jaccard(); `out` keeps its buffers between texts.
  void feature_vector(std::string_view utf8_text, FeatureVector& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace simhash
