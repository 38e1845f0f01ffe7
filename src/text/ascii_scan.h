// SPDX-License-Identifier: MIT
// Finding the end of a stretch of ASCII bytes, eight bytes at a time: most
// text is mostly ASCII, and both UTF-8 validation and normalization skip it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace simhash {

// The index of the first byte at or after `position` that is not ASCII
// (>= 0x80), or text.size() when there is none. Inline: validation calls it
// once per non-ASCII code point.
inline std::size_t end_of_ascii(std::string_view text, std::size_t position) {
  constexpr std::uint64_t kHighBits = 0x8080808080808080U;
  while (position + sizeof(std::uint64_t) <= text.size()) {
    std::uint64_t word = 0;
    std::memcpy(&word, text.data() + position, sizeof word);  // unaligned load
    if ((word & kHighBits) != 0) {
      break;
    }
    position += sizeof word;
  }
  while (position < text.size() && static_cast<unsigned char>(text[position]) < 0x80) {
    ++position;
  }
  return position;
}

}  // namespace simhash
