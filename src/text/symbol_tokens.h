// SPDX-License-Identifier: MIT
// Which characters between words are tokens too: the values of the option
// `symbols` (unit=word only). text/symbol_runs.h says which characters each
// value counts and how they are cut into runs.
#pragma once

namespace simhash {

enum class SymbolTokens {
  drop,    // option value `drop`: words only
  keep,    // option value `keep`: operators and other symbols ("a < b")
  strict,  // option value `strict`: keep's, and brackets, braces, a dash
           // that stands alone ("a - b") or leads a word ("--cluster");
           // every dash alike, bullets and list markers never
};

}  // namespace simhash
