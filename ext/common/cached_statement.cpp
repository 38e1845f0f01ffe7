// SPDX-License-Identifier: MIT
// CachedStatement's compiling (see cached_statement.h).
#include "ext/common/cached_statement.h"

namespace simhash::sql {

sqlite3_stmt* CachedStatement::get(sqlite3* db, const char* sql_format, const std::string& schema,
                                   const std::string& name) {
  return get_with(db, [&] { return format_sql(sql_format, schema.c_str(), name.c_str()); });
}

void CachedStatement::compile(sqlite3* db, const std::string& sql) {
  const int rc = prepare(db, sql, statement_, SQLITE_PREPARE_PERSISTENT);
  if (rc != SQLITE_OK) {
    throw_sqlite(db, rc);
  }
}

}  // namespace simhash::sql
