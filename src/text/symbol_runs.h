// SPDX-License-Identifier: MIT
// Which characters between words carry meaning (option symbols=keep or
// strict): the symbol classes, and the cutting of the text between two
// words into runs of them. Used by WordTokenizer on both of its paths (ICU
// and ASCII), so the two cannot disagree on what a symbol is.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <unicode/uchar.h>
#include <unicode/umachine.h>
#include <unicode/utf8.h>

#include "text/symbol_tokens.h"

namespace simhash {

// A character that is kept as (part of) a token under symbols=keep: math,
// currency, modifier and other symbols (Unicode Sm, Sc, Sk, So: + < = > | ~
// ^ ` $ and emoji), and the other punctuation (Po) that is neither sentence
// punctuation (Terminal_Punctuation: . , ; : ! ?) nor a quotation mark:
// # % & * / \ and their kin. Dashes, brackets, quotes and connectors (Pd,
// Ps, Pe, Pi, Pf, Pc) stay dropped: in prose they mark phrasing, not
// content, and a text that only gains or loses them is still the same text.
bool is_symbol_character(UChar32 c);

// A bullet: "•", "·", "‣", "⁃", "∙", "▪", "●", "◦", "・". Layout, not content,
// wherever it stands (symbols=strict and simhash_change).
bool is_bullet(UChar32 c);

// A dash (Pd) or the minus sign (U+2212): all one under symbols=strict.
bool is_dash(UChar32 c);

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

// What the cutting asks of a character, as bits.
enum SymbolClass : std::uint8_t {
  kSymbolCharacter = 1,  // is_symbol_character (strict: less bullets, with [ ] { })
  kContinuesRun = 2,     // extends_symbol_run, or a dash (the "-" of "<-")
  kJoinsRun = 4,         // joins_symbol_run
  kDash = 8,             // is_dash
  kSpace = 16,           // white space
  kLineBreak = 32,       // a line feed, carriage return or line/paragraph separator
};

// The SymbolClass bits of `c` for one setting (keep or strict). ASCII
// characters, nearly all the gaps between words, are read from a table that
// is computed once from the functions above (so the two cannot disagree)
// instead of asking ICU's property tables two or three times per character.
std::uint8_t symbol_class(UChar32 c, SymbolTokens symbols);

// Collects symbol runs from the characters between words, in text order; a
// run ends at any other character and at a word token (flush()). One
// collector reads one text, or one line run of it, from its start.
//
// Under symbols=strict, besides keep's runs: a run of dashes that leads a
// word ("--cluster", "-1") or stands between spaces ("a - b") is the token
// "-", unless it starts its line before a space (a list marker); every dash
// in a run is written "-"; a "*" or "+" alone at a line's start before a
// space is a list marker and no token.
class SymbolRuns {
 public:
  explicit SymbolRuns(SymbolTokens symbols) : strict_(symbols == SymbolTokens::strict) {}

  // Feeds the UTF-8 text between two words (or a piece of it); complete runs
  // go to on_run(std::string_view), valid only during the call.
  template <typename OnRun>
  void feed(std::string_view utf8_gap, OnRun&& on_run);

  // Ends the open run, if any: call before each word and at the end.
  template <typename OnRun>
  void flush(OnRun&& on_run) {
    if (leading_dash()) {
      on_run(std::string_view("-"));
    }
    end_run(on_run);
    after_space_ = false;  // a word follows: the next gap starts glued to it
    line_start_ = false;
  }

 private:
  // Dashes alone before a word, after a space or at a line's start.
  bool leading_dash() const { return strict_ && pending_dashes_ && pending_after_space_; }

  template <typename OnRun>
  void end_run(OnRun&& on_run) {
    pending_.clear();
    pending_dashes_ = false;
    if (!run_.empty() && !list_marker_) {
      on_run(std::string_view(run_));
    }
    run_.clear();
    list_marker_ = false;
  }

  // Appends one character to a run, a dash as "-" under strict.
  void append(std::string& to, std::string_view character, std::uint8_t kind) const {
    if (strict_ && (kind & kDash) != 0) {
      to += '-';
    } else {
      to.append(character);
    }
  }

  bool strict_;
  std::string run_;              // the open run
  std::string pending_;          // joiners since the last other character: they lead the next run
  bool pending_dashes_ = false;  // pending_ is dashes only
  bool pending_after_space_ = false;  // ... and follows a space or starts a line
  bool pending_line_start_ = false;   // ... and starts its line
  bool run_line_start_ = false;       // run_ starts its line
  bool list_marker_ = false;          // run_ is a list marker: no token
  bool after_space_ = true;           // the last character was white space, or none came
  bool line_start_ = true;            // only white space since the line began
};

template <typename OnRun>
void SymbolRuns::feed(std::string_view utf8_gap, OnRun&& on_run) {
  // Gaps come from one text, which SQLite keeps under 2^31 bytes.
  const auto length = static_cast<std::int32_t>(utf8_gap.size());
  const SymbolTokens symbols = strict_ ? SymbolTokens::strict : SymbolTokens::keep;
  for (std::int32_t at = 0; at < length;) {
    const std::int32_t start = at;
    UChar32 c = 0;
    U8_NEXT(utf8_gap.data(), at, length, c);
    const std::string_view character =
        utf8_gap.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(at - start));
    const std::uint8_t kind = symbol_class(c, symbols);
    if ((kind & kSymbolCharacter) != 0) {
      if (run_.empty()) {
        run_line_start_ = pending_.empty() ? line_start_ : pending_line_start_;
      }
      run_.append(pending_);  // "!" of "!=" (ICU gives it its own segment)
      pending_.clear();
      pending_dashes_ = false;
      append(run_, character, kind);
    } else if (!run_.empty() && (kind & kContinuesRun) != 0) {
      append(run_, character, kind);  // a mark on the symbol, or the "-" of "<-"
    } else if ((kind & kJoinsRun) != 0) {
      if (!run_.empty()) {
        end_run(on_run);
      }
      if (pending_.empty()) {
        pending_dashes_ = true;
        pending_after_space_ = after_space_;
        pending_line_start_ = line_start_;
      }
      pending_dashes_ = pending_dashes_ && (kind & kDash) != 0;
      append(pending_, character, kind);  // may lead the next run: "-=" after "<" ("<-=" is two)
    } else {
      const bool space = (kind & kSpace) != 0;
      if (strict_ && space && pending_dashes_ && pending_after_space_ && !pending_line_start_) {
        on_run(std::string_view("-"));  // "a - b"
      }
      list_marker_ = strict_ && space && run_line_start_ && (run_ == "*" || run_ == "+");
      end_run(on_run);
    }
    after_space_ = (kind & kSpace) != 0;
    line_start_ = (kind & kLineBreak) != 0 || (line_start_ && after_space_);
  }
}

}  // namespace simhash
