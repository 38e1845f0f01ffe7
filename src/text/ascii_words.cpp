// SPDX-License-Identifier: MIT
// The byte-level helpers of the ASCII fast path and its switch.
#include "text/ascii_words.h"

#include <atomic>
#include <cstring>

namespace simhash {
namespace {

std::atomic<bool> fast_path_enabled{true};

}  // namespace

bool is_ascii(std::string_view text) {
  constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;
  // Blocks of 256 bytes OR-ed together (the compiler vectorizes the inner
  // loop), so a long non-ASCII text is rejected early without a test per byte.
  constexpr std::size_t kBlock = 256;
  const char* data = text.data();
  const std::size_t size = text.size();
  std::size_t position = 0;
  for (; position + kBlock <= size; position += kBlock) {
    std::uint64_t seen = 0;
    for (std::size_t offset = 0; offset < kBlock; offset += 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, data + position + offset, 8);  // unaligned load
      seen |= word;
    }
    if ((seen & kHighBits) != 0) {
      return false;
    }
  }
  unsigned char tail = 0;
  for (; position < size; ++position) {
    tail |= static_cast<unsigned char>(data[position]);
  }
  return (tail & 0x80U) == 0;
}

void ascii_to_lower(std::string_view text, std::string& out) {
  out.resize(text.size());
  const auto* in = reinterpret_cast<const unsigned char*>(text.data());
  char* result = out.data();
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = in[i];
    // Unsigned wrap-around makes this one compare: c in 'A'..'Z'.
    const bool upper = static_cast<unsigned char>(c - 'A') < 26;
    result[i] = static_cast<char>(c + (upper ? 'a' - 'A' : 0));
  }
}

bool ascii_fast_path_enabled() { return fast_path_enabled.load(std::memory_order_relaxed); }

void set_ascii_fast_path_enabled(bool enabled) {
  fast_path_enabled.store(enabled, std::memory_order_relaxed);
}

}  // namespace simhash
