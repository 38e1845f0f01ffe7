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

bool is_bullet(UChar32 c) {
  switch (c) {
    case 0x00B7:  // middle dot
    case 0x2022:  // bullet
    case 0x2023:  // triangular bullet
    case 0x2043:  // hyphen bullet
    case 0x2219:  // bullet operator
    case 0x25AA:  // small black square
    case 0x25CF:  // black circle
    case 0x25E6:  // white bullet
    case 0x30FB:  // katakana middle dot
      return true;
    default:
      return false;
  }
}

bool is_dash(UChar32 c) { return u_charType(c) == U_DASH_PUNCTUATION || c == 0x2212; }

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

bool is_line_break(UChar32 c) { return c == 0x0A || c == 0x0D || c == 0x2028 || c == 0x2029; }

// Brackets and braces: what tells "a[b]" from "a - b" and "{ f(); }" from
// "f();". Parentheses stay out: prose sets asides in them.
bool is_bracket(UChar32 c) { return c == U'[' || c == U']' || c == U'{' || c == U'}'; }

std::uint8_t symbol_class_from_icu(UChar32 c, SymbolTokens symbols) {
  const bool strict = symbols == SymbolTokens::strict;
  std::uint8_t kind = 0;
  const bool symbol =
      strict ? (is_symbol_character(c) && !is_bullet(c) && !is_dash(c)) || is_bracket(c)
             : is_symbol_character(c);
  if (symbol) {
    kind |= kSymbolCharacter;
  }
  const bool dash = strict ? is_dash(c) : u_charType(c) == U_DASH_PUNCTUATION;
  if (extends_symbol_run(c) || dash) {
    kind |= kContinuesRun;
  }
  if (joins_symbol_run(c) || dash) {
    kind |= kJoinsRun;
  }
  if (dash) {
    kind |= kDash;
  }
  if (u_isUWhiteSpace(c) != 0) {
    kind |= kSpace;
  }
  if (is_line_break(c)) {
    kind |= kLineBreak;
  }
  return kind;
}

using AsciiClasses = std::array<std::uint8_t, 128>;

AsciiClasses ascii_classes(SymbolTokens symbols) {
  AsciiClasses table{};
  for (UChar32 c = 0; c < 128; ++c) {
    table[static_cast<std::size_t>(c)] = symbol_class_from_icu(c, symbols);
  }
  return table;
}

}  // namespace

std::uint8_t symbol_class(UChar32 c, SymbolTokens symbols) {
  static const AsciiClasses keep = ascii_classes(SymbolTokens::keep);
  static const AsciiClasses strict = ascii_classes(SymbolTokens::strict);
  if (c >= 0 && c < 128) {
    return (symbols == SymbolTokens::strict ? strict : keep)[static_cast<std::size_t>(c)];
  }
  return symbol_class_from_icu(c, symbols);
}

}  // namespace simhash
