// SPDX-License-Identifier: MIT
// Texts and option strings shared by the SQL-level tests: several scripts,
// edge cases (empty, punctuation only, invalid UTF-8), Debian's license
// texts when present, and seeded word soup.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace simhash::testing {

// A varied set of texts; includes /usr/share/common-licenses files if found.
std::vector<std::string> sample_texts();

// Option strings covering every key and several combinations ('' = defaults).
std::vector<std::string> sample_options();

// `bytes` bytes of words drawn with a fixed seed from a small vocabulary.
std::string word_soup(std::size_t bytes, std::uint64_t seed);

// The engine's fingerprint, computed directly (not through SQLite).
std::optional<std::uint64_t> engine_fingerprint(std::string_view text, std::string_view options);

}  // namespace simhash::testing
