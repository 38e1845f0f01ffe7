// SPDX-License-Identifier: MIT
// bucket_rests.h on x86-64: eight rests of a bucket a step with AVX-512.
// One 64-byte load holds eight rests of up to 8 bytes; VBMI's byte permute
// moves each rest's bytes into its 64-bit lane in reverse order (big-endian
// to the CPU's order) and zeroes the bytes above it, then VPOPCNTDQ counts
// the bits of each lane's difference from the query.
#include "index/bucket_rests.h"

#if SIMHASH_X86_64_TARGETS
#include <immintrin.h>

#include <array>
#include <bit>

namespace simhash::bucket_rests {
namespace {

// For rests of `bytes` bytes: where each byte of the eight lanes comes from
// in the loaded 64 bytes, and which bytes of a lane a rest fills.
struct Gather {
  std::array<unsigned char, 64> index{};
  std::uint64_t keep = 0;
};

constexpr Gather gather_for(int bytes) {
  Gather gather;
  for (int lane = 0; lane < 8; ++lane) {
    for (int byte = 0; byte < bytes; ++byte) {  // byte 0: the least significant
      gather.index[lane * 8 + byte] = static_cast<unsigned char>(lane * bytes + bytes - 1 - byte);
      gather.keep |= std::uint64_t{1} << (lane * 8 + byte);
    }
  }
  return gather;
}

constexpr std::array<Gather, 9> kGathers = {gather_for(0), gather_for(1), gather_for(2),
                                            gather_for(3), gather_for(4), gather_for(5),
                                            gather_for(6), gather_for(7), gather_for(8)};

}  // namespace

[[gnu::target("avx512f,avx512bw,avx512vbmi,avx512vpopcntdq")]] std::size_t find_close_avx512(
    const unsigned char* rests, std::size_t count, int rest_bytes, std::size_t available,
    std::uint64_t query_rest, std::uint64_t prefix_mask, int radius, std::vector<CloseEntry>& out) {
  const Gather& gather = kGathers[static_cast<std::size_t>(rest_bytes)];
  const __m512i index = _mm512_loadu_si512(gather.index.data());
  const auto keep = static_cast<__mmask64>(gather.keep);
  const __m512i query = _mm512_set1_epi64(static_cast<long long>(query_rest));
  const __m512i prefix = _mm512_set1_epi64(static_cast<long long>(prefix_mask));
  const __m512i limit = _mm512_set1_epi64(radius);
  const auto step = static_cast<std::size_t>(8 * rest_bytes);
  std::size_t entry = 0;
  for (std::size_t offset = 0; entry + 8 <= count && offset + 64 <= available;
       entry += 8, offset += step) {
    const __m512i loaded = _mm512_loadu_si512(rests + offset);
    const __m512i difference =
        _mm512_xor_si512(_mm512_maskz_permutexvar_epi8(keep, index, loaded), query);
    const __m512i distances = _mm512_popcnt_epi64(difference);
    unsigned mask =
        _mm512_mask_cmple_epu64_mask(_mm512_testn_epi64_mask(difference, prefix), distances, limit);
    if (mask == 0) {
      continue;
    }
    alignas(64) std::array<std::uint64_t, 8> lanes;
    _mm512_store_si512(lanes.data(), distances);
    while (mask != 0) {
      const int lane = std::countr_zero(mask);
      mask &= mask - 1;
      out.push_back(CloseEntry{static_cast<std::uint32_t>(entry + static_cast<std::size_t>(lane)),
                               static_cast<int>(lanes[static_cast<std::size_t>(lane)])});
    }
  }
  return entry;
}

}  // namespace simhash::bucket_rests

#endif
