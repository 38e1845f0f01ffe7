// SPDX-License-Identifier: MIT
// The popcount kernel of the scans over codes in memory: which keys of a
// contiguous array lie within a limit of one query, eight keys a step with
// AVX2 (a nibble table per byte, AVX2 has no vector popcount) where the CPU
// has it. The n nearest's loop over the cached codes (packed_codes.cpp) and
// the batch search's comparisons (batch/group_pair_search.cpp) both filter
// with it, so the one filter is tuned and tested once.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include "util/cpu_dispatch.h"

#if SIMHASH_X86_64_TARGETS
#include <immintrin.h>
#endif

namespace simhash {

// Whether the AVX2 kernel runs on this CPU (x86-64 with AVX2 and POPCNT).
inline bool popcount_vector_loop_runs() {
#if SIMHASH_X86_64_TARGETS
  static const bool runs = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
  return runs;
#else
  return false;
#endif
}

// Calls report(position, distance) for each key of [first, last) within
// `radius` of `query`, in position order, one popcount a key: the loop
// where the AVX2 one does not run, and inlined into its caller for spans
// too short for the AVX2 loop to pay for its call.
template <typename Report>
inline void for_each_within(const std::uint64_t* keys, std::size_t first, std::size_t last,
                            std::uint64_t query, int radius, Report& report) {
  for (std::size_t i = first; i < last; ++i) {
    const int distance = std::popcount(keys[i] ^ query);
    if (distance <= radius) {
      report(i, distance);
    }
  }
}

#if SIMHASH_X86_64_TARGETS
// A bit for each of the four keys at `at` whose distance to the query (in
// every lane of `query`) is below `above` (in every lane).
[[gnu::target("avx2"), gnu::always_inline]] inline unsigned lanes_within(const std::uint64_t* at,
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
  return static_cast<unsigned>(
      _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(above, distances))));
}

// A bit for each of the eight keys at `at` within `limit` of the query
// broadcast in `query`.
[[gnu::target("avx2"), gnu::always_inline]] inline unsigned eight_within(const std::uint64_t* at,
                                                                         __m256i query, int limit) {
  const __m256i above = _mm256_set1_epi64x(limit + 1);
  return lanes_within(at, query, above) | lanes_within(at + 4, query, above) << 4;
}

// Calls report(position, distance) for each key of [first, last) within
// `radius` of `query`, in position order: the AVX2 filter eight keys a step,
// then the popcount of each key it passed (and of the tail).
template <typename Report>
[[gnu::target("avx2,popcnt")]] void for_each_within_avx2(const std::uint64_t* keys,
                                                         std::size_t first, std::size_t last,
                                                         std::uint64_t query, int radius,
                                                         Report& report) {
  const __m256i broadcast = _mm256_set1_epi64x(static_cast<long long>(query));
  const int limit = radius < 64 ? radius : 64;  // radius + 1 must not overflow
  std::size_t i = first;
  for (; i + 8 <= last; i += 8) {
    unsigned within = eight_within(keys + i, broadcast, limit);
    while (within != 0) {
      const std::size_t position = i + static_cast<std::size_t>(std::countr_zero(within));
      within &= within - 1;
      report(position, std::popcount(keys[position] ^ query));
    }
  }
  for_each_within(keys, i, last, query, radius, report);
}
#endif

// Below this many keys a span stays in the portable loop, inlined into its
// caller: the AVX2 loop is a call (not inlined across the change of target)
// and filters eight keys a step, so it pays only over longer spans (the
// batch search's all-pairs rows and long runs, not a table's runs of a few
// dozen fingerprints).
inline constexpr std::size_t kVectorLoopMinKeys = 64;

// for_each_within over [first, last) by the AVX2 loop where `vector_loop`
// (popcount_vector_loop_runs(), or false to test the portable loop) and the
// span is long enough, else by the portable one: the same reports in the
// same order either way.
template <typename Report>
inline void for_each_within_span(const std::uint64_t* keys, std::size_t first, std::size_t last,
                                 std::uint64_t query, int radius, bool vector_loop,
                                 Report& report) {
#if SIMHASH_X86_64_TARGETS
  if (vector_loop && last - first >= kVectorLoopMinKeys) {
    for_each_within_avx2(keys, first, last, query, radius, report);
    return;
  }
#else
  (void)vector_loop;
#endif
  for_each_within(keys, first, last, query, radius, report);
}

}  // namespace simhash
