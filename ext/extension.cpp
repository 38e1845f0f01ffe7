// SPDX-License-Identifier: MIT
// The extension's entry point: sqlite3_simhash_init, the name SQLite derives
// from simhash.so, registers every function and module on one connection.
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <mutex>

#include "ext/registration.h"
#include "sqlite_simhash.h"
#include "util/memory_budget.h"

namespace {

// The oldest SQLite the extension runs on (Debian 12's; it needs
// sqlite3_vtab_rhs_value and sqlite3_vtab_in, 3.38): loading into an older
// one is refused before any of those is called.
constexpr int kMinimumSqlite = 3040000;

}  // namespace

// The entry point is the one symbol the loadable module exports (the build
// hides the rest).
#if defined(_WIN32)
#define SIMHASH_EXPORT __declspec(dllexport)
#else
#define SIMHASH_EXPORT __attribute__((visibility("default")))
#endif

extern "C" SIMHASH_EXPORT int sqlite3_simhash_init(sqlite3* db, char** pzErrMsg,
                                                   const sqlite3_api_routines* pApi) {
  // Connections in several threads may load the extension at once: the
  // routine table is set once (a plain global written concurrently would be
  // a data race, ThreadSanitizer says), and every load must come from the
  // same SQLite library.
  static std::once_flag api_set;
  std::call_once(api_set, [pApi] { SQLITE_EXTENSION_INIT2(pApi); });
#ifndef SQLITE_CORE
  if (pApi != sqlite3_api) {
    if (pzErrMsg != nullptr) {
      *pzErrMsg =
          sqlite3_mprintf("simhash: already loaded by another SQLite library in this process");
    }
    return SQLITE_ERROR;
  }
#endif
  if (sqlite3_libversion_number() < kMinimumSqlite) {
    if (pzErrMsg != nullptr) {
      *pzErrMsg = sqlite3_mprintf("simhash: needs SQLite 3.40.0 or newer, but this is SQLite %s",
                                  sqlite3_libversion());
    }
    return SQLITE_ERROR;
  }
  // The engine's working memory counts against SQLite's hard heap limit
  // (util/memory_budget.h), as SQLite's own allocations do.
  simhash::set_memory_limit_source(
      {[]() -> std::size_t {
         return static_cast<std::size_t>(std::max<sqlite3_int64>(sqlite3_hard_heap_limit64(-1), 0));
       },
       []() -> std::size_t {
         return static_cast<std::size_t>(std::max<sqlite3_int64>(sqlite3_memory_used(), 0));
       }});
  using namespace simhash::sql;
  for (auto* registration :
       {register_scalar_functions, register_features_table, register_index_module,
        register_batch_tables, register_dedup_table, register_verified_pairs_tables,
        register_similar_module, register_progress_function}) {
    const int rc = registration(db, pzErrMsg);
    if (rc != SQLITE_OK) {
      return rc;
    }
  }
  return SQLITE_OK;
}
