// SPDX-License-Identifier: MIT
// xDisconnect and xDestroy of the modules whose tables keep a storage of
// pending writes over shadow tables (simhash_index, simhash_similar). The
// table struct has `db`, `schema`, `name` and a `storage` (shared_ptr)
// that is null where the stored config cannot be read: such a table
// connects only so that DROP TABLE can remove it.
#pragma once

#include <string>

#include "ext/common/sqlite_api.h"
#include "ext/common/sqlite_support.h"
#include "ext/common/virtual_table.h"

namespace simhash::sql {

template <typename Table>
int disconnect_storage_table(sqlite3_vtab* vtab) {
  free_error(vtab);
  take_back<Table>(vtab);
  return SQLITE_OK;
}

// DROP TABLE: refused, nothing changed, where a ROLLBACK TO could not undo
// it (the storage's check_droppable); else the pending writes are dropped
// with the table, its statements finalized before `drop_tables` drops its
// shadow tables. SQLite reports no message of a failed xDestroy
// (failed_destroy logs it).
template <typename Table,
          void (*drop_tables)(sqlite3* db, const std::string& schema, const std::string& name)>
int destroy_storage_table(sqlite3_vtab* vtab) {
  Table* table = table_of<Table>(vtab);
  const int rc = guard(vtab, [&] {
    if (table->storage) {
      table->storage->check_droppable();
      table->storage->discard_pending();
      table->storage->finalize_statements();
    }
    drop_tables(table->db, table->schema, table->name);
    return SQLITE_OK;
  });
  if (rc != SQLITE_OK) {
    return failed_destroy(vtab, rc);
  }
  return disconnect_storage_table<Table>(vtab);
}

}  // namespace simhash::sql
