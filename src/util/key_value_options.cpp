// SPDX-License-Identifier: MIT
// Parsing `key=value` option strings (see key_value_options.h for the rule).
#include "util/key_value_options.h"

#include <algorithm>
#include <vector>

namespace simhash {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool is_separator(char c) { return c == ',' || is_space(c); }

bool equal_ignoring_ascii_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) {
      return false;
    }
  }
  return true;
}

std::string known_list(std::span<const std::string_view> keys) {
  std::string list;
  for (const std::string_view key : keys) {
    list += list.empty() ? "" : ", ";
    list += key;
  }
  return list;
}

}  // namespace

std::string message_text(std::initializer_list<std::string_view> pieces) {
  std::string text;
  for (const std::string_view piece : pieces) {
    for (const char c : piece) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte < 0x20 || byte == 0x7f) {
        constexpr char kHex[] = "0123456789abcdef";
        text += "\\x";
        text += kHex[byte >> 4U];
        text += kHex[byte & 0xfU];
      } else {
        text += c;
      }
    }
  }
  return text;
}

bool parse_key_values(std::string_view text, std::string_view who,
                      std::span<const std::string_view> keys, const OptionValueReader& read_value,
                      std::string& error, std::size_t listed) {
  std::vector<bool> seen(keys.size(), false);
  std::size_t position = 0;
  const auto skip = [&](bool (*what)(char)) {
    while (position < text.size() && what(text[position])) {
      ++position;
    }
  };
  const auto read_until_separator_or_equals = [&] {
    const std::size_t start = position;
    while (position < text.size() && !is_separator(text[position]) && text[position] != '=') {
      ++position;
    }
    return text.substr(start, position - start);
  };
  while (true) {
    skip(is_separator);
    if (position == text.size()) {
      return true;
    }
    const std::size_t pair_start = position;
    const std::string_view key = read_until_separator_or_equals();
    skip(is_space);
    if (key.empty() || position == text.size() || text[position] != '=') {
      const std::size_t end = key.empty() ? text.find_first_of(" \t\n\r\f\v,", position) : position;
      const std::string_view pair =
          text.substr(pair_start, (end == std::string_view::npos ? text.size() : end) - pair_start);
      error = message_text(
          {who, ": expected key=value in options, got \"", key.empty() ? pair : key, "\""});
      return false;
    }
    ++position;  // '='
    skip(is_space);
    const std::size_t value_start = position;
    while (position < text.size() && !is_separator(text[position])) {
      ++position;
    }
    const std::string_view value = text.substr(value_start, position - value_start);
    if (!value.empty() && (value[0] == '\'' || value[0] == '"')) {
      // k=' 3' is cut at its space: show the quoted text whole.
      const std::size_t close = text.find(value[0], value_start + 1);
      const std::string_view quoted =
          text.substr(value_start, close == std::string_view::npos ? std::string_view::npos
                                                                   : close + 1 - value_start);
      error = message_text(
          {who, ": option ", key, " takes its value without quotes, got \"", quoted, "\""});
      return false;
    }
    std::size_t index = 0;
    while (index < keys.size() && !equal_ignoring_ascii_case(keys[index], key)) {
      ++index;
    }
    if (index == keys.size()) {
      error =
          message_text({who, ": unknown option \"", key,
                        "\" (known: ", known_list(keys.first(std::min(listed, keys.size()))), ")"});
      return false;
    }
    if (seen[index]) {
      error = message_text({who, ": option ", keys[index], " given more than once"});
      return false;
    }
    seen[index] = true;
    if (!read_value(index, value, error)) {
      return false;
    }
  }
}

}  // namespace simhash
