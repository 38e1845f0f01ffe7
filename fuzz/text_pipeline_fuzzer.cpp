// SPDX-License-Identifier: MIT
// libFuzzer target: the text pipeline (UTF-8 repair, normalization, ICU and
// ASCII word segmentation, shingling, counting, the vote). The first byte
// picks the options; the rest is the text, any bytes. Checks the pipeline's
// promise that the fingerprint is exactly the vote over the features it
// lists, in their order.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "fingerprint/feature_extractor.h"
#include "fingerprint/fingerprint_accumulator.h"
#include "fingerprint/simhash_options.h"

namespace {

constexpr const char* kOptionStrings[] = {
    "",
    "n=3",
    "unit=char n=4",
    "unit=char n=1 weight=binary",
    "weight=log n=2",
    "unit=char n=16",
    "weight=binary n=5",
    "unit=word n=1 weight=tf",
};
constexpr std::size_t kOptionCount = sizeof(kOptionStrings) / sizeof(kOptionStrings[0]);

simhash::FeatureExtractor& extractor_for(std::size_t choice) {
  static std::unique_ptr<simhash::FeatureExtractor> extractors[kOptionCount];
  if (!extractors[choice]) {
    std::string error;
    const auto options = simhash::parse_options(kOptionStrings[choice], error);
    if (!options) {
      std::abort();
    }
    extractors[choice] = std::make_unique<simhash::FeatureExtractor>(*options);
  }
  return *extractors[choice];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  simhash::FeatureExtractor& extractor = extractor_for(data[0] % kOptionCount);
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const auto fingerprint = extractor.fingerprint(text);
  const auto features = extractor.features(text);
  if (fingerprint.has_value() == features.empty()) {
    std::abort();  // a fingerprint exactly when there are features
  }
  simhash::FingerprintAccumulator vote;
  for (const simhash::Feature& feature : features) {
    vote.add(feature.hash, feature.weight);
  }
  if (fingerprint && *fingerprint != vote.fingerprint()) {
    std::abort();
  }
  return 0;
}
