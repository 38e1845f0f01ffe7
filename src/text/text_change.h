// SPDX-License-Identifier: MIT
// What a reader loses by deleting one text and keeping another: the kind of
// change from the first to the second and the words each has that the
// other lacks (simhash_change, simhash_changed_words). The texts are cut by
// diff_tokens() and compared by token_diff(); what counts as formatting is
// diff_tokens.h's.
#pragma once

#include <string>
#include <string_view>

namespace simhash {

// From least to most: a pair with several changes takes the last that
// applies. The names are what SQL returns (name_of).
enum class ChangeKind {
  identical,    // the same bytes
  formatting,   // the same tokens: white space, case, line breaks,
                // hyphenation, bullets, dashes as list markers, quotes,
                // sentence punctuation
  spelling,     // words replaced by close spellings of letters only ("recieve"
                // / "receive"): one letter inserted, removed or swapped with
                // its neighbour, not the first; one replaced in words of 8+
  added,        // the second text has words the first lacks, and no other change
  dropped,      // the first text has words the second lacks (deleting it loses them)
  symbols,      // operators, brackets or other symbols changed, no word
  substituted,  // a word, name, number or version replaced by another
  rewritten,    // more tokens differ than the diff follows (kMostDiffEdits)
};

const char* name_of(ChangeKind kind);

struct TextChange {
  ChangeKind kind = ChangeKind::identical;
  // Each change but formatting, in text order: "-token" for one the first
  // text has and the second lacks, "+token" for the reverse, separated by
  // one space; tokens are NFKC_Casefold. Empty for identical and
  // formatting, and for rewritten.
  std::string words;
};

// `text` is the one deleted, `other` the one kept. Invalid UTF-8 is read as
// U+FFFD. Throws std::runtime_error when ICU cannot normalize.
TextChange text_change(std::string_view text, std::string_view other);

}  // namespace simhash
