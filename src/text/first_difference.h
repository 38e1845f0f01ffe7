// SPDX-License-Identifier: MIT
// Where two texts first differ, for a person reading a verified pair: the
// 1-based line and column and the two lines (simhash_first_difference).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace simhash {

// Both texts are UTF-8 repaired first (as simhash() reads them: an invalid
// sequence is one U+FFFD), then compared byte by byte. Lines end at '\n';
// the lines are given without it (and without a '\r' before it).
struct FirstDifference {
  std::size_t line = 0;    // 1-based, counted in either text (they agree up to it)
  std::size_t column = 0;  // 1-based, in code points, of the first differing one
  // Each text's line; nothing when that text ended before the line began.
  std::optional<std::string> line_a;
  std::optional<std::string> line_b;
  bool a_ends_text = false;  // the line is A's last and has no newline
  bool b_ends_text = false;
};

// Nothing when the repaired texts are equal.
std::optional<FirstDifference> first_difference(std::string_view a, std::string_view b);

// "line 3, column 5\n- <a's line>\n+ <b's line>", "(end of text)" for a
// missing line, " (no newline at the end)" after a line whose text ends
// there while the other's line goes on to a newline.
std::string describe(const FirstDifference& difference);

}  // namespace simhash
