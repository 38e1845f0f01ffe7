// SPDX-License-Identifier: MIT
// Byte-string Hamming distance, eight bytes at a time.
#include "fingerprint/hamming.h"

#include <cstring>

namespace simhash {

int hamming_distance(std::span<const unsigned char> a, std::span<const unsigned char> b) {
  const std::size_t size = a.size() < b.size() ? a.size() : b.size();
  int distance = 0;
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    std::uint64_t wa = 0;
    std::uint64_t wb = 0;
    std::memcpy(&wa, a.data() + i, 8);  // memcpy: the bytes need not be aligned
    std::memcpy(&wb, b.data() + i, 8);
    distance += std::popcount(wa ^ wb);
  }
  for (; i < size; ++i) {
    distance += std::popcount(static_cast<unsigned>(a[i] ^ b[i]));
  }
  return distance;
}

}  // namespace simhash
