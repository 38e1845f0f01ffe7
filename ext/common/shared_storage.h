// SPDX-License-Identifier: MIT
// SharedStorages: the one storage object (pending writes, savepoint marks,
// caches) of each table of a connection, shared by every sqlite3_vtab that
// SQLite connects for the table.
//
// SQLite connects a table again after a schema reset (a ROLLBACK TO in a
// transaction that changed the schema, a rename) while the sqlite3_vtab it
// connected before stays alive, as part of the transaction, until the
// transaction ends: it still receives xSync, xCommit and xRollbackTo. Were
// the pending writes kept per sqlite3_vtab, the new one would answer without
// the old one's pending writes, and a ROLLBACK TO would restore them into
// the old one only. So a table connected while another sqlite3_vtab of the
// same name on the same connection is alive takes that one's storage.
// (Not served: a DROP TABLE that a ROLLBACK TO undoes. xDestroy discards the
// pending writes and SQLite gives the dropped sqlite3_vtab no later call, so
// xDestroy refuses where that ROLLBACK TO could bring back writes pending
// when its savepoint was opened: PendingWrites::pending_at_an_older_savepoint.)
//
// Storage needs name() (the table's name now: a rename changes it) and
// schema(). Lookups run on the connection's own thread; the list is shared
// by every connection of the process, hence the mutex.
#pragma once

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ext/common/sqlite_api.h"

namespace simhash::sql {

template <typename Storage>
class SharedStorages {
 public:
  static SharedStorages& instance() {
    static SharedStorages shared;  // never destroyed before the connections that use it
    return shared;
  }

  // The storage of `schema`.`name` on `db`: for a table just created,
  // make()'s (the storage of a dropped table of that name is forgotten);
  // else the live one, else make()'s, which is then shared.
  template <typename Make>
  std::shared_ptr<Storage> connect(sqlite3* db, const std::string& schema, const std::string& name,
                                   bool created, Make make) {
    const std::lock_guard lock(mutex_);
    std::erase_if(live_, [&](const Entry& entry) {
      return entry.storage.expired() || (created && is_table(entry, db, schema, name));
    });
    for (const Entry& entry : live_) {
      if (is_table(entry, db, schema, name)) {
        if (std::shared_ptr<Storage> live = entry.storage.lock()) {
          return live;
        }
      }
    }
    std::shared_ptr<Storage> made = make();
    live_.push_back({db, made});
    return made;
  }

 private:
  struct Entry {
    sqlite3* db;
    std::weak_ptr<Storage> storage;
  };

  // Only a connection's own storages are locked: the lock may end up
  // holding the last reference, and a storage's destructor uses its
  // connection, which only its own thread may.
  static bool is_table(const Entry& entry, sqlite3* db, const std::string& schema,
                       const std::string& name) {
    if (entry.db != db) {
      return false;
    }
    const std::shared_ptr<Storage> held = entry.storage.lock();
    return held && sqlite3_stricmp(held->schema().c_str(), schema.c_str()) == 0 &&
           sqlite3_stricmp(held->name().c_str(), name.c_str()) == 0;
  }

  std::mutex mutex_;
  std::vector<Entry> live_;
};

}  // namespace simhash::sql
