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
  // The same features in one of the batch's blocks, when build() laid them
  // out: `laid_out_block` is that block's index among the blocks it gave
  // (what FeatureRows::add is told), nullopt when not laid out.
  FeatureView laid_out;
  std::optional<std::uint32_t> laid_out_block;

  // The features where they lie: in the batch's block once laid out.
  FeatureView view() const { return laid_out_block ? laid_out : FeatureView(features); }
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
  // With `blocks`, each thread also lays the features of the rows it built
  // out end to end in a block of its own, once no text is left for it (in
  // the same parallel region: no second barrier, and the block's pages are
  // first touched by that thread), and points each row's `laid_out` into
  // it: `blocks` gets one block per thread (empty where a thread built no
  // features), what FeatureRows::adopt takes, so that the thread adding the
  // rows copies nothing. A block has weights only when some row of it has
  // a weight other than 1.
  void build(std::span<const std::string_view> texts, std::vector<RowFeatures>& rows,
             const std::function<void()>& meanwhile = {},
             std::vector<FeatureBlock>* blocks = nullptr);

 private:
  struct Worker;
  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace simhash
