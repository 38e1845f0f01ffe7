// SPDX-License-Identifier: MIT
// The one parser of the `key=value` options users write in SQL: option
// strings (simhash()'s 'unit=char n=4', simhash_index's arguments k=3,
// blocks=8) and the argument lists of CREATE VIRTUAL TABLE whose values may
// be SQL strings (simhash_similar's options='n=3 weight=binary'). The rule
// of an option string:
//   - pairs are separated by spaces and/or commas, in any order, and a pair
//     may have spaces around its '=';
//   - keys are matched ignoring ASCII case (as SQL matches names);
//   - a key given twice is an error, as is an unknown key, a pair without
//     '=' or a quoted value (values have no spaces to quote).
// Messages start with who is asking ("simhash", "simhash_index"), and show
// what the user wrote with control bytes escaped (see message_text).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

namespace simhash {

// Called with the index of the key in `keys` and the value as written;
// returns false and sets `error` when the value is not acceptable.
using OptionValueReader =
    std::function<bool(std::size_t key, std::string_view value, std::string& error)>;

// Parses `text`; false with `error` set on the first problem. The message
// of an unknown key names the first `listed` keys only: the keys after them
// are accepted but hidden (settings for tests, documented as such).
bool parse_key_values(std::string_view text, std::string_view who,
                      std::span<const std::string_view> keys, const OptionValueReader& read_value,
                      std::string& error, std::size_t listed = SIZE_MAX);

// The same for the arguments of CREATE VIRTUAL TABLE ... USING m(a, b, ...),
// one string each as SQLite splits them at commas: each is `key=value`,
// with spaces around both, the key matched as above, the value an SQL
// string ('a b', a doubled quote inside for one; or "a b") or bare text. A
// key given twice or unknown is an error as above.
bool parse_key_value_arguments(std::span<const std::string_view> arguments, std::string_view who,
                               std::span<const std::string_view> keys,
                               const OptionValueReader& read_value, std::string& error,
                               std::size_t listed = SIZE_MAX);

// The pieces joined, with control bytes shown as \xNN: a NUL would otherwise
// end the message where SQLite reads it as a C string.
std::string message_text(std::initializer_list<std::string_view> pieces);

}  // namespace simhash
