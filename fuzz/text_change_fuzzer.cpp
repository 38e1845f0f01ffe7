// SPDX-License-Identifier: MIT
// libFuzzer target: simhash_change's engine. Any two texts (the input cut
// at its first NUL, or in half) must give a kind, never a crash: the same
// bytes are identical, and only then; a text against itself is identical;
// a change of layout alone reads the same both ways and lists no words.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "text/text_change.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t cut = input.find('\0') != std::string_view::npos ? input.find('\0') : size / 2;
  const std::string_view a = input.substr(0, cut);
  const std::string_view b = input.substr(cut < size ? cut + 1 : cut);
  const simhash::TextChange forward = simhash::text_change(a, b);
  const simhash::TextChange backward = simhash::text_change(b, a);
  if ((forward.kind == simhash::ChangeKind::identical) != (a == b) ||
      simhash::text_change(a, a).kind != simhash::ChangeKind::identical) {
    std::abort();
  }
  if ((forward.kind == simhash::ChangeKind::formatting) !=
      (backward.kind == simhash::ChangeKind::formatting)) {
    std::abort();
  }
  if (forward.kind <= simhash::ChangeKind::formatting && !forward.words.empty()) {
    std::abort();
  }
  return 0;
}
