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

// The index of `key` in `keys`, marked seen; or keys.size() with `error` set
// when it is unknown or was seen before.
std::size_t take_key(std::string_view key, std::string_view who,
                     std::span<const std::string_view> keys, std::size_t listed,
                     std::vector<bool>& seen, std::string& error) {
  std::size_t index = 0;
  while (index < keys.size() && !equal_ignoring_ascii_case(keys[index], key)) {
    ++index;
  }
  if (index == keys.size()) {
    error =
        message_text({who, ": unknown option \"", key,
                      "\" (known: ", known_list(keys.first(std::min(listed, keys.size()))), ")"});
    return keys.size();
  }
  if (seen[index]) {
    error = message_text({who, ": option ", keys[index], " given more than once"});
    return keys.size();
  }
  seen[index] = true;
  return index;
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && is_space(text.front())) {
    text.remove_prefix(1);
  }
  while (!text.empty() && is_space(text.back())) {
    text.remove_suffix(1);
  }
  return text;
}

// A quoted SQL string unquoted (a doubled quote inside stands for one),
// else the text as written.
std::string unquoted(std::string_view value) {
  if (value.size() < 2 || (value.front() != '\'' && value.front() != '"') ||
      value.back() != value.front()) {
    return std::string(value);
  }
  const char quote = value.front();
  std::string text;
  for (std::size_t i = 1; i + 1 < value.size(); ++i) {
    text += value[i];
    if (value[i] == quote && i + 2 < value.size() && value[i + 1] == quote) {
      ++i;
    }
  }
  return text;
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
    const std::size_t index = take_key(key, who, keys, listed, seen, error);
    if (index == keys.size() || !read_value(index, value, error)) {
      return false;
    }
  }
}

bool parse_key_value_arguments(std::span<const std::string_view> arguments, std::string_view who,
                               std::span<const std::string_view> keys,
                               const OptionValueReader& read_value, std::string& error,
                               std::size_t listed) {
  std::vector<bool> seen(keys.size(), false);
  for (const std::string_view raw : arguments) {
    const std::string_view argument = trimmed(raw);
    const std::size_t equals = argument.find('=');
    if (equals == std::string_view::npos) {
      error =
          message_text({who, ": expected key=value, got \"", argument,
                        "\" (keys: ", known_list(keys.first(std::min(listed, keys.size()))), ")"});
      return false;
    }
    const std::size_t index =
        take_key(trimmed(argument.substr(0, equals)), who, keys, listed, seen, error);
    if (index == keys.size() ||
        !read_value(index, unquoted(trimmed(argument.substr(equals + 1))), error)) {
      return false;
    }
  }
  return true;
}

}  // namespace simhash
