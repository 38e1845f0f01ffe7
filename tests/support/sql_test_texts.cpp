// SPDX-License-Identifier: MIT
// Shared test texts and the direct engine reference for the SQL-level tests.
#include "sql_test_texts.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "fingerprint/feature_extractor.h"
#include "fingerprint/simhash_options.h"

namespace simhash::testing {

std::vector<std::string> sample_texts() {
  std::vector<std::string> texts = {
      "",
      "!!! ... ???",
      "word",
      "Hello, World",
      "the quick brown fox jumps over the lazy dog the quick brown fox",
      "SQLite is a C-language library that implements a small, fast, self-contained SQL "
      "database engine.",
      "自然语言处理是计算机科学领域与人工智能领域中的一个重要方向。",
      "日本語の文章を単語に分割します。東京は日本の首都です。",
      "ภาษาไทยไม่มีการเว้นวรรคระหว่างคำ",
      "Привет, мир! Это проверка русского текста.",
      "مرحبا بالعالم هذه جملة عربية",
      "emoji 😀 and 👍🏽 mixed with text, ＦＵＬＬ　ＷＩＤＴＨ and 123 456",
      std::string("\xc3\x28\xff\x61 broken \xe2\x82 utf-8 \x80"),
      "a a a a a a a a b",
  };
  const std::filesystem::path licenses = "/usr/share/common-licenses";
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(licenses, error)) {
    if (!entry.is_regular_file()) {
      continue;
    }
    std::ifstream file(entry.path(), std::ios::binary);
    std::stringstream content;
    content << file.rdbuf();
    texts.push_back(content.str().substr(0, 20000));  // keeps the sanitizer build quick
  }
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    texts.push_back(word_soup(300 * seed, seed));
  }
  return texts;
}

std::vector<std::string> sample_options() {
  return {"",
          "n=1",
          "n=2",
          "n=3",
          "n=16",
          "weight=tf",
          "weight=log",
          "weight=binary",
          "unit=char",
          "unit=char n=3",
          "unit=char,n=5",
          "n=2, weight=log",
          "unit=word n=4 weight=binary"};
}

std::string word_soup(std::size_t bytes, std::uint64_t seed) {
  static const char* const words[] = {"alpha",   "beta", "gamma", "delta",   "license", "software",
                                      "free",    "copy", "the",   "of",      "and",     "program",
                                      "Ünïcödé", "数据", "库",    "warranty"};
  std::mt19937_64 random(seed);
  std::string text;
  text.reserve(bytes + 16);
  while (text.size() < bytes) {
    text += words[random() % std::size(words)];
    text += random() % 10 == 0 ? ".\n" : " ";
  }
  return text;
}

std::optional<std::uint64_t> engine_fingerprint(std::string_view text, std::string_view options) {
  std::string error;
  const std::optional<SimhashOptions> parsed = parse_options(options, error);
  if (!parsed) {
    ADD_FAILURE() << "engine rejects options '" << options << "': " << error;
    return std::nullopt;
  }
  FeatureExtractor extractor(*parsed);
  return extractor.fingerprint(text);
}

}  // namespace simhash::testing
