// SPDX-License-Identifier: MIT
// The x86-64 filters of code_scan_filters.h: AVX2 (a popcount by nibble
// table, since AVX2 has no vector popcount) and AVX-512 VPOPCNTDQ. Each is
// compiled for its instruction set alone and called only where
// __builtin_cpu_supports said the CPU runs it (code_scan.cpp).
#include "index/code_scan_filters.h"

#if SIMHASH_X86_64_TARGETS
#include <immintrin.h>

#include <bit>

namespace simhash::code_scan {
namespace {

// Appends `base` plus the position of each set bit of `mask`. Nearly every
// mask of a scan is zero, so the loop is one predicted branch a step.
inline std::size_t emit(std::uint32_t mask, std::size_t base, std::uint32_t* out,
                        std::size_t found) {
  while (mask != 0) {
    out[found++] =
        static_cast<std::uint32_t>(base) + static_cast<std::uint32_t>(std::countr_zero(mask));
    mask &= mask - 1;
  }
  return found;
}

// A bit for each of the four keys at `at` within `limit` (as `above`, the
// limit plus one, in every lane) of the query (in every lane of `query`).
[[gnu::target("avx2"), gnu::always_inline]] inline std::uint32_t within4(const std::uint64_t* at,
                                                                         __m256i query,
                                                                         __m256i above) {
  const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2,
                                         1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
  const __m256i low = _mm256_set1_epi8(0x0f);
  const __m256i bits =
      _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(at)), query);
  const __m256i counts = _mm256_add_epi8(
      _mm256_shuffle_epi8(table, _mm256_and_si256(bits, low)),
      _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(bits, 4), low)));
  const __m256i distances = _mm256_sad_epu8(counts, _mm256_setzero_si256());  // a sum a lane
  return static_cast<std::uint32_t>(
      _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(above, distances))));
}

// Eight keys at `at` within `limit` of the query; lanes outside `valid` are
// neither read nor reported (the block's tail).
[[gnu::target("avx512f,avx512vpopcntdq"), gnu::always_inline]] inline std::uint32_t within8(
    const std::uint64_t* at, __mmask8 valid, __m512i query, __m512i limit) {
  const __m512i bits = _mm512_xor_si512(_mm512_maskz_loadu_epi64(valid, at), query);
  return _mm512_mask_cmple_epu64_mask(valid, _mm512_popcnt_epi64(bits), limit);
}

// The same for eight whole keys: plain loads, no mask (the steady loop).
[[gnu::target("avx512f,avx512vpopcntdq"), gnu::always_inline]] inline std::uint32_t within8(
    const std::uint64_t* at, __m512i query, __m512i limit) {
  const __m512i bits = _mm512_xor_si512(_mm512_loadu_si512(at), query);
  return _mm512_cmple_epu64_mask(_mm512_popcnt_epi64(bits), limit);
}

}  // namespace

[[gnu::target("avx2,popcnt")]] std::size_t filter_avx2(const std::uint64_t* keys, std::size_t size,
                                                       std::uint64_t query, int limit,
                                                       std::uint32_t* out) {
  const __m256i broadcast = _mm256_set1_epi64x(static_cast<long long>(query));
  const __m256i above = _mm256_set1_epi64x(limit + 1);
  std::size_t found = 0;
  std::size_t i = 0;
  for (; i + 16 <= size; i += 16) {
    const std::uint32_t mask = within4(keys + i, broadcast, above) |
                               within4(keys + i + 4, broadcast, above) << 4 |
                               within4(keys + i + 8, broadcast, above) << 8 |
                               within4(keys + i + 12, broadcast, above) << 12;
    found = emit(mask, i, out, found);
  }
  for (; i < size; ++i) {  // the block's tail, at most 15 rows
    out[found] = static_cast<std::uint32_t>(i);
    found += std::popcount(keys[i] ^ query) <= limit ? 1 : 0;
  }
  return found;
}

[[gnu::target("avx512f,avx512vpopcntdq")]] std::size_t filter_avx512(const std::uint64_t* keys,
                                                                     std::size_t size,
                                                                     std::uint64_t query, int limit,
                                                                     std::uint32_t* out) {
  const __m512i broadcast = _mm512_set1_epi64(static_cast<long long>(query));
  const __m512i bound = _mm512_set1_epi64(limit);
  std::size_t found = 0;
  std::size_t i = 0;
  // One vector a step: unrolled further, the loop ran no faster (it waits
  // on memory) and sometimes slower.
  for (; i + 8 <= size; i += 8) {
    found = emit(within8(keys + i, broadcast, bound), i, out, found);
  }
  if (i < size) {  // the block's tail, fewer than eight rows
    const std::size_t left = size - i;
    const auto valid = static_cast<__mmask8>((1U << left) - 1);
    found = emit(within8(keys + i, valid, broadcast, bound), i, out, found);
  }
  return found;
}

}  // namespace simhash::code_scan

#endif
