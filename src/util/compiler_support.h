// SPDX-License-Identifier: MIT
// The compiler-specific spellings the engine needs, each with its MSVC
// equivalent, so that the sources build with GCC, clang and MSVC alike.
#pragma once

#include <cstdint>

#if defined(_MSC_VER) && !defined(__clang__)
#include <cstdlib>
#define SIMHASH_ALWAYS_INLINE __forceinline
#else
#define SIMHASH_ALWAYS_INLINE inline __attribute__((always_inline))
#endif

namespace simhash {

// The bytes of `word` in reverse order (std::byteswap is C++23).
inline std::uint64_t swap_bytes(std::uint64_t word) {
#if defined(_MSC_VER) && !defined(__clang__)
  return _byteswap_uint64(word);
#else
  return __builtin_bswap64(word);
#endif
}

}  // namespace simhash
