// SPDX-License-Identifier: MIT
// The hash of one feature: XXH3-64 with seed 0. Part of the frozen fingerprint
// format, so it must never change.
#pragma once

#include <cstdint>
#include <string_view>

namespace simhash {

// Hash of a feature given as bytes (TEXT and BLOB features, shingle text).
std::uint64_t feature_hash(std::string_view bytes);

// Hash of an INTEGER feature: XXH3-64 of its 8-byte little-endian form.
std::uint64_t feature_hash(std::int64_t value);

}  // namespace simhash
