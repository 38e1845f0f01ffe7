// SPDX-License-Identifier: MIT
// Reading SQL argument values the way every simhash function does: type names
// and exact values for error messages, the text a value stands for, and
// integers given as integral REALs.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <new>
#include <optional>
#include <string>
#include <string_view>

#include "ext/common/sqlite_api.h"

namespace simhash::sql {

// SQLite's name for a storage class (SQLITE_INTEGER, ...): INTEGER, REAL,
// TEXT, BLOB, NULL.
inline const char* type_name(int type) {
  switch (type) {
    case SQLITE_INTEGER:
      return "INTEGER";
    case SQLITE_FLOAT:
      return "REAL";
    case SQLITE_TEXT:
      return "TEXT";
    case SQLITE_BLOB:
      return "BLOB";
    default:
      return "NULL";
  }
}

// The storage-class name of a value, for error messages.
inline const char* type_name(sqlite3_value* value) { return type_name(sqlite3_value_type(value)); }

// The UTF-8 text a value stands for, as SQLite's own text functions read it:
// NULL is nullopt; INTEGER and REAL give their SQL text form; a BLOB gives
// its bytes unchanged (read as UTF-8, invalid sequences become U+FFFD later).
// The view lives until the value changes or the callback returns.
inline std::optional<std::string_view> text_of(sqlite3_value* value) {
  const char* bytes = nullptr;
  switch (sqlite3_value_type(value)) {
    case SQLITE_NULL:
      return std::nullopt;
    case SQLITE_BLOB:
      // BLOB bytes as they are: sqlite3_value_text would reinterpret them in
      // the database encoding, which differs in a UTF-16 database.
      bytes = static_cast<const char*>(sqlite3_value_blob(value));
      break;
    default:
      bytes = reinterpret_cast<const char*>(sqlite3_value_text(value));
      break;
  }
  const int size = sqlite3_value_bytes(value);
  if (bytes == nullptr) {
    // An empty BLOB has no pointer; a NULL pointer for non-empty data means
    // SQLite ran out of memory converting it.
    if (size != 0) {
      throw std::bad_alloc();
    }
    return std::string_view();
  }
  return std::string_view(bytes, static_cast<std::size_t>(size));
}

// A value for an error message that names what was wrong: its type, and for
// TEXT its first characters too ("TEXT '10'"), since a number given as text
// is the usual slip.
inline std::string described(sqlite3_value* value) {
  std::string text = type_name(value);
  if (sqlite3_value_type(value) == SQLITE_TEXT) {
    constexpr std::size_t kShown = 40;
    const auto* chars = reinterpret_cast<const char*>(sqlite3_value_text(value));
    const std::string_view whole = chars != nullptr ? chars : "";
    text += " '";
    text += whole.substr(0, kShown);
    text += whole.size() > kShown ? "...'" : "'";
  }
  return text;
}

// A REAL as an error message shows it: the shortest text that reads back as
// the same double (1.0000000000000002, not SQLite's 15-digit "1.0"), with
// ".0" where SQL writes it for a REAL (5.0, 1.0e+300).
inline std::string number_text(double number) {
  if (std::isnan(number)) {
    return "NaN";
  }
  if (std::isinf(number)) {
    return number > 0 ? "Inf" : "-Inf";
  }
  char buffer[32];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, number);
  std::string text(buffer, error == std::errc() ? end : buffer);
  if (text.find('.') == std::string::npos) {
    text.insert(std::min(text.find('e'), text.size()), ".0");  // 5.0, 1.0e+300
  }
  return text;
}

// A numeric value exactly, for a message that refuses it ("got 5.5", "got
// -1"); other values as described() gives them ("TEXT '10'").
inline std::string shown(sqlite3_value* value) {
  switch (sqlite3_value_type(value)) {
    case SQLITE_INTEGER:
      return std::to_string(sqlite3_value_int64(value));
    case SQLITE_FLOAT:
      return number_text(sqlite3_value_double(value));
    default:
      return described(value);
  }
}

// A count-like argument (radius, nearest, threads) as an integer: an INTEGER,
// or a REAL with no fraction within the int64 range (5.0 reads as 5, as
// SQLite's own LIMIT reads it); nullopt for anything else.
inline std::optional<std::int64_t> integral_value(sqlite3_value* value) {
  if (sqlite3_value_type(value) == SQLITE_INTEGER) {
    return sqlite3_value_int64(value);
  }
  if (sqlite3_value_type(value) != SQLITE_FLOAT) {
    return std::nullopt;
  }
  const double number = sqlite3_value_double(value);
  // 2^63 is exact as a double; every integral double below it fits.
  constexpr double kLimit = 9223372036854775808.0;
  if (!(std::floor(number) == number && number >= -kLimit && number < kLimit)) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(number);
}

}  // namespace simhash::sql
