// SPDX-License-Identifier: MIT
// libFuzzer target: the option-string parser. Any bytes must give options or
// an error message, never a crash; options that parse must fingerprint a
// text and parse again from their own canonical form to the same options.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fingerprint/feature_extractor.h"
#include "fingerprint/simhash_options.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string error;
  const auto options = simhash::parse_options(text, error);
  if (!options) {
    if (error.empty()) {
      std::abort();  // a refusal must say why
    }
    return 0;
  }
  std::string again_error;
  const auto again = simhash::parse_options(simhash::to_string(*options), again_error);
  if (!again || simhash::to_string(*again) != simhash::to_string(*options)) {
    std::abort();  // the canonical form must read back as the same options
  }
  simhash::FeatureExtractor extractor(*options);
  (void)extractor.fingerprint(
      "The quick brown fox jumps over the lazy dog. Ünïcödé 日本語のテキスト");
  return 0;
}
