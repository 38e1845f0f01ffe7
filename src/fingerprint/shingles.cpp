// SPDX-License-Identifier: MIT
// Building the unit sequences that shingles are cut from.
#include "fingerprint/shingles.h"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <stdexcept>

#include "text/word_tokenizer.h"

namespace simhash {
std::uint32_t UnitSequence::checked_offset(std::size_t offset) {
  if (offset > UINT32_MAX) {
    throw std::length_error("simhash: text too long");
  }
  return static_cast<std::uint32_t>(offset);
}

void UnitSequence::assign_words(WordTokenizer& tokenizer, std::string_view utf8) {
  start_words(utf8.size());
  tokenizer.tokenize(utf8, [this](std::string_view token) { add_word(token); });
  finish_words();
}

void UnitSequence::start_words(std::size_t text_bytes) {
  bytes_.clear();
  starts_.clear();
  separator_ = 1;
  // Tokens plus separators never exceed twice the text ("a b" -> "a b "),
  // and the capacity stays for the next text: no reallocation per token.
  // Prose has a token every 5 bytes or more: starts_ is reserved for one
  // every 4 (a reserved page costs nothing until written; doubling from
  // empty copied and touched each page again on a 10 MB text).
  bytes_.reserve(2 * text_bytes);
  starts_.reserve(text_bytes / 4 + 1);
}

void UnitSequence::finish_words() {
  if (!starts_.empty()) {
    starts_.push_back(checked_offset(bytes_.size()));
  }
}

void UnitSequence::assign_chars(std::string_view normalized) {
  bytes_.clear();
  starts_.clear();
  separator_ = 0;
  // The collapsed text is never longer than the normalized one, and holds at
  // most one code point per byte.
  bytes_.reserve(normalized.size());
  starts_.reserve(normalized.size() + 1);
  bool pending_space = false;  // a whitespace run seen since the last kept code point
  const auto* text = reinterpret_cast<const std::uint8_t*>(normalized.data());
  const auto length = static_cast<std::int64_t>(normalized.size());
  std::int64_t position = 0;
  while (position < length) {
    const std::int64_t begin = position;
    bool is_space = false;
    if (text[position] < 0x80) {
      // ASCII White_Space: TAB, LF, VT, FF, CR and SPACE (no property lookup).
      const std::uint8_t byte = text[position++];
      is_space = byte == ' ' || (byte >= '\t' && byte <= '\r');
    } else {
      UChar32 code_point = 0;
      U8_NEXT(text, position, length, code_point);
      is_space = code_point >= 0 && u_isUWhiteSpace(code_point);
    }
    if (is_space) {
      pending_space = true;
      continue;
    }
    if (pending_space && !starts_.empty()) {  // leading whitespace is dropped
      starts_.push_back(checked_offset(bytes_.size()));
      bytes_.push_back(' ');
    }
    pending_space = false;  // trailing whitespace is never flushed
    starts_.push_back(checked_offset(bytes_.size()));
    bytes_.append(normalized.substr(static_cast<std::size_t>(begin),
                                    static_cast<std::size_t>(position - begin)));
  }
  if (!starts_.empty()) {
    starts_.push_back(checked_offset(bytes_.size()));
  }
}

}  // namespace simhash
