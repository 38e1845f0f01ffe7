// SPDX-License-Identifier: MIT
// simhash_index's rebuild and integrity check (IndexStorage,
// index_storage.h): both recompute every bucket from the data table, the one
// to write them, the other to compare them with the stored ones.
#include "ext/index/index_storage.h"

#include <algorithm>
#include <utility>

#include "ext/index/index_shadow_tables.h"
#include "ext/index/index_storage_internal.h"

namespace simhash::sql {

std::vector<std::pair<std::int64_t, std::uint64_t>> IndexStorage::read_all_rows() {
  std::vector<std::pair<std::int64_t, std::uint64_t>> rows;
  const Statement statement = prepare_table_sql(kSelectFingerprintRows);
  while (step_row(statement.get())) {
    rows.emplace_back(sqlite3_column_int64(statement.get(), 0),
                      static_cast<std::uint64_t>(sqlite3_column_int64(statement.get(), 1)));
  }
  return rows;
}

void IndexStorage::rebuild() {
  buckets_written_ = true;  // codes_version_now
  pending_writes_.written_elsewhere();
  exec_sql(db_, table_sql(kDeleteAllBuckets));
  const auto rows = read_all_rows();
  const int bits = BucketLayout(plan_, BucketLayout::kDefaultBucketBits)
                       .bits_for_rows(static_cast<std::int64_t>(rows.size()));
  layout_ = BucketLayout(plan_, bits);
  struct Item {
    std::uint64_t bucket;
    BucketEntry entry;
  };
  std::vector<Item> items;
  std::vector<BucketEntry> entries;
  SqlBucketStore store(*this);
  for (int table = 0; table < plan_.table_count(); ++table) {
    items.clear();
    items.reserve(rows.size());
    for (const auto& [id, fp] : rows) {
      const std::uint64_t key = plan_.permute(table, fp);
      items.push_back(Item{layout_.bucket_of(table, key), {id, layout_.rest_of(table, key)}});
    }
    throw_if_interrupted(db_);
    // Rows arrive in id order; a stable sort by bucket keeps each bucket sorted by id.
    std::stable_sort(items.begin(), items.end(),
                     [](const Item& a, const Item& b) { return a.bucket < b.bucket; });
    throw_if_interrupted(db_);
    std::size_t begin = 0;
    for (std::size_t bucket_count = 1; begin < items.size(); ++bucket_count) {
      if (bucket_count % kBucketsBetweenInterruptChecks == 0) {
        throw_if_interrupted(db_);
      }
      entries.clear();
      std::size_t end = begin;
      while (end < items.size() && items[end].bucket == items[begin].bucket) {
        entries.push_back(items[end++].entry);
      }
      write_stored_bucket(store, layout_.row_id(table, items[begin].bucket), entries,
                          layout_.rest_bytes(table), false, merge_scratch_.encoded);
      begin = end;
    }
  }
  store_bucket_bits(db_, schema_, name_, bits);
  write_row_count(static_cast<std::int64_t>(rows.size()));
}

std::string IndexStorage::integrity_problem() {
  // A read: the buckets are compared with the rows as they were before the
  // pending changes, which are not merged (see flush()).
  const StoredIndex stored = read_index_config(db_, schema_, name_);
  layout_ = stored.layout();
  auto rows = read_all_rows();
  pending_.undo(rows);
  throw_if_interrupted(db_);
  const std::string prefix = "simhash_index " + name_ + ": ";

  {
    const Statement statement = prepare_table_sql(kCountBucketsOutside);
    sqlite3_bind_int64(statement.get(), 1, layout_.first_row_id(plan_.table_count()));
    step_row(statement.get());
    if (sqlite3_column_int64(statement.get(), 0) != 0) {
      return prefix + "the buckets table has rows outside every table's range";
    }
  }
  std::vector<std::pair<std::int64_t, std::uint64_t>> found;
  std::vector<BucketEntry> entries;
  const Statement statement = prepare_table_sql(kSelectBucketRange);
  for (int table = 0; table < plan_.table_count(); ++table) {
    found.clear();
    ResetOnExit reset(statement.get());
    sqlite3_bind_int64(statement.get(), 1, layout_.first_row_id(table));
    sqlite3_bind_int64(statement.get(), 2, layout_.first_row_id(table + 1));
    for (std::size_t bucket_count = 1; step_row(statement.get()); ++bucket_count) {
      if (bucket_count % kBucketsBetweenInterruptChecks == 0) {
        throw_if_interrupted(db_);
      }
      const std::int64_t row_id = sqlite3_column_int64(statement.get(), 0);
      const std::uint64_t bucket = static_cast<std::uint64_t>(row_id - layout_.first_row_id(table));
      if (bucket >> layout_.bucket_bits(table) != 0) {
        return prefix + "bucket " + std::to_string(row_id) + " is outside table " +
               std::to_string(table) + "'s range";
      }
      if (sqlite3_column_type(statement.get(), 1) != SQLITE_BLOB) {
        return prefix + "bucket " + std::to_string(row_id) + " is not a BLOB";
      }
      entries.clear();
      const auto* data = static_cast<const unsigned char*>(sqlite3_column_blob(statement.get(), 1));
      const auto size = static_cast<std::size_t>(sqlite3_column_bytes(statement.get(), 1));
      if (!decode_bucket(data, size, layout_.rest_bytes(table), entries) || entries.empty()) {
        return prefix + "bucket " + std::to_string(row_id) + " is malformed";
      }
      for (const BucketEntry& entry : entries) {
        if (layout_.rest_bits(table) < 64 && (entry.rest >> layout_.rest_bits(table)) != 0) {
          return prefix + "bucket " + std::to_string(row_id) + " holds an out-of-range entry";
        }
        found.emplace_back(entry.id,
                           plan_.unpermute(table, layout_.key_of(table, bucket, entry.rest)));
      }
    }
    throw_if_interrupted(db_);
    std::sort(found.begin(), found.end());
    if (found != rows) {
      return prefix + "permuted copy " + std::to_string(table) + " holds " +
             std::to_string(found.size()) + " entries that disagree with the " +
             std::to_string(rows.size()) + " rows of " + name_ + "_data; run 'rebuild'";
    }
  }
  // Checked last: a wrong count only delays or hastens the next growth.
  if (stored.config.rows && *stored.config.rows != static_cast<std::int64_t>(rows.size())) {
    return prefix + "the config table's rows is " + std::to_string(*stored.config.rows) + " but " +
           name_ + "_data has " + std::to_string(rows.size()) + "; run 'rebuild'";
  }
  return {};
}

}  // namespace simhash::sql
