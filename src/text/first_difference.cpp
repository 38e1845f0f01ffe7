// SPDX-License-Identifier: MIT
// The first differing byte of two repaired texts, widened to its line.
#include "text/first_difference.h"

#include <algorithm>

#include "text/utf8_repair.h"

namespace simhash {
namespace {

// The line of `text` that starts at `start` (nothing if the text ended
// before it), without its '\n' or a '\r' before that.
std::optional<std::string> line_at(std::string_view text, std::size_t start, bool& ends_text) {
  // Nothing after the last newline (or an empty text) is no line at all.
  if (start >= text.size() && (text.empty() || text.back() == '\n')) {
    ends_text = false;
    return std::nullopt;
  }
  std::size_t end = text.find('\n', start);
  ends_text = end == std::string_view::npos;
  if (ends_text) {
    end = text.size();
  }
  std::string_view line = text.substr(start, end - start);
  if (!line.empty() && line.back() == '\r') {
    line.remove_suffix(1);
  }
  return std::string(line);
}

}  // namespace

std::optional<FirstDifference> first_difference(std::string_view a, std::string_view b) {
  std::string repaired_a;
  std::string repaired_b;
  a = repair_utf8(a, repaired_a);
  b = repair_utf8(b, repaired_b);
  if (a == b) {
    return std::nullopt;
  }
  const std::size_t common = std::min(a.size(), b.size());
  const std::size_t at = static_cast<std::size_t>(
      std::mismatch(a.begin(), a.begin() + common, b.begin()).first - a.begin());
  // A differing byte inside a multi-byte character: the character starts
  // at its lead byte (continuation bytes are 10xxxxxx).
  std::size_t character = at;
  while (character > 0 && (static_cast<unsigned char>(a[character]) & 0xC0U) == 0x80U) {
    --character;
  }
  const std::string_view before = a.substr(0, character);
  const std::size_t newline = before.rfind('\n');
  const std::size_t start = newline == std::string_view::npos ? 0 : newline + 1;
  FirstDifference difference;
  difference.line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
  difference.column =
      1 + static_cast<std::size_t>(std::count_if(
              before.begin() + static_cast<std::ptrdiff_t>(start), before.end(),
              [](char c) { return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U; }));
  difference.line_a = line_at(a, start, difference.a_ends_text);
  difference.line_b = line_at(b, start, difference.b_ends_text);
  return difference;
}

std::string describe(const FirstDifference& difference) {
  std::string a = difference.line_a.value_or("(end of text)");
  std::string b = difference.line_b.value_or("(end of text)");
  // Equal lines: one text ends there, the other goes on past a newline.
  if (difference.line_a && difference.line_b && a == b) {
    (difference.a_ends_text ? a : b).append(" (no newline at the end)");
  }
  std::string text = "line " + std::to_string(difference.line) + ", column " +
                     std::to_string(difference.column) + "\n- ";
  text.append(a).append("\n+ ").append(b);
  return text;
}

}  // namespace simhash
