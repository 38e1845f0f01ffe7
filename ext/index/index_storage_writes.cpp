// SPDX-License-Identifier: MIT
// simhash_index's writes (IndexStorage, index_storage.h): insert, delete and
// update of the data table, each change recorded in the pending list, which
// is flushed when it grows too large.
#include "ext/index/index_storage.h"

#include "ext/index/index_shadow_tables.h"
#include "ext/index/index_storage_internal.h"

namespace simhash::sql {

void IndexStorage::flush_if_full() {
  // Also merged early when the memory limit leaves no room for one more.
  if (pending_.size() >=
          std::min(flush_after_, pending_.searched() ? kMaxPendingSearched : kMaxPending) ||
      !pending_.room_for_one_more()) {
    flush();
  }
}

void IndexStorage::bind_fingerprint(sqlite3_stmt* statement, int index, StoredFingerprint fp) {
  if (fp) {
    sqlite3_bind_int64(statement, index, *fp);
    return;
  }
  // Every time, not once per connection: a rollback may have undone the mark.
  mark_null_fingerprints(db_, schema_, name_);
  sqlite3_bind_null(statement, index);
}

int IndexStorage::step_data_write(sqlite3_stmt* statement) {
  const int rc = sqlite3_step(statement);
  if (rc != SQLITE_DONE && sqlite3_extended_errcode(db_) == SQLITE_CONSTRAINT_NOTNULL) {
    throw SqliteError(SQLITE_CONSTRAINT, null_fingerprint_refused(name_));
  }
  return rc;
}

std::int64_t IndexStorage::insert(std::optional<std::int64_t> id, StoredFingerprint fp,
                                  int conflict) {
  flush_if_full();
  sqlite3_stmt* statement = cached(insert_data_, kInsertDataRow);
  for (int attempt = 0; attempt < 2; ++attempt) {
    ResetOnExit reset(statement);
    if (id) {
      sqlite3_bind_int64(statement, 1, *id);
    } else {
      sqlite3_bind_null(statement, 1);
    }
    bind_fingerprint(statement, 2, fp);
    const int rc = step_data_write(statement);
    if (rc == SQLITE_DONE) {
      const std::int64_t new_id = id ? *id : sqlite3_last_insert_rowid(db_);
      if (fp) {
        pending_.push(new_id, static_cast<std::uint64_t>(*fp), true);
      }
      return new_id;
    }
    if ((rc & 0xff) != SQLITE_CONSTRAINT || !id || attempt > 0) {
      throw_sqlite(db_, rc);
    }
    if (conflict != SQLITE_REPLACE) {
      throw SqliteError(SQLITE_CONSTRAINT, "UNIQUE constraint failed: " + name_ + ".rowid");
    }
    remove(*id);
  }
  throw SqliteError(SQLITE_INTERNAL, "simhash_index: insert retry failed");
}

void IndexStorage::remove(std::int64_t id) {
  const std::optional<StoredFingerprint> row = lookup(id);
  if (!row) {
    return;
  }
  flush_if_full();
  sqlite3_stmt* statement = cached(delete_data_, kDeleteDataRow);
  ResetOnExit reset(statement);
  sqlite3_bind_int64(statement, 1, id);
  step_done(statement);
  if (*row) {
    pending_.push(id, static_cast<std::uint64_t>(**row), false);
  }
}

void IndexStorage::update(std::int64_t old_id, std::int64_t new_id, StoredFingerprint fp,
                          int conflict) {
  const std::optional<StoredFingerprint> old_row = lookup(old_id);
  if (!old_row) {
    throw SqliteError(SQLITE_CORRUPT_VTAB,
                      "simhash_index " + name_ + ": row " + std::to_string(old_id) + " vanished");
  }
  if (new_id != old_id) {
    if (conflict == SQLITE_REPLACE) {
      remove(new_id);  // looks the row up itself; nothing to do when the id is free
    } else if (lookup(new_id)) {
      throw SqliteError(SQLITE_CONSTRAINT, "UNIQUE constraint failed: " + name_ + ".rowid");
    }
  }
  const StoredFingerprint& old_fp = *old_row;
  if (new_id == old_id && fp == old_fp) {
    return;
  }
  flush_if_full();
  sqlite3_stmt* statement = cached(update_data_, kUpdateDataRow);
  ResetOnExit reset(statement);
  sqlite3_bind_int64(statement, 1, old_id);
  sqlite3_bind_int64(statement, 2, new_id);
  bind_fingerprint(statement, 3, fp);
  if (const int rc = step_data_write(statement); rc != SQLITE_DONE) {
    throw_sqlite(db_, rc);
  }
  if (old_fp) {
    pending_.push(old_id, static_cast<std::uint64_t>(*old_fp), false);
  }
  if (fp) {
    pending_.push(new_id, static_cast<std::uint64_t>(*fp), true);
  }
}

}  // namespace simhash::sql
