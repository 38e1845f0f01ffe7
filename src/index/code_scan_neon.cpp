// SPDX-License-Identifier: MIT
// The aarch64 filter of code_scan_filters.h: NEON counts the bits of two
// keys a vector (a byte popcount, then pairwise sums up to each 64-bit
// lane). NEON is part of every aarch64 CPU, so no run-time check.
#include "index/code_scan_filters.h"

#if SIMHASH_AARCH64_NEON
#include <arm_neon.h>

#include <bit>

namespace simhash::code_scan {
namespace {

// All ones in each 64-bit lane of the two keys at `at` within `limit`.
inline uint64x2_t within2(const std::uint64_t* at, uint64x2_t query, uint64x2_t limit) {
  const uint8x16_t bytes = vcntq_u8(vreinterpretq_u8_u64(veorq_u64(vld1q_u64(at), query)));
  return vcleq_u64(vpaddlq_u32(vpaddlq_u16(vpaddlq_u8(bytes))), limit);
}

}  // namespace

std::size_t filter_neon(const std::uint64_t* keys, std::size_t size, std::uint64_t query, int limit,
                        std::uint32_t* out) {
  const uint64x2_t broadcast = vdupq_n_u64(query);
  const uint64x2_t bound = vdupq_n_u64(static_cast<std::uint64_t>(limit));
  std::size_t found = 0;
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    const uint64x2_t any = vorrq_u64(
        vorrq_u64(within2(keys + i, broadcast, bound), within2(keys + i + 2, broadcast, bound)),
        vorrq_u64(within2(keys + i + 4, broadcast, bound),
                  within2(keys + i + 6, broadcast, bound)));
    // Nearly every step passes none; the few that pass one are compared
    // again row by row.
    if (vmaxvq_u32(vreinterpretq_u32_u64(any)) == 0) {
      continue;
    }
    for (std::size_t j = i; j < i + 8; ++j) {
      out[found] = static_cast<std::uint32_t>(j);
      found += std::popcount(keys[j] ^ query) <= limit ? 1 : 0;
    }
  }
  for (; i < size; ++i) {
    out[found] = static_cast<std::uint32_t>(i);
    found += std::popcount(keys[i] ^ query) <= limit ? 1 : 0;
  }
  return found;
}

}  // namespace simhash::code_scan

#endif
