// SPDX-License-Identifier: MIT
// FastPathSwitch: turns the ASCII fast path of the word tokenizer on or off
// for one scope, so a test can compare both paths on the same text; and
// tokens_with_fast_path, the tokens of a text with the path on or off.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "text/ascii_words.h"
#include "text/word_tokenizer.h"

namespace simhash::testing {

class FastPathSwitch {
 public:
  explicit FastPathSwitch(bool enabled) : before_(ascii_fast_path_enabled()) {
    set_ascii_fast_path_enabled(enabled);
  }
  ~FastPathSwitch() { set_ascii_fast_path_enabled(before_); }
  FastPathSwitch(const FastPathSwitch&) = delete;
  FastPathSwitch& operator=(const FastPathSwitch&) = delete;

 private:
  bool before_;
};

inline std::vector<std::string> tokens_with_fast_path(WordTokenizer& tokenizer,
                                                      std::string_view text, bool fast_path) {
  const FastPathSwitch use(fast_path);
  std::vector<std::string> tokens;
  tokenizer.tokenize(text, [&](std::string_view token) { tokens.emplace_back(token); });
  return tokens;
}

}  // namespace simhash::testing
