// SPDX-License-Identifier: MIT
// UTF-8 repair: every invalid sequence becomes U+FFFD, so the rest of the
// pipeline (ICU, hashing) only ever sees well-formed UTF-8.
#pragma once

#include <string>
#include <string_view>

namespace simhash {

// True when `bytes` is well-formed UTF-8 (no surrogates, no overlongs, nothing
// above U+10FFFF).
bool is_valid_utf8(std::string_view bytes);

// Returns `bytes` itself when it is valid; otherwise writes into `repaired` a
// copy in which each maximal subpart of an ill-formed sequence (Unicode 15,
// section 3.9, "U+FFFD substitution of maximal subparts") is replaced by one
// U+FFFD, and returns a view of `repaired`.
std::string_view repair_utf8(std::string_view bytes, std::string& repaired);

}  // namespace simhash
