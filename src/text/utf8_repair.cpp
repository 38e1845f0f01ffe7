// SPDX-License-Identifier: MIT
// UTF-8 validation and repair by the maximal-subpart rule (Unicode Table 3-7).
#include "text/utf8_repair.h"

#include <cstddef>
#include <cstdint>

#include "text/ascii_scan.h"

namespace simhash {
namespace {

constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

// Length of the well-formed sequence starting at `position`, or 0 when it is
// ill-formed; then `*subpart` is the length of its maximal subpart (>= 1),
// the bytes that one U+FFFD replaces.
std::size_t sequence_length(const unsigned char* text, std::size_t size, std::size_t position,
                            std::size_t* subpart) {
  const unsigned char lead = text[position];
  if (lead < 0x80) {
    return 1;
  }
  std::size_t length = 0;
  unsigned char second_low = 0x80;
  unsigned char second_high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) {
      second_low = 0xA0;  // no overlongs
    } else if (lead == 0xED) {
      second_high = 0x9F;  // no surrogates
    }
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) {
      second_low = 0x90;  // no overlongs
    } else if (lead == 0xF4) {
      second_high = 0x8F;  // nothing above U+10FFFF
    }
  } else {
    *subpart = 1;  // 80..C1 and F5..FF never start a sequence
    return 0;
  }
  for (std::size_t offset = 1; offset < length; ++offset) {
    const std::size_t index = position + offset;
    const unsigned char low = offset == 1 ? second_low : 0x80;
    const unsigned char high = offset == 1 ? second_high : 0xBF;
    if (index >= size || text[index] < low || text[index] > high) {
      *subpart = offset;
      return 0;
    }
  }
  return length;
}

}  // namespace

bool is_valid_utf8(std::string_view bytes) {
  const auto* text = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t size = bytes.size();
  std::size_t position = 0;
  while ((position = end_of_ascii(bytes, position)) < size) {
    std::size_t subpart = 0;
    const std::size_t length = sequence_length(text, size, position, &subpart);
    if (length == 0) {
      return false;
    }
    position += length;
  }
  return true;
}

std::string_view repair_utf8(std::string_view bytes, std::string& repaired) {
  if (is_valid_utf8(bytes)) {
    return bytes;
  }
  const auto* text = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t size = bytes.size();
  repaired.clear();
  repaired.reserve(size + size / 2);
  std::size_t position = 0;
  while (position < size) {
    const std::size_t ascii_end = end_of_ascii(bytes, position);
    repaired.append(bytes.substr(position, ascii_end - position));
    position = ascii_end;
    if (position == size) {
      break;
    }
    std::size_t subpart = 0;
    const std::size_t length = sequence_length(text, size, position, &subpart);
    if (length == 0) {
      repaired.append(kReplacementCharacter);
      position += subpart;
    } else {
      repaired.append(bytes.substr(position, length));
      position += length;
    }
  }
  return repaired;
}

}  // namespace simhash
