// SPDX-License-Identifier: MIT
// The simhash_index virtual table module: option parsing, xCreate and
// xConnect, special commands, xUpdate with conflict handling, the
// transaction callbacks that drive the pending buffer of IndexStorage, and
// the module's registration. xBestIndex (plan choice and the idxStr
// encoding) is in index_vtab_plan.cpp, the cursors in index_vtab_cursor.cpp;
// what they share in index_vtab_internal.h. See ARCHITECTURE.md for the design.
#include <cctype>
#include <charconv>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ext/common/shared_storage.h"
#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"
#include "ext/common/storage_table.h"
#include "ext/common/test_knobs.h"
#include "ext/common/virtual_table.h"
#include "ext/index/index_shadow_tables.h"
#include "ext/index/index_storage.h"
#include "ext/index/index_vtab_internal.h"
#include "ext/registration.h"
#include "index/permutation_plan.h"
#include "text/icu_versions.h"
#include "util/key_value_options.h"

namespace simhash::sql::index_vtab {

namespace {

std::string lower(std::string text) {
  for (char& c : text) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return text;
}

// True when `name` (any case) is one of the declared columns. The table also
// declares a hidden column named after itself (for commands), so a table of
// such a name would declare that column twice and be unusable.
bool is_column_name(std::string_view name) {
  const std::string lowered = lower(std::string(name));
  return lowered == "fp" || lowered == "distance" || lowered == "query" || lowered == "radius";
}

// The CREATE VIRTUAL TABLE arguments as one option string: SQLite hands
// them over split at commas.
std::string joined_arguments(int argc, const char* const* argv) {
  std::string text;
  for (int i = 3; i < argc; ++i) {
    text += i > 3 ? ", " : "";
    text += argv[i];
  }
  return text;
}

// The keys of the CREATE arguments: k and blocks, stored in the config; then,
// in a build with tests (ext/common/test_knobs.h), the hidden
// packed_scan_limit, flush_after and load_buckets_after, which the
// unknown-key message does not list and the config does not store (SQLite
// gives the CREATE arguments again at every connect).
constexpr std::string_view kOptionKeys[] = {"k", "blocks", "packed_scan_limit", "flush_after",
                                            "load_buckets_after"};
constexpr std::size_t kListedOptionKeys = 2;
constexpr std::span<const std::string_view> kAcceptedOptionKeys =
    std::span(kOptionKeys).first(kTestKnobs ? std::size(kOptionKeys) : kListedOptionKeys);
constexpr std::size_t kPackedScanLimitKey = 2;
constexpr std::size_t kFlushAfterKey = 3;
constexpr std::size_t kLoadBucketsAfterKey = 4;

struct HiddenOptions {
  std::size_t packed_scan_limit = IndexStorage::kDefaultPackedScanLimit;
  std::size_t flush_after = IndexStorage::kMaxPending;
  std::optional<std::size_t> load_buckets_after;  // none: the cost rule
};

// A hidden option's value: a whole number of pending changes (0: any
// pending change sends the n nearest to the data table's scan, or is merged
// at the next write), or of probes (0: the first probe at a data version
// loads the copy of the buckets). Every other key is not hidden: true.
bool read_hidden_option(std::size_t key, std::string_view value, HiddenOptions& options,
                        std::string& error) {
  if (key != kPackedScanLimitKey && key != kFlushAfterKey && key != kLoadBucketsAfterKey) {
    return true;
  }
  std::size_t number = 0;
  const auto [end, problem] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (value.empty() || problem != std::errc() || end != value.data() + value.size()) {
    error = message_text({"simhash_index: option ", kOptionKeys[key], " must be a whole number of ",
                          key == kLoadBucketsAfterKey ? "probes" : "pending changes", ", got \"",
                          value, "\""});
    return false;
  }
  if (key == kPackedScanLimitKey) {
    options.packed_scan_limit = number;
  } else if (key == kFlushAfterKey) {
    options.flush_after = number;
  } else {
    options.load_buckets_after = number;
  }
  return true;
}

struct CreateOptions {
  IndexConfig config;
  HiddenOptions hidden;
};

// Parses the CREATE VIRTUAL TABLE arguments, by the rule of every option
// string (util/key_value_options.h).
CreateOptions parse_options(int argc, const char* const* argv) {
  std::optional<int> values[2];
  CreateOptions options;
  const auto read_value = [&](std::size_t key, std::string_view value, std::string& error) {
    if (key >= kListedOptionKeys) {
      return read_hidden_option(key, value, options.hidden, error);
    }
    int number = 0;
    const auto [end, problem] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (value.empty() || problem != std::errc() || end != value.data() + value.size()) {
      error = message_text(
          {"simhash_index: option ", kOptionKeys[key], " must be an integer, got \"", value, "\""});
      return false;
    }
    values[key] = number;
    return true;
  };
  std::string error;
  if (!parse_key_values(joined_arguments(argc, argv), "simhash_index", kAcceptedOptionKeys,
                        read_value, error, kListedOptionKeys)) {
    throw SqliteError(SQLITE_ERROR, error);
  }
  IndexConfig& config = options.config;
  config.k = values[0].value_or(3);
  if (config.k < 0 || config.k > kMaxIndexK) {
    throw SqliteError(SQLITE_ERROR, "simhash_index: option k=" + std::to_string(config.k) +
                                        " is out of range (0 to " + std::to_string(kMaxIndexK) +
                                        ")");
  }
  config.blocks = values[1].value_or(PermutationPlan::default_blocks(config.k));
  return options;
}

// At connect: the hidden options of the CREATE arguments (the stored config
// holds the rest; the arguments were checked when CREATE ran).
HiddenOptions hidden_options_at_connect(int argc, const char* const* argv) {
  HiddenOptions options;
  const auto read_value = [&](std::size_t key, std::string_view value, std::string& error) {
    return read_hidden_option(key, value, options, error);
  };
  std::string error;
  if (!parse_key_values(joined_arguments(argc, argv), "simhash_index", kAcceptedOptionKeys,
                        read_value, error)) {
    return HiddenOptions{};
  }
  return options;
}

// Every permuted copy stores every row again (about 10 bytes each) and
// every write touches each copy, while a radius above k is served from the
// copies anyway (multi-probe): a plan of more copies than this is refused at
// CREATE. Indexes made before the limit still open.
constexpr int kMaxIndexCopies = 64;

// The plan of a new index, checked: a valid plan, within kMaxIndexCopies.
PermutationPlan make_plan(const IndexConfig& config) {
  std::string error;
  auto plan = PermutationPlan::create(config.k, config.blocks, error);
  if (!plan) {
    throw SqliteError(SQLITE_ERROR, "simhash_index: option " + error);
  }
  if (plan->table_count() > kMaxIndexCopies) {
    throw SqliteError(
        SQLITE_ERROR,
        "simhash_index: option k=" + std::to_string(config.k) + " with blocks=" +
            std::to_string(plan->blocks()) + " stores " + std::to_string(plan->table_count()) +
            " permuted copies of every row (the limit is " + std::to_string(kMaxIndexCopies) +
            "); keep k small (k=3 stores 4) and give the radius when searching, as in "
            "near(:q, " +
            std::to_string(config.k) + "): the index answers any radius exactly from its copies");
  }
  return *plan;
}

// An index made under another ICU or Unicode version still answers exactly
// (it stores the fingerprints it was given), but simhash() of the same text
// may now give a slightly different fingerprint, so a query by text can miss
// rows it used to find. Not an error: the warning goes to SQLite's error log
// (sqlite3_config(SQLITE_CONFIG_LOG)), and the README shows the SQL that
// compares the index's config with simhash_icu_version().
void warn_on_icu_mismatch(const std::string& name, const IndexConfig& config) {
  if (config.icu.empty() && config.unicode.empty()) {
    return;  // created before the versions were recorded
  }
  const IcuVersions running = icu_versions();
  if (config.icu != running.icu || config.unicode != running.unicode) {
    sqlite3_log(SQLITE_WARNING,
                "simhash_index %s: created with ICU %s (Unicode %s), now running ICU %s (Unicode "
                "%s): fingerprints of the same text may differ",
                name.c_str(), config.icu.c_str(), config.unicode.c_str(), running.icu.c_str(),
                running.unicode.c_str());
  }
}

int connect_or_create(sqlite3* db, int argc, const char* const* argv, sqlite3_vtab** vtab,
                      char** error, bool create) {
  *vtab = nullptr;
  return guard(error, [&] {
    const std::string schema = argv[1];
    const std::string name = argv[2];
    std::optional<StoredIndex> stored;
    HiddenOptions hidden;
    if (create) {
      if (is_column_name(name)) {
        throw SqliteError(SQLITE_ERROR, "simhash_index: a table cannot be named '" + name +
                                            "' (a column has that name)");
      }
      CreateOptions options = parse_options(argc, argv);
      IndexConfig& config = options.config;
      hidden = options.hidden;
      PermutationPlan plan = make_plan(config);  // validates before anything is created
      const IcuVersions versions = icu_versions();
      config.icu = versions.icu;
      config.unicode = versions.unicode;
      create_shadow_tables(db, schema, name, config);
      stored.emplace(StoredIndex{config, std::move(plan)});
    }
    auto table = std::make_unique<IndexTable>();
    table->db = db;
    table->schema = schema;
    table->name = name;
    table->registration.emplace(db, schema, name);
    if (!create) {
      hidden = hidden_options_at_connect(argc, argv);
      try {
        stored.emplace(read_index_config(db, schema, name));
        warn_on_icu_mismatch(name, stored->config);
      } catch (const SqliteError& error) {
        table->unreadable =
            std::string(error.what()) + " (DROP TABLE " + name + " still removes it)";
        table->unreadable_code = error.code();
      }
    }
    // The hidden column of the n nearest is `nearest`, but `nearest_count` in
    // a table named nearest, whose command column has that name.
    const char* nearest_column = lower(name) == "nearest" ? "nearest_count" : "nearest";
    const std::string declaration = format_sql(
        "CREATE TABLE x(fp, distance, query HIDDEN, radius HIDDEN, %s HIDDEN, \"%w\" HIDDEN)",
        nearest_column, name.c_str());
    const int rc = sqlite3_declare_vtab(db, declaration.c_str());
    if (rc != SQLITE_OK) {
      throw SqliteError(rc, sqlite3_errmsg(db));
    }
    sqlite3_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1);
    // Innocuous, as rtree is: a statement on the index reads and writes only
    // the index's own shadow tables in the same database, so a trigger or a
    // view of an untrusted schema can do nothing through it that it could
    // not do to an ordinary table (PRAGMA trusted_schema=OFF allows it).
    sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
    if (stored) {
      table->storage = SharedStorages<IndexStorage>::instance().connect(
          db, schema, name, create,
          [&] { return std::make_shared<IndexStorage>(db, schema, name, *stored); });
      table->storage->set_packed_scan_limit(hidden.packed_scan_limit);
      table->storage->set_flush_after(hidden.flush_after);
      table->storage->set_load_buckets_after(hidden.load_buckets_after);
    }
    return hand_over(std::move(table), vtab);
  });
}

int x_create(sqlite3* db, void*, int argc, const char* const* argv, sqlite3_vtab** vtab,
             char** error) {
  return connect_or_create(db, argc, argv, vtab, error, true);
}

int x_connect(sqlite3* db, void*, int argc, const char* const* argv, sqlite3_vtab** vtab,
              char** error) {
  return connect_or_create(db, argc, argv, vtab, error, false);
}

}  // namespace

// A command as SQL shows it (42 reads as "42"), for matching and messages.
std::string text_argument(sqlite3_value* command) {
  const unsigned char* text = sqlite3_value_text(command);
  return text != nullptr ? reinterpret_cast<const char*>(text) : std::string();
}

void check_integrity(IndexStorage& storage) {
  if (const std::string problem = storage.integrity_problem(); !problem.empty()) {
    throw SqliteError(SQLITE_CORRUPT_VTAB, problem);
  }
}

namespace {

int run_command(IndexTable* table, sqlite3_value* command) {
  IndexStorage& storage = table->usable_storage();
  const std::string text = text_argument(command);
  if (text == "integrity-check") {
    check_integrity(storage);
    return SQLITE_OK;
  }
  if (text == "rebuild") {
    storage.rebuild();
    return SQLITE_OK;
  }
  throw SqliteError(SQLITE_ERROR, "simhash_index " + storage.name() + ": unknown command '" + text +
                                      "' (known: 'integrity-check', 'rebuild')");
}

// The fp written: an INTEGER, or NULL (a text without words has no
// fingerprint: stored, never found). Anything else is an error.
StoredFingerprint fingerprint_argument(sqlite3_value* value, const std::string& name) {
  const int type = sqlite3_value_type(value);
  if (type == SQLITE_NULL) {
    return std::nullopt;
  }
  if (type != SQLITE_INTEGER) {
    throw SqliteError(SQLITE_MISMATCH, "simhash_index " + name +
                                           ": fp must be an INTEGER fingerprint or NULL, got " +
                                           described(value));
  }
  return sqlite3_value_int64(value);
}

std::int64_t rowid_argument(sqlite3_value* value, const std::string& name) {
  if (sqlite3_value_type(value) != SQLITE_INTEGER) {
    throw SqliteError(SQLITE_MISMATCH, "simhash_index " + name +
                                           ": rowid must be an INTEGER, got " + type_name(value));
  }
  return sqlite3_value_int64(value);
}

[[noreturn]] void throw_computed_column_written(int column, const std::string& name) {
  if (column == kColumnCommand) {
    throw SqliteError(SQLITE_ERROR, "simhash_index " + name + ": column " + name +
                                        " takes commands in INSERT only");
  }
  const char* const names[] = {"fp", "distance", "query", "radius", "nearest"};
  throw SqliteError(SQLITE_ERROR, "simhash_index " + name + ": column " + names[column] +
                                      " is computed by queries and cannot be written");
}

int x_update(sqlite3_vtab* vtab, int argc, sqlite3_value** argv, sqlite3_int64* rowid) {
  IndexTable* table = table_of(vtab);
  const int conflict = sqlite3_vtab_on_conflict(table->db);
  const sqlite3_int64 last_rowid = sqlite3_last_insert_rowid(table->db);
  const int rc = guard(vtab, "simhash_index", [&] {
    const InsideIndex inside(*table);
    IndexStorage& storage = table->usable_storage();
    if (argc == 1) {
      storage.remove(sqlite3_value_int64(argv[0]));
      return SQLITE_OK;
    }
    sqlite3_value** columns = argv + 2;
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
      if (sqlite3_value_type(columns[kColumnCommand]) != SQLITE_NULL) {
        *rowid = last_rowid;  // SQLite sets last_insert_rowid() to it
        return run_command(table, columns[kColumnCommand]);
      }
      for (int column : {kColumnDistance, kColumnQuery, kColumnRadius, kColumnNearest}) {
        if (sqlite3_value_type(columns[column]) != SQLITE_NULL) {
          throw_computed_column_written(column, storage.name());
        }
      }
      const StoredFingerprint fp = fingerprint_argument(columns[kColumnFp], storage.name());
      std::optional<std::int64_t> id;
      if (sqlite3_value_type(argv[1]) != SQLITE_NULL) {
        id = rowid_argument(argv[1], storage.name());
      }
      *rowid = storage.insert(id, fp, conflict);
      return SQLITE_OK;
    }
    // UPDATE: every column it does not set arrives unchanged (see x_column).
    for (int column :
         {kColumnDistance, kColumnQuery, kColumnRadius, kColumnNearest, kColumnCommand}) {
      if (!sqlite3_value_nochange(columns[column])) {
        throw_computed_column_written(column, storage.name());
      }
    }
    const StoredFingerprint fp = fingerprint_argument(columns[kColumnFp], storage.name());
    const std::int64_t new_id = rowid_argument(argv[1], storage.name());
    storage.update(sqlite3_value_int64(argv[0]), new_id, fp, conflict);
    return SQLITE_OK;
  });
  if (argc == 1 || sqlite3_value_type(argv[0]) != SQLITE_NULL) {
    sqlite3_set_last_insert_rowid(table->db, last_rowid);
  }
  if ((rc & 0xff) == SQLITE_CONSTRAINT && conflict == SQLITE_IGNORE) {
    sqlite3_free(vtab->zErrMsg);
    vtab->zErrMsg = nullptr;
  }
  return rc;
}

int x_begin(sqlite3_vtab*) { return SQLITE_OK; }

int x_sync(sqlite3_vtab* vtab) {
  return guard(vtab, [&] {
    const InsideIndex inside(*table_of(vtab));
    table_of(vtab)->usable_storage().flush();
    return SQLITE_OK;
  });
}

int x_commit(sqlite3_vtab* vtab) {
  if (IndexTable* table = table_of(vtab); table->storage) {
    table->storage->discard_pending();
  }
  return SQLITE_OK;
}

int x_rollback(sqlite3_vtab* vtab) {
  if (IndexTable* table = table_of(vtab); table->storage) {
    table->storage->discard_pending();
    table->storage->drop_packed_codes();
    table->storage->drop_cached_buckets();
  }
  return SQLITE_OK;
}

int x_rename(sqlite3_vtab* vtab, const char* new_name) {
  return guard(vtab, [&] {
    const InsideIndex inside(*table_of(vtab));
    // Renamed after a column, the table could then not even be dropped
    // (is_column_name); a rowid alias would hide the rowid behind the
    // command column.
    const std::string lowered = lower(new_name);
    if (is_column_name(new_name) || lowered == "rowid" || lowered == "oid" ||
        lowered == "_rowid_") {
      throw SqliteError(SQLITE_ERROR, "simhash_index " + table_of(vtab)->name +
                                          ": cannot rename to '" + new_name +
                                          "': the name of one of its columns");
    }
    table_of(vtab)->usable_storage().rename(new_name);
    table_of(vtab)->name = new_name;
    table_of(vtab)->registration->rename(new_name);
    return SQLITE_OK;
  });
}

// The pending changes stay pending across savepoints (IndexStorage::savepoint).
int x_savepoint(sqlite3_vtab* vtab, int level) {
  return guard(vtab, [&] {
    if (IndexTable* table = table_of(vtab); table->storage) {
      table->storage->savepoint(level);
    }
    return SQLITE_OK;
  });
}

int x_release(sqlite3_vtab* vtab, int level) {
  if (IndexTable* table = table_of(vtab); table->storage) {
    table->storage->release(level);
  }
  return SQLITE_OK;
}

int x_rollback_to(sqlite3_vtab* vtab, int level) {
  return guard(vtab, [&] {
    if (IndexTable* table = table_of(vtab); table->storage) {
      table->storage->rollback_to(level);
    }
    return SQLITE_OK;
  });
}

int x_shadow_name(const char* suffix) { return is_shadow_suffix(suffix) ? 1 : 0; }

#if SQLITE_VERSION_NUMBER >= 3044000
int x_integrity(sqlite3_vtab* vtab, const char*, const char*, int, char** error) {
  return guard(vtab, [&] {
    const InsideIndex inside(*table_of(vtab));
    const std::string problem = table_of(vtab)->usable_storage().integrity_problem();
    if (!problem.empty()) {
      *error = sqlite3_mprintf("%s", problem.c_str());
    }
    return SQLITE_OK;
  });
}
#endif

}  // namespace

}  // namespace simhash::sql::index_vtab

namespace simhash::sql {
namespace {

using namespace index_vtab;

sqlite3_module make_module() {
  sqlite3_module module{};
#if SQLITE_VERSION_NUMBER >= 3044000
  module.iVersion = 4;
  module.xIntegrity = x_integrity;
#else
  module.iVersion = 3;
#endif
  module.xCreate = x_create;
  module.xConnect = x_connect;
  module.xBestIndex = x_best_index;
  module.xDisconnect = disconnect_storage_table<IndexTable>;
  module.xDestroy = destroy_storage_table<IndexTable, drop_shadow_tables>;
  module.xOpen = x_open;
  module.xClose = x_close;
  module.xFilter = x_filter;
  module.xNext = x_next;
  module.xEof = x_eof;
  module.xColumn = x_column;
  module.xRowid = x_rowid;
  module.xUpdate = x_update;
  module.xBegin = x_begin;
  module.xSync = x_sync;
  module.xCommit = x_commit;
  module.xRollback = x_rollback;
  module.xRename = x_rename;
  module.xSavepoint = x_savepoint;
  module.xRelease = x_release;
  module.xRollbackTo = x_rollback_to;
  module.xShadowName = x_shadow_name;
  return module;
}

const sqlite3_module index_module = make_module();

}  // namespace

int register_index_module(sqlite3* db, char** error) {
  return register_module(db, "simhash_index", &index_module, error);
}

}  // namespace simhash::sql
