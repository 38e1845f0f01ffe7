// SPDX-License-Identifier: MIT
// Hamming distance between fingerprints: 64-bit integers and byte strings.
#pragma once

#include <bit>
#include <cstdint>
#include <span>

namespace simhash {

inline int hamming_distance(std::uint64_t a, std::uint64_t b) { return std::popcount(a ^ b); }

// Both spans must have the same length; the caller checks (it owns the error).
int hamming_distance(std::span<const unsigned char> a, std::span<const unsigned char> b);

}  // namespace simhash
