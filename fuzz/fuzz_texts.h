// SPDX-License-Identifier: MIT
// Texts the SQL fuzz targets make from two input bytes: near copies of a few
// bases, so that programs meet near-duplicates, copies, operators that
// tell texts apart, and texts without words.
#pragma once

#include <cstdint>
#include <string>

namespace simhash::fuzz {

// A text of one of four bases of 12 words, with the words the bits of `b`
// pick replaced, and a symbol that `a` picks; some are wordless.
inline std::string text(std::uint8_t a, std::uint8_t b) {
  static const char* const kWords[] = {"alpha", "beta",  "gamma",   "delta", "epsilon", "zeta",
                                       "eta",   "theta", "iota",    "kappa", "lambda",  "mu",
                                       "nu",    "xi",    "omicron", "pi"};
  if (a % 31 == 30) {
    return "!!! ...";
  }
  std::string out;
  for (int i = 0; i < 12; ++i) {
    const bool replaced = i < 8 && ((b >> i) & 1) != 0;
    out += out.empty() ? "" : " ";
    out += kWords[(a % 4 * 3 + i + (replaced ? 7 : 0)) % 16];
    if (i == 5 && (a & 4) != 0) {
      out += (a & 8) != 0 ? " < x" : " > x";
    }
  }
  return out;
}

}  // namespace simhash::fuzz
