// SPDX-License-Identifier: MIT
// The UTF-16 pieces of the ICU path (utf16_normalizer.h, utf16_to_utf8.h)
// against ICU itself: random text built from characters that normalization
// treats specially (above all ASCII letters followed by combining marks, the
// one place the ASCII shortcut meets ICU's normalizer, with ASCII stretches
// both shorter and longer than the shortcut's minimum), and the English
// benchmark corpus through the whole ICU path of WordTokenizer.
#include "corpus.h"

#include <gtest/gtest.h>
#include <unicode/unistr.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "fast_path_switch.h"
#include "icu_word_reference.h"
#include "text/utf16_normalizer.h"
#include "text/utf16_to_utf8.h"
#include "text/word_tokenizer.h"

namespace {

using simhash::testing::FastPathSwitch;

std::string random_text(std::mt19937_64& random) {
  static const std::vector<std::string> pieces = {
      "Word",
      "word",
      "E",
      "e",
      "A",
      "ABC",
      "EEEEEEEEEEEEEEEEE",      // long enough for the ASCII shortcut
      "Lorem Ipsum Dolor Sit",  // likewise
      "42",
      " ",
      ".",
      "'",
      "\n",
      "\xcc\x81",                  // combining acute: composes with a preceding letter
      "\xcc\x8a",                  // combining ring above (A + ring gives U+00C5)
      "\xcc\xa3",                  // combining dot below (reorders before acute)
      "\xcd\x85",                  // combining ypogegrammeni (case folds to iota)
      "\xc3\x89",                  // E with acute, precomposed
      "\xc3\x9f",                  // sharp s (folds to ss)
      "\xc4\xb0",                  // I with dot above
      "\xce\xa3",                  // Greek capital sigma
      "\xc2\xad",                  // soft hyphen (removed)
      "\xef\xbc\xa1",              // fullwidth A
      "\xef\xac\x81",              // fi ligature
      "\xe2\x84\xa6",              // Ohm sign
      "\xe4\xb8\xad\xe6\x96\x87",  // Chinese
      "\xe1\x84\x80",              // Hangul leading consonant
      "\xe1\x85\xa1",              // Hangul vowel (composes with the consonant)
      "\xf0\x9d\x90\x80",          // mathematical bold A (outside the BMP)
      "\xf0\xa0\x80\x80",          // CJK extension B ideograph
      "\xf0\x9f\x98\x80",          // emoji
  };
  std::string text;
  const std::size_t count = random() % 30;
  for (std::size_t i = 0; i < count; ++i) {
    text += pieces[random() % pieces.size()];
  }
  return text;
}

std::string to_utf8(const icu::UnicodeString& text) {
  std::string result;
  text.toUTF8String(result);
  return result;
}

std::vector<std::string> icu_path_tokens(simhash::WordTokenizer& tokenizer, std::string_view text) {
  const FastPathSwitch use(false);
  std::vector<std::string> tokens;
  tokenizer.tokenize(text, [&](std::string_view token) { tokens.emplace_back(token); });
  return tokens;
}

TEST(Utf16Normalizer, MatchesIcuNormalizationOfTheWholeText) {
  // With the ASCII shortcut, and without it (the fallback taken if ICU's data
  // ever disagreed with the shortcut).
  simhash::Utf16Normalizer normalizer;
  simhash::Utf16Normalizer icu_only(simhash::Utf16Normalizer::AsciiShortcut::never);
  simhash::testing::IcuWordReference icu;
  icu::UnicodeString normalized;
  std::mt19937_64 random(7);
  for (int trial = 0; trial < 20000; ++trial) {
    const std::string text = random_text(random);
    const std::string expected = icu.normalize(text);
    normalizer.normalize(text, normalized);
    ASSERT_EQ(to_utf8(normalized), expected) << "trial " << trial << ": " << text;
    icu_only.normalize(text, normalized);
    ASSERT_EQ(to_utf8(normalized), expected) << "trial " << trial << ": " << text;
  }
}

TEST(Utf16Normalizer, ComposesAsciiLettersWithFollowingMarks) {
  simhash::Utf16Normalizer normalizer;
  icu::UnicodeString normalized;
  normalizer.normalize("CAFE\xcc\x81 A\xcc\x8a", normalized);
  EXPECT_EQ(to_utf8(normalized), "caf\xc3\xa9 \xc3\xa5");  // café å
  normalizer.normalize("\xc3\x89 A LONG ASCII STRETCH CAFE\xcc\x81", normalized);
  EXPECT_EQ(to_utf8(normalized), "\xc3\xa9 a long ascii stretch caf\xc3\xa9");
  // Longer than the ASCII block buffer, then a mark on the last letter.
  const std::string long_ascii(1000, 'Y');
  normalizer.normalize(long_ascii + "\xcc\x81", normalized);
  EXPECT_EQ(to_utf8(normalized), std::string(999, 'y') + "\xc3\xbd");  // ý
  normalizer.normalize("", normalized);
  EXPECT_TRUE(normalized.isEmpty());
}

TEST(Utf16ToUtf8, MatchesIcuConversion) {
  std::mt19937_64 random(8);
  std::string buffer;
  for (int trial = 0; trial < 5000; ++trial) {
    const icu::UnicodeString text = icu::UnicodeString::fromUTF8(random_text(random));
    const std::u16string_view view(text.getBuffer(), static_cast<std::size_t>(text.length()));
    ASSERT_EQ(simhash::utf16_to_utf8(view, buffer), to_utf8(text)) << "trial " << trial;
  }
}

TEST(IcuPath, RandomTextGivesIcuTokens) {
  simhash::WordTokenizer tokenizer;
  simhash::testing::IcuWordReference icu;
  std::mt19937_64 random(9);
  for (int trial = 0; trial < 20000; ++trial) {
    const std::string text = random_text(random);
    ASSERT_EQ(icu_path_tokens(tokenizer, text), icu.tokens(text)) << "trial " << trial;
  }
}

TEST(IcuPath, EnglishCorpusGivesIcuTokens) {
  // Every file whole, non-ASCII ones included.
  const std::vector<simhash::bench::Document> documents = simhash::bench::load_english_corpus();
  ASSERT_GE(documents.size(), 17U);
  simhash::WordTokenizer tokenizer;
  simhash::testing::IcuWordReference icu;
  for (const auto& [source, text] : documents) {
    ASSERT_EQ(icu_path_tokens(tokenizer, text), icu.tokens(text)) << source;
  }
}

}  // namespace
