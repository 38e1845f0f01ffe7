// Shadow-table access for simhash_index: creation, config, writes through the
// pending buffer, the merge of pending changes into packed buckets, probes,
// scans, rebuild and the integrity check.
#include "ext/index/index_storage.h"

#include <algorithm>
#include <bit>
#include <span>
#include <utility>

#include "ext/common/radius_argument.h"
#include "ext/index/index_shadow_tables.h"
#include "fingerprint/hamming.h"

namespace simhash::sql {
namespace {

// Resets a statement when the scope ends, so no statement stays active
// between calls (an active statement would hold the table open).
class ResetOnExit {
 public:
  explicit ResetOnExit(sqlite3_stmt* statement) : statement_(statement) {}
  ~ResetOnExit() { sqlite3_reset(statement_); }
  ResetOnExit(const ResetOnExit&) = delete;
  ResetOnExit& operator=(const ResetOnExit&) = delete;

 private:
  sqlite3_stmt* statement_;
};

[[noreturn]] void throw_sqlite(sqlite3* db, int rc) { throw SqliteError(rc, sqlite3_errmsg(db)); }

}  // namespace

sqlite3_stmt* CachedStatement::get(sqlite3* db, const char* sql_format, const std::string& schema,
                                   const std::string& name) {
  return get_with(db, [&] { return format_sql(sql_format, schema.c_str(), name.c_str()); });
}

void CachedStatement::compile(sqlite3* db, const std::string& sql) {
  const int rc = prepare(db, sql, statement_, SQLITE_PREPARE_PERSISTENT);
  if (rc != SQLITE_OK) {
    throw_sqlite(db, rc);
  }
}

IndexStorage::IndexStorage(sqlite3* db, std::string schema, std::string name,
                           const StoredIndex& stored)
    : db_(db),
      schema_(std::move(schema)),
      name_(std::move(name)),
      plan_(stored.plan),
      layout_(stored.layout()),
      pending_(stored.plan) {}

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

bool IndexStorage::step_row(sqlite3_stmt* statement) {
  const int rc = sqlite3_step(statement);
  if (rc == SQLITE_ROW) {
    return true;
  }
  if (rc != SQLITE_DONE) {
    throw_sqlite(db_, rc);
  }
  return false;
}

void IndexStorage::finalize_statements() {
  for (CachedStatement* statement :
       {&insert_data_, &select_data_, &delete_data_, &update_data_, &select_bucket_,
        &select_bucket_below_, &write_bucket_, &delete_bucket_, &scan_data_, &select_bucket_bits_,
        &select_row_count_, &store_row_count_}) {
    statement->finalize();
  }
  for (CachedStatement& statement : probe_by_parts_) {
    statement.finalize();
  }
}

void IndexStorage::rename(const std::string& new_name) {
  flush();
  finalize_statements();
  rename_shadow_tables(db_, schema_, name_, new_name);
  name_ = new_name;
}

std::optional<StoredFingerprint> IndexStorage::lookup(std::int64_t id) {
  sqlite3_stmt* statement = cached(select_data_, "SELECT fp FROM \"%w\".\"%w_data\" WHERE id = ?1");
  ResetOnExit reset(statement);
  sqlite3_bind_int64(statement, 1, id);
  if (!step_row(statement)) {
    return std::nullopt;
  }
  if (sqlite3_column_type(statement, 0) == SQLITE_NULL) {
    return StoredFingerprint();
  }
  return StoredFingerprint(sqlite3_column_int64(statement, 0));
}

void IndexStorage::flush_if_full() {
  if (pending_.size() >= (pending_.searched() ? kMaxPendingSearched : kMaxPending)) {
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
  sqlite3_stmt* statement =
      cached(insert_data_, "INSERT INTO \"%w\".\"%w_data\"(id, fp) VALUES (?1, ?2)");
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
  sqlite3_stmt* statement = cached(delete_data_, "DELETE FROM \"%w\".\"%w_data\" WHERE id = ?1");
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
  sqlite3_stmt* statement =
      cached(update_data_, "UPDATE \"%w\".\"%w_data\" SET id = ?2, fp = ?3 WHERE id = ?1");
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

bool IndexStorage::read_bucket(std::int64_t row_id, int rest_bytes, std::vector<BucketEntry>& out) {
  sqlite3_stmt* statement =
      cached(select_bucket_, "SELECT entries FROM \"%w\".\"%w_buckets\" WHERE id = ?1");
  ResetOnExit reset(statement);
  sqlite3_bind_int64(statement, 1, row_id);
  if (!step_row(statement)) {
    return false;
  }
  decode_bucket_column(statement, 0, row_id, rest_bytes, out);
  return true;
}

void IndexStorage::decode_bucket_column(sqlite3_stmt* statement, int column, std::int64_t row_id,
                                        int rest_bytes, std::vector<BucketEntry>& out) const {
  const auto* data = static_cast<const unsigned char*>(sqlite3_column_blob(statement, column));
  const auto size = static_cast<std::size_t>(sqlite3_column_bytes(statement, column));
  if (!decode_bucket(data, size, rest_bytes, out)) {
    throw_malformed(row_id);
  }
}

std::optional<std::int64_t> IndexStorage::read_bucket_below(std::int64_t below,
                                                            std::int64_t down_to, int rest_bytes,
                                                            std::vector<BucketEntry>& out) {
  sqlite3_stmt* statement = cached(select_bucket_below_,
                                   "SELECT id, entries FROM \"%w\".\"%w_buckets\" "
                                   "WHERE id < ?1 AND id >= ?2 ORDER BY id DESC LIMIT 1");
  ResetOnExit reset(statement);
  sqlite3_bind_int64(statement, 1, below);
  sqlite3_bind_int64(statement, 2, down_to);
  if (!step_row(statement)) {
    return std::nullopt;
  }
  const std::int64_t row_id = sqlite3_column_int64(statement, 0);
  out.clear();
  decode_bucket_column(statement, 1, row_id, rest_bytes, out);
  return row_id;
}

void IndexStorage::write_bucket(std::int64_t row_id, const std::vector<BucketEntry>& entries,
                                int rest_bytes, bool existed) {
  if (entries.empty()) {
    if (existed) {
      sqlite3_stmt* statement =
          cached(delete_bucket_, "DELETE FROM \"%w\".\"%w_buckets\" WHERE id = ?1");
      ResetOnExit reset(statement);
      sqlite3_bind_int64(statement, 1, row_id);
      step_done(statement);
    }
    return;
  }
  encode_buffer_.clear();
  encode_bucket(entries, rest_bytes, encode_buffer_);
  sqlite3_stmt* statement = cached(
      write_bucket_, "INSERT OR REPLACE INTO \"%w\".\"%w_buckets\"(id, entries) VALUES (?1, ?2)");
  ResetOnExit reset(statement);
  sqlite3_bind_int64(statement, 1, row_id);
  sqlite3_bind_blob(statement, 2, encode_buffer_.data(), static_cast<int>(encode_buffer_.size()),
                    SQLITE_STATIC);
  step_done(statement);
}

std::span<std::uint32_t> ChangedBuckets::changes(std::size_t group) {
  const std::size_t end = group + 1 < starts.size() ? starts[group + 1] : order.size();
  return std::span<std::uint32_t>(order).subspan(starts[group], end - starts[group]);
}

std::uint64_t IndexStorage::bucket_of_change(int table, std::uint32_t change) const {
  return layout_.bucket_of(table, plan_.permute(table, pending_.fp(change)));
}

ChangedBuckets IndexStorage::changes_by_bucket(int table) const {
  // A stable counting sort when there are many changes and not too many
  // buckets, a comparison sort otherwise (a commit of one row should not
  // clear a table of 2^16 counters, nor a merge allocate 2^32 of them). Keys
  // are recomputed rather than stored, to keep memory at 4 bytes per change.
  const std::size_t change_count = pending_.size();
  const auto bucket_of = [&](std::uint32_t change) { return bucket_of_change(table, change); };
  // 64-bit: a table may have 2^32 buckets, more than a 32-bit size_t holds.
  const std::uint64_t bucket_count = std::uint64_t{1} << layout_.bucket_bits(table);
  ChangedBuckets changed;
  std::vector<std::uint32_t>& order = changed.order;
  order.resize(change_count);
  if (change_count * 16 < bucket_count || bucket_count > kMaxCountingSortBuckets) {
    for (std::size_t change = 0; change < change_count; ++change) {
      order[change] = static_cast<std::uint32_t>(change);
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return bucket_of(a) < bucket_of(b); });
    for (std::size_t begin = 0; begin < change_count;) {
      const std::uint64_t bucket = bucket_of(order[begin]);
      changed.starts.push_back(static_cast<std::uint32_t>(begin));
      while (begin < change_count && bucket_of(order[begin]) == bucket) {
        ++begin;
      }
    }
  } else {
    std::vector<std::uint32_t> next(static_cast<std::size_t>(bucket_count) + 1, 0);
    for (std::size_t change = 0; change < change_count; ++change) {
      ++next[bucket_of(static_cast<std::uint32_t>(change)) + 1];
    }
    for (std::size_t bucket = 0; bucket < static_cast<std::size_t>(bucket_count); ++bucket) {
      if (next[bucket + 1] != 0) {
        changed.starts.push_back(next[bucket]);
      }
      next[bucket + 1] += next[bucket];
    }
    for (std::size_t change = 0; change < change_count; ++change) {
      const auto index = static_cast<std::uint32_t>(change);
      order[next[bucket_of(index)]++] = index;
    }
  }
  return changed;
}

void IndexStorage::apply_changes(int table, const std::vector<BucketEntry>& stored,
                                 std::span<std::uint32_t> changes,
                                 std::vector<BucketEntry>& out) const {
  // The changes by (id, order), which is usually already the case; sorted
  // here, just before they are read, while they are in the CPU's cache.
  const auto by_id = [&](std::uint32_t a, std::uint32_t b) {
    return pending_.id(a) != pending_.id(b) ? pending_.id(a) < pending_.id(b) : a < b;
  };
  if (!std::is_sorted(changes.begin(), changes.end(), by_id)) {
    std::sort(changes.begin(), changes.end(), by_id);
  }
  // Merges two id-sorted lists; for an id with changes, the last change wins.
  out.clear();
  std::size_t old_index = 0;
  for (auto change = changes.begin(); old_index < stored.size() || change != changes.end();) {
    if (change == changes.end() ||
        (old_index < stored.size() && stored[old_index].id < pending_.id(*change))) {
      out.push_back(stored[old_index++]);
      continue;
    }
    const std::int64_t id = pending_.id(*change);
    auto last = change;
    while (last + 1 != changes.end() && pending_.id(*(last + 1)) == id) {
      ++last;
    }
    if (old_index < stored.size() && stored[old_index].id == id) {
      ++old_index;
    }
    if (pending_.is_insert(*last)) {
      out.push_back(
          BucketEntry{id, layout_.rest_of(table, plan_.permute(table, pending_.fp(*last)))});
    }
    change = last + 1;
  }
}

void IndexStorage::merge_table(int table) {
  const int rest_bytes = layout_.rest_bytes(table);
  std::vector<BucketEntry> stored;
  std::vector<BucketEntry> changed;
  ChangedBuckets changes = changes_by_bucket(table);
  for (std::size_t group = 0; group < changes.starts.size(); ++group) {
    const std::span<std::uint32_t> bucket_changes = changes.changes(group);
    const std::int64_t row_id =
        layout_.row_id(table, bucket_of_change(table, bucket_changes.front()));
    stored.clear();
    const bool existed = read_bucket(row_id, rest_bytes, stored);
    apply_changes(table, stored, bucket_changes, changed);
    write_bucket(row_id, changed, rest_bytes, existed);
  }
}

void IndexStorage::merge_and_split_table(int table, const BucketLayout& grown) {
  // Every row id r moves to ids >= r in the grown layout, in order
  // (bucket_codec.h), and the parts of one old bucket to ids no other old
  // bucket's parts take. So visiting the old buckets from the highest id
  // down, the stored ones and the ones that only have changes alike, never
  // overwrites a row not yet visited. Each stored row is found by a fresh
  // lookup: no statement reads the table while it is written.
  const int rest_bytes = layout_.rest_bytes(table);
  std::vector<BucketEntry> stored;
  std::vector<BucketEntry> changed;
  std::int64_t below = layout_.first_row_id(table + 1);  // every row from here up is visited
  std::size_t visited = 0;
  // Splits the stored rows with ids in (down_to, below), which have no
  // changes, from the highest down, one lookup each; a stored row at down_to
  // itself is deleted and left decoded in `stored` for the caller (true).
  const auto split_rows_down_to = [&](std::int64_t down_to) {
    while (const std::optional<std::int64_t> row_id =
               read_bucket_below(below, down_to, rest_bytes, stored)) {
      if (++visited % kBucketsBetweenInterruptChecks == 0) {
        throw_if_interrupted(db_);
      }
      write_bucket(*row_id, {}, 0, true);  // deletes it
      if (*row_id == down_to) {
        return true;
      }
      split_bucket(table, static_cast<std::uint64_t>(*row_id - layout_.first_row_id(table)), stored,
                   grown);
      below = *row_id;
    }
    stored.clear();
    return false;
  };
  ChangedBuckets changes = changes_by_bucket(table);
  for (std::size_t group = changes.starts.size(); group-- > 0;) {
    const std::span<std::uint32_t> bucket_changes = changes.changes(group);
    const std::uint64_t bucket = bucket_of_change(table, bucket_changes.front());
    const std::int64_t row_id = layout_.row_id(table, bucket);
    split_rows_down_to(row_id);  // `stored` is then this bucket's entries, if any
    apply_changes(table, stored, bucket_changes, changed);
    split_bucket(table, bucket, changed, grown);
    below = row_id;
  }
  if (split_rows_down_to(layout_.first_row_id(table))) {
    split_bucket(table, 0, stored, grown);
  }
}

void IndexStorage::split_bucket(int table, std::uint64_t bucket,
                                const std::vector<BucketEntry>& entries,
                                const BucketLayout& grown) {
  // The entries re-keyed under the grown layout; a stable sort by bucket
  // keeps each new bucket in id order.
  split_scratch_.clear();
  for (const BucketEntry& entry : entries) {
    const std::uint64_t key = layout_.key_of(table, bucket, entry.rest);
    split_scratch_.emplace_back(grown.bucket_of(table, key),
                                BucketEntry{entry.id, grown.rest_of(table, key)});
  }
  std::stable_sort(split_scratch_.begin(), split_scratch_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<BucketEntry> part;
  for (std::size_t begin = 0; begin < split_scratch_.size();) {
    part.clear();
    std::size_t end = begin;
    while (end < split_scratch_.size() &&
           split_scratch_[end].first == split_scratch_[begin].first) {
      part.push_back(split_scratch_[end++].second);
    }
    write_bucket(grown.row_id(table, split_scratch_[begin].first), part, grown.rest_bytes(table),
                 false);
    begin = end;
  }
}

void IndexStorage::flush() {
  // A statement the merge runs may make SQLite call xSavepoint, which
  // flushes: that inner call must not merge the same changes again.
  if (pending_.empty() || flushing_) {
    return;
  }
  flushing_ = true;
  struct EndFlush {
    bool& flushing;
    ~EndFlush() { flushing = false; }
  } end_flush{flushing_};
  const sqlite3_int64 last_rowid = sqlite3_last_insert_rowid(db_);
  refresh_layout();
  std::int64_t net_change = 0;
  for (std::size_t change = 0; change < pending_.size(); ++change) {
    net_change += pending_.is_insert(change) ? 1 : -1;
  }
  const std::int64_t rows = store_row_count(net_change);
  if (const int bits = layout_.bits_for_rows(rows); bits > layout_.bits()) {
    // Raising the bits rewrites every bucket, so the changes are merged on the
    // way; from the last table down, so no row is overwritten before it is
    // visited (merge_and_split_table).
    const BucketLayout grown(plan_, bits);
    for (int table = plan_.table_count() - 1; table >= 0; --table) {
      merge_and_split_table(table, grown);
    }
    store_bucket_bits(db_, schema_, name_, bits);
    layout_ = grown;
  } else {
    for (int table = 0; table < plan_.table_count(); ++table) {
      merge_table(table);
    }
  }
  pending_.clear();
  sqlite3_set_last_insert_rowid(db_, last_rowid);
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

std::int64_t IndexStorage::store_row_count(std::int64_t net_change) {
  std::optional<std::int64_t> rows;
  {
    sqlite3_stmt* statement = cached(select_row_count_, kSelectRowCount);
    ResetOnExit reset(statement);
    if (step_row(statement) && sqlite3_column_type(statement, 0) == SQLITE_INTEGER) {
      rows = sqlite3_column_int64(statement, 0) + net_change;
    }
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

void IndexStorage::write_row_count(std::int64_t rows) {
  sqlite3_stmt* statement = cached(store_row_count_, kStoreRowCount);
  ResetOnExit reset(statement);
  sqlite3_bind_int64(statement, 1, rows);
  step_done(statement);
}

sqlite3_stmt* IndexStorage::probe_statement(int parts) {
  CachedStatement& statement = probe_by_parts_[static_cast<std::size_t>(parts - 1)];
  return statement.get_with(db_, [&] {
    std::string sql = table_sql(kSelectBucketBitsRow);
    for (int part = 1; part <= parts; ++part) {
      sql += " UNION ALL ";
      sql += table_sql("SELECT id, entries FROM \"%w\".\"%w_buckets\" WHERE id = ?");
      sql += std::to_string(part);
    }
    return sql;
  });
}

void IndexStorage::search(std::uint64_t query, int radius, std::vector<IndexHit>& out) {
  if (radius <= plan_.k()) {
    probe(query, radius, out);
  } else if (multi_probe_pays(radius)) {
    const std::size_t first = out.size();
    // The parts follow the bucket bits, so a reload makes them anew.
    with_current_layout(out, [&] {
      return multi_probe_with_layout(query, MultiProbePlan(plan_, layout_, radius), out);
    });
    pending_.apply_to(query, radius, out, first);
  } else {
    scan(query, radius, out);
  }
}

bool IndexStorage::multi_probe_pays(int radius) {
  if (radius <= plan_.k() || radius >= kMaxRadius) {
    return false;  // the plain probe, or every row is an answer
  }
  const std::optional<std::int64_t> rows = stored_row_count();
  return rows && MultiProbePlan(plan_, layout_, radius)
                     .cheaper_than_scan(*rows + static_cast<std::int64_t>(pending_.size()));
}

std::optional<std::int64_t> IndexStorage::stored_row_count() {
  sqlite3_stmt* statement = cached(select_row_count_, kSelectRowCount);
  ResetOnExit reset(statement);
  if (step_row(statement) && sqlite3_column_type(statement, 0) == SQLITE_INTEGER) {
    return sqlite3_column_int64(statement, 0);
  }
  return std::nullopt;
}

void IndexStorage::probe(std::uint64_t query, int radius, std::vector<IndexHit>& out) {
  const std::size_t first = out.size();
  with_current_layout(out, [&] { return probe_with_layout(query, radius, out); });
  pending_.apply_to(query, radius, out, first);
}

template <typename Read>
void IndexStorage::with_current_layout(std::vector<IndexHit>& out, Read read) {
  const std::size_t first = out.size();
  if (read()) {
    return;
  }
  out.resize(first);
  reload_layout();  // from the same snapshot: the second try agrees with it
  if (!read()) {
    throw SqliteError(SQLITE_CORRUPT_VTAB,
                      "simhash_index " + name_ + ": the stored bucket bits changed during a query");
  }
}

template <typename Visit>
bool IndexStorage::read_buckets(std::span<const std::int64_t> row_ids, Visit visit) {
  for (std::size_t first = 0; first < row_ids.size(); first += kProbeChunk) {
    const int parts = static_cast<int>(std::min<std::size_t>(kProbeChunk, row_ids.size() - first));
    sqlite3_stmt* statement = probe_statement(parts);
    ResetOnExit reset(statement);
    for (int part = 0; part < parts; ++part) {
      sqlite3_bind_int64(statement, part + 1, row_ids[first + static_cast<std::size_t>(part)]);
    }
    // Rows come in part order, the bucket bits first (none if they are the
    // default); a part whose bucket is empty has no row.
    bool bits_checked = false;
    std::size_t next_part = first;
    while (step_row(statement)) {
      const std::int64_t row_id = sqlite3_column_int64(statement, 0);
      if (!bits_checked) {
        bits_checked = true;
        const std::optional<int> stored =
            row_id == -1 ? bucket_bits_in_probe_row(statement) : BucketLayout::kDefaultBucketBits;
        if (stored != layout_.bits()) {
          return false;
        }
        if (row_id == -1) {
          continue;
        }
      }
      while (next_part < first + static_cast<std::size_t>(parts) && row_ids[next_part] != row_id) {
        ++next_part;
      }
      if (next_part == first + static_cast<std::size_t>(parts)) {
        throw_malformed(row_id);
      }
      ++next_part;
      visit(row_id, static_cast<const unsigned char*>(sqlite3_column_blob(statement, 1)),
            static_cast<std::size_t>(sqlite3_column_bytes(statement, 1)));
    }
    if (!bits_checked && layout_.bits() != BucketLayout::kDefaultBucketBits) {
      return false;
    }
  }
  return true;
}

bool IndexStorage::probe_with_layout(std::uint64_t query, int radius, std::vector<IndexHit>& out) {
  const int tables = plan_.table_count();
  keys_.resize(static_cast<std::size_t>(tables));
  row_ids_.resize(static_cast<std::size_t>(tables));
  for (int table = 0; table < tables; ++table) {
    keys_[table] = plan_.permute(table, query);
    row_ids_[table] = layout_.row_id(table, layout_.bucket_of(table, keys_[table]));
  }
  return read_buckets(row_ids_,
                      [&](std::int64_t row_id, const unsigned char* data, std::size_t size) {
                        const int table = layout_.table_of(row_id);
                        probe_bucket(table, query, keys_[table], data, size, radius, out);
                      });
}

bool IndexStorage::multi_probe_with_layout(std::uint64_t query, const MultiProbePlan& plan,
                                           std::vector<IndexHit>& out) {
  // The buckets to read, in row id order (which is part order, as the parts
  // are taken in table order); a table's part, for the rows read.
  const std::span<const ProbePart> parts = plan.parts();
  row_ids_.clear();
  keys_.assign(static_cast<std::size_t>(plan_.table_count()), 0);
  part_of_table_.assign(static_cast<std::size_t>(plan_.table_count()), -1);
  for (std::size_t index = 0; index < parts.size(); ++index) {
    const int table = parts[index].table;
    part_of_table_[table] = static_cast<int>(index);
    keys_[table] = plan_.permute(table, query);
    const std::size_t begin = row_ids_.size();
    MultiProbePlan::for_each_bucket(
        parts[index], layout_.bucket_of(table, keys_[table]),
        [&](std::uint64_t bucket) { row_ids_.push_back(layout_.row_id(table, bucket)); });
    std::sort(row_ids_.begin() + static_cast<std::ptrdiff_t>(begin), row_ids_.end());
  }
  std::size_t buckets_read = 0;
  return read_buckets(row_ids_, [&](std::int64_t row_id, const unsigned char* data,
                                    std::size_t size) {
    if (++buckets_read % kBucketsBetweenInterruptChecks == 0) {
      throw_if_interrupted(db_);
    }
    const int table = layout_.table_of(row_id);
    const int part = part_of_table_[table];
    const std::uint64_t bucket = static_cast<std::uint64_t>(row_id - layout_.first_row_id(table));
    const std::uint64_t key = keys_[table];
    const int bucket_distance = std::popcount(bucket ^ layout_.bucket_of(table, key));
    BucketView view;
    if (!view.parse(data, size, layout_.rest_bytes(table))) {
      throw_malformed(row_id);
    }
    close_entries_.clear();
    view.find_close(layout_.rest_of(table, key), 0, plan.radius() - bucket_distance,
                    close_entries_);
    report_close_entries(
        view, row_id,
        [&](const CloseEntry& close) -> std::optional<IndexHit> {
          const std::uint64_t fp =
              plan_.unpermute(table, layout_.key_of(table, bucket, view.rest(close.index)));
          if (plan.reporting_part(fp ^ query) != part) {
            return std::nullopt;  // another part reports it
          }
          return IndexHit{0, static_cast<std::int64_t>(fp), close.distance + bucket_distance};
        },
        out);
  });
}

template <typename MakeHit>
void IndexStorage::report_close_entries(const BucketView& view, std::int64_t row_id,
                                        MakeHit make_hit, std::vector<IndexHit>& out) {
  // Ids are decoded only up to the last close entry reported; the
  // fingerprint comes from the rest.
  BucketIdReader ids(view);
  std::size_t next_index = 0;
  std::int64_t id = 0;
  for (const CloseEntry& close : close_entries_) {
    std::optional<IndexHit> hit = make_hit(close);
    if (!hit) {
      continue;
    }
    while (next_index <= close.index) {
      if (!ids.next(id)) {
        throw_malformed(row_id);
      }
      ++next_index;
    }
    hit->id = id;
    out.push_back(*hit);
  }
}

void IndexStorage::probe_bucket(int table, std::uint64_t query, std::uint64_t key,
                                const unsigned char* data, std::size_t size, int radius,
                                std::vector<IndexHit>& out) {
  const std::uint64_t bucket = layout_.bucket_of(table, key);
  const std::int64_t row_id = layout_.row_id(table, bucket);
  // Prefix bits below the bucket bits: an entry must match the query there too.
  const int extra_prefix_bits = plan_.prefix_bits(table) - layout_.bucket_bits(table);
  const std::uint64_t prefix_mask = extra_prefix_bits == 0
                                        ? 0
                                        : ((std::uint64_t{1} << extra_prefix_bits) - 1)
                                              << (layout_.rest_bits(table) - extra_prefix_bits);
  BucketView view;
  if (!view.parse(data, size, layout_.rest_bytes(table))) {
    throw_malformed(row_id);
  }
  close_entries_.clear();
  view.find_close(layout_.rest_of(table, key), prefix_mask, radius, close_entries_);
  report_close_entries(
      view, row_id,
      [&](const CloseEntry& close) -> std::optional<IndexHit> {
        const std::uint64_t fp =
            plan_.unpermute(table, layout_.key_of(table, bucket, view.rest(close.index)));
        if (plan_.first_shared_table(fp, query) != table) {
          return std::nullopt;  // reported by an earlier table
        }
        return IndexHit{0, static_cast<std::int64_t>(fp), close.distance};
      },
      out);
}

void IndexStorage::throw_malformed(std::int64_t row_id) const {
  throw SqliteError(SQLITE_CORRUPT_VTAB, "simhash_index " + name_ + ": bucket " +
                                             std::to_string(row_id) +
                                             " is malformed; run 'rebuild'");
}

void IndexStorage::scan(std::uint64_t query, int radius, std::vector<IndexHit>& out) {
  sqlite3_stmt* statement = cached(scan_data_, kSelectFingerprintRows);
  ResetOnExit reset(statement);
  while (step_row(statement)) {
    const std::int64_t fp = sqlite3_column_int64(statement, 1);
    const int distance = hamming_distance(static_cast<std::uint64_t>(fp), query);
    if (distance <= radius) {
      out.push_back(IndexHit{sqlite3_column_int64(statement, 0), fp, distance});
    }
  }
}

void IndexStorage::scan_nearest(std::uint64_t query, std::size_t count,
                                std::vector<IndexHit>& out) {
  out.clear();
  if (count == 0) {
    return;
  }
  // A max-heap by nearer(): its front is the farthest row kept.
  sqlite3_stmt* statement = cached(scan_data_, kSelectFingerprintRows);
  ResetOnExit reset(statement);
  while (step_row(statement)) {
    const std::int64_t fp = sqlite3_column_int64(statement, 1);
    const IndexHit hit{sqlite3_column_int64(statement, 0), fp,
                       hamming_distance(static_cast<std::uint64_t>(fp), query)};
    if (out.size() < count) {
      out.push_back(hit);
      std::push_heap(out.begin(), out.end(), nearer);
    } else if (nearer(hit, out.front())) {
      std::pop_heap(out.begin(), out.end(), nearer);
      out.back() = hit;
      std::push_heap(out.begin(), out.end(), nearer);
    }
  }
  std::sort_heap(out.begin(), out.end(), nearer);
}

Statement IndexStorage::select_all_rows() const { return prepare_table_sql(kSelectAllRows); }

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
  pending_.clear();
  exec_sql(db_, table_sql("DELETE FROM \"%w\".\"%w_buckets\""));
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
      write_bucket(layout_.row_id(table, items[begin].bucket), entries, layout_.rest_bytes(table),
                   false);
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
    const Statement statement =
        prepare_table_sql("SELECT count(*) FROM \"%w\".\"%w_buckets\" WHERE id < 0 OR id >= ?1");
    sqlite3_bind_int64(statement.get(), 1, layout_.first_row_id(plan_.table_count()));
    step_row(statement.get());
    if (sqlite3_column_int64(statement.get(), 0) != 0) {
      return prefix + "the buckets table has rows outside every table's range";
    }
  }
  std::vector<std::pair<std::int64_t, std::uint64_t>> found;
  std::vector<BucketEntry> entries;
  const Statement statement =
      prepare_table_sql("SELECT id, entries FROM \"%w\".\"%w_buckets\" WHERE id >= ?1 AND id < ?2");
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
