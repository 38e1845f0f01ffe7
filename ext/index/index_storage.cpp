// SPDX-License-Identifier: MIT
// An open simhash_index's core (the class is declared in index_storage.h):
// its cached statements, construction, rename, the one bucket row read and
// written by key, and the config rows it rereads (the bucket bits, the row
// count). The other jobs are in index_storage_writes.cpp (writes through the
// pending list), index_storage_merge.cpp (the merge and the growth of the
// bucket bits), index_storage_reads.cpp (lookups, probes, the multi-probe
// search, scans) and index_storage_integrity.cpp (rebuild, integrity check).
#include "ext/index/index_storage.h"

#include <utility>

#include "ext/common/shadow_tables.h"
#include "ext/index/index_shadow_tables.h"
#include "ext/index/index_storage_internal.h"

namespace simhash::sql {

IndexStorage::IndexStorage(sqlite3* db, std::string schema, std::string name,
                           const StoredIndex& stored)
    : db_(db),
      schema_(std::move(schema)),
      name_(std::move(name)),
      plan_(stored.plan),
      layout_(stored.layout()),
      pending_(stored.plan),
      bucket_probe_(plan_, layout_) {}

std::string IndexStorage::table_sql(const char* format) const {
  return format_sql(format, schema_.c_str(), name_.c_str());
}

Statement IndexStorage::prepare_table_sql(const char* format) const {
  Statement statement;
  const int rc = prepare(db_, table_sql(format), statement);
  if (rc != SQLITE_OK) {
    throw_sqlite(db_, rc);
  }
  return statement;
}

void IndexStorage::step_done(sqlite3_stmt* statement) {
  const int rc = sqlite3_step(statement);
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
    throw_sqlite(db_, rc);
  }
}

bool IndexStorage::step_row(sqlite3_stmt* statement) { return sql::step_row(db_, statement); }

void IndexStorage::finalize_statements() {
  for (CachedStatement* statement :
       {&insert_data_, &select_data_, &delete_data_, &update_data_, &select_bucket_,
        &select_bucket_below_, &write_bucket_, &delete_bucket_, &scan_data_, &scan_buckets_,
        &select_bucket_bits_, &select_row_count_, &store_row_count_}) {
    statement->finalize();
  }
  for (CachedStatement& statement : probe_by_parts_) {
    statement.finalize();
  }
}

void IndexStorage::rename(const std::string& new_name) {
  refuse_rename_after_writes("simhash_index " + name_, pending_writes_.holds_writes());
  flush();
  finalize_statements();
  rename_shadow_tables(db_, schema_, name_, new_name);
  name_ = new_name;
}

void IndexStorage::check_droppable() const {
  refuse_drop_in_savepoint_after_writes("simhash_index " + name_,
                                        pending_writes_.pending_at_an_older_savepoint());
}

namespace {

// Decodes column `column` of the statement's row (bucket `row_id`) where
// SQLite holds it.
void decode_column(BucketStore& store, sqlite3_stmt* statement, int column, std::int64_t row_id,
                   int rest_bytes, std::vector<BucketEntry>& out) {
  const auto* data = static_cast<const char*>(sqlite3_column_blob(statement, column));
  const auto size = static_cast<std::size_t>(sqlite3_column_bytes(statement, column));
  decode_stored_bucket(store, row_id, std::string_view(data == nullptr ? "" : data, size),
                       rest_bytes, out);
}

}  // namespace

bool IndexStorage::SqlBucketStore::read(std::int64_t row_id, int rest_bytes,
                                        std::vector<BucketEntry>& out) {
  sqlite3_stmt* statement = storage_.cached(storage_.select_bucket_, kSelectBucket);
  ResetOnExit reset(statement);
  sqlite3_bind_int64(statement, 1, row_id);
  if (!storage_.step_row(statement)) {
    return false;
  }
  decode_column(*this, statement, 0, row_id, rest_bytes, out);
  return true;
}

std::optional<std::int64_t> IndexStorage::SqlBucketStore::read_highest_below(
    std::int64_t below, std::int64_t down_to, int rest_bytes, std::vector<BucketEntry>& out) {
  sqlite3_stmt* statement = storage_.cached(storage_.select_bucket_below_, kSelectBucketBelow);
  ResetOnExit reset(statement);
  sqlite3_bind_int64(statement, 1, below);
  sqlite3_bind_int64(statement, 2, down_to);
  if (!storage_.step_row(statement)) {
    return std::nullopt;
  }
  const std::int64_t row_id = sqlite3_column_int64(statement, 0);
  decode_column(*this, statement, 1, row_id, rest_bytes, out);
  return row_id;
}

void IndexStorage::SqlBucketStore::write(std::int64_t row_id, std::string_view blob) {
  sqlite3_stmt* statement = storage_.cached(storage_.write_bucket_, kWriteBucket);
  ResetOnExit reset(statement);
  sqlite3_bind_int64(statement, 1, row_id);
  sqlite3_bind_blob(statement, 2, blob.data(), static_cast<int>(blob.size()), SQLITE_STATIC);
  storage_.step_done(statement);
}

void IndexStorage::SqlBucketStore::erase(std::int64_t row_id) {
  sqlite3_stmt* statement = storage_.cached(storage_.delete_bucket_, kDeleteBucket);
  ResetOnExit reset(statement);
  sqlite3_bind_int64(statement, 1, row_id);
  storage_.step_done(statement);
}

void IndexStorage::reload_layout() { layout_ = read_index_config(db_, schema_, name_).layout(); }

void IndexStorage::refresh_layout() {
  sqlite3_stmt* statement = cached(select_bucket_bits_, kSelectBucketBitsRow);
  ResetOnExit reset(statement);
  const std::optional<int> stored =
      step_row(statement) ? bucket_bits_in_probe_row(statement) : BucketLayout::kDefaultBucketBits;
  if (stored != layout_.bits()) {
    reload_layout();
  }
}

void IndexStorage::write_row_count(std::int64_t rows) {
  sqlite3_stmt* statement = cached(store_row_count_, kStoreRowCount);
  ResetOnExit reset(statement);
  sqlite3_bind_int64(statement, 1, rows);
  step_done(statement);
}

std::optional<std::int64_t> IndexStorage::stored_row_count() {
  sqlite3_stmt* statement = cached(select_row_count_, kSelectRowCount);
  ResetOnExit reset(statement);
  return step_row(statement) ? row_count_in(statement, 0, name_) : std::nullopt;
}

void IndexStorage::throw_malformed(std::int64_t row_id) const {
  throw SqliteError(SQLITE_CORRUPT_VTAB, "simhash_index " + name_ + ": bucket " +
                                             std::to_string(row_id) +
                                             " is malformed; run 'rebuild'");
}

}  // namespace simhash::sql
