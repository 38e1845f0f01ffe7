// SPDX-License-Identifier: MIT
// simhash_similar's storage (similar_storage.h): the shadow tables' DDL and
// config, the writes that keep rows and postings in step, the reads the
// engine's search makes, and the integrity check.
#include "ext/similar/similar_storage.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <string_view>
#include <utility>

#include "ext/common/shadow_tables.h"
#include "ext/common/sql_values.h"
#include "ext/similar/similar_shadow_tables.h"
#include "fingerprint/options_probe.h"

namespace simhash::sql {

namespace {

static_assert(std::size(kSimilarStatementSql) == SimilarStorage::kStatementCount);

// Rows checked by the integrity check between two interrupt checks.
constexpr std::size_t kRowsBetweenChecks = 1024;

std::string prefix(const std::string& name) { return "simhash_similar " + name + ": "; }

std::int64_t as_sql(std::uint64_t value) { return static_cast<std::int64_t>(value); }

// A size bound as SQL binds it.
std::int64_t size_bound(std::uint64_t size) {
  return static_cast<std::int64_t>(
      std::min<std::uint64_t>(size, std::numeric_limits<std::int64_t>::max()));
}

}  // namespace

bool is_similar_shadow_suffix(const char* suffix) {
  for (const char* known : kSimilarShadowSuffixes) {
    if (std::string_view(suffix) == known) {
      return true;
    }
  }
  return false;
}

void create_similar_tables(sqlite3* db, const std::string& schema, const std::string& name,
                           const SimilarConfig& config) {
  const char* s = schema.c_str();
  const char* n = name.c_str();
  exec_sql(db, format_sql(kCreateSimilarTables, s, n, s, n, s, n, s, n, config.format,
                          config.threshold, to_string(config.options).c_str(),
                          static_cast<long long>(as_sql(options_probe(config.options))),
                          static_cast<long long>(config.max_features)));
  create_similar_postings(db, schema, name, config.format);
}

void drop_similar_tables(sqlite3* db, const std::string& schema, const std::string& name) {
  drop_shadow_tables_or_views(db, schema, name, kSimilarShadowSuffixes);
}

SimilarConfig read_similar_config(sqlite3* db, const std::string& schema, const std::string& name) {
  // First, as simhash_index does: a shadow table replaced by a view of this
  // table would make every read below read the table again without end.
  check_shadow_tables(db, schema, name, kSimilarShadowSuffixes, "simhash_similar");
  Statement statement;
  const std::string sql = format_sql(kSelectSimilarConfig, schema.c_str(), name.c_str());
  if (const int rc = prepare(db, sql, statement); rc != SQLITE_OK) {
    throw SqliteError(rc, prefix(name) + "cannot read its config: " + sqlite3_errmsg(db));
  }
  const auto damaged = [&](const std::string& problem) {
    return SqliteError(SQLITE_CORRUPT_VTAB, prefix(name) + "damaged config: " + problem);
  };
  std::optional<std::int64_t> format;
  std::optional<double> threshold;
  std::optional<std::string> options;
  std::optional<std::int64_t> options_check;  // absent in tables made before it
  while (step_row(db, statement.get())) {
    const std::string_view key =
        reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), 0));
    const int type = sqlite3_column_type(statement.get(), 1);
    if (key == "format" && type == SQLITE_INTEGER) {
      format = sqlite3_column_int64(statement.get(), 1);
    } else if (key == "threshold" && (type == SQLITE_FLOAT || type == SQLITE_INTEGER)) {
      threshold = sqlite3_column_double(statement.get(), 1);
    } else if (key == "options" && type == SQLITE_TEXT) {
      options = reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), 1));
    } else if (key == "options_check") {
      if (type != SQLITE_INTEGER) {
        throw damaged("'options_check' is not an INTEGER");
      }
      options_check = sqlite3_column_int64(statement.get(), 1);
    }
  }
  if (!format || !threshold || !options) {
    throw damaged("'format' (INTEGER), 'threshold' (REAL) and 'options' (TEXT) are needed");
  }
  if (*format < kSimilarFormatWithoutCounts || *format > kSimilarFormat) {
    throw SqliteError(SQLITE_ERROR, prefix(name) + "storage format " + std::to_string(*format) +
                                        " is not one this extension reads (it reads " +
                                        std::to_string(kSimilarFormat) +
                                        "); upgrade the extension");
  }
  SimilarConfig config;
  config.format = static_cast<int>(*format);
  config.threshold = *threshold;
  if (!(config.threshold > 0 && config.threshold <= 1)) {
    throw damaged("threshold " + format_sql("%!.15g", config.threshold) + " is not in (0, 1]");
  }
  std::string error;
  const std::optional<SimhashOptions> parsed = parse_options(*options, error);
  if (!parsed || parsed->weight != WeightScheme::binary) {
    throw damaged("options '" + *options + "' are not set Jaccard options" +
                  (error.empty() ? "" : ": " + error));
  }
  if (options_check && *options_check != as_sql(options_probe(*parsed))) {
    throw damaged("options '" + *options +
                  "' do not give the features the table was written with ('options_check' "
                  "differs: the options were edited, or this build cuts text otherwise)");
  }
  config.options = *parsed;
  return config;
}

SimilarStorage::SimilarStorage(sqlite3* db, std::string schema, std::string name,
                               const SimilarConfig& config)
    : db_(db),
      schema_(std::move(schema)),
      name_(std::move(name)),
      config_(config),
      extractor_(config.options),
      postings_(make_similar_postings(db, schema_, name_, config.format)) {}

sqlite3_stmt* SimilarStorage::statement(Kind kind) {
  // Every statement names the schema and the table, once.
  return statements_[kind].get_with(
      db_, [&] { return format_sql(kSimilarStatementSql[kind], schema_.c_str(), name_.c_str()); });
}

std::int64_t SimilarStorage::stored_integer(sqlite3_stmt* statement, int column,
                                            const char* what) const {
  return sql::stored_integer(name_, statement, column, what);
}

void SimilarStorage::damaged(std::int64_t id, const std::string& problem) const {
  throw SqliteError(SQLITE_CORRUPT_VTAB,
                    prefix(name_) + "row " + std::to_string(id) + " is damaged: " + problem);
}

void SimilarStorage::wrong_size(std::int64_t id, std::uint64_t size, std::uint64_t bytes) const {
  damaged(id, "its size is " + std::to_string(size) + " but it holds " + std::to_string(bytes) +
                  " bytes of features");
}

void SimilarStorage::features_of(StoredText text, std::vector<std::uint64_t>& out) {
  out.clear();
  if (!text) {
    return;
  }
  extractor_.feature_vector(*text, vector_);
  out.assign(vector_.hashes.begin(), vector_.hashes.end());
}

bool SimilarStorage::load_row(std::int64_t id, std::vector<std::uint64_t>& out) {
  sqlite3_stmt* select = statement(kSelectRow);
  ResetOnExit reset(select);
  sqlite3_bind_int64(select, 1, id);
  if (!step_row(db_, select)) {
    return false;
  }
  if (!decode_features(column_bytes(select, 1), out)) {
    damaged(id, "its features are not ascending 8-byte hashes");
  }
  if (sqlite3_column_int64(select, 0) != static_cast<std::int64_t>(out.size())) {
    damaged(id, "its size is not its number of features");
  }
  return true;
}

bool SimilarStorage::contains(std::int64_t id) {
  sqlite3_stmt* select = statement(kSelectRow);
  ResetOnExit reset(select);
  sqlite3_bind_int64(select, 1, id);
  return step_row(db_, select);
}

void SimilarStorage::write_row(std::int64_t id, std::span<const std::uint64_t> hashes) {
  const std::string bytes = encode_features(hashes);
  const auto size = static_cast<std::int64_t>(hashes.size());
  {
    sqlite3_stmt* insert = statement(kInsertRow);
    ResetOnExit reset(insert);
    sqlite3_bind_int64(insert, 1, id);
    sqlite3_bind_int64(insert, 2, size);
    sqlite3_bind_blob(insert, 3, bytes.data(), static_cast<int>(bytes.size()), SQLITE_STATIC);
    if (const int rc = sqlite3_step(insert); rc != SQLITE_DONE) {
      throw_sqlite(db_, rc);
    }
  }
  {
    sqlite3_stmt* insert = statement(kInsertSize);
    ResetOnExit reset(insert);
    sqlite3_bind_int64(insert, 1, size);
    sqlite3_bind_int64(insert, 2, id);
    if (const int rc = sqlite3_step(insert); rc != SQLITE_DONE) {
      throw_sqlite(db_, rc);
    }
  }
  push_postings(hashes, size, id, true);
}

void SimilarStorage::push_postings(std::span<const std::uint64_t> hashes, std::int64_t size,
                                   std::int64_t id, bool insert) {
  if (pending_.size() + hashes.size() > config_.flush_after) {
    flush();
  }
  // The hashes ascend, and so do their keys: a key is pushed once.
  std::uint64_t previous = 0;
  for (std::size_t i = 0; i < hashes.size(); ++i) {
    const std::uint64_t key = postings_->key_of(hashes[i]);
    if (i == 0 || key != previous) {
      pending_.push({key, size, id, insert});
    }
    previous = key;
  }
}

void SimilarStorage::erase_row(std::int64_t id, std::span<const std::uint64_t> hashes) {
  const auto size = static_cast<std::int64_t>(hashes.size());
  push_postings(hashes, size, id, false);
  {
    sqlite3_stmt* remove = statement(kDeleteSize);
    ResetOnExit reset(remove);
    sqlite3_bind_int64(remove, 1, size);
    sqlite3_bind_int64(remove, 2, id);
    if (const int rc = sqlite3_step(remove); rc != SQLITE_DONE) {
      throw_sqlite(db_, rc);
    }
  }
  sqlite3_stmt* remove = statement(kDeleteRow);
  ResetOnExit reset(remove);
  sqlite3_bind_int64(remove, 1, id);
  if (const int rc = sqlite3_step(remove); rc != SQLITE_DONE) {
    throw_sqlite(db_, rc);
  }
}

std::int64_t SimilarStorage::insert(std::optional<std::int64_t> id, StoredText text, int conflict) {
  if (!id) {
    // SQLite's own choice for a rowid table: one more than the largest.
    sqlite3_stmt* largest = statement(kMaxId);
    ResetOnExit reset(largest);
    step_row(db_, largest);
    if (sqlite3_column_type(largest, 0) == SQLITE_NULL) {
      id = 1;
    } else if (sqlite3_column_int64(largest, 0) == std::numeric_limits<std::int64_t>::max()) {
      throw SqliteError(SQLITE_FULL,
                        prefix(name_) + "the largest rowid is taken; give the rowid to insert");
    } else {
      id = sqlite3_column_int64(largest, 0) + 1;
    }
  } else if (contains(*id)) {
    if (conflict != SQLITE_REPLACE) {
      throw SqliteError(SQLITE_CONSTRAINT, "UNIQUE constraint failed: " + name_ + ".rowid");
    }
    remove(*id);
  }
  features_of(text, scratch_);
  check_feature_count(scratch_.size());
  write_row(*id, scratch_);
  return *id;
}

void SimilarStorage::remove(std::int64_t id) {
  std::vector<std::uint64_t> hashes;
  if (load_row(id, hashes)) {
    erase_row(id, hashes);
  }
}

void SimilarStorage::update(std::int64_t id, std::int64_t new_id, std::optional<StoredText> text,
                            int conflict) {
  if (new_id != id && contains(new_id)) {
    if (conflict != SQLITE_REPLACE) {
      throw SqliteError(SQLITE_CONSTRAINT, "UNIQUE constraint failed: " + name_ + ".rowid");
    }
    remove(new_id);
  }
  std::vector<std::uint64_t> old_hashes;
  if (!load_row(id, old_hashes)) {
    return;  // SQLite found the row a moment ago; nothing to move if not
  }
  std::vector<std::uint64_t> new_hashes;
  if (text) {
    features_of(*text, new_hashes);
    check_feature_count(new_hashes.size());
  } else {
    new_hashes = old_hashes;
  }
  erase_row(id, old_hashes);
  write_row(new_id, new_hashes);
}

void SimilarStorage::flush() {
  // A failing flush leaves the caller's statement to SQLite to roll back.
  pending_writes_.flush([&] {
    const sqlite3_int64 last_rowid = sqlite3_last_insert_rowid(db_);
    MemoryCharge merged_charge;
    const std::vector<PendingPostings::Change> changes = pending_.merged_changes(merged_charge);
    postings_->write(changes);
    sqlite3_set_last_insert_rowid(db_, last_rowid);
  });
}

std::vector<SimilarMatch> SimilarStorage::search(std::string_view text, double threshold,
                                                 std::size_t limit, SimilarCounts* counts) {
  // The plan needs only the number of distinct features: when no stored
  // row has a size in its bounds (a 10 MB query text has a million features,
  // no stored row a tenth of that), the answer is empty without sorting the
  // features. Otherwise the search reads the extractor's vector in place:
  // nothing it calls extracts features. Counting stops at `most` + 1
  // distinct features when `most` + 1 of them already need rows larger than
  // any stored (the plan's lowest size only grows with the query's size):
  // such a query finds nothing, and its features past that point are not
  // counted.
  const std::uint64_t largest = largest_size();
  std::size_t most = SIZE_MAX;
  const double beyond = std::floor((static_cast<double>(largest) + 1) / threshold) + 2;
  if (beyond < 1e15 &&
      plan_similar_query(static_cast<std::size_t>(beyond), threshold).sizes.lowest > largest) {
    most = static_cast<std::size_t>(beyond) - 1;
  }
  const std::size_t distinct = extractor_.count_features(text, most);
  const SimilarPlan plan = plan_similar_query(distinct, threshold);
  if (distinct == 0 || plan.probe_count == 0) {
    return {};
  }
  if (distinct > most || count_rows(plan.sizes, 1) == 0) {
    if (counts != nullptr) {
      counts->scanned_sizes = true;  // as find_similar: the rows of the sizes, none
    }
    return {};
  }
  extractor_.counted_feature_vector(vector_);
  const CheckPoint check = [this] { throw_if_interrupted(db_); };
  // The row handle of read_row_pieces, and what the postings table keeps of
  // what it read, live for this search only.
  postings_->forget();
  struct CloseOnExit {
    Blob& blob;
    SimilarPostings& postings;
    ~CloseOnExit() {
      blob.reset();
      postings.forget();
    }
  } close_blob{row_blob_, *postings_};
  return find_similar(vector_.hashes, threshold, *this, check, counts, limit);
}

std::uint64_t SimilarStorage::largest_size() {
  sqlite3_stmt* select = statement(kMaxSize);
  ResetOnExit reset(select);
  // NULL for no rows. A size that is not an INTEGER sorts above them all
  // (REAL among them), so one stored anywhere shows here.
  if (!step_row(db_, select) || sqlite3_column_type(select, 0) == SQLITE_NULL) {
    return 0;
  }
  return static_cast<std::uint64_t>(
      std::max<std::int64_t>(0, stored_integer(select, 0, "the largest size in the sizes table")));
}

std::uint64_t SimilarStorage::count_postings(std::uint64_t feature, SizeRange sizes,
                                             std::uint64_t limit) {
  // Those of the feature's key: a key shared with other features only adds
  // postings (similar_search.h).
  const std::uint64_t key = postings_->key_of(feature);
  // With the pending postings. Below `limit` the stored count is exact, and
  // so is the sum: a 0 tells the search that there is nothing to read. At
  // `limit` the stored ones may be more, so pending removals must not bring
  // the count below it (a count past `limit` only ranks).
  const std::int64_t stored = postings_->count(key, sizes, limit);
  std::int64_t counted = stored;
  pending_.net_of(key, size_bound(sizes.lowest), size_bound(sizes.highest), net_);
  for (const auto& entry : net_) {
    counted += entry.net;
  }
  if (stored >= size_bound(limit)) {
    counted = std::max(counted, size_bound(limit));
  }
  return static_cast<std::uint64_t>(std::max<std::int64_t>(counted, 0));
}

void SimilarStorage::read_postings(
    std::uint64_t feature, SizeRange sizes,
    const std::function<bool(std::int64_t id, std::uint64_t size)>& on_posting) {
  const std::uint64_t key = postings_->key_of(feature);
  // The stored postings less those pending removal, then those pending
  // addition. A row has one size, so its id names its posting of a key.
  pending_.net_of(key, size_bound(sizes.lowest), size_bound(sizes.highest), net_);
  std::vector<std::int64_t> removed;
  for (const auto& entry : net_) {
    if (entry.net < 0) {
      removed.push_back(entry.id);
    }
  }
  std::sort(removed.begin(), removed.end());
  bool more = true;
  postings_->read(key, sizes, [&](std::int64_t id, std::int64_t size) {
    if (std::binary_search(removed.begin(), removed.end(), id)) {
      return true;
    }
    more = on_posting(id, static_cast<std::uint64_t>(std::max<std::int64_t>(0, size)));
    return more;
  });
  if (!more) {
    return;
  }
  for (const auto& entry : net_) {
    if (entry.net > 0 && !on_posting(entry.id, static_cast<std::uint64_t>(entry.size))) {
      return;
    }
  }
}

std::uint64_t SimilarStorage::count_rows(SizeRange sizes, std::uint64_t limit) {
  sqlite3_stmt* count = statement(kCountRows);
  ResetOnExit reset(count);
  sqlite3_bind_int64(count, 1, size_bound(sizes.lowest));
  sqlite3_bind_int64(count, 2, size_bound(sizes.highest));
  sqlite3_bind_int64(count, 3, size_bound(limit));
  step_row(db_, count);
  return static_cast<std::uint64_t>(sqlite3_column_int64(count, 0));
}

void SimilarStorage::read_row_sizes(
    SizeRange sizes, const std::function<void(std::int64_t id, std::uint64_t size)>& on_row) {
  sqlite3_stmt* select = statement(kSelectRows);
  ResetOnExit reset(select);
  sqlite3_bind_int64(select, 1, size_bound(sizes.lowest));
  sqlite3_bind_int64(select, 2, size_bound(sizes.highest));
  while (step_row(db_, select)) {
    const std::int64_t id = stored_integer(select, 0, "a row id in the sizes table");
    const std::int64_t size = stored_integer(select, 1, "a size in the sizes table");
    on_row(id, static_cast<std::uint64_t>(std::max<std::int64_t>(0, size)));
  }
}

void SimilarStorage::read_row(std::int64_t id, std::vector<std::uint64_t>& out) {
  if (!load_row(id, out)) {
    throw SqliteError(SQLITE_CORRUPT_VTAB, prefix(name_) + "a posting names row " +
                                               std::to_string(id) + ", which is not stored");
  }
}

void SimilarStorage::read_row_pieces(
    std::int64_t id, std::uint64_t size,
    const std::function<bool(std::span<const std::uint64_t>)>& on_piece) {
  if (size > kWholeRowFeatures) {
    int rc = SQLITE_OK;
    if (row_blob_) {
      rc = sqlite3_blob_reopen(row_blob_.get(), id);
    } else {
      sqlite3_blob* opened = nullptr;
      const std::string rows = name_ + "_rows";
      rc = sqlite3_blob_open(db_, schema_.c_str(), rows.c_str(), "features", id, 0, &opened);
      row_blob_.reset(opened);
    }
    if (rc == SQLITE_OK) {
      const int bytes = sqlite3_blob_bytes(row_blob_.get());
      if (static_cast<std::uint64_t>(bytes) != 8 * size) {
        wrong_size(id, size, static_cast<std::uint64_t>(bytes));
      }
      for (int at = 0; at < bytes;) {
        const int piece = std::min(bytes - at, static_cast<int>(8 * kRowPieceFeatures));
        piece_bytes_.resize(static_cast<std::size_t>(piece));
        if (const int read = sqlite3_blob_read(row_blob_.get(), piece_bytes_.data(), piece, at);
            read != SQLITE_OK) {
          throw_sqlite(db_, read);  // search() closes the handle
        }
        const auto* data = reinterpret_cast<const unsigned char*>(piece_bytes_.data());
        const std::uint64_t before = piece_.empty() ? 0 : piece_.back();
        if (!decode_features({data, piece_bytes_.size()}, piece_) ||
            (at > 0 && piece_.front() <= before)) {
          damaged(id, "its features are not ascending 8-byte hashes");
        }
        at += piece;
        if (!on_piece(piece_)) {
          break;
        }
      }
      return;
    }
    // No handle on the row (a row that is not there, features that are not
    // a BLOB, ...): a failed reopen leaves the handle unusable. The whole
    // read below finds and names the fault.
    row_blob_.reset();
  }
  read_row(id, piece_);
  if (piece_.size() != size) {
    wrong_size(id, size, 8 * piece_.size());
  }
  on_piece(piece_);
}

void SimilarStorage::check_feature_count(std::size_t count) {
  if (count == 0) {
    return;
  }
  sqlite3_stmt* select = statement(kSelectMaxFeatures);
  ResetOnExit reset(select);
  if (!step_row(db_, select)) {
    return;  // a table made before the limit: none
  }
  if (sqlite3_column_type(select, 0) != SQLITE_INTEGER || sqlite3_column_int64(select, 0) < 0) {
    throw SqliteError(SQLITE_CORRUPT_VTAB,
                      prefix(name_) + "damaged config: 'max_features' is not a whole number");
  }
  const auto most = static_cast<std::uint64_t>(sqlite3_column_int64(select, 0));
  if (most != 0 && count > most) {
    throw SqliteError(
        SQLITE_TOOBIG,
        prefix(name_) + "the text has " + std::to_string(count) +
            " distinct features, more than the table's max_features=" + std::to_string(most) +
            " (writing them would hold the write lock for seconds); raise it with INSERT INTO " +
            name_ + "(" + name_ + ") VALUES ('max_features=N'), 0 for no limit");
  }
}

void SimilarStorage::set_max_features(std::uint64_t most) {
  sqlite3_stmt* set = statement(kSetMaxFeatures);
  ResetOnExit reset(set);
  sqlite3_bind_int64(set, 1, static_cast<std::int64_t>(most));
  if (const int rc = sqlite3_step(set); rc != SQLITE_DONE) {
    throw_sqlite(db_, rc);
  }
}

std::string SimilarStorage::integrity_problem() {
  flush();
  Statement rows;
  const std::string sql = format_sql(kSelectAllSimilarRows, schema_.c_str(), name_.c_str());
  if (const int rc = prepare(db_, sql, rows); rc != SQLITE_OK) {
    throw_sqlite(db_, rc);
  }
  postings_->begin_check();
  std::vector<std::uint64_t> hashes;
  std::uint64_t row_count = 0;
  std::size_t visited = 0;
  while (step_row(db_, rows.get())) {
    check_after_every(visited++, kRowsBetweenChecks, [this] { throw_if_interrupted(db_); });
    const std::int64_t id = sqlite3_column_int64(rows.get(), 0);
    const std::string row = prefix(name_) + "row " + std::to_string(id);
    if (sqlite3_column_type(rows.get(), 2) != SQLITE_BLOB &&
        sqlite3_column_bytes(rows.get(), 2) != 0) {
      return row + ": its features are not a BLOB";
    }
    if (!decode_features(column_bytes(rows.get(), 2), hashes)) {
      return row + ": its features are not ascending 8-byte hashes";
    }
    const std::int64_t size = sqlite3_column_int64(rows.get(), 1);
    if (size != static_cast<std::int64_t>(hashes.size())) {
      return row + ": size " + std::to_string(size) + " but " + std::to_string(hashes.size()) +
             " features";
    }
    {
      sqlite3_stmt* has_size = statement(kHasSize);
      ResetOnExit reset(has_size);
      sqlite3_bind_int64(has_size, 1, size);
      sqlite3_bind_int64(has_size, 2, id);
      step_row(db_, has_size);
      if (sqlite3_column_int64(has_size, 0) != 1) {
        return row + ": its size is not in the sizes table";
      }
    }
    ++row_count;
    if (const std::string problem = postings_->row_problem(id, size, hashes); !problem.empty()) {
      return row + ": " + problem;
    }
  }
  const auto count_of = [&](const char* suffix) {
    Statement count;
    const std::string sql =
        format_sql(kCountSimilarShadowRows, schema_.c_str(), name_.c_str(), suffix);
    if (const int rc = prepare(db_, sql, count); rc != SQLITE_OK) {
      throw_sqlite(db_, rc);
    }
    step_row(db_, count.get());
    return static_cast<std::uint64_t>(sqlite3_column_int64(count.get(), 0));
  };
  if (std::string problem = postings_->table_problem(); !problem.empty()) {
    return problem;
  }
  if (const std::uint64_t sizes = count_of("sizes"); sizes != row_count) {
    return prefix(name_) + std::to_string(sizes) + " sizes for " + std::to_string(row_count) +
           " rows: a size names no row";
  }
  return "";
}

std::uint64_t SimilarStorage::feature_count(std::uint64_t feature) {
  const std::uint64_t key = postings_->key_of(feature);
  const std::int64_t stored = postings_->kept_count(key);
  // A negative count (a damaged file) ranks first; the answer stays exact.
  return static_cast<std::uint64_t>(std::max<std::int64_t>(0, stored + pending_.net_count(key)));
}

void SimilarStorage::rename(const std::string& new_name) {
  refuse_rename_after_writes("simhash_similar " + name_, pending_writes_.holds_writes());
  flush();  // its statements name the old tables
  finalize_statements();
  rename_shadow_tables(db_, schema_, name_, new_name, postings_->suffixes());
  name_ = new_name;
  postings_->renamed(new_name);
}

void SimilarStorage::check_droppable() const {
  refuse_drop_in_savepoint_after_writes("simhash_similar " + name_,
                                        pending_writes_.pending_at_an_older_savepoint());
}

void SimilarStorage::finalize_statements() {
  for (CachedStatement& cached : statements_) {
    cached.finalize();
  }
  postings_->finalize();
}

}  // namespace simhash::sql
