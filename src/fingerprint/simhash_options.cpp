// Parsing and printing the option string: `key=value` pairs separated by
// spaces and/or commas, in any order, each key at most once.
#include "fingerprint/simhash_options.h"

#include <array>
#include <initializer_list>
#include <string>

namespace simhash {
namespace {

bool is_separator(char c) {
  return c == ' ' || c == ',' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Builds a message piece by piece: GCC 12 warns falsely (-Wrestrict) on
// chains of std::string operator+.
// Control bytes in what the user wrote appear as \xNN: a NUL would
// otherwise end the message where SQLite reads it as a C string.
std::string message(std::initializer_list<std::string_view> pieces) {
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

// The spelling of each option value, written once for the parser and the
// printer so the two cannot disagree.
template <typename Enum>
struct Spelling {
  std::string_view name;
  Enum value;
};

constexpr std::array<Spelling<TokenUnit>, 2> kUnitSpellings{{
    {"word", TokenUnit::word},
    {"char", TokenUnit::character},
}};

constexpr std::array<Spelling<WeightScheme>, 3> kWeightSpellings{{
    {"tf", WeightScheme::tf},
    {"log", WeightScheme::log_tf},
    {"binary", WeightScheme::binary},
}};

template <typename Enum, std::size_t N>
std::optional<Enum> value_spelled(const std::array<Spelling<Enum>, N>& spellings,
                                  std::string_view name) {
  for (const Spelling<Enum>& spelling : spellings) {
    if (spelling.name == name) {
      return spelling.value;
    }
  }
  return std::nullopt;
}

template <typename Enum, std::size_t N>
std::string_view spelling_of(const std::array<Spelling<Enum>, N>& spellings, Enum value) {
  for (const Spelling<Enum>& spelling : spellings) {
    if (spelling.value == value) {
      return spelling.name;
    }
  }
  return {};
}

bool parse_unit(std::string_view value, SimhashOptions& options, std::string& error) {
  const std::optional<TokenUnit> unit = value_spelled(kUnitSpellings, value);
  if (!unit) {
    error = message({"simhash: option unit must be word or char, got \"", value, "\""});
    return false;
  }
  options.unit = *unit;
  return true;
}

bool parse_n(std::string_view value, SimhashOptions& options, std::string& error) {
  int n = 0;
  bool valid = !value.empty();
  for (const char c : value) {
    valid = valid && c >= '0' && c <= '9';
    if (valid && n <= 16) {  // stop growing once out of range: no overflow
      n = n * 10 + (c - '0');
    }
  }
  if (!valid || n < 1 || n > 16) {
    error = message({"simhash: option n must be an integer from 1 to 16, got \"", value, "\""});
    return false;
  }
  options.n = n;
  return true;
}

bool parse_weight(std::string_view value, SimhashOptions& options, std::string& error) {
  const std::optional<WeightScheme> weight = value_spelled(kWeightSpellings, value);
  if (!weight) {
    error = message({"simhash: option weight must be tf, log or binary, got \"", value, "\""});
    return false;
  }
  options.weight = *weight;
  return true;
}

struct OptionKey {
  std::string_view name;
  bool (*parse)(std::string_view, SimhashOptions&, std::string&);
};

constexpr std::array<OptionKey, 3> kOptionKeys{{
    {"unit", parse_unit},
    {"n", parse_n},
    {"weight", parse_weight},
}};

}  // namespace

std::optional<SimhashOptions> parse_options(std::string_view text, std::string& error) {
  SimhashOptions options;
  std::array<bool, kOptionKeys.size()> seen{};
  std::size_t position = 0;
  while (position < text.size()) {
    if (is_separator(text[position])) {
      ++position;
      continue;
    }
    std::size_t end = position;
    while (end < text.size() && !is_separator(text[end])) {
      ++end;
    }
    const std::string_view pair = text.substr(position, end - position);
    position = end;
    const std::size_t equals = pair.find('=');
    if (equals == std::string_view::npos || equals == 0) {
      error = message({"simhash: expected key=value in options, got \"", pair, "\""});
      return std::nullopt;
    }
    const std::string_view key = pair.substr(0, equals);
    const std::string_view value = pair.substr(equals + 1);
    std::size_t index = 0;
    while (index < kOptionKeys.size() && kOptionKeys[index].name != key) {
      ++index;
    }
    if (index == kOptionKeys.size()) {
      error = message({"simhash: unknown option \"", key, "\" (known: unit, n, weight)"});
      return std::nullopt;
    }
    if (seen[index]) {
      error = message({"simhash: option ", key, " given more than once"});
      return std::nullopt;
    }
    seen[index] = true;
    if (!kOptionKeys[index].parse(value, options, error)) {
      return std::nullopt;
    }
  }
  return options;
}

std::string to_string(const SimhashOptions& options) {
  return message({"unit=", spelling_of(kUnitSpellings, options.unit),
                  " n=", std::to_string(options.n),
                  " weight=", spelling_of(kWeightSpellings, options.weight)});
}

}  // namespace simhash
