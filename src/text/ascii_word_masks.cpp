// SPDX-License-Identifier: MIT
// The word-mask kernels of the ASCII fast path and their run-time selection.
//
// Each kernel classifies 64 bytes at a time into one bit mask per character
// class; the shared segment_mask() then adds the middle characters that join
// two letters or two digits, looking one byte past each end of the block.
#include "text/ascii_word_masks.h"

#include <cstring>

#include "util/compiler_support.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SIMHASH_X86_KERNELS 1
#endif

namespace simhash {
namespace {

using namespace ascii_words_detail;

constexpr std::size_t kBlock = 64;

struct ClassMasks {
  std::uint64_t letter = 0;
  std::uint64_t digit = 0;
  std::uint64_t underscore = 0;
  std::uint64_t mid_num_let = 0;
  std::uint64_t mid_num = 0;
};

// The segment bits of block `block` given its class masks. The neighbours
// one byte before and after the block come from the text itself.
SIMHASH_ALWAYS_INLINE std::uint64_t segment_mask(const ClassMasks& classes,
                                                 const unsigned char* text, std::size_t size,
                                                 std::size_t block) {
  const std::size_t begin = kBlock * block;
  const std::uint8_t before = begin > 0 ? kClassOf[text[begin - 1]] : std::uint8_t{kOther};
  const std::uint8_t after =
      begin + kBlock < size ? kClassOf[text[begin + kBlock]] : std::uint8_t{kOther};
  // Bit i of *_left / *_right: byte i-1 / i+1 is a letter (a digit).
  const std::uint64_t letter_left = (classes.letter << 1U) | (before == kLetter ? 1U : 0U);
  const std::uint64_t digit_left = (classes.digit << 1U) | (before == kDigit ? 1U : 0U);
  const std::uint64_t letter_right =
      (classes.letter >> 1U) | (std::uint64_t{after == kLetter ? 1U : 0U} << 63U);
  const std::uint64_t digit_right =
      (classes.digit >> 1U) | (std::uint64_t{after == kDigit ? 1U : 0U} << 63U);
  const std::uint64_t joining =
      (letter_left & letter_right & classes.mid_num_let) |
      (digit_left & digit_right & (classes.mid_num_let | classes.mid_num));
  return classes.letter | classes.digit | classes.underscore | joining;
}

ClassMasks classify_scalar(const unsigned char* bytes, std::size_t available) {
  ClassMasks classes;
  const std::size_t count = available < kBlock ? available : kBlock;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint8_t kind = kClassOf[bytes[i]];
    classes.letter |= std::uint64_t{kind == kLetter ? 1U : 0U} << i;
    classes.digit |= std::uint64_t{kind == kDigit ? 1U : 0U} << i;
    classes.underscore |= std::uint64_t{kind == kUnderscore ? 1U : 0U} << i;
    classes.mid_num_let |= std::uint64_t{kind == kMidNumLet ? 1U : 0U} << i;
    classes.mid_num |= std::uint64_t{kind == kMidNum ? 1U : 0U} << i;
  }
  return classes;
}

void mark_scalar(const unsigned char* text, std::size_t size, std::size_t first_block,
                 std::size_t block_count, std::uint64_t* masks) {
  for (std::size_t k = 0; k < block_count; ++k) {
    const std::size_t begin = kBlock * (first_block + k);
    masks[k] =
        segment_mask(classify_scalar(text + begin, size - begin), text, size, first_block + k);
  }
}

#ifdef SIMHASH_X86_KERNELS

// (Lambdas would not inherit the target attribute, hence the small helpers.)
__attribute__((target("avx512bw"))) inline __mmask64 equal_avx512(__m512i bytes, char value) {
  return _mm512_cmpeq_epi8_mask(bytes, _mm512_set1_epi8(value));
}

// Unsigned x - low < width tests low <= x < low + width in one compare.
__attribute__((target("avx512bw"))) inline __mmask64 in_range_avx512(__m512i bytes, char low,
                                                                     char width) {
  return _mm512_cmplt_epu8_mask(_mm512_sub_epi8(bytes, _mm512_set1_epi8(low)),
                                _mm512_set1_epi8(width));
}

// A masked load never touches the bytes past the end of the text.
__attribute__((target("avx512bw"))) inline ClassMasks classify_avx512(const unsigned char* bytes,
                                                                      std::size_t available) {
  const __mmask64 valid = available >= kBlock ? ~__mmask64{0} : (__mmask64{1} << available) - 1;
  const __m512i c = _mm512_maskz_loadu_epi8(valid, bytes);
  // OR-ing 0x20 folds A-Z onto a-z (and moves no other byte into a-z).
  const __m512i folded = _mm512_or_si512(c, _mm512_set1_epi8(0x20));
  ClassMasks classes;
  classes.letter = in_range_avx512(folded, 'a', 26) | equal_avx512(c, '@');
  classes.digit = in_range_avx512(c, '0', 10);
  classes.underscore = equal_avx512(c, '_');
  classes.mid_num_let = equal_avx512(c, '.') | equal_avx512(c, '\'');
  classes.mid_num = equal_avx512(c, ',') | equal_avx512(c, ';');
  return classes;
}

__attribute__((target("avx512bw"))) void mark_avx512(const unsigned char* text, std::size_t size,
                                                     std::size_t first_block,
                                                     std::size_t block_count,
                                                     std::uint64_t* masks) {
  for (std::size_t k = 0; k < block_count; ++k) {
    const std::size_t begin = kBlock * (first_block + k);
    masks[k] =
        segment_mask(classify_avx512(text + begin, size - begin), text, size, first_block + k);
  }
}

__attribute__((target("avx2"))) inline std::uint64_t byte_mask_avx2(__m256i low_half_true,
                                                                    __m256i high_half_true) {
  return static_cast<std::uint32_t>(_mm256_movemask_epi8(low_half_true)) |
         (std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(high_half_true))} << 32U);
}

__attribute__((target("avx2"))) inline __m256i equal_avx2(__m256i bytes, char value) {
  return _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(value));
}

// low <= x <= high. Signed byte compares are exact here: the text is ASCII
// (0..127) and so is every byte of the padded copy of a short last block.
__attribute__((target("avx2"))) inline __m256i between_avx2(__m256i bytes, char low, char high) {
  return _mm256_and_si256(_mm256_cmpgt_epi8(bytes, _mm256_set1_epi8(static_cast<char>(low - 1))),
                          _mm256_cmpgt_epi8(_mm256_set1_epi8(static_cast<char>(high + 1)), bytes));
}

// A short last block is copied into a zero-padded buffer (zero is kOther),
// so no load reads past the end of the text.
__attribute__((target("avx2"))) inline ClassMasks classify_avx2(const unsigned char* bytes,
                                                                std::size_t available) {
  alignas(32) unsigned char padded[kBlock] = {};
  if (available < kBlock) {
    std::memcpy(padded, bytes, available);
    bytes = padded;
  }
  __m256i letter[2];
  __m256i digit[2];
  __m256i underscore[2];
  __m256i mid_num_let[2];
  __m256i mid_num[2];
  for (std::size_t half = 0; half < 2; ++half) {
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bytes + 32 * half));
    const __m256i folded = _mm256_or_si256(c, _mm256_set1_epi8(0x20));
    letter[half] = _mm256_or_si256(between_avx2(folded, 'a', 'z'), equal_avx2(c, '@'));
    digit[half] = between_avx2(c, '0', '9');
    underscore[half] = equal_avx2(c, '_');
    mid_num_let[half] = _mm256_or_si256(equal_avx2(c, '.'), equal_avx2(c, '\''));
    mid_num[half] = _mm256_or_si256(equal_avx2(c, ','), equal_avx2(c, ';'));
  }
  ClassMasks classes;
  classes.letter = byte_mask_avx2(letter[0], letter[1]);
  classes.digit = byte_mask_avx2(digit[0], digit[1]);
  classes.underscore = byte_mask_avx2(underscore[0], underscore[1]);
  classes.mid_num_let = byte_mask_avx2(mid_num_let[0], mid_num_let[1]);
  classes.mid_num = byte_mask_avx2(mid_num[0], mid_num[1]);
  return classes;
}

__attribute__((target("avx2"))) void mark_avx2(const unsigned char* text, std::size_t size,
                                               std::size_t first_block, std::size_t block_count,
                                               std::uint64_t* masks) {
  for (std::size_t k = 0; k < block_count; ++k) {
    const std::size_t begin = kBlock * (first_block + k);
    masks[k] = segment_mask(classify_avx2(text + begin, size - begin), text, size, first_block + k);
  }
}

#endif  // SIMHASH_X86_KERNELS

struct KernelList {
  std::array<WordMaskKernel, 3> kernels{};
  std::size_t size = 0;
};

KernelList detect_kernels() {
  KernelList list;
  list.kernels[list.size++] = WordMaskKernel{"scalar", &mark_scalar};
#ifdef SIMHASH_X86_KERNELS
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) {
    list.kernels[list.size++] = WordMaskKernel{"avx2", &mark_avx2};
  }
  if (__builtin_cpu_supports("avx512bw")) {
    list.kernels[list.size++] = WordMaskKernel{"avx512bw", &mark_avx512};
  }
#endif
  return list;
}

}  // namespace

std::span<const WordMaskKernel> word_mask_kernels_on_this_cpu() {
  static const KernelList list = detect_kernels();
  return {list.kernels.data(), list.size};
}

const WordMaskKernel& best_word_mask_kernel() {
  static const WordMaskKernel& best = word_mask_kernels_on_this_cpu().back();
  return best;
}

}  // namespace simhash
