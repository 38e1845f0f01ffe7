// SPDX-License-Identifier: MIT
// Mixed text: WordTokenizer sends the all-ASCII lines of a text through the
// fast path and the other lines through ICU (for_each_ascii_line_run). These
// tests check that cutting after line feeds never changes a token: on random
// text mixing ASCII with the non-ASCII characters most likely to interact
// across a cut (combining marks, ignorables, other line breaks, CJK, Thai),
// and on every file of the English corpus that mixes the two kinds of line.
#include "corpus.h"

#include <gtest/gtest.h>
#include <unicode/normalizer2.h>

#include <optional>
#include <random>
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

struct LineRun {
  std::string text;
  bool ascii;
  bool operator==(const LineRun&) const = default;
};

std::vector<LineRun> runs_of(std::string_view text) {
  std::vector<LineRun> runs;
  simhash::for_each_ascii_line_run(text, [&](std::string_view run, bool ascii) {
    runs.push_back({std::string(run), ascii});
  });
  return runs;
}

// The same cut, done the slow way: whole lines, then neighbours with the
// same ASCII-ness merged.
std::vector<LineRun> reference_runs(std::string_view text) {
  std::vector<LineRun> runs;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = start;
    while (end < text.size() && text[end] != '\n') {
      ++end;
    }
    if (end < text.size()) {
      ++end;  // the line feed belongs to its line
    }
    bool ascii = true;
    for (std::size_t i = start; i < end; ++i) {
      ascii = ascii && static_cast<unsigned char>(text[i]) < 0x80;
    }
    if (!runs.empty() && runs.back().ascii == ascii) {
      runs.back().text += text.substr(start, end - start);
    } else {
      runs.push_back({std::string(text.substr(start, end - start)), ascii});
    }
    start = end;
  }
  if (runs.empty()) {
    runs.push_back({"", true});
  }
  return runs;
}

// Random text from pieces: ASCII words and separators, line breaks of every
// kind, and non-ASCII characters that normalization or segmentation treat
// specially (after a line feed a combining mark has nothing to attach to).
std::string random_mixed_text(std::mt19937_64& random) {
  static const std::vector<std::string> pieces = {
      "word",
      "Word",
      "x",
      "42",
      "3.14",
      "1,000",
      "can't",
      "a_b",
      "_",
      "@",
      ".",
      ",",
      "'",
      ":",
      " ",
      "  ",
      "\t",
      "\n",
      "\n",
      "\n",
      "\r\n",
      "\r",
      "\v",
      "\f",
      "\xc3\xa9",                  // é
      "e\xcc\x81",                 // e + combining acute
      "\xcc\x81",                  // combining acute alone (after a line feed: nothing to join)
      "\xcc\xa3\xcc\x81",          // two combining marks in non-canonical order
      "\xc2\xad",                  // soft hyphen (Format; removed by NFKC_Casefold)
      "\xe2\x80\x8d",              // zero width joiner
      "\xe2\x80\x8b",              // zero width space
      "\xc2\x85",                  // NEL (Newline)
      "\xe2\x80\xa8",              // LINE SEPARATOR
      "\xc2\xa0",                  // no-break space
      "\xe2\x80\x99",              // right single quotation mark (MidNumLet)
      "\xef\xbd\x86",              // fullwidth f
      "\xef\xac\x81",              // fi ligature
      "\xe2\x84\xab",              // Angstrom sign
      "\xc4\xb0",                  // I with dot above
      "\xc3\x9f",                  // sharp s
      "\xe4\xb8\xad\xe6\x96\x87",  // Chinese
      "\xe0\xb8\xa0\xe0\xb8\xb2\xe0\xb8\xa9\xe0\xb8\xb2",  // Thai
      "\xe1\x84\x80",
      "\xe1\x85\xa1",      // Hangul leading consonant, vowel (compose)
      "\xf0\x9f\x91\x8d",  // emoji
  };
  std::string text;
  const std::size_t count = random() % 40;
  for (std::size_t i = 0; i < count; ++i) {
    text += pieces[random() % pieces.size()];
  }
  return text;
}

TEST(AsciiLines, RunsAreWholeLinesGroupedByAsciiness) {
  std::mt19937_64 random(11);
  for (int trial = 0; trial < 5000; ++trial) {
    const std::string text = random_mixed_text(random);
    ASSERT_EQ(runs_of(text), reference_runs(text)) << "trial " << trial;
  }
  EXPECT_EQ(runs_of(""), (std::vector<LineRun>{{"", true}}));
  EXPECT_EQ(runs_of("a\n\xc3\xa9\nb"),
            (std::vector<LineRun>{{"a\n", true}, {"\xc3\xa9\n", false}, {"b", true}}));
}

TEST(AsciiLines, NormalizationHasABoundaryAfterLineFeed) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* normalizer = icu::Normalizer2::getNFKCCasefoldInstance(status);
  ASSERT_TRUE(U_SUCCESS(status));
  EXPECT_TRUE(normalizer->hasBoundaryAfter(0x0A));
}

TEST(AsciiLines, RandomMixedTextGivesIcuTokens) {
  simhash::WordTokenizer tokenizer;
  simhash::testing::IcuWordReference icu;
  std::mt19937_64 random(20261121);
  for (int trial = 0; trial < 20000; ++trial) {
    const std::string text = random_mixed_text(random);
    const auto fast = tokens_with_fast_path(tokenizer, text, true);
    ASSERT_EQ(fast, icu.tokens(text)) << "trial " << trial;
    ASSERT_EQ(fast, tokens_with_fast_path(tokenizer, text, false)) << "trial " << trial;
  }
}

TEST(AsciiLines, MixedCorpusFilesGiveIcuTokensAndFingerprints) {
  // The English files with both all-ASCII lines and other lines, as they are
  // (the all-ASCII files are covered by ascii_corpus_test.cpp; a text without
  // an all-ASCII line goes to ICU whole).
  std::vector<simhash::bench::Document> mixed;
  for (auto& document : simhash::bench::load_english_corpus()) {
    if (runs_of(document.text).size() > 1) {
      mixed.push_back(std::move(document));
    }
  }
  ASSERT_GE(mixed.size(), 1U);
  std::cout << mixed.size() << " mixed files\n";
  simhash::WordTokenizer tokenizer;
  simhash::FeatureExtractor extractor(simhash::SimhashOptions{});
  for (const auto& [source, text] : mixed) {
    ASSERT_EQ(tokens_with_fast_path(tokenizer, text, true),
              tokens_with_fast_path(tokenizer, text, false))
        << source;
    std::optional<std::uint64_t> fast;
    std::optional<std::uint64_t> icu;
    {
      const FastPathSwitch use(true);
      fast = extractor.fingerprint(text);
    }
    {
      const FastPathSwitch use(false);
      icu = extractor.fingerprint(text);
    }
    ASSERT_EQ(fast, icu) << source;
  }
}

}  // namespace
