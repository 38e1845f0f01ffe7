// SPDX-License-Identifier: MIT
// random_multiscript_text: random texts for the tests that compare the two
// settings of symbols (the tokenizer's split, the extractor's combined call).
#pragma once

#include <cstddef>
#include <random>
#include <string>
#include <vector>

namespace simhash::testing {

// Random texts in several scripts, dense in symbols, operators, sentence
// punctuation, combining marks, emoji and invalid UTF-8, with line feeds so
// that ASCII and non-ASCII lines alternate (the fast path cuts there).
inline std::string random_multiscript_text(std::mt19937& random) {
  static const std::vector<std::string> kPieces = {
      // words (ASCII, with ICU's joiners) and words in other scripts
      "same", "As", "c++", "a", "42", "3.5", "don't", "x_y", "@", "中文", "北京大学", "日本語の",
      "ภาษาไทย", "Привет", "мир", "مرحبا", "ＦＵＬＬ", "é", "e\xCC\x81",
      // symbols and operators, ASCII and not
      "+", "<=", "!=", "-=", "->", "<-", ":=", "&", "**", "~", "%", "/", "|", "^", "#", "$", "\\",
      "`", "€", "£5", "±", "×", "→", "≠", "∑", "™", "©", "°", "‰", "§", "•", "※", "＋＋",
      "+\xCC\x81", "\xF0\x9F\x98\x80", "\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD",
      // punctuation and whitespace
      ", ", ". ", "? ", "!", "-", "\"", "(", ")", " ", "\n", "\t", "¶",
      // invalid UTF-8 and the character that replaces it
      "\xFF", "\xC3", "\xE2\x82", "\xEF\xBF\xBD"};
  std::string text;
  const std::size_t pieces = random() % 30;
  for (std::size_t k = 0; k < pieces; ++k) {
    text += kPieces[random() % kPieces.size()];
    text += random() % 3 == 0 ? "" : " ";
  }
  return text;
}

}  // namespace simhash::testing
