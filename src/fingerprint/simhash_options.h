// SPDX-License-Identifier: MIT
// The options of the text pipeline and their parser. The option string is
// what users write in SQL: `key=value` pairs separated by spaces or commas
// (the rule is util/key_value_options.h's, shared with simhash_index).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "text/symbol_tokens.h"

namespace simhash {

enum class TokenUnit { word, character };  // option values: word, char

// How a feature's occurrence count becomes its weight.
enum class WeightScheme {
  tf,      // option value `tf`: the count itself
  log_tf,  // option value `log`: 1 + ln(count)
  binary,  // option value `binary`: 1 for every distinct feature
};

struct SimhashOptions {
  // Defaults are chosen by the quality benchmark (bench/BENCH.md, "Fingerprint
  // quality and the defaults"): word unigrams with raw tf had the highest
  // recall at 5% edits among the options with at most 0.5% false positives.
  // They are frozen by the golden vectors: changing one changes users'
  // stored fingerprints.
  TokenUnit unit = TokenUnit::word;
  int n = 1;
  WeightScheme weight = WeightScheme::tf;
  // Dropped for simhash() (frozen); strict in the default check of
  // simhash_dedup, simhash_similar and the recipes, where texts that differ
  // only in an operator, a bracket or an option's dashes must not be taken
  // for copies of each other.
  SymbolTokens symbols = SymbolTokens::drop;

  bool operator==(const SimhashOptions&) const = default;
};

// The options of the exact check that simhash_dedup, the verified pairs and
// simhash_similar take when none are given, and the recipes spell out: set
// Jaccard of word 3-shingles, with operators, brackets and lone dashes as
// tokens, so texts that differ only there are not copies (docs/dedup.md).
inline constexpr const char* kDefaultCheckOptions = "n=3 weight=binary symbols=strict";

// Parses an option string; "" means the defaults. On failure returns nullopt
// and sets `error` to a message naming the offending key or value.
std::optional<SimhashOptions> parse_options(std::string_view text, std::string& error);

// The canonical option string, e.g. "unit=word n=1 weight=tf"; " symbols=keep"
// or " symbols=strict" is appended only when symbols are not dropped, so the
// strings of existing option sets (stored in users' schemas and messages) do
// not change.
std::string to_string(const SimhashOptions& options);

}  // namespace simhash
