// SPDX-License-Identifier: MIT
// The scalar, AVX2 and AVX-512 vote kernels and their run-time selection.
//
// The vector kernels keep the 64 totals in registers across a batch of
// features. For each feature they pick, lane by lane, either +weight or its
// exact negation (the sign bit flipped, as the scalar `-weight`) and add it to
// the lane's total: one IEEE addition per bit per feature, in feature order,
// exactly like the scalar loop, so the totals are bit-identical.
#include "fingerprint/vote_kernels.h"

#include <array>
#include <atomic>
#include <stdexcept>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SIMHASH_X86_KERNELS 1
#endif

namespace simhash {
namespace {

void vote_scalar(double* totals, const std::uint64_t* hashes, const double* weights,
                 std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t hash = hashes[i];
    const double weight = weights[i];
    for (int bit = 0; bit < 64; ++bit) {
      totals[bit] += ((hash >> bit) & 1U) != 0 ? weight : -weight;
    }
  }
}

#ifdef SIMHASH_X86_KERNELS

// Eight registers of eight doubles hold all 64 totals; bits 8g..8g+7 of the
// hash are directly the blend mask of register g.
__attribute__((target("avx512f"))) void vote_avx512(double* totals, const std::uint64_t* hashes,
                                                    const double* weights, std::size_t count) {
  constexpr std::size_t kRegisters = 8;
  __m512d total[kRegisters];
#pragma GCC unroll 8
  for (std::size_t g = 0; g < kRegisters; ++g) {
    total[g] = _mm512_loadu_pd(totals + 8 * g);
  }
  const __m512i sign_bit = _mm512_set1_epi64(static_cast<long long>(0x8000000000000000ULL));
  for (std::size_t i = 0; i < count; ++i) {
    const __m512d plus = _mm512_set1_pd(weights[i]);
    const __m512d minus =
        _mm512_castsi512_pd(_mm512_xor_epi64(_mm512_castpd_si512(plus), sign_bit));
    const std::uint64_t hash = hashes[i];
#pragma GCC unroll 8
    for (std::size_t g = 0; g < kRegisters; ++g) {
      const auto mask = static_cast<__mmask8>(hash >> (8 * g));
      total[g] = _mm512_add_pd(total[g], _mm512_mask_blend_pd(mask, minus, plus));
    }
  }
#pragma GCC unroll 8
  for (std::size_t g = 0; g < kRegisters; ++g) {
    _mm512_storeu_pd(totals + 8 * g, total[g]);
  }
}

// Sixteen registers of four doubles would take every AVX2 register, so the
// batch is run twice, 32 bits at a time (each bit still sees the features in
// order). Lane k of register g takes bit 4g+k: shifted up to the sign bit,
// which is what blendv selects on.
__attribute__((target("avx2"))) void vote_avx2(double* totals, const std::uint64_t* hashes,
                                               const double* weights, std::size_t count) {
  constexpr std::size_t kRegisters = 8;
  const __m256i to_sign_bit = _mm256_setr_epi64x(63, 62, 61, 60);
  const __m256d sign_bit =
      _mm256_castsi256_pd(_mm256_set1_epi64x(static_cast<long long>(0x8000000000000000ULL)));
  for (std::size_t half = 0; half < 2; ++half) {
    double* half_totals = totals + 32 * half;
    __m256d total[kRegisters];
#pragma GCC unroll 8
    for (std::size_t g = 0; g < kRegisters; ++g) {
      total[g] = _mm256_loadu_pd(half_totals + 4 * g);
    }
    for (std::size_t i = 0; i < count; ++i) {
      const __m256d plus = _mm256_set1_pd(weights[i]);
      const __m256d minus = _mm256_xor_pd(plus, sign_bit);
      const __m256i hash = _mm256_set1_epi64x(static_cast<long long>(hashes[i] >> (32 * half)));
#pragma GCC unroll 8
      for (std::size_t g = 0; g < kRegisters; ++g) {
        const __m256i selector = _mm256_sllv_epi64(_mm256_srli_epi64(hash, 4 * g), to_sign_bit);
        total[g] =
            _mm256_add_pd(total[g], _mm256_blendv_pd(minus, plus, _mm256_castsi256_pd(selector)));
      }
    }
#pragma GCC unroll 8
    for (std::size_t g = 0; g < kRegisters; ++g) {
      _mm256_storeu_pd(half_totals + 4 * g, total[g]);
    }
  }
}

#endif  // SIMHASH_X86_KERNELS

struct KernelList {
  std::array<VoteKernel, 3> kernels{};
  std::size_t size = 0;
};

KernelList detect_kernels() {
  KernelList list;
  list.kernels[list.size++] = VoteKernel{"scalar", &vote_scalar};
#ifdef SIMHASH_X86_KERNELS
  // __builtin_cpu_supports also checks that the OS saves the wider registers.
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) {
    list.kernels[list.size++] = VoteKernel{"avx2", &vote_avx2};
  }
  if (__builtin_cpu_supports("avx512f")) {
    list.kernels[list.size++] = VoteKernel{"avx512", &vote_avx512};
  }
#endif
  return list;
}

std::atomic<const VoteKernel*>& active_kernel_slot() {
  static std::atomic<const VoteKernel*> slot{&vote_kernels_on_this_cpu().back()};
  return slot;
}

}  // namespace

std::span<const VoteKernel> vote_kernels_on_this_cpu() {
  static const KernelList list = detect_kernels();
  return {list.kernels.data(), list.size};
}

const VoteKernel& active_vote_kernel() {
  return *active_kernel_slot().load(std::memory_order_relaxed);
}

void use_vote_kernel(const VoteKernel& kernel) {
  // Store a pointer into the static list, so a caller's copy may go away.
  for (const VoteKernel& candidate : vote_kernels_on_this_cpu()) {
    if (candidate.vote == kernel.vote) {
      active_kernel_slot().store(&candidate, std::memory_order_relaxed);
      return;
    }
  }
  throw std::invalid_argument("vote kernel not available on this CPU: " + std::string(kernel.name));
}

}  // namespace simhash
