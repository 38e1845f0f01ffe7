// Shadow-table access for simhash_index: creation, config, writes through the
// pending buffer, the merge of pending changes into packed buckets, probes,
// scans, rebuild and the integrity check.
#include "index_storage.h"

#include <algorithm>
#include <utility>

#include "hamming.h"

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

// Every (id, fp) of the data table in id order (scans, rebuild, full-scan cursors).
constexpr const char* kSelectAllRows = "SELECT id, fp FROM \"%w\".\"%w_data\" ORDER BY id";

[[noreturn]] void throw_sqlite(sqlite3* db, int rc) { throw SqliteError(rc, sqlite3_errmsg(db)); }

void exec(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    SqliteString owned(message);
    throw SqliteError(rc, owned ? owned.get() : sqlite3_errstr(rc));
  }
}

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

void IndexStorage::create_tables(sqlite3* db, const std::string& schema, const std::string& name,
                                 const Config& config) {
  exec(db, format_sql("CREATE TABLE \"%w\".\"%w_config\"(key TEXT PRIMARY KEY, value) WITHOUT "
                      "ROWID;"
                      "CREATE TABLE \"%w\".\"%w_data\"(id INTEGER PRIMARY KEY, fp INTEGER NOT "
                      "NULL);"
                      "CREATE TABLE \"%w\".\"%w_buckets\"(id INTEGER PRIMARY KEY, entries BLOB NOT "
                      "NULL);"
                      "INSERT INTO \"%w\".\"%w_config\"(key, value) VALUES "
                      "('k', %d), ('blocks', %d), ('format', %d), ('icu', %Q), ('unicode', %Q);",
                      schema.c_str(), name.c_str(), schema.c_str(), name.c_str(), schema.c_str(),
                      name.c_str(), schema.c_str(), name.c_str(), config.k, config.blocks,
                      config.format, config.icu.c_str(), config.unicode.c_str()));
}

IndexStorage::Config IndexStorage::read_config(sqlite3* db, const std::string& schema,
                                               const std::string& name) {
  Statement statement;
  const std::string sql =
      format_sql("SELECT key, value FROM \"%w\".\"%w_config\"", schema.c_str(), name.c_str());
  int rc = prepare(db, sql, statement);
  if (rc != SQLITE_OK) {
    throw SqliteError(rc, "simhash_index " + name + ": cannot read its config table (" +
                              sqlite3_errmsg(db) + ")");
  }
  Config config;
  bool seen_k = false;
  bool seen_blocks = false;
  bool seen_format = false;
  while ((rc = sqlite3_step(statement.get())) == SQLITE_ROW) {
    const auto* key_text = reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), 0));
    const std::string key = key_text != nullptr ? key_text : "";
    if (key == "icu" || key == "unicode") {
      // Informative only (see Config): any value is kept as text.
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), 1));
      (key == "icu" ? config.icu : config.unicode) = text != nullptr ? text : "";
      continue;
    }
    if (key != "k" && key != "blocks" && key != "format") {
      continue;
    }
    // A value that is not a small INTEGER must not be read as some number.
    const sqlite3_int64 stored = sqlite3_column_int64(statement.get(), 1);
    if (sqlite3_column_type(statement.get(), 1) != SQLITE_INTEGER || stored < 0 ||
        stored > 1'000'000) {
      const auto* shown = reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), 1));
      std::string message = "simhash_index " + name;
      message += ": the config table's ";
      message += key;
      message += " is '";
      message += shown != nullptr ? shown : "NULL";
      message += "', not a count";
      throw SqliteError(SQLITE_CORRUPT_VTAB, message);
    }
    const auto value = static_cast<int>(stored);
    if (key == "k") {
      config.k = value;
      seen_k = true;
    } else if (key == "blocks") {
      config.blocks = value;
      seen_blocks = true;
    } else if (key == "format") {
      config.format = value;
      seen_format = true;
    }
  }
  if (rc != SQLITE_DONE) {
    throw_sqlite(db, rc);
  }
  if (!seen_k || !seen_blocks || !seen_format) {
    throw SqliteError(SQLITE_CORRUPT_VTAB, "simhash_index " + name + ": the config table lacks " +
                                               (!seen_k        ? "k"
                                                : !seen_blocks ? "blocks"
                                                               : "format"));
  }
  if (config.format > kIndexFormat) {
    throw SqliteError(SQLITE_ERROR, "simhash_index " + name + ": storage format " +
                                        std::to_string(config.format) +
                                        " is newer than this extension reads (format " +
                                        std::to_string(kIndexFormat) +
                                        "); upgrade the simhash extension");
  }
  if (config.format < 1) {
    throw SqliteError(SQLITE_CORRUPT_VTAB, "simhash_index " + name + ": unknown storage format " +
                                               std::to_string(config.format));
  }
  if (config.format < kIndexFormat) {
    // Format 1 (unreleased development builds) packed buckets differently.
    throw SqliteError(SQLITE_ERROR, "simhash_index " + name + ": storage format " +
                                        std::to_string(config.format) +
                                        " is an older development layout this extension no "
                                        "longer reads (format " +
                                        std::to_string(kIndexFormat) +
                                        "); drop the table and create it again");
  }
  return config;
}

void IndexStorage::drop_tables(sqlite3* db, const std::string& schema, const std::string& name) {
  exec(db, format_sql("DROP TABLE IF EXISTS \"%w\".\"%w_config\";"
                      "DROP TABLE IF EXISTS \"%w\".\"%w_data\";"
                      "DROP TABLE IF EXISTS \"%w\".\"%w_buckets\";",
                      schema.c_str(), name.c_str(), schema.c_str(), name.c_str(), schema.c_str(),
                      name.c_str()));
}

IndexStorage::IndexStorage(sqlite3* db, std::string schema, std::string name,
                           const PermutationPlan& plan)
    : db_(db),
      schema_(std::move(schema)),
      name_(std::move(name)),
      plan_(plan),
      layout_(plan),
      pending_(plan) {}

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
       {&insert_data_, &select_data_, &delete_data_, &update_data_, &select_bucket_, &probe_full_,
        &probe_last_, &write_bucket_, &delete_bucket_, &scan_data_}) {
    statement->finalize();
  }
}

void IndexStorage::rename(const std::string& new_name) {
  flush();
  finalize_statements();
  for (const char* suffix : {"config", "data", "buckets"}) {
    exec(db_, format_sql("ALTER TABLE \"%w\".\"%w_%s\" RENAME TO \"%w_%s\"", schema_.c_str(),
                         name_.c_str(), suffix, new_name.c_str(), suffix));
  }
  name_ = new_name;
}

std::optional<std::int64_t> IndexStorage::lookup(std::int64_t id) {
  sqlite3_stmt* statement = cached(select_data_, "SELECT fp FROM \"%w\".\"%w_data\" WHERE id = ?1");
  ResetOnExit reset(statement);
  sqlite3_bind_int64(statement, 1, id);
  if (!step_row(statement)) {
    return std::nullopt;
  }
  return sqlite3_column_int64(statement, 0);
}

void IndexStorage::flush_if_full() {
  if (pending_.size() >= (pending_.searched() ? kMaxPendingSearched : kMaxPending)) {
    flush();
  }
}

std::int64_t IndexStorage::insert(std::optional<std::int64_t> id, std::int64_t fp, int conflict) {
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
    sqlite3_bind_int64(statement, 2, fp);
    const int rc = sqlite3_step(statement);
    if (rc == SQLITE_DONE) {
      const std::int64_t new_id = id ? *id : sqlite3_last_insert_rowid(db_);
      pending_.push(new_id, static_cast<std::uint64_t>(fp), true);
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
  const std::optional<std::int64_t> fp = lookup(id);
  if (!fp) {
    return;
  }
  flush_if_full();
  sqlite3_stmt* statement = cached(delete_data_, "DELETE FROM \"%w\".\"%w_data\" WHERE id = ?1");
  ResetOnExit reset(statement);
  sqlite3_bind_int64(statement, 1, id);
  step_done(statement);
  pending_.push(id, static_cast<std::uint64_t>(*fp), false);
}

void IndexStorage::update(std::int64_t old_id, std::int64_t new_id, std::int64_t fp, int conflict) {
  const std::optional<std::int64_t> old_fp = lookup(old_id);
  if (!old_fp) {
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
  if (new_id == old_id && fp == *old_fp) {
    return;
  }
  flush_if_full();
  sqlite3_stmt* statement =
      cached(update_data_, "UPDATE \"%w\".\"%w_data\" SET id = ?2, fp = ?3 WHERE id = ?1");
  ResetOnExit reset(statement);
  sqlite3_bind_int64(statement, 1, old_id);
  sqlite3_bind_int64(statement, 2, new_id);
  sqlite3_bind_int64(statement, 3, fp);
  step_done(statement);
  pending_.push(old_id, static_cast<std::uint64_t>(*old_fp), false);
  pending_.push(new_id, static_cast<std::uint64_t>(fp), true);
}

bool IndexStorage::read_bucket(std::int64_t row_id, int rest_bytes, std::vector<BucketEntry>& out) {
  sqlite3_stmt* statement =
      cached(select_bucket_, "SELECT entries FROM \"%w\".\"%w_buckets\" WHERE id = ?1");
  ResetOnExit reset(statement);
  sqlite3_bind_int64(statement, 1, row_id);
  if (!step_row(statement)) {
    return false;
  }
  const auto* data = static_cast<const unsigned char*>(sqlite3_column_blob(statement, 0));
  const auto size = static_cast<std::size_t>(sqlite3_column_bytes(statement, 0));
  if (!decode_bucket(data, size, rest_bytes, out)) {
    throw_malformed(row_id);
  }
  return true;
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

void IndexStorage::merge_table(int table) {
  // The pending changes grouped by bucket, each group in the order the
  // changes happened: by a stable counting sort (buckets are below 2^16)
  // when there are many changes, by a comparison sort when there are few (a
  // commit of one row should not clear a table of 2^16 counters). Each
  // group is then sorted by (id, order), which is usually already the case.
  // Keys are recomputed rather than stored, to keep memory at 4 bytes per
  // change.
  const std::size_t change_count = pending_.size();
  const auto bucket_of = [&](std::size_t change) {
    return layout_.bucket_of(table, plan_.permute(table, pending_.fp(change)));
  };
  const std::size_t bucket_count = std::size_t{1} << layout_.bucket_bits(table);
  std::vector<std::uint32_t> order(change_count);
  if (change_count * 16 < bucket_count) {
    for (std::size_t change = 0; change < change_count; ++change) {
      order[change] = static_cast<std::uint32_t>(change);
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return bucket_of(a) < bucket_of(b); });
  } else {
    std::vector<std::uint32_t> next(bucket_count + 1, 0);
    for (std::size_t change = 0; change < change_count; ++change) {
      ++next[bucket_of(change) + 1];
    }
    for (std::size_t bucket = 0; bucket < bucket_count; ++bucket) {
      next[bucket + 1] += next[bucket];
    }
    for (std::size_t change = 0; change < change_count; ++change) {
      order[next[bucket_of(change)]++] = static_cast<std::uint32_t>(change);
    }
  }
  const auto by_id = [&](std::uint32_t a, std::uint32_t b) {
    return pending_.id(a) != pending_.id(b) ? pending_.id(a) < pending_.id(b) : a < b;
  };
  const int rest_bytes = layout_.rest_bytes(table);
  std::vector<BucketEntry> existing;
  std::vector<BucketEntry> merged;
  for (auto begin = order.begin(); begin != order.end();) {
    const std::uint64_t bucket = bucket_of(*begin);
    auto end = begin + 1;
    while (end != order.end() && bucket_of(*end) == bucket) {
      ++end;
    }
    if (!std::is_sorted(begin, end, by_id)) {
      std::sort(begin, end, by_id);
    }
    const std::int64_t row_id = layout_.row_id(table, bucket);
    existing.clear();
    const bool existed = read_bucket(row_id, rest_bytes, existing);
    // Merge two id-sorted lists; for an id with changes, the last change wins.
    merged.clear();
    std::size_t old_index = 0;
    for (auto change = begin; old_index < existing.size() || change != end;) {
      if (change == end ||
          (old_index < existing.size() && existing[old_index].id < pending_.id(*change))) {
        merged.push_back(existing[old_index++]);
        continue;
      }
      const std::int64_t id = pending_.id(*change);
      auto last = change;
      while (last + 1 != end && pending_.id(*(last + 1)) == id) {
        ++last;
      }
      if (old_index < existing.size() && existing[old_index].id == id) {
        ++old_index;
      }
      if (pending_.is_insert(*last)) {
        merged.push_back(
            BucketEntry{id, layout_.rest_of(table, plan_.permute(table, pending_.fp(*last)))});
      }
      change = last + 1;
    }
    write_bucket(row_id, merged, rest_bytes, existed);
    begin = end;
  }
}

void IndexStorage::flush() {
  if (pending_.empty()) {
    return;
  }
  const sqlite3_int64 last_rowid = sqlite3_last_insert_rowid(db_);
  for (int table = 0; table < plan_.table_count(); ++table) {
    merge_table(table);
  }
  pending_.clear();
  sqlite3_set_last_insert_rowid(db_, last_rowid);
}

sqlite3_stmt* IndexStorage::probe_statement(int parts) {
  CachedStatement& statement = parts == kProbeChunk ? probe_full_ : probe_last_;
  return statement.get_with(db_, [&] {
    std::string sql;
    for (int part = 1; part <= parts; ++part) {
      if (part > 1) {
        sql += " UNION ALL ";
      }
      sql += table_sql("SELECT id, entries FROM \"%w\".\"%w_buckets\" WHERE id = ?") +
             std::to_string(part);
    }
    return sql;
  });
}

void IndexStorage::probe(std::uint64_t query, int radius, std::vector<IndexHit>& out) {
  const std::size_t first = out.size();
  probe_buckets(query, radius, out);
  pending_.apply_to(query, radius, out, first);
}

void IndexStorage::probe_buckets(std::uint64_t query, int radius, std::vector<IndexHit>& out) {
  const int tables = plan_.table_count();
  for (int first = 0; first < tables; first += kProbeChunk) {
    const int parts = std::min(kProbeChunk, tables - first);
    sqlite3_stmt* statement = probe_statement(parts);
    ResetOnExit reset(statement);
    std::uint64_t keys[kProbeChunk];
    for (int part = 0; part < parts; ++part) {
      const int table = first + part;
      keys[part] = plan_.permute(table, query);
      sqlite3_bind_int64(statement, part + 1,
                         layout_.row_id(table, layout_.bucket_of(table, keys[part])));
    }
    while (step_row(statement)) {
      // Rows come in part order; a part whose bucket is empty has no row.
      const std::int64_t row_id = sqlite3_column_int64(statement, 0);
      const auto table = static_cast<int>(row_id >> BucketLayout::kMaxBucketBits);
      if (table < first || table >= first + parts) {
        throw_malformed(row_id);
      }
      probe_bucket(table, query, keys[table - first],
                   static_cast<const unsigned char*>(sqlite3_column_blob(statement, 1)),
                   static_cast<std::size_t>(sqlite3_column_bytes(statement, 1)), radius, out);
    }
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
  if (close_entries_.empty()) {
    return;
  }
  // Ids are decoded only up to the last close entry that this table reports
  // (the first table the pair shares); the fingerprint comes from the rest.
  BucketIdReader ids(view);
  std::size_t next_index = 0;
  std::int64_t id = 0;
  for (const CloseEntry& close : close_entries_) {
    const std::uint64_t fp =
        plan_.unpermute(table, layout_.key_of(table, bucket, view.rest(close.index)));
    if (plan_.first_shared_table(fp, query) != table) {
      continue;  // reported by an earlier table
    }
    while (next_index <= close.index) {
      if (!ids.next(id)) {
        throw_malformed(row_id);
      }
      ++next_index;
    }
    out.push_back(IndexHit{id, static_cast<std::int64_t>(fp), close.distance});
  }
}

void IndexStorage::throw_malformed(std::int64_t row_id) const {
  throw SqliteError(SQLITE_CORRUPT_VTAB, "simhash_index " + name_ + ": bucket " +
                                             std::to_string(row_id) +
                                             " is malformed; run 'rebuild'");
}

void IndexStorage::scan(std::uint64_t query, int radius, std::vector<IndexHit>& out) {
  sqlite3_stmt* statement = cached(scan_data_, kSelectAllRows);
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
  sqlite3_stmt* statement = cached(scan_data_, kSelectAllRows);
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
  const Statement statement = select_all_rows();
  while (step_row(statement.get())) {
    rows.emplace_back(sqlite3_column_int64(statement.get(), 0),
                      static_cast<std::uint64_t>(sqlite3_column_int64(statement.get(), 1)));
  }
  return rows;
}

void IndexStorage::rebuild() {
  pending_.clear();
  exec(db_, table_sql("DELETE FROM \"%w\".\"%w_buckets\""));
  const auto rows = read_all_rows();
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
}

std::string IndexStorage::integrity_problem() {
  // A read: the buckets are compared with the rows as they were before the
  // pending changes, which are not merged (see flush()).
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
  return {};
}

}  // namespace simhash::sql
