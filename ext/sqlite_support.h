// What all the glue shares: RAII owners for SQLite handles, and the barrier
// that keeps C++ exceptions from crossing into SQLite.
#pragma once

#include <exception>
#include <memory>
#include <new>
#include <string>
#include <string_view>

#include "sqlite_api.h"

namespace simhash::sql {

struct StatementFinalizer {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using Statement = std::unique_ptr<sqlite3_stmt, StatementFinalizer>;

struct SqliteFree {
  void operator()(void* memory) const { sqlite3_free(memory); }
};
using SqliteString = std::unique_ptr<char, SqliteFree>;

// Prepares `sql` into `out`; on failure returns the SQLite code and leaves the
// message in the connection (sqlite3_errmsg).
inline int prepare(sqlite3* db, std::string_view sql, Statement& out, unsigned flags = 0) {
  sqlite3_stmt* raw = nullptr;
  const int rc =
      sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), flags, &raw, nullptr);
  out.reset(raw);
  return rc;
}

// Replaces a virtual table's error message (SQLite frees it after reporting).
inline void set_error(sqlite3_vtab* vtab, std::string_view message) {
  sqlite3_free(vtab->zErrMsg);
  vtab->zErrMsg = sqlite3_mprintf("%.*s", static_cast<int>(message.size()), message.data());
}

// Runs `body` (returning an SQLite result code) for a virtual-table method;
// an exception becomes SQLITE_NOMEM or SQLITE_ERROR with its message.
template <typename Body>
int guard(sqlite3_vtab* vtab, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return SQLITE_NOMEM;
  } catch (const std::exception& error) {
    if (vtab != nullptr) {
      set_error(vtab, error.what());
    }
    return SQLITE_ERROR;
  } catch (...) {
    return SQLITE_ERROR;
  }
}

// The same barrier for SQL functions: the exception becomes the call's error.
template <typename Body>
void guard(sqlite3_context* context, Body&& body) noexcept {
  try {
    body();
  } catch (const std::bad_alloc&) {
    sqlite3_result_error_nomem(context);
  } catch (const std::exception& error) {
    sqlite3_result_error(context, error.what(), -1);
  } catch (...) {
    sqlite3_result_error(context, "simhash: internal error", -1);
  }
}

}  // namespace simhash::sql
