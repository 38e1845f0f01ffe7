// SPDX-License-Identifier: MIT
// Texts for the tests and the benchmark of near-duplicates at insert
// (tests/sql/index_follow_table_test.cpp, bench/checked_insert_benchmark.cpp):
// a vocabulary of pseudo-words built from syllables by a seeded generator,
// and families of texts, each a base of words drawn with a skew (a few words
// frequent, most rare, as in prose) and members that differ from their base
// by a few words replaced. Only std::mt19937_64's raw output is used (no
// std:: distributions, whose results differ between standard libraries), so
// every platform makes the same texts.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

namespace simhash::testing {

class TextFamilies {
 public:
  // `vocabulary` distinct words; `families` bases of `length` words.
  TextFamilies(int vocabulary, int families, int length, std::uint64_t seed) : random_(seed) {
    static const char* const kConsonants[] = {"b", "d", "f", "g", "k", "l", "m",  "n",
                                              "p", "r", "s", "t", "v", "z", "ch", "st"};
    static const char* const kVowels[] = {"a", "e", "i", "o", "u", "ai", "ou"};
    std::unordered_set<std::string> seen;
    while (static_cast<int>(words_.size()) < vocabulary) {
      std::string word;
      const int syllables = 1 + static_cast<int>(random_() % 3);
      for (int i = 0; i < syllables; ++i) {
        word += kConsonants[random_() % 16];
        word += kVowels[random_() % 7];
      }
      if (random_() % 3 == 0) {
        word += kConsonants[random_() % 14];
      }
      if (seen.insert(word).second) {
        words_.push_back(std::move(word));
      }
    }
    bases_.reserve(static_cast<std::size_t>(families));
    for (int family = 0; family < families; ++family) {
      std::vector<int> base;
      base.reserve(static_cast<std::size_t>(length));
      for (int i = 0; i < length; ++i) {
        base.push_back(draw_word(random_));
      }
      bases_.push_back(std::move(base));
    }
  }

  int family_count() const { return static_cast<int>(bases_.size()); }

  // Family `family`'s base text with `edits` of its words replaced by others
  // drawn as the base's were (0: the base itself).
  std::string member(int family, int edits, std::mt19937_64& random) const {
    std::vector<int> words = bases_.at(static_cast<std::size_t>(family));
    for (int i = 0; i < edits && !words.empty(); ++i) {
      words[random() % words.size()] = draw_word(random);
    }
    return join(words);
  }

  // A text of `length` words of no family.
  std::string fresh(int length, std::mt19937_64& random) const {
    std::vector<int> words;
    for (int i = 0; i < length; ++i) {
      words.push_back(draw_word(random));
    }
    return join(words);
  }

 private:
  // Word i is drawn with a probability falling with i: u^3 puts about half
  // the draws on the most frequent 12% of the words.
  int draw_word(std::mt19937_64& random) const {
    const double u = static_cast<double>(random() >> 11) * 0x1.0p-53;
    const auto index = static_cast<std::size_t>(static_cast<double>(words_.size()) * u * u * u);
    return static_cast<int>(index < words_.size() ? index : words_.size() - 1);
  }

  std::string join(const std::vector<int>& words) const {
    std::string text;
    for (const int word : words) {
      if (!text.empty()) {
        text += ' ';
      }
      text += words_[static_cast<std::size_t>(word)];
    }
    return text;
  }

  std::mt19937_64 random_;
  std::vector<std::string> words_;
  std::vector<std::vector<int>> bases_;
};

}  // namespace simhash::testing
