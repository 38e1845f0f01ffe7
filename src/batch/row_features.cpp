// SPDX-License-Identifier: MIT
// Texts are handed out a few at a time (kTextsPerRange), so one long text
// does not leave the other threads idle for long.
#include "batch/row_features.h"

#include <algorithm>

#include "util/parallel_for.h"

namespace simhash {
namespace {

constexpr std::size_t kTextsPerRange = 16;

}  // namespace

struct RowFeatureBuilder::Worker {
  Worker(const SimhashOptions& fingerprint_options, const SimhashOptions& verification_options)
      : fingerprints(fingerprint_options), verification(verification_options) {}

  FeatureExtractor fingerprints;
  FeatureExtractor verification;
};

RowFeatureBuilder::RowFeatureBuilder(const SimhashOptions& fingerprint,
                                     const SimhashOptions& verification, unsigned threads) {
  for (unsigned worker = 0; worker < std::max(threads, 1U); ++worker) {
    workers_.push_back(std::make_unique<Worker>(fingerprint, verification));
  }
}

RowFeatureBuilder::~RowFeatureBuilder() = default;

void RowFeatureBuilder::build(std::span<const std::string_view> texts,
                              std::vector<RowFeatures>& rows,
                              const std::function<void()>& meanwhile) {
  rows.resize(texts.size());
  parallel_for(
      texts.size(), kTextsPerRange, threads(),
      [&](unsigned worker, std::size_t begin, std::size_t end) {
        Worker& extractors = *workers_[worker];
        for (std::size_t i = begin; i < end; ++i) {
          rows[i].fingerprint = extractors.fingerprints.fingerprint_and_feature_vector(
              texts[i], extractors.verification, rows[i].features);
          if (!rows[i].fingerprint) {
            // No word for the fingerprint, but other options may see
            // features (emoji or symbols, to unit=char): a join with no
            // radius compares those texts too.
            extractors.verification.feature_vector(texts[i], rows[i].features);
          }
          if (!rows[i].features.empty()) {
            rows[i].key = FeatureRows::key_of(rows[i].fingerprint.value_or(0), rows[i].features);
          }
        }
      },
      meanwhile);
}

}  // namespace simhash
