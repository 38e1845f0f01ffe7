// SPDX-License-Identifier: MIT
// Shingles: the features of the pipeline. A text becomes a sequence of units
// (word tokens, or code points for unit=char) laid out in one buffer, and a
// shingle of n consecutive units is a contiguous slice of it:
//   words: tokens joined by one U+0020 ("the quick brown");
//   chars: n consecutive code points of the whitespace-collapsed text.
// A text with fewer than n units (but at least one) is one shingle of all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace simhash {

class WordTokenizer;

class UnitSequence {
 public:
  // Replaces the content with the word tokens of `utf8` (well-formed UTF-8),
  // each followed by one U+0020 in the buffer.
  void assign_words(WordTokenizer& tokenizer, std::string_view utf8);

  // The same built token by token, for a caller that fills two sequences
  // from one cut (FeatureExtractor::fingerprint_and_feature_vector):
  // start_words, add_word for each token in order, finish_words.
  void start_words(std::size_t text_bytes);
  void add_word(std::string_view token) {
    starts_.push_back(checked_offset(bytes_.size()));
    bytes_.append(token);
    bytes_.push_back(' ');
  }
  void finish_words();

  // Replaces the content with the code points of `normalized` after
  // collapsing every run of White_Space characters to one U+0020 and trimming
  // whitespace at both ends.
  void assign_chars(std::string_view normalized);

  std::size_t unit_count() const { return starts_.empty() ? 0 : starts_.size() - 1; }

  // Calls on_shingle(std::string_view) for each shingle of `n` units in text
  // order (n >= 1).
  template <typename OnShingle>
  void for_each_shingle(std::size_t n, OnShingle&& on_shingle) const {
    for_each_shingle_while(n, [&](std::string_view shingle) {
      on_shingle(shingle);
      return true;
    });
  }
  // The same, while on_shingle returns true.
  template <typename OnShingle>
  void for_each_shingle_while(std::size_t n, OnShingle&& on_shingle) const {
    const std::size_t units = unit_count();
    if (units == 0) {
      return;
    }
    const std::size_t window = units < n ? units : n;
    for (std::size_t first = 0; first + window <= units; ++first) {
      const std::size_t begin = starts_[first];
      const std::size_t end = starts_[first + window] - separator_;
      if (!on_shingle(std::string_view(bytes_).substr(begin, end - begin))) {
        return;
      }
    }
  }

 private:
  // A byte offset as stored in starts_; std::length_error past 4 GiB.
  static std::uint32_t checked_offset(std::size_t offset);

  std::string bytes_;                  // the units, each followed by separator_ bytes
  std::vector<std::uint32_t> starts_;  // start of each unit in bytes_, then bytes_.size()
  std::size_t separator_ = 0;          // 1 for words (the U+0020 after each), 0 for chars
};

}  // namespace simhash
