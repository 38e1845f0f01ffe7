// SPDX-License-Identifier: MIT
// Texts are handed out a few at a time (kTextsPerRange), so one long text
// does not leave the other threads idle for long. A thread lays out the
// rows it built once no text is left for it (parallel_for's finish), so the
// copy fills the time it would wait, and the caller's reading of the next
// batch overlaps it as it overlaps the building (a second loop after the
// building would need a barrier of its own, and the threads would wait).
// It does so only while the caller is still reading: where the caller has
// joined the building, the threads are the bound, and a copy on them (of
// every row, where the caller copies only the rows it keeps) would hold the
// caller at the join.
#include "batch/row_features.h"

#include <algorithm>

namespace simhash {
namespace {

constexpr std::size_t kTextsPerRange = 16;
}  // namespace

struct RowFeatureBuilder::Worker {
  Worker(const SimhashOptions& fingerprint_options, const SimhashOptions& verification_options)
      : fingerprints(fingerprint_options), verification(verification_options) {}

  FeatureExtractor fingerprints;
  FeatureExtractor verification;
  // The rows this thread built in the current batch (kept between batches
  // for its buffer), for laying them out.
  std::vector<std::size_t> built;

  // Copies the features of the rows in `built` end to end into one block
  // and points each row's `laid_out` into it, as block `index`.
  FeatureBlock lay_out(std::vector<RowFeatures>& rows, std::uint32_t index) const;
};

FeatureBlock RowFeatureBuilder::Worker::lay_out(std::vector<RowFeatures>& rows,
                                                std::uint32_t index) const {
  FeatureBlock block;
  bool weighted = false;
  for (const std::size_t i : built) {
    block.size += rows[i].features.hashes.size();
    weighted = weighted || (!rows[i].features.empty() && !rows[i].key.binary);
  }
  if (block.size == 0) {
    return block;
  }
  block.hashes = std::make_unique_for_overwrite<std::uint64_t[]>(block.size);
  if (weighted) {
    block.weights = std::make_unique_for_overwrite<double[]>(block.size);
  }
  std::size_t start = 0;
  for (const std::size_t i : built) {
    const FeatureVector& features = rows[i].features;
    const std::size_t size = features.hashes.size();
    if (size == 0) {
      continue;
    }
    std::copy_n(features.hashes.data(), size, block.hashes.get() + start);
    std::span<const double> weights;
    if (block.weights) {
      for (std::size_t j = 0; j < size; ++j) {
        block.weights[start + j] = features.weights.empty() ? 1.0 : features.weights[j];
      }
      weights = {block.weights.get() + start, size};
    }
    rows[i].laid_out = RowFeatures::LaidOut{
        FeatureView({block.hashes.get() + start, size}, weights, features.sum_of_weights), index};
    start += size;
  }
  return block;
}

RowFeatureBuilder::RowFeatureBuilder(const SimhashOptions& fingerprint,
                                     const SimhashOptions& verification, unsigned threads)
    : team_(std::max(threads, 1U)) {
  for (unsigned worker = 0; worker < std::max(threads, 1U); ++worker) {
    workers_.push_back(std::make_unique<Worker>(fingerprint, verification));
  }
}

RowFeatureBuilder::~RowFeatureBuilder() = default;

void RowFeatureBuilder::build(std::span<const std::string_view> texts,
                              std::vector<RowFeatures>& rows,
                              const std::function<void()>& meanwhile,
                              const std::function<void()>& aside, std::vector<FeatureBlock>* blocks,
                              LayOut lay_out) {
  rows.resize(texts.size());
  if (blocks != nullptr) {
    blocks->clear();
    blocks->resize(threads());
  }
  for (const std::unique_ptr<Worker>& worker : workers_) {
    worker->built.clear();
  }
  team_.for_each_range(
      texts.size(), kTextsPerRange,
      [&](unsigned worker, std::size_t begin, std::size_t end) {
        Worker& extractors = *workers_[worker];
        for (std::size_t i = begin; i < end; ++i) {
          rows[i].laid_out.reset();  // into the last batch's block, if any
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
            if (blocks != nullptr) {
              extractors.built.push_back(i);
            }
          }
        }
      },
      meanwhile,
      [&](unsigned worker, bool caller_busy) {
        if (blocks != nullptr && (caller_busy || lay_out == LayOut::kEveryThread)) {
          (*blocks)[worker] = workers_[worker]->lay_out(rows, worker);
        }
      },
      aside);
}

}  // namespace simhash
