// SPDX-License-Identifier: MIT
// The ASCII fast path of word tokenization: for text made only of ASCII bytes
// it yields exactly the tokens that NFKC_Casefold followed by ICU's word break
// iterator (root locale, segments with rule status >= UBRK_WORD_NUMBER) yield,
// without calling ICU. Proved by the differential tests in
// tests/text/ascii_words_test.cpp and ascii_corpus_test.cpp.
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

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "text/ascii_word_masks.h"

namespace simhash {

// True when every byte of `text` is below 0x80.
bool is_ascii(std::string_view text);

// NFKC_Casefold of ASCII text: `text` with A-Z mapped to a-z, into `out`.
void ascii_to_lower(std::string_view text, std::string& out);

// The process-wide switch of the fast path (on by default). Benchmarks and
// differential tests turn it off to force ICU on ASCII text as well.
bool ascii_fast_path_enabled();
void set_ascii_fast_path_enabled(bool enabled);

// Calls on_word(std::string_view) for each word token of the ASCII text
// `text`, in order, with the token's bytes as they are in `text` (so pass
// lowercased text to get normalized tokens). `kernel` finds the bytes inside
// word segments (ascii_word_masks.h); this walks the runs of set bits.
template <typename OnWord>
void for_each_ascii_word(std::string_view text, OnWord&& on_word,
                         const WordMaskKernel& kernel = best_word_mask_kernel()) {
  // Masks for 16 blocks of 64 bytes at a time: 1 KiB of text per kernel call.
  constexpr std::size_t kBlocksPerCall = 16;
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t size = text.size();
  const std::size_t blocks = (size + 63) / 64;
  std::array<std::uint64_t, kBlocksPerCall> masks{};
  std::uint64_t previous_bit = 0;  // the last byte of the previous block is inside a segment
  bool inside = false;
  std::size_t word_start = 0;
  const auto emit = [&](std::size_t end) {
    // ICU's rule status for a lone "_" is 0 (no tagged rule matches it): not a word.
    if (end - word_start != 1 || bytes[word_start] != '_') {
      on_word(text.substr(word_start, end - word_start));
    }
  };
  for (std::size_t first = 0; first < blocks; first += kBlocksPerCall) {
    const std::size_t count = std::min(kBlocksPerCall, blocks - first);
    kernel.mark(bytes, size, first, count, masks.data());
    for (std::size_t k = 0; k < count; ++k) {
      const std::uint64_t in_segment = masks[k];
      // Bit i: byte i is inside a segment and byte i-1 is not, or the reverse.
      std::uint64_t edges = in_segment ^ ((in_segment << 1U) | previous_bit);
      previous_bit = in_segment >> 63U;
      const std::size_t base = 64 * (first + k);
      while (edges != 0) {
        const std::size_t at = base + static_cast<std::size_t>(std::countr_zero(edges));
        edges &= edges - 1;
        if (inside) {
          emit(at);
        } else {
          word_start = at;
        }
        inside = !inside;
      }
    }
  }
  if (inside) {
    emit(size);
  }
}

// Cuts `text` just after line feeds into runs of whole lines, alternately
// all ASCII and not, and calls on_run(std::string_view run, bool ascii) for
// each run in order (one call with the whole text when it is all ASCII).
// Tokenizing the runs one by one gives the tokens of the whole text, because
// a cut just after U+000A changes neither step: NFKC_Casefold has a boundary
// after U+000A (nothing composes or reorders across it), and ICU's word
// rules always break after it (WB3a) while a segment starting at a break
// depends only on the text that follows. The corpus and random tests in
// tests/text/ascii_lines_test.cpp check exactly this against ICU.
template <typename OnRun>
void for_each_ascii_line_run(std::string_view text, OnRun&& on_run) {
  if (is_ascii(text)) {
    on_run(text, true);
    return;
  }
  std::size_t run_start = 0;
  bool run_ascii = false;
  for (std::size_t line_start = 0; line_start < text.size();) {
    const std::size_t line_feed = text.find('\n', line_start);
    const std::size_t line_end = line_feed == std::string_view::npos ? text.size() : line_feed + 1;
    const bool line_ascii = is_ascii(text.substr(line_start, line_end - line_start));
    if (line_start == 0) {
      run_ascii = line_ascii;
    } else if (line_ascii != run_ascii) {
      on_run(text.substr(run_start, line_start - run_start), run_ascii);
      run_start = line_start;
      run_ascii = line_ascii;
    }
    line_start = line_end;
  }
  on_run(text.substr(run_start), run_ascii);
}

// The whole fast path: the tokens WordTokenizer yields for ASCII `text`,
// normalized (lowercased into `lowercase`, which the views point into).
template <typename OnWord>
void tokenize_ascii(std::string_view text, std::string& lowercase, OnWord&& on_word) {
  ascii_to_lower(text, lowercase);
  for_each_ascii_word(lowercase, on_word);
}

}  // namespace simhash
