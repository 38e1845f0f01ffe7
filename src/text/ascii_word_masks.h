// SPDX-License-Identifier: MIT
// The inner loop of the ASCII fast path: for 64-byte blocks of ASCII text, a
// bit mask of the bytes that belong to word segments. A portable kernel plus
// AVX2 and AVX-512BW kernels compiled with per-function target attributes and
// chosen at run time; all compute the same masks (tests compare them).
//
// Byte i is in a word segment when it is a word character (a-z A-Z '@' 0-9
// '_'), or a middle character that joins its two neighbours: '.' or '\''
// between two letters, '.' '\'' ',' ';' between two digits (UAX #29 rules
// WB6/7 and WB11/12 as ICU applies them to ASCII; see ascii_words.h). Each
// maximal run of set bits is then one segment.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace simhash {

// masks[k] bit i = byte 64 * (first_block + k) + i of text[0, size) is in a
// word segment, for k in [0, block_count); bytes at or past `size` count as
// not in one. Blocks must start before `size`. The text must be ASCII.
using WordMaskFunction = void (*)(const unsigned char* text, std::size_t size,
                                  std::size_t first_block, std::size_t block_count,
                                  std::uint64_t* masks);

struct WordMaskKernel {
  std::string_view name;  // "scalar", "avx2", "avx512bw"
  WordMaskFunction mark;
};

// The kernels this CPU can run: scalar first, the fastest last.
std::span<const WordMaskKernel> word_mask_kernels_on_this_cpu();

// The fastest kernel this CPU runs.
const WordMaskKernel& best_word_mask_kernel();

namespace ascii_words_detail {

enum CharClass : std::uint8_t {
  kOther = 0,
  kLetter = 1,      // a-z A-Z, and '@' (ICU 72 made it an ALetter)
  kDigit = 2,       // 0-9
  kUnderscore = 4,  // '_' (ExtendNumLet)
  kMidNumLet = 8,   // '.' and '\'' (MidNumLet, Single_Quote)
  kMidNum = 16,     // ',' and ';' (MidNum)
};

constexpr std::array<std::uint8_t, 256> kClassOf = [] {
  std::array<std::uint8_t, 256> classes{};
  for (int c = 'a'; c <= 'z'; ++c) {
    classes[c] = kLetter;
  }
  for (int c = 'A'; c <= 'Z'; ++c) {
    classes[c] = kLetter;
  }
  classes['@'] = kLetter;
  for (int c = '0'; c <= '9'; ++c) {
    classes[c] = kDigit;
  }
  classes['_'] = kUnderscore;
  classes['.'] = kMidNumLet;
  classes['\''] = kMidNumLet;
  classes[','] = kMidNum;
  classes[';'] = kMidNum;
  return classes;
}();

}  // namespace ascii_words_detail
}  // namespace simhash
