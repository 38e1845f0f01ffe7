// SPDX-License-Identifier: MIT
// What simhash_dedup needs of each text, built for a batch of texts at once
// on several threads: the fingerprint (simhash()'s) and the feature vector
// the verification compares. Each thread has its own pair of extractors
// (an ICU break iterator serves one thread), and each text's result goes to
// its own slot, so the results do not depend on the thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "batch/feature_rows.h"
#include "fingerprint/feature_extractor.h"
#include "fingerprint/feature_similarity.h"
#include "fingerprint/simhash_options.h"

namespace simhash {

struct RowFeatures {
  // None: the text has no feature under the fingerprint's options (no word
  // for simhash()'s defaults); it may still have verification features.
  std::optional<std::uint64_t> fingerprint;
  FeatureVector features;  // under the verification options
  // FeatureRows::key_of(fingerprint or 0, features), built on the threads
  // so that the thread adding the rows only looks it up.
  RowKey key;
  // The same features in the batch's block, once lay_out() put them there.
  FeatureView laid_out;

  // The features where they lie: in the batch's block once laid out.
  FeatureView view() const { return laid_out.hashes.empty() ? FeatureView(features) : laid_out; }
};

class RowFeatureBuilder {
 public:
  // `threads` >= 1; ICU failures while building the extractors throw.
  RowFeatureBuilder(const SimhashOptions& fingerprint, const SimhashOptions& verification,
                    unsigned threads);
  ~RowFeatureBuilder();
  RowFeatureBuilder(const RowFeatureBuilder&) = delete;
  RowFeatureBuilder& operator=(const RowFeatureBuilder&) = delete;

  unsigned threads() const { return static_cast<unsigned>(workers_.size()); }

  // rows[i] for texts[i]; `rows` is resized to match and keeps its buffers
  // between batches. The caller's thread runs meanwhile() (when given)
  // while the others start building, then builds with them: the way to
  // read the next batch while this one is built.
  void build(std::span<const std::string_view> texts, std::vector<RowFeatures>& rows,
             const std::function<void()>& meanwhile = {});
  // Copies the features of `rows` (as build() left them) end to end into
  // one block, on the threads, and points each row's `laid_out` into it:
  // the block a FeatureRows adopts, so that the thread adding the rows
  // copies nothing (and the block's pages are first touched here). The
  // weights go with it only when some row has a weight other than 1.
  FeatureBlock lay_out(std::vector<RowFeatures>& rows);

 private:
  struct Worker;
  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace simhash
