// SPDX-License-Identifier: MIT
// The merge of simhash_index's pending changes into its packed buckets
// (IndexStorage::flush, index_storage.h): the row count stored, the bucket
// bits raised when the rows call for it, and the engine's merge and split
// (index/bucket_merge.h) run over the buckets table.
#include "ext/index/index_storage.h"

#include "ext/index/index_shadow_tables.h"
#include "ext/index/index_storage_internal.h"
#include "index/bucket_merge.h"

namespace simhash::sql {

void IndexStorage::flush() {
  pending_writes_.flush([&] {
    buckets_written_ = true;  // before the first write: a failed merge may have written some
    const sqlite3_int64 last_rowid = sqlite3_last_insert_rowid(db_);
    refresh_layout();
    const auto deletes = static_cast<std::int64_t>(pending_.deletes());
    const std::int64_t rows =
        store_row_count(static_cast<std::int64_t>(pending_.size()) - 2 * deletes);  // net change
    SqlBucketStore store(*this);
    BucketMerge merge(plan_, layout_, pending_, store, merge_scratch_,
                      [this] { throw_if_interrupted(db_); });
    if (const int bits = layout_.bits_for_rows(rows); bits > layout_.bits()) {
      // Raising the bits rewrites every bucket, so the changes are merged on the way.
      const BucketLayout grown(plan_, bits);
      merge.merge_and_split(grown);
      store_bucket_bits(db_, schema_, name_, bits);
      layout_ = grown;
    } else {
      merge.merge();
    }
    sqlite3_set_last_insert_rowid(db_, last_rowid);
  });
}

std::int64_t IndexStorage::store_row_count(std::int64_t net_change) {
  // Read again (another connection's merge, or a hand edit, may have changed
  // it) and checked: within kMaxIndexRows, the sum with net_change (at most
  // the pending changes, fewer than 2^32) cannot overflow.
  std::optional<std::int64_t> rows;
  {
    sqlite3_stmt* statement = cached(select_row_count_, kSelectRowCount);
    ResetOnExit reset(statement);
    if (step_row(statement)) {
      rows = row_count_in(statement, 0, name_);
    }
  }
  if (rows) {
    *rows += net_change;
  }
  if (!rows || *rows < 0) {
    // Never stored (an index made before the count was kept), or damaged: the
    // data table, which already holds the changes, says.
    const Statement count = prepare_table_sql(kCountRows);
    step_row(count.get());
    rows = sqlite3_column_int64(count.get(), 0);
  }
  write_row_count(*rows);
  return *rows;
}

}  // namespace simhash::sql
