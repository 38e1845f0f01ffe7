// The symbol classes of symbol_runs.h, from ICU's character properties.
#include "text/symbol_runs.h"

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

}  // namespace simhash
