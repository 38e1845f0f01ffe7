// SPDX-License-Identifier: MIT
// options_probe(): the probe text's feature hashes, hashed in order.
#include "fingerprint/options_probe.h"

#include <string>

#include "fingerprint/feature_extractor.h"
#include "fingerprint/feature_hash.h"
#include "fingerprint/feature_similarity.h"

namespace simhash {
namespace {

// Fixed for ever: stored checks are made from it. No script that ICU cuts
// by dictionary (Chinese, Japanese, Thai): their cuts may move between ICU
// releases, and a table should not be refused for texts it may not hold.
constexpr const char* kProbeText =
    "The quick brown fox (a test) jumps over 12 lazy dogs:\n"
    "- a < b, a[b] - c, --help, C++;\n"
    "\u00C9t\u00E9 \u00E0 Z\u00FCrich.\n"
    "\u0422\u0435\u0441\u0442 \u2014 \u2022 done";

}  // namespace

std::uint64_t options_probe(const SimhashOptions& options) {
  FeatureExtractor extractor(options);
  FeatureVector features;
  extractor.feature_vector(kProbeText, features);
  std::string bytes;
  bytes.reserve(8 * features.hashes.size());
  for (const std::uint64_t hash : features.hashes) {
    for (int shift = 0; shift < 64; shift += 8) {
      bytes += static_cast<char>((hash >> shift) & 0xFFU);  // little-endian on every machine
    }
  }
  return feature_hash(bytes);
}

}  // namespace simhash
