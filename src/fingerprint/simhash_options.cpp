// SPDX-License-Identifier: MIT
// Parsing and printing the option string (the pairs are read by
// util/key_value_options.h, the values here).
#include "fingerprint/simhash_options.h"

#include <array>
#include <initializer_list>
#include <string>

#include "util/key_value_options.h"

namespace simhash {
namespace {

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

constexpr std::array<Spelling<SymbolTokens>, 3> kSymbolSpellings{{
    {"drop", SymbolTokens::drop},
    {"keep", SymbolTokens::keep},
    {"strict", SymbolTokens::strict},
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
    error = message_text({"simhash: option unit must be word or char, got \"", value, "\""});
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
    error =
        message_text({"simhash: option n must be an integer from 1 to 16, got \"", value, "\""});
    return false;
  }
  options.n = n;
  return true;
}

bool parse_weight(std::string_view value, SimhashOptions& options, std::string& error) {
  const std::optional<WeightScheme> weight = value_spelled(kWeightSpellings, value);
  if (!weight) {
    error = message_text({"simhash: option weight must be tf, log or binary, got \"", value, "\""});
    return false;
  }
  options.weight = *weight;
  return true;
}

bool parse_symbols(std::string_view value, SimhashOptions& options, std::string& error) {
  const std::optional<SymbolTokens> symbols = value_spelled(kSymbolSpellings, value);
  if (!symbols) {
    error =
        message_text({"simhash: option symbols must be drop, keep or strict, got \"", value, "\""});
    return false;
  }
  options.symbols = *symbols;
  return true;
}

struct OptionKey {
  std::string_view name;
  bool (*parse)(std::string_view, SimhashOptions&, std::string&);
};

constexpr std::array<OptionKey, 4> kOptionKeys{{
    {"unit", parse_unit},
    {"n", parse_n},
    {"weight", parse_weight},
    {"symbols", parse_symbols},
}};

}  // namespace

std::optional<SimhashOptions> parse_options(std::string_view text, std::string& error) {
  std::array<std::string_view, kOptionKeys.size()> names;
  for (std::size_t index = 0; index < kOptionKeys.size(); ++index) {
    names[index] = kOptionKeys[index].name;
  }
  SimhashOptions options;
  const auto read_value = [&](std::size_t key, std::string_view value, std::string& problem) {
    return kOptionKeys[key].parse(value, options, problem);
  };
  if (!parse_key_values(text, "simhash", names, read_value, error)) {
    return std::nullopt;
  }
  if (options.symbols != SymbolTokens::drop && options.unit == TokenUnit::character) {
    // Characters are the units there: every symbol is already kept.
    error =
        message_text({"simhash: option symbols=", spelling_of(kSymbolSpellings, options.symbols),
                      " needs unit=word (unit=char keeps every character)"});
    return std::nullopt;
  }
  return options;
}

std::string to_string(const SimhashOptions& options) {
  return message_text(
      {"unit=", spelling_of(kUnitSpellings, options.unit), " n=", std::to_string(options.n),
       " weight=", spelling_of(kWeightSpellings, options.weight),
       options.symbols == SymbolTokens::drop ? "" : " symbols=",
       options.symbols == SymbolTokens::drop ? ""
                                             : spelling_of(kSymbolSpellings, options.symbols)});
}

}  // namespace simhash
