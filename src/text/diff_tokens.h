// SPDX-License-Identifier: MIT
// A text cut into the tokens that text_change.h compares: words, single
// characters of scripts written without spaces, and single punctuation and
// symbol characters, each marked when a reader would call it formatting.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace simhash {

struct DiffToken {
  std::string text;  // NFKC_Casefold; every dash is "-", every bullet "•"
  bool is_word = false;
  // A bullet; a list marker first on its line before a space ("-", "*",
  // "+", roff's "o", "1.", "2)"); a line that is one mark repeated (a rule
  // or an underline: "=====") or "#"s and "*"s that start a line (a
  // heading); a quotation mark or backtick; "()" (a function's name marked
  // as one); sentence punctuation (. , ; : ! ? and their CJK forms) before a
  // space, the end or more of it. A text that only gains or loses these is
  // the same text, laid out otherwise.
  bool is_formatting = false;
};

// Words are runs of letters, marks, digits and connectors ("_"), with an
// apostrophe inside one ("don't") kept in it. Han, kana, Thai, Lao, Khmer and
// Myanmar characters are a token each, as those scripts have no spaces to
// cut at. Any other character that is not white space is a token of its own,
// so "a[b]" and "a - b" differ where the symbols are. Invalid UTF-8 is read
// as U+FFFD. Throws std::runtime_error when ICU cannot normalize.
std::vector<DiffToken> diff_tokens(std::string_view utf8_text);

}  // namespace simhash
