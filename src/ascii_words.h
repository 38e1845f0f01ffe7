// The ASCII fast path of word tokenization: for text made only of ASCII bytes
// it yields exactly the tokens that NFKC_Casefold followed by ICU's word break
// iterator (root locale, segments with rule status >= UBRK_WORD_NUMBER) yield,
// without calling ICU. Proved by the differential tests in
// tests/engine/ascii_words_test.cpp and ascii_corpus_test.cpp.
//
// On ASCII, NFKC_Casefold only maps A-Z to a-z, and ICU's word rules (UAX #29
// as tailored by CLDR's root locale, ICU 72) reduce to these classes:
//   word characters: a-z A-Z '@' (ALetter: ICU 72 added '@' so that e-mail
//     addresses stay whole), 0-9 (Numeric), '_' (ExtendNumLet); any run of
//     them is one segment (rules WB5, WB8-WB10, WB13a/b);
//   '.' and '\'' (MidNumLet, Single_Quote): join letter.letter (WB6/7) and
//     digit.digit (WB11/12);
//   ',' and ';' (MidNum): join digit,digit only (WB11/12);
//   everything else, ':' included (CLDR's root removes it from MidLetter),
//     is never part of a word segment.
// A segment made of word characters is a token, except a lone '_': ICU gives
// that one rule status 0 (no tagged rule matches it), yet "__" is a word
// (status 200) and so is a lone '@' (an ALetter).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace simhash {

// True when every byte of `text` is below 0x80.
bool is_ascii(std::string_view text);

// NFKC_Casefold of ASCII text: `text` with A-Z mapped to a-z, into `out`.
void ascii_to_lower(std::string_view text, std::string& out);

// The process-wide switch of the fast path (on by default). Benchmarks and
// differential tests turn it off to force ICU on ASCII text as well.
bool ascii_fast_path_enabled();
void set_ascii_fast_path_enabled(bool enabled);

namespace ascii_words_detail {

enum CharClass : std::uint8_t {
  kOther = 0,
  kLetter = 1,
  kDigit = 2,
  kUnderscore = 4,
  kMidNumLet = 8,  // '.' and '\''
  kMidNum = 16,    // ',' and ';'
};
constexpr std::uint8_t kWordChar = kLetter | kDigit | kUnderscore;

constexpr std::array<std::uint8_t, 256> kClassOf = [] {
  std::array<std::uint8_t, 256> classes{};
  for (int c = 'a'; c <= 'z'; ++c) classes[c] = kLetter;
  for (int c = 'A'; c <= 'Z'; ++c) classes[c] = kLetter;
  classes['@'] = kLetter;
  for (int c = '0'; c <= '9'; ++c) classes[c] = kDigit;
  classes['_'] = kUnderscore;
  classes['.'] = kMidNumLet;
  classes['\''] = kMidNumLet;
  classes[','] = kMidNum;
  classes[';'] = kMidNum;
  return classes;
}();

// Whether `mid` between `before` and `after` (all ASCII bytes) stays inside
// a word: letter (.|') letter, or digit (.|'|,|;) digit.
constexpr bool joins(unsigned char before, unsigned char mid, unsigned char after) {
  const std::uint8_t left = kClassOf[before];
  const std::uint8_t middle = kClassOf[mid];
  if (left != kClassOf[after]) return false;
  if (left == kDigit) return (middle & (kMidNumLet | kMidNum)) != 0;
  return left == kLetter && middle == kMidNumLet;
}

}  // namespace ascii_words_detail

// Calls on_word(std::string_view) for each word token of the ASCII text
// `text`, in order, with the token's bytes as they are in `text` (so pass
// lowercased text to get normalized tokens).
template <typename OnWord>
void for_each_ascii_word(std::string_view text, OnWord&& on_word) {
  using namespace ascii_words_detail;
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t size = text.size();
  std::size_t position = 0;
  while (position < size) {
    if ((kClassOf[bytes[position]] & kWordChar) == 0) {
      ++position;  // a one-character segment, or part of a space or CR LF run: not a word
      continue;
    }
    const std::size_t start = position++;
    for (;;) {
      while (position < size && (kClassOf[bytes[position]] & kWordChar) != 0) {
        ++position;
      }
      if (position + 1 >= size ||
          !joins(bytes[position - 1], bytes[position], bytes[position + 1])) {
        break;
      }
      position += 2;  // the middle character and the word character after it
    }
    if (position - start == 1 && bytes[start] == '_') {
      continue;  // ICU's rule status for a lone "_" is 0: not a word
    }
    on_word(text.substr(start, position - start));
  }
}

// The whole fast path: the tokens WordTokenizer yields for ASCII `text`,
// normalized (lowercased into `lowercase`, which the views point into).
template <typename OnWord>
void tokenize_ascii(std::string_view text, std::string& lowercase, OnWord&& on_word) {
  ascii_to_lower(text, lowercase);
  for_each_ascii_word(lowercase, on_word);
}

}  // namespace simhash
