// SPDX-License-Identifier: MIT
// The one way the glue writes a virtual-table module (simhash_index in
// index_vtab.cpp, the batch functions in batch_vtab.cpp, simhash_features in
// features_vtab.cpp):
//   - state: the module's table struct derives from sqlite3_vtab and its
//     cursor from sqlite3_vtab_cursor, so the pointers SQLite hands back
//     convert with static_cast (table_of, cursor_of);
//   - allocation: std::make_unique inside the barrier, released to SQLite by
//     hand_over and taken back into a unique_ptr by take_back in
//     xDisconnect / xClose;
//   - the barrier: every callback that can throw runs its body in guard()
//     (sqlite_support.h), which turns an exception into a result code and
//     a message (the table's, or xCreate/xConnect's *error);
//   - registration: register_module, whose failure names the module.
#pragma once

#include <memory>

#include "ext/common/sqlite_api.h"

namespace simhash::sql {

template <typename Table>
Table* table_of(sqlite3_vtab* vtab) {
  return static_cast<Table*>(vtab);
}

template <typename Cursor>
Cursor* cursor_of(sqlite3_vtab_cursor* cursor) {
  return static_cast<Cursor*>(cursor);
}

// Gives SQLite a new table or cursor; SQLite owns it until take_back.
template <typename Object, typename Base>
int hand_over(std::unique_ptr<Object> object, Base** out) {
  *out = object.release();
  return SQLITE_OK;
}

// Frees what hand_over gave SQLite.
template <typename Object, typename Base>
void take_back(Base* object) {
  const std::unique_ptr<Object> owned(static_cast<Object*>(object));
}

// sqlite3_create_module_v2 (`aux` reaches xConnect, for a module that
// serves several names); on failure sets *error to a message naming the
// module (sqlite3_malloc'd, for the entry point to return).
inline int register_module(sqlite3* db, const char* name, const sqlite3_module* module,
                           char** error, void* aux = nullptr) {
  const int rc = sqlite3_create_module_v2(db, name, module, aux, nullptr);
  if (rc != SQLITE_OK && error != nullptr) {
    *error = sqlite3_mprintf("simhash: cannot register %s: %s", name, sqlite3_errmsg(db));
  }
  return rc;
}

}  // namespace simhash::sql
