// SPDX-License-Identifier: MIT
// read_threshold (see threshold_argument.h).
#include "ext/common/threshold_argument.h"

#include <string>

#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"

namespace simhash::sql {

double read_threshold(sqlite3_value* value, std::string_view who) {
  const int type = sqlite3_value_type(value);
  const double threshold = sqlite3_value_double(value);
  if (type != SQLITE_INTEGER && type != SQLITE_FLOAT) {
    throw SqliteError(
        SQLITE_ERROR,
        std::string(who) + ": the threshold must be a number in (0, 1], got " + type_name(value));
  }
  if (!(threshold > 0 && threshold <= 1)) {
    throw SqliteError(SQLITE_ERROR,
                      std::string(who) + ": the threshold must be in (0, 1], got " + shown(value));
  }
  return threshold;
}

}  // namespace simhash::sql
