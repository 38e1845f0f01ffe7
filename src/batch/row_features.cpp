// SPDX-License-Identifier: MIT
// Texts are handed out a few at a time (kTextsPerRange), so one long text
// does not leave the other threads idle for long.
#include "batch/row_features.h"

#include <algorithm>

#include "util/parallel_for.h"

namespace simhash {
namespace {

constexpr std::size_t kTextsPerRange = 16;
// Copying a row's features takes far less than building them: ranges of
// many rows, so that handing them out costs little beside the copy.
constexpr std::size_t kRowsPerCopy = 256;

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
          rows[i].laid_out = FeatureView();  // into the last batch's block, if any
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

FeatureBlock RowFeatureBuilder::lay_out(std::vector<RowFeatures>& rows) {
  // Where each row starts (a pass over the sizes only), then the copies.
  std::vector<std::size_t> start(rows.size() + 1, 0);
  bool weighted = false;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    start[i + 1] = start[i] + rows[i].features.hashes.size();
    weighted = weighted || (!rows[i].features.empty() && !rows[i].key.binary);
  }
  FeatureBlock block;
  block.size = start.back();
  block.hashes = std::make_unique_for_overwrite<std::uint64_t[]>(block.size);
  if (weighted) {
    block.weights = std::make_unique_for_overwrite<double[]>(block.size);
  }
  parallel_for(rows.size(), kRowsPerCopy, threads(),
               [&](unsigned /*worker*/, std::size_t begin, std::size_t end) {
                 for (std::size_t i = begin; i < end; ++i) {
                   const FeatureVector& features = rows[i].features;
                   const std::size_t size = features.hashes.size();
                   std::copy_n(features.hashes.data(), size, block.hashes.get() + start[i]);
                   std::span<const double> weights;
                   if (block.weights) {
                     for (std::size_t j = 0; j < size; ++j) {
                       block.weights[start[i] + j] =
                           features.weights.empty() ? 1.0 : features.weights[j];
                     }
                     weights = {block.weights.get() + start[i], size};
                   }
                   rows[i].laid_out = FeatureView({block.hashes.get() + start[i], size}, weights,
                                                  features.sum_of_weights);
                 }
               });
  return block;
}

}  // namespace simhash
