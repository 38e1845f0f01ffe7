// SPDX-License-Identifier: MIT
// XXH3-64 feature hashes.
#include "fingerprint/feature_hash.h"

#include <xxhash.h>

namespace simhash {

std::uint64_t feature_hash(std::string_view bytes) {
  return XXH3_64bits(bytes.data(), bytes.size());
}

std::uint64_t feature_hash(std::int64_t value) {
  unsigned char little_endian[8];
  auto bits = static_cast<std::uint64_t>(value);
  for (unsigned char& byte : little_endian) {
    byte = static_cast<unsigned char>(bits & 0xffU);
    bits >>= 8;
  }
  return XXH3_64bits(little_endian, sizeof little_endian);
}

}  // namespace simhash
