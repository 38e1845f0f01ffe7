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
#include "util/thread_team.h"

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
  // out: the view into it and that block's index among the blocks build()
  // gave (what FeatureRows::add is told).
  struct LaidOut {
    FeatureView features;
    std::uint32_t block = 0;
  };
  std::optional<LaidOut> laid_out;

  // The features where they lie: in the batch's block once laid out.
  FeatureView view() const { return laid_out ? laid_out->features : FeatureView(features); }
  // The block FeatureRows::add is told they lie in, if any.
  std::optional<std::uint32_t> laid_out_block() const {
    return laid_out ? std::optional<std::uint32_t>(laid_out->block) : std::nullopt;
  }
};

// Which threads lay out the rows they built (build()'s `blocks`).
enum class LayOut {
  // A thread other than the caller's whose texts run out while the caller's
  // thread is still in meanwhile(): the caller is the bound (reading and
  // adding rows on many cores), so the copy fills time that thread would
  // wait. Where the caller joins the building before the texts run out
  // (few cores: the tokenizing is the bound) nothing is laid out, and the
  // thread adding the rows copies only those it keeps, which costs less
  // than laying every row out.
  kWhileTheCallerIsBusy,
  // Every thread, every batch (what the layout's tests check whatever the
  // timing).
  kEveryThread,
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
  // read the next batch while this one is built. Another thread runs
  // aside() (when given) before it builds, beside meanwhile(): the way to
  // hand the last batch over meanwhile (ThreadTeam::for_each_range; with
  // one thread the caller runs it first).
  // With `blocks`, the threads `lay_out` names also lay the features of the
  // rows they built out end to end in a block of their own, once no text is
  // left for them (in the same parallel region: no second barrier, and the
  // block's pages are first touched by that thread), and point each row's
  // `laid_out` into it: `blocks` gets one block per thread (empty where a
  // thread laid out nothing), what FeatureRows::adopt takes, so that the
  // thread adding the rows copies none of those. A block has weights only
  // when some row of it has a weight other than 1. Which rows are laid out
  // depends on the timing (kWhileTheCallerIsBusy); the features do not.
  void build(std::span<const std::string_view> texts, std::vector<RowFeatures>& rows,
             const std::function<void()>& meanwhile = {}, const std::function<void()>& aside = {},
             std::vector<FeatureBlock>* blocks = nullptr,
             LayOut lay_out = LayOut::kWhileTheCallerIsBusy);

 private:
  struct Worker;
  std::vector<std::unique_ptr<Worker>> workers_;
  ThreadTeam team_;  // one a statement, woken for each batch
};

}  // namespace simhash
