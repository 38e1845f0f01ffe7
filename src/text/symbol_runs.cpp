// SPDX-License-Identifier: MIT
// The symbol classes of symbol_runs.h, from ICU's character properties.
#include "text/symbol_runs.h"

#include <array>
#include <cstddef>
#include <cstdint>

#include <unicode/uchar.h>

namespace simhash {

bool is_symbol_character(UChar32 c) {
  switch (u_charType(c)) {
    case U_MATH_SYMBOL:
    case U_CURRENCY_SYMBOL:
    case U_MODIFIER_SYMBOL:
    case U_OTHER_SYMBOL:
      return true;
    case U_OTHER_PUNCTUATION:
      return !u_hasBinaryProperty(c, UCHAR_TERMINAL_PUNCTUATION) &&
             !u_hasBinaryProperty(c, UCHAR_QUOTATION_MARK);
    default:
      return false;
  }
}

bool joins_symbol_run(UChar32 c) {
  return u_charType(c) == U_DASH_PUNCTUATION ||
         (u_charType(c) == U_OTHER_PUNCTUATION &&
          u_hasBinaryProperty(c, UCHAR_TERMINAL_PUNCTUATION));
}

bool extends_symbol_run(UChar32 c) {
  const std::int8_t type = u_charType(c);
  return type == U_NON_SPACING_MARK || type == U_ENCLOSING_MARK;
}

namespace {

std::uint8_t symbol_class_from_icu(UChar32 c) {
  std::uint8_t kind = 0;
  if (is_symbol_character(c)) {
    kind |= kSymbolCharacter;
  }
  if (extends_symbol_run(c) || u_charType(c) == U_DASH_PUNCTUATION) {
    kind |= kContinuesRun;
  }
  if (joins_symbol_run(c)) {
    kind |= kJoinsRun;
  }
  return kind;
}

const std::array<std::uint8_t, 128>& ascii_symbol_classes() {
  static const std::array<std::uint8_t, 128> classes = [] {
    std::array<std::uint8_t, 128> table{};
    for (UChar32 c = 0; c < 128; ++c) {
      table[static_cast<std::size_t>(c)] = symbol_class_from_icu(c);
    }
    return table;
  }();
  return classes;
}

}  // namespace

std::uint8_t symbol_class(UChar32 c) {
  if (c >= 0 && c < 128) {
    return ascii_symbol_classes()[static_cast<std::size_t>(c)];
  }
  return symbol_class_from_icu(c);
}

}  // namespace simhash
