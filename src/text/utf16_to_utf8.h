// SPDX-License-Identifier: MIT
// UTF-16 to UTF-8 for short strings (word tokens), inline because it runs
// once per token. The input comes from ICU's normalizer, so it is well-formed:
// surrogates come in pairs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace simhash {

// The UTF-8 form of `utf16`, written into `buffer` (reused across calls to
// avoid allocation); valid until `buffer` changes.
inline std::string_view utf16_to_utf8(std::u16string_view utf16, std::string& buffer) {
  // At most 3 bytes per code unit: a surrogate pair (2 units) takes 4.
  if (buffer.size() < 3 * utf16.size()) {
    buffer.resize(3 * utf16.size());
  }
  char* out = buffer.data();
  std::size_t index = 0;
  // Most tokens are ASCII: four code units at a time while they are.
  constexpr std::uint64_t kNonAsciiBits = 0xFF80FF80FF80FF80U;
  std::uint64_t four_units = 0;
  while (index + 4 <= utf16.size()) {
    std::memcpy(&four_units, utf16.data() + index, sizeof four_units);
    if ((four_units & kNonAsciiBits) != 0) {
      break;
    }
    for (int unit = 0; unit < 4; ++unit) {
      *out++ = static_cast<char>(utf16[index++]);
    }
  }
  for (; index < utf16.size(); ++index) {
    const std::uint32_t unit = utf16[index];
    if (unit < 0x80) {
      *out++ = static_cast<char>(unit);
    } else if (unit < 0x800) {
      *out++ = static_cast<char>(0xC0 | (unit >> 6));
      *out++ = static_cast<char>(0x80 | (unit & 0x3F));
    } else if (unit >= 0xD800 && unit < 0xDC00 && index + 1 < utf16.size()) {
      const std::uint32_t code_point =
          0x10000 + ((unit - 0xD800) << 10) + (utf16[++index] - 0xDC00);
      *out++ = static_cast<char>(0xF0 | (code_point >> 18));
      *out++ = static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
      *out++ = static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
      *out++ = static_cast<char>(0x80 | (code_point & 0x3F));
    } else {
      *out++ = static_cast<char>(0xE0 | (unit >> 12));
      *out++ = static_cast<char>(0x80 | ((unit >> 6) & 0x3F));
      *out++ = static_cast<char>(0x80 | (unit & 0x3F));
    }
  }
  return {buffer.data(), static_cast<std::size_t>(out - buffer.data())};
}

}  // namespace simhash
