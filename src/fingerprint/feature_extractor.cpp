// SPDX-License-Identifier: MIT
// The pipeline: repair UTF-8, normalize, cut units, shingle, count by hash,
// weight, vote. features(), fingerprint() and feature_vector() share one
// counting pass, so the fingerprint is exactly the vote over the features
// listed, and similarities are computed over those same features.
#include "fingerprint/feature_extractor.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fingerprint/feature_counter.h"
#include "fingerprint/feature_hash.h"
#include "fingerprint/fingerprint_accumulator.h"
#include "fingerprint/shingles.h"
#include "text/text_normalizer.h"
#include "text/utf8_repair.h"
#include "text/word_tokenizer.h"
#include "util/memory_budget.h"
#include "util/radix_sort.h"

namespace simhash {

double log_tf_weight(std::uint64_t count) {
  // ln(count) rounded to a multiple of 2^-20. Every weight is then a multiple
  // of 2^-20, so the per-bit sums are exact (no rounding, whatever the order)
  // and the fingerprint cannot depend on the last bit of the C library's log:
  // mathematically equal sums such as ln 2 + ln 3 and ln 6 tie exactly.
  constexpr double kGrid = 1048576.0;  // 2^20
  return 1.0 + std::round(std::log(static_cast<double>(count)) * kGrid) / kGrid;
}

struct FeatureExtractor::Impl {
  explicit Impl(const SimhashOptions& chosen) : options(chosen) {
    if (options.unit == TokenUnit::word) {
      tokenizer.emplace(options.symbols);
    } else {
      normalizer.emplace();
    }
  }

  // Counts the shingles of `utf8_text`; calls on_new_feature(text) for the
  // first occurrence of each distinct one (its text is valid only during
  // that call).
  template <typename OnNewFeature>
  void count(std::string_view utf8_text, OnNewFeature&& on_new_feature) {
    charge_for_text(utf8_text.size());
    const std::string_view valid = repair_utf8(utf8_text, repaired);
    if (tokenizer && options.n == 1) {
      // Unigrams, the default: each token is a feature, hashed as it comes,
      // with no copy of the tokens.
      counter.clear(valid.size() / 8);
      tokenizer->tokenize(valid, [&](std::string_view feature) {
        if (counter.add(feature_hash(feature))) {
          on_new_feature(feature);
        }
      });
      return;
    }
    assign_units(valid);
    count_shingles(units, valid.size(), on_new_feature);
  }

  // Counts the shingles of `cut` (this extractor's units or another's of the
  // same unit) of a text of `text_bytes`.
  template <typename OnNewFeature>
  void count_shingles(const UnitSequence& cut, std::size_t text_bytes,
                      OnNewFeature&& on_new_feature) {
    // Distinct features expected: prose has a new word every 8 to 16 bytes,
    // while nearly every character n-gram is new. Shingles of two or more
    // words are nearly all distinct: the counter is told how many there are
    // (feature_counter.h), so that a long text's table grows once.
    const std::size_t n = static_cast<std::size_t>(options.n);
    const std::size_t shingles =
        cut.unit_count() == 0 ? 0 : cut.unit_count() - std::min(cut.unit_count(), n) + 1;
    counter.clear(tokenizer ? text_bytes / 8 : text_bytes, tokenizer && n >= 2 ? shingles : 0);
    cut.for_each_shingle_while(n, [&](std::string_view feature) {
      if (counter.add(feature_hash(feature))) {
        on_new_feature(feature);
      }
      return counter.entries().size() <= count_limit;
    });
  }

  // Cuts well-formed text into the units shingles are made of.
  void assign_units(std::string_view valid) {
    if (tokenizer) {
      units.assign_words(*tokenizer, valid);
    } else {
      normalizer->normalize(valid, normalized);
      units.assign_chars(normalized);
    }
  }

  // The working memory of one text, charged before the text is read (so a
  // text too large for the heap limit fails before it is held) and kept
  // while the buffers keep their capacity: the repaired and normalized
  // copies, the units, the counter, the sorted entries and the vector out,
  // per byte of text, on the safe side. Unigrams of words need no units and
  // few distinct features; characters make a feature of nearly every one.
  void charge_for_text(std::size_t bytes, bool by_sorting = false) {
    constexpr std::size_t kPerByteCharacters = 96;
    constexpr std::size_t kPerByteCharactersSorted = 32;  // fingerprint_by_sorting
    constexpr std::size_t kPerByteShingles = 16;
    constexpr std::size_t kPerByteUnigrams = 4;
    const std::size_t per_byte = by_sorting       ? kPerByteCharactersSorted
                                 : normalizer     ? kPerByteCharacters
                                 : options.n >= 2 ? kPerByteShingles
                                                  : kPerByteUnigrams;
    charge.grow_to(bytes * per_byte);
  }

  // Whether fingerprint() counts a text of `bytes` by sorting its hashes
  // (kCountBySortingBytes).
  bool counts_by_sorting(std::size_t bytes) const {
    return normalizer && options.n >= kCountBySortingMinN && bytes >= kCountBySortingBytes;
  }

  // fingerprint() of a long text in characters: every shingle's hash in one
  // array, sorted, counted by runs and voted in chunks.
  std::optional<std::uint64_t> fingerprint_by_sorting(std::string_view utf8_text) {
    charge_for_text(utf8_text.size(), true);
    assign_units(repair_utf8(utf8_text, repaired));
    std::vector<std::uint64_t> all;  // released on return: only long texts come here
    all.reserve(units.unit_count());
    units.for_each_shingle(static_cast<std::size_t>(options.n),
                           [&](std::string_view feature) { all.push_back(feature_hash(feature)); });
    if (all.empty()) {
      return std::nullopt;
    }
    RadixSorter().sort_by_mask(all, ~std::uint64_t{0});
    constexpr std::size_t kChunk = 4096;
    accumulator.reset();
    hashes.clear();
    weights.clear();
    for (std::size_t begin = 0; begin < all.size();) {
      std::size_t end = begin + 1;
      while (end < all.size() && all[end] == all[begin]) {
        ++end;
      }
      hashes.push_back(all[begin]);
      weights.push_back(weight_of(end - begin));
      if (hashes.size() == kChunk) {
        accumulator.add(hashes, weights);
        hashes.clear();
        weights.clear();
      }
      begin = end;
    }
    accumulator.add(hashes, weights);
    return accumulator.fingerprint();
  }

  double weight_of(std::uint64_t count) const {
    switch (options.weight) {
      case WeightScheme::tf:
        return static_cast<double>(count);
      case WeightScheme::log_tf:
        return log_tf_weight(count);
      case WeightScheme::binary:
        return 1.0;
    }
    return 1.0;
  }

  // The fingerprint of the features counted last; nullopt when there are none.
  std::optional<std::uint64_t> vote() {
    const auto& entries = counter.entries();
    if (entries.empty()) {
      return std::nullopt;
    }
    // One batched vote keeps the 64 totals in registers across all features
    // (the same totals as adding them one by one, fingerprint_accumulator.h).
    hashes.clear();
    weights.clear();
    for (const FeatureCounter::Entry& entry : entries) {
      hashes.push_back(entry.hash);
      weights.push_back(weight_of(entry.count));
    }
    accumulator.reset();
    accumulator.add(hashes, weights);
    return accumulator.fingerprint();
  }

  // The features counted last, sorted by hash.
  void sorted_vector(FeatureVector& out) {
    sorted.assign(counter.entries().begin(), counter.entries().end());
    std::sort(sorted.begin(), sorted.end(),
              [](const FeatureCounter::Entry& a, const FeatureCounter::Entry& b) {
                return a.hash < b.hash;
              });
    out.clear();
    out.hashes.reserve(sorted.size());
    out.weights.reserve(sorted.size());
    for (const FeatureCounter::Entry& entry : sorted) {
      const double weight = weight_of(entry.count);
      out.hashes.push_back(entry.hash);
      out.weights.push_back(weight);
      out.sum_of_squares += weight * weight;
      out.sum_of_weights += weight;
    }
  }

  SimhashOptions options;
  std::optional<WordTokenizer> tokenizer;    // unit=word
  std::optional<TextNormalizer> normalizer;  // unit=char
  std::string repaired;                      // the input with U+FFFD substituted, when it needs it
  std::string normalized;                    // unit=char: the normalized text
  UnitSequence units;
  FeatureCounter counter;
  FingerprintAccumulator accumulator;
  std::vector<std::uint64_t> hashes;  // fingerprint(): the vote's inputs, kept between texts
  std::vector<double> weights;
  std::vector<FeatureCounter::Entry> sorted;  // feature_vector(): entries by hash
  // count_features(text, most): shingles stop being counted past this many
  // distinct ones; `stopped` when they did (the count is not the text's).
  std::size_t count_limit = SIZE_MAX;
  bool stopped = false;
  MemoryCharge charge;  // charge_for_text(): the most any text of this extractor needed
};

FeatureExtractor::FeatureExtractor(const SimhashOptions& options)
    : impl_(std::make_unique<Impl>(options)) {}

FeatureExtractor::~FeatureExtractor() = default;

const SimhashOptions& FeatureExtractor::options() const { return impl_->options; }

std::vector<Feature> FeatureExtractor::features(std::string_view utf8_text) {
  // The shingles' texts and the features returned, charged as they grow.
  MemoryCharge texts_charge;
  std::vector<std::string> texts;
  impl_->count(utf8_text, [&](std::string_view shingle) {
    texts_charge.add(2 * (sizeof(std::string) + shingle.size()) + sizeof(Feature));
    texts.emplace_back(shingle);
  });
  const auto& entries = impl_->counter.entries();
  std::vector<Feature> result;
  result.reserve(entries.size());
  for (std::size_t index = 0; index < entries.size(); ++index) {
    result.push_back(Feature{std::move(texts[index]), impl_->weight_of(entries[index].count),
                             entries[index].hash});
  }
  return result;
}

std::optional<std::uint64_t> FeatureExtractor::fingerprint(std::string_view utf8_text) {
  if (impl_->counts_by_sorting(utf8_text.size())) {
    return impl_->fingerprint_by_sorting(utf8_text);
  }
  impl_->count(utf8_text, [](std::string_view) {});
  return impl_->vote();
}

void FeatureExtractor::feature_vector(std::string_view utf8_text, FeatureVector& out) {
  count_features(utf8_text);
  counted_feature_vector(out);
}

std::size_t FeatureExtractor::count_features(std::string_view utf8_text, std::size_t most) {
  impl_->count_limit = most;
  struct Unlimit {
    Impl& impl;
    ~Unlimit() { impl.count_limit = SIZE_MAX; }
  } unlimit{*impl_};
  impl_->count(utf8_text, [](std::string_view) {});
  impl_->stopped = impl_->counter.entries().size() > most;
  return impl_->counter.entries().size();
}

void FeatureExtractor::counted_feature_vector(FeatureVector& out) {
  if (impl_->stopped) {
    throw std::logic_error("simhash: counted_feature_vector after a count that stopped early");
  }
  impl_->sorted_vector(out);
}

std::optional<std::uint64_t> FeatureExtractor::fingerprint_and_feature_vector(
    std::string_view utf8_text, FeatureExtractor& verification, FeatureVector& out) {
  Impl& fingerprints = *impl_;
  Impl& check = *verification.impl_;
  // The same units: the same unit and, for words, the same symbol tokens.
  const bool same_unit = fingerprints.options.unit == check.options.unit &&
                         fingerprints.options.symbols == check.options.symbols;
  // Words both, one with symbols and one without: still one cut (below).
  const bool one_drops_symbols = (fingerprints.options.symbols == SymbolTokens::drop) !=
                                 (check.options.symbols == SymbolTokens::drop);
  const bool split_symbols = fingerprints.options.unit == TokenUnit::word &&
                             check.options.unit == TokenUnit::word && one_drops_symbols;
  if (!split_symbols && (!same_unit || fingerprints.counts_by_sorting(utf8_text.size()))) {
    const std::optional<std::uint64_t> fingerprint = this->fingerprint(utf8_text);
    if (fingerprint) {
      verification.feature_vector(utf8_text, out);
    }
    return fingerprint;
  }
  const std::string_view valid = repair_utf8(utf8_text, fingerprints.repaired);
  if (same_unit) {
    fingerprints.assign_units(valid);
  } else {
    // Words with symbols in one and without in the other (simhash_dedup's
    // default: simhash()'s fingerprint drops them, the check keeps them). One
    // cut with the symbol runs kept and told apart gives both sequences: the
    // words alone are the other's tokens (tokenize_words_and_symbols).
    const bool fingerprint_keeps = fingerprints.options.symbols != SymbolTokens::drop;
    Impl& keeper = fingerprint_keeps ? fingerprints : check;
    Impl& dropper = fingerprint_keeps ? check : fingerprints;
    keeper.units.start_words(valid.size());
    dropper.units.start_words(valid.size());
    keeper.tokenizer->tokenize_words_and_symbols(
        valid,
        [&](std::string_view word) {
          keeper.units.add_word(word);
          dropper.units.add_word(word);
        },
        [&](std::string_view symbols) { keeper.units.add_word(symbols); });
    keeper.units.finish_words();
    dropper.units.finish_words();
  }
  fingerprints.count_shingles(fingerprints.units, valid.size(), [](std::string_view) {});
  const std::optional<std::uint64_t> fingerprint = fingerprints.vote();
  if (fingerprint) {
    check.count_shingles(same_unit ? fingerprints.units : check.units, valid.size(),
                         [](std::string_view) {});
    check.sorted_vector(out);
  }
  return fingerprint;
}

}  // namespace simhash
