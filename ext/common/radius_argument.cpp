// SPDX-License-Identifier: MIT
// Reading radius values (see radius_argument.h).
#include "ext/common/radius_argument.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"

namespace simhash::sql {
namespace {

[[noreturn]] void refuse(std::string_view who, std::string_view whose, const std::string& problem) {
  std::string message(who);
  if (!whose.empty()) {
    message += ' ';
    message += whose;
  }
  message += ": ";
  message += problem;
  throw SqliteError(SQLITE_ERROR, message);
}

}  // namespace

std::optional<int> read_radius(sqlite3_value* value, RadiusValue kind, std::string_view who,
                               std::string_view whose) {
  const int type = sqlite3_value_type(value);
  if (type == SQLITE_NULL) {
    return std::nullopt;
  }
  if (type != SQLITE_INTEGER && type != SQLITE_FLOAT) {
    refuse(who, whose,
           kind == RadiusValue::kArgument
               ? "the radius must be an integer, got " + described(value)
               : "a bound on distance must be a number, got " + described(value));
  }
  // Integers are clamped before the conversion, so none loses its meaning.
  const double number = type == SQLITE_INTEGER
                            ? static_cast<double>(std::clamp<sqlite3_int64>(
                                  sqlite3_value_int64(value), -1, sqlite3_int64{2} * kMaxRadius))
                            : sqlite3_value_double(value);
  if (std::isnan(number)) {
    refuse(who, whose, "the radius must be a number, got NaN");
  }
  double radius = number;
  switch (kind) {
    case RadiusValue::kArgument:
      if (std::floor(number) != number) {
        refuse(who, whose, "the radius must be an integer, got " + shown(value));
      }
      if (number < 0) {
        refuse(who, whose, "the radius must not be negative (got " + shown(value) + ")");
      }
      break;
    case RadiusValue::kAtMost:
      radius = std::floor(number);  // distances are integers
      break;
    case RadiusValue::kBelow:
      radius = std::ceil(number) - 1;
      break;
  }
  if (radius < 0) {
    return std::nullopt;  // no distance is below 0
  }
  return static_cast<int>(std::min(radius, static_cast<double>(kMaxRadius)));
}

RadiusArgument read_radius_or_default(sqlite3_value* value, std::string_view who) {
  if (value == nullptr) {
    return {};
  }
  if (sqlite3_value_type(value) == SQLITE_TEXT) {
    const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(value));
    const auto size = static_cast<std::size_t>(sqlite3_value_bytes(value));
    if (text != nullptr && size == kDefaultRadius.size() &&
        sqlite3_strnicmp(text, kDefaultRadius.data(), static_cast<int>(size)) == 0) {
      return {};
    }
    refuse(who, {},
           "the radius must be an integer or '" + std::string(kDefaultRadius) +
               "' (the radius left out), got " + described(value));
  }
  return {false, read_radius(value, RadiusValue::kArgument, who)};
}

}  // namespace simhash::sql
