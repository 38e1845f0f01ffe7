// SPDX-License-Identifier: MIT
// What all the glue shares: RAII owners for SQLite handles, and the barrier
// that keeps C++ exceptions from crossing into SQLite.
#pragma once

#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "ext/common/sqlite_api.h"
#include "util/memory_budget.h"

namespace simhash::sql {

struct StatementFinalizer {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using Statement = std::unique_ptr<sqlite3_stmt, StatementFinalizer>;

struct BlobCloser {
  void operator()(sqlite3_blob* blob) const { sqlite3_blob_close(blob); }
};
using Blob = std::unique_ptr<sqlite3_blob, BlobCloser>;

struct SqliteFree {
  void operator()(void* memory) const { sqlite3_free(memory); }
};
using SqliteString = std::unique_ptr<char, SqliteFree>;

// Formats SQL with sqlite3_mprintf (for its %w and %Q quoting) into a
// std::string; SQLite running out of memory throws std::bad_alloc.
template <typename... Args>
std::string format_sql(const char* format, Args... args) {
  const SqliteString text(sqlite3_mprintf(format, args...));
  if (!text) {
    throw std::bad_alloc();
  }
  return std::string(text.get());
}

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

// Frees the message a table still holds when it is disconnected: SQLite
// reports and frees the messages of most callbacks, but not of all (a
// failing xSavepoint's, for one).
inline void free_error(sqlite3_vtab* vtab) {
  sqlite3_free(vtab->zErrMsg);
  vtab->zErrMsg = nullptr;
}

// The code of a failed xDestroy, whose message SQLite does not report
// (sqlite3VtabCallDestroy returns only the code, 3.40 to 3.53: the DROP
// TABLE answers the code's generic text) and whose table stays: the message
// goes to SQLite's error log instead (sqlite3_config(SQLITE_CONFIG_LOG)),
// and is freed, so that no later call of the table reports it.
inline int failed_destroy(sqlite3_vtab* vtab, int rc) {
  if (vtab->zErrMsg != nullptr) {
    sqlite3_log(rc, "%s", vtab->zErrMsg);
    free_error(vtab);
  }
  return rc;
}

// An SQLite failure (or a constraint the glue enforces) carried as an
// exception; the barriers below turn it back into its result code and message.
class SqliteError : public std::runtime_error {
 public:
  SqliteError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

// Runs `sql` (one or more statements); throws SqliteError with SQLite's
// code and message on failure.
inline void exec_sql(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  const SqliteString owned(message);
  if (rc != SQLITE_OK) {
    throw SqliteError(rc, owned ? owned.get() : sqlite3_errstr(rc));
  }
}

// Throws SqliteError(SQLITE_INTERRUPT) once sqlite3_interrupt() has been
// called on `db` during the current statement, or when the connection's
// progress handler asks to stop. For callers that check between pieces of
// work of about 10 ms (the engine's CheckPoint) of work SQLite does not see:
// SQLite 3.40 has neither sqlite3_is_interrupted() (3.41) nor a way to call
// the progress handler, so this runs a small statement of about 2,000
// virtual-machine steps. Its preparation fails while the
// interrupt flag is set, and its steps call a progress handler set to run
// every 2,000 steps or fewer (Datasette's time limit uses 1,000).
inline void throw_if_interrupted(sqlite3* db) {
  sqlite3_stmt* probe = nullptr;
  int rc = sqlite3_prepare_v2(db,
                              "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
                              "WHERE i < 120) SELECT count(*) FROM n",
                              -1, &probe, nullptr);
  if (rc == SQLITE_OK) {
    rc = sqlite3_step(probe);
  }
  sqlite3_finalize(probe);
  if (rc == SQLITE_INTERRUPT) {
    throw SqliteError(SQLITE_INTERRUPT, "interrupted");
  }
}

// The message of a charge the heap limit refused (memory_budget.h): `who`
// ran out of memory under SQLite's hard heap limit, and how much it needed.
inline std::string heap_limit_message(std::string_view who, const MemoryLimitExceeded& error) {
  return std::string(who) + ": out of memory under the heap limit (PRAGMA hard_heap_limit = " +
         std::to_string(error.limit()) + "): " + error.details();
}

// The message of `who` (a function, a module) for one that does not say
// whose it is: the engine words its messages for simhash() ("simhash: ...",
// that prefix is replaced) or for a part of itself ("batch search: ...",
// kept after the name), and an interrupt says only "interrupted".
inline std::string named_message(std::string_view who, std::string_view message) {
  constexpr std::string_view engine_prefix = "simhash: ";
  if (message.starts_with(engine_prefix)) {
    message.remove_prefix(engine_prefix.size());
  }
  return std::string(who) + ": " + std::string(message);
}

// The barrier of the virtual-table callbacks: runs `body` (returning an SQLite
// result code); an exception becomes SQLITE_NOMEM, an SqliteError's own code,
// or SQLITE_ERROR, and its message goes to `report`. With `who` (the callback
// does that function's work) the messages that do not say whose they are,
// the engine's (any exception but an SqliteError, which the glue words
// itself) and an interrupt's, are named by it here, in one place
// (named_message); a refusal under the heap limit, SQLITE_NOMEM, has a
// message too, naming `who` (or "simhash").
template <typename Body, typename Report>
int guard_with(Body&& body, Report&& report, std::string_view who = {}) noexcept {
  try {
    return body();
  } catch (const MemoryLimitExceeded& error) {
    try {
      report(heap_limit_message(who.empty() ? "simhash" : who, error).c_str());
    } catch (...) {  // no memory for the message: the code says enough
    }
    return SQLITE_NOMEM;
  } catch (const std::bad_alloc&) {
    return SQLITE_NOMEM;
  } catch (const SqliteError& error) {
    try {
      report(error.code() == SQLITE_INTERRUPT && !who.empty()
                 ? named_message(who, error.what()).c_str()
                 : error.what());
    } catch (...) {  // no memory for the name: the code says enough
    }
    return error.code();
  } catch (const std::exception& error) {
    try {
      report(who.empty() ? error.what() : named_message(who, error.what()).c_str());
    } catch (...) {
    }
    return SQLITE_ERROR;
  } catch (...) {
    return SQLITE_ERROR;
  }
}

// The barrier for a virtual-table method: the message becomes the table's.
template <typename Body>
int guard(sqlite3_vtab* vtab, Body&& body) noexcept {
  return guard_with(std::forward<Body>(body), [vtab](const char* message) {
    if (vtab != nullptr) {
      set_error(vtab, message);
    }
  });
}

// The same, for a callback that does `who`'s work (a function's xFilter):
// a refusal under the heap limit names it.
template <typename Body>
int guard(sqlite3_vtab* vtab, std::string_view who, Body&& body) noexcept {
  return guard_with(
      std::forward<Body>(body),
      [vtab](const char* message) {
        if (vtab != nullptr) {
          set_error(vtab, message);
        }
      },
      who);
}

// The barrier for xCreate and xConnect, which have no table yet: the message
// goes to `*error` (SQLite frees it).
template <typename Body>
int guard(char** error, Body&& body) noexcept {
  return guard_with(std::forward<Body>(body),
                    [error](const char* message) { *error = sqlite3_mprintf("%s", message); });
}

// The same barrier for SQL functions: the exception becomes the call's error;
// a refusal under the heap limit is SQLITE_NOMEM with a message naming
// `who` (the function; "simhash" when not given).
template <typename Body>
void guard(sqlite3_context* context, Body&& body, std::string_view who = {}) noexcept {
  try {
    body();
  } catch (const MemoryLimitExceeded& error) {
    try {
      const std::string message = heap_limit_message(who.empty() ? "simhash" : who, error);
      sqlite3_result_error(context, message.c_str(), -1);
      sqlite3_result_error_code(context, SQLITE_NOMEM);
    } catch (...) {  // no memory for the message: the code says enough
      sqlite3_result_error_nomem(context);
    }
  } catch (const std::bad_alloc&) {
    sqlite3_result_error_nomem(context);
  } catch (const std::exception& error) {
    sqlite3_result_error(context, error.what(), -1);
  } catch (...) {
    sqlite3_result_error(context, "simhash: internal error", -1);
  }
}

}  // namespace simhash::sql
