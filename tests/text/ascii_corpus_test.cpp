// SPDX-License-Identifier: MIT
// The ASCII fast path over the whole benchmark corpus (tests/support/corpus.h): every
// ASCII file as it is, and the ASCII content of every other file (its
// non-ASCII bytes removed), must give the same tokens with the fast path as
// with ICU, and the same features and fingerprints for unigrams (tokens hashed
// as they come) and for shingles (tokens joined first).
#include "corpus.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "fast_path_switch.h"
#include "fingerprint/feature_extractor.h"
#include "fingerprint/simhash_options.h"
#include "icu_word_reference.h"
#include "text/ascii_words.h"
#include "text/word_tokenizer.h"

namespace {

using simhash::testing::FastPathSwitch;
using simhash::testing::tokens_with_fast_path;

struct AsciiText {
  std::string source;
  std::string text;
};

// Every English document's ASCII content: the file itself when it is all
// ASCII, otherwise the file without its non-ASCII bytes.
const std::vector<AsciiText>& ascii_corpus() {
  static const std::vector<AsciiText> texts = [] {
    std::vector<AsciiText> result;
    for (auto& document : simhash::bench::load_english_corpus()) {
      std::string ascii;
      for (const char c : document.text) {
        if (static_cast<unsigned char>(c) < 0x80) {
          ascii += c;
        }
      }
      result.push_back({document.source, std::move(ascii)});
    }
    return result;
  }();
  return texts;
}

TEST(AsciiCorpus, CorpusIsThere) {
  // 17 common licenses alone; the full corpus is about 415 texts.
  ASSERT_GE(ascii_corpus().size(), 17U);
  std::size_t all_ascii = 0;
  std::size_t bytes = 0;
  for (const auto& document : simhash::bench::load_english_corpus()) {
    all_ascii += simhash::is_ascii(document.text) ? 1 : 0;
    bytes += document.text.size();
  }
  std::cout << ascii_corpus().size() << " documents, " << all_ascii << " of them pure ASCII, "
            << bytes << " bytes\n";
}

TEST(AsciiCorpus, FastPathTokensAreIcuTokens) {
  simhash::WordTokenizer tokenizer;
  simhash::testing::IcuWordReference icu;
  std::size_t tokens = 0;
  for (const auto& [source, text] : ascii_corpus()) {
    ASSERT_TRUE(simhash::is_ascii(text));
    const auto fast = tokens_with_fast_path(tokenizer, text, true);
    // ICU twice: through the engine's tokenizer with the fast path off, and
    // through the independent reference (UTF-16 API).
    ASSERT_EQ(fast, tokens_with_fast_path(tokenizer, text, false)) << source;
    ASSERT_EQ(fast, icu.tokens(text)) << source;
    // And every word-mask kernel this CPU runs, not only the one in use.
    std::string lowercase;
    simhash::ascii_to_lower(text, lowercase);
    for (const auto& kernel : simhash::word_mask_kernels_on_this_cpu()) {
      std::vector<std::string> kernel_tokens;
      simhash::for_each_ascii_word(
          lowercase, [&](std::string_view token) { kernel_tokens.emplace_back(token); }, kernel);
      ASSERT_EQ(kernel_tokens, fast) << source << " with the " << kernel.name << " kernel";
    }
    tokens += fast.size();
  }
  std::cout << tokens << " tokens compared\n";
}

TEST(AsciiCorpus, FastPathFeaturesAndFingerprintsAreIcus) {
  for (const char* option_text : {"", "n=3 weight=log"}) {
    std::string error;
    const auto options = simhash::parse_options(option_text, error);
    ASSERT_TRUE(options) << option_text << ": " << error;
    simhash::FeatureExtractor extractor(*options);
    for (const auto& [source, text] : ascii_corpus()) {
      std::vector<simhash::Feature> fast_features;
      std::vector<simhash::Feature> icu_features;
      std::optional<std::uint64_t> fast_fingerprint;
      std::optional<std::uint64_t> icu_fingerprint;
      {
        const FastPathSwitch use(true);
        fast_features = extractor.features(text);
        fast_fingerprint = extractor.fingerprint(text);
      }
      {
        const FastPathSwitch use(false);
        icu_features = extractor.features(text);
        icu_fingerprint = extractor.fingerprint(text);
      }
      ASSERT_EQ(fast_fingerprint, icu_fingerprint) << source << " options '" << option_text << "'";
      ASSERT_EQ(fast_features.size(), icu_features.size()) << source;
      for (std::size_t i = 0; i < fast_features.size(); ++i) {
        ASSERT_EQ(fast_features[i].text, icu_features[i].text) << source << " feature " << i;
        ASSERT_EQ(fast_features[i].weight, icu_features[i].weight) << source << " feature " << i;
        ASSERT_EQ(fast_features[i].hash, icu_features[i].hash) << source << " feature " << i;
      }
    }
  }
}

TEST(AsciiCorpus, NonAsciiTextStillGoesThroughIcu) {
  // A text with one non-ASCII character anywhere takes the ICU path whole:
  // the fast path would not normalize the fullwidth letters.
  simhash::WordTokenizer tokenizer;
  simhash::testing::IcuWordReference icu;
  const std::string text =
      "Plain ASCII words, then \xef\xbc\xa8\xef\xbd\x85\xef\xbd\x8c\xef\xbd\x8c"
      "\xef\xbd\x8f and more.";
  EXPECT_EQ(tokens_with_fast_path(tokenizer, text, true), icu.tokens(text));
  EXPECT_EQ(tokens_with_fast_path(tokenizer, text, true).at(4), "hello");
}

}  // namespace
