// SPDX-License-Identifier: MIT
// Which characters between words carry meaning (option symbols=keep): the
// symbol classes, and the cutting of the text between two words into runs
// of them. Used by WordTokenizer on both of its paths (ICU and ASCII), so
// the two cannot disagree on what a symbol is.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <unicode/uchar.h>
#include <unicode/umachine.h>
#include <unicode/utf8.h>

namespace simhash {

// A character that is kept as (part of) a token under symbols=keep: math,
// currency, modifier and other symbols (Unicode Sm, Sc, Sk, So: + < = > | ~
// ^ ` $ and emoji), and the other punctuation (Po) that is neither sentence
// punctuation (Terminal_Punctuation: . , ; : ! ?) nor a quotation mark:
// # % & * / \ and their kin. Dashes, brackets, quotes and connectors (Pd,
// Ps, Pe, Pi, Pf, Pc) stay dropped: in prose they mark phrasing, not
// content, and a text that only gains or loses them is still the same text.
bool is_symbol_character(UChar32 c);

// A dash (Pd) or a sentence punctuation mark (Terminal_Punctuation) that is
// part of an operator when it touches a symbol: "!=", "-=", ":=", "->" and
// "<-" are one run each, so "a != b" and "a -= b" differ. Before a symbol any
// of them joins; after one only a dash does ("<-"), so that a full stop
// after "C++." still ends the sentence and changes nothing.
bool joins_symbol_run(UChar32 c);

// A character that continues a symbol run once one is open without being a
// symbol itself: a combining mark (Mn, Me). ZERO WIDTH JOINER and variation
// selectors never get here: NFKC_Casefold removes them (default ignorables),
// so an emoji sequence is a run of symbols already.
bool extends_symbol_run(UChar32 c);

// The three questions above for one character at once, as bits.
enum SymbolClass : std::uint8_t {
  kSymbolCharacter = 1,  // is_symbol_character
  kContinuesRun = 2,     // extends_symbol_run, or a dash (the "-" of "<-")
  kJoinsRun = 4,         // joins_symbol_run
};

// The SymbolClass bits of `c`. ASCII characters, nearly all the gaps
// between words, are read from a table that is computed once from the
// functions above (so the two cannot disagree) instead of asking ICU's
// property tables two or three times per character.
std::uint8_t symbol_class(UChar32 c);

// Collects symbol runs from the characters between two word tokens, in text
// order; a run ends at any other character and at a word token (flush()).
class SymbolRuns {
 public:
  // Feeds the UTF-8 text between two words (or a piece of it); complete runs
  // go to on_run(std::string_view), valid only during the call.
  template <typename OnRun>
  void feed(std::string_view utf8_gap, OnRun&& on_run);

  // Ends the open run, if any: call before each word and at the end.
  template <typename OnRun>
  void flush(OnRun&& on_run) {
    pending_.clear();
    if (!run_.empty()) {
      on_run(std::string_view(run_));
      run_.clear();
    }
  }

 private:
  std::string run_;      // the open run
  std::string pending_;  // joiners since the last other character: they lead the next run
};

template <typename OnRun>
void SymbolRuns::feed(std::string_view utf8_gap, OnRun&& on_run) {
  // Gaps come from one text, which SQLite keeps under 2^31 bytes.
  const auto length = static_cast<std::int32_t>(utf8_gap.size());
  for (std::int32_t at = 0; at < length;) {
    const std::int32_t start = at;
    UChar32 c = 0;
    U8_NEXT(utf8_gap.data(), at, length, c);
    const std::string_view character =
        utf8_gap.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(at - start));
    const std::uint8_t kind = symbol_class(c);
    if ((kind & kSymbolCharacter) != 0) {
      run_.append(pending_);  // "!" of "!=" (ICU gives it its own segment)
      pending_.clear();
      run_.append(character);
    } else if (!run_.empty() && (kind & kContinuesRun) != 0) {
      run_.append(character);  // a mark on the symbol, or the "-" of "<-"
    } else if ((kind & kJoinsRun) != 0) {
      if (!run_.empty()) {
        flush(on_run);
      }
      pending_.append(character);  // may lead the next run: "-=" after "<" ("<-=" is two)
    } else {
      flush(on_run);
    }
  }
}

}  // namespace simhash
