// SPDX-License-Identifier: MIT
// Word tokens: normalization, word-like segments only, dictionary
// segmentation of Chinese, Japanese and Thai.
#include "text/word_tokenizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace simhash {
namespace {

using Tokens = std::vector<std::string>;

Tokens tokens_of(std::string_view text) {
  WordTokenizer tokenizer;
  Tokens tokens;
  tokenizer.tokenize(text, [&](std::string_view token) { tokens.emplace_back(token); });
  return tokens;
}

bool contains(const Tokens& tokens, std::string_view word) {
  return std::find(tokens.begin(), tokens.end(), word) != tokens.end();
}

std::string concatenated(const Tokens& tokens) {
  std::string text;
  for (const auto& token : tokens) text += token;
  return text;
}

TEST(WordTokenizer, NormalizesCaseWidthAndDropsPunctuation) {
  const Tokens expected = {"hello", "world"};
  EXPECT_EQ(tokens_of("Hello, World"), expected);
  EXPECT_EQ(tokens_of("hello world"), expected);
  // Full-width letters and an ideographic space: NFKC maps them to ASCII.
  EXPECT_EQ(tokens_of("\xEF\xBC\xA8\xEF\xBC\xA5\xEF\xBC\xAC\xEF\xBC\xAC\xEF\xBC\xAF\xE3\x80\x80"
                      "\xEF\xBC\xB7\xEF\xBC\xAF\xEF\xBC\xB2\xEF\xBC\xAC\xEF\xBC\xA4"),
            expected);
  // Case folding goes beyond lowercase: German sharp s folds to "ss".
  EXPECT_EQ(tokens_of("STRASSE Stra\xC3\x9F"
                      "e"),
            (Tokens{"strasse", "strasse"}));
}

TEST(WordTokenizer, KeepsNumbersAndWordInternalPunctuation) {
  // UAX #29: the apostrophe and the decimal point stay inside their words.
  EXPECT_EQ(tokens_of("Don't pay 3.14 twice!"), (Tokens{"don't", "pay", "3.14", "twice"}));
}

TEST(WordTokenizer, NothingButPunctuationSpacesOrEmojiGivesNoTokens) {
  EXPECT_TRUE(tokens_of("").empty());
  EXPECT_TRUE(tokens_of("   \t\n ").empty());
  EXPECT_TRUE(tokens_of("...!?, -- () \xE3\x80\x82").empty());
  // U+1F600 grinning face, U+1F44D U+1F3FD thumbs up with skin tone.
  EXPECT_TRUE(tokens_of("\xF0\x9F\x98\x80 \xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD").empty());
}

TEST(WordTokenizer, SegmentsChineseIntoDictionaryWords) {
  // Article 1 of the Constitution of the People's Republic of China: "The
  // PRC is a socialist state under the people's democratic dictatorship led
  // by the working class and based on the alliance of workers and peasants."
  const std::string sentence =
      "中华人民共和国是工人阶级领导的、以工农联盟为基础的人民民主专政的社会主义国家。";
  const Tokens tokens = tokens_of(sentence);
  // No punctuation and no lost characters: the tokens cover the sentence
  // except its two punctuation marks.
  std::string letters = sentence;
  for (const std::string mark : {"、", "。"}) {
    letters.erase(letters.find(mark), mark.size());
  }
  EXPECT_EQ(concatenated(tokens), letters);
  // Common two-character words of any Chinese dictionary: worker, class,
  // lead, alliance, foundation, democracy, state.
  for (const char* word : {"工人", "阶级", "领导", "联盟", "基础", "民主", "国家"}) {
    EXPECT_TRUE(contains(tokens, word)) << word;
  }
  // Segmentation, not one token per character and not one per sentence.
  EXPECT_GT(tokens.size(), 10U);
  EXPECT_LT(tokens.size(), 30U);
}

TEST(WordTokenizer, SegmentsJapanese) {
  // "I live in Tokyo. Today the weather is good."
  const std::string sentence = "私は東京に住んでいます。今日は天気がいいです。";
  const Tokens tokens = tokens_of(sentence);
  EXPECT_GE(tokens.size(), 8U);
  EXPECT_TRUE(contains(tokens, "東京"));  // Tokyo
  EXPECT_TRUE(contains(tokens, "天気"));  // weather
  EXPECT_EQ(concatenated(tokens), "私は東京に住んでいます今日は天気がいいです");
}

TEST(WordTokenizer, SegmentsThai) {
  // "Hello, my name is Somchai. I like to eat Thai food."
  const std::string sentence = "สวัสดีครับ ผมชื่อสมชาย ผมชอบกินอาหารไทย";
  const Tokens tokens = tokens_of(sentence);
  EXPECT_GE(tokens.size(), 8U);
  EXPECT_TRUE(contains(tokens, "สวัสดี"));   // hello
  EXPECT_TRUE(contains(tokens, "อาหาร"));  // food
  EXPECT_TRUE(contains(tokens, "ไทย"));    // Thai
}

TEST(WordTokenizer, ReusesItselfAcrossTexts) {
  WordTokenizer tokenizer;
  for (int round = 0; round < 3; ++round) {
    Tokens first;
    tokenizer.tokenize("Alpha beta", [&](std::string_view token) { first.emplace_back(token); });
    EXPECT_EQ(first, (Tokens{"alpha", "beta"}));
    Tokens second;
    tokenizer.tokenize("gamma", [&](std::string_view token) { second.emplace_back(token); });
    EXPECT_EQ(second, (Tokens{"gamma"}));
  }
}

}  // namespace
}  // namespace simhash
