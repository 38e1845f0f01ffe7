// SPDX-License-Identifier: MIT
// The shadow tables of a simhash_index: DDL, config checks (see
// index_shadow_tables.h for the layout).
#include "ext/index/index_shadow_tables.h"

#include <optional>
#include <string_view>

#include "ext/common/shadow_tables.h"
#include "ext/common/sqlite_support.h"
#include "index/permutation_plan.h"

namespace simhash::sql {
namespace {

[[noreturn]] void throw_damaged(const std::string& name, const std::string& problem) {
  throw SqliteError(SQLITE_CORRUPT_VTAB, "simhash_index " + name + ": " + problem);
}

}  // namespace

bool is_shadow_suffix(const char* suffix) {
  for (const char* known : kShadowSuffixes) {
    if (std::string_view(suffix) == known) {
      return true;
    }
  }
  return false;
}

void create_shadow_tables(sqlite3* db, const std::string& schema, const std::string& name,
                          const IndexConfig& config) {
  exec_sql(db, format_sql(kCreateShadowTables, schema.c_str(), name.c_str(), schema.c_str(),
                          name.c_str(), schema.c_str(), name.c_str(), schema.c_str(), name.c_str(),
                          config.k, config.blocks, config.format, config.icu.c_str(),
                          config.unicode.c_str()));
}

void drop_shadow_tables(sqlite3* db, const std::string& schema, const std::string& name) {
  drop_shadow_tables_or_views(db, schema, name, kShadowSuffixes);
}

void rename_shadow_tables(sqlite3* db, const std::string& schema, const std::string& name,
                          const std::string& new_name) {
  sql::rename_shadow_tables(db, schema, name, new_name, kShadowSuffixes);
}

std::optional<int> bucket_bits_in_probe_row(sqlite3_stmt* statement) {
  const sqlite3_int64 value = sqlite3_column_int64(statement, 1);
  if (sqlite3_column_type(statement, 1) != SQLITE_INTEGER || value < BucketLayout::kMinBucketBits ||
      value > BucketLayout::kMaxBucketBits) {
    return std::nullopt;
  }
  return static_cast<int>(value);
}

std::optional<std::int64_t> row_count_in(sqlite3_stmt* statement, int column,
                                         const std::string& name) {
  if (sqlite3_column_type(statement, column) != SQLITE_INTEGER) {
    return std::nullopt;
  }
  const sqlite3_int64 rows = sqlite3_column_int64(statement, column);
  if (rows < 0 || rows > kMaxIndexRows) {
    throw_damaged(name, "the config table's rows is " + std::to_string(rows) +
                            ", not a count of rows a database can hold");
  }
  return rows;
}

void store_bucket_bits(sqlite3* db, const std::string& schema, const std::string& name, int bits) {
  // Single-row statements: they need no statement journal, so SQLite does
  // not open a savepoint (and call xSavepoint) in the middle of a merge.
  if (bits == BucketLayout::kDefaultBucketBits) {
    exec_sql(db, format_sql(kUpdateBucketBits, schema.c_str(), name.c_str(), bits));
    return;
  }
  exec_sql(db, format_sql(kStoreBucketBits, schema.c_str(), name.c_str(), bits));
  exec_sql(db, format_sql(kRaiseFormat, schema.c_str(), name.c_str(), kGrowingBucketsFormat,
                          kGrowingBucketsFormat));
}

void mark_null_fingerprints(sqlite3* db, const std::string& schema, const std::string& name) {
  // Single-row statements, as in store_bucket_bits.
  exec_sql(db, format_sql(kAddBucketBits, schema.c_str(), name.c_str(),
                          BucketLayout::kDefaultBucketBits));
  exec_sql(db, format_sql(kRaiseFormat, schema.c_str(), name.c_str(), kIndexFormat, kIndexFormat));
}

std::string null_fingerprint_refused(const std::string& name) {
  return "simhash_index " + name +
         ": fp is NULL (simhash() of a text without words), and this index was created by a "
         "release before 0.2, which stores no NULL fingerprint: skip them with WHERE fp IS NOT "
         "NULL, or create the index again to store them";
}

StoredIndex read_index_config(sqlite3* db, const std::string& schema, const std::string& name) {
  check_shadow_tables(db, schema, name, kShadowSuffixes, "simhash_index");
  Statement statement;
  const std::string sql = format_sql(kSelectConfig, schema.c_str(), name.c_str());
  int rc = prepare(db, sql, statement);
  if (rc != SQLITE_OK) {
    throw SqliteError(rc, "simhash_index " + name + ": cannot read its config table (" +
                              sqlite3_errmsg(db) + ")");
  }
  std::optional<int> k;
  std::optional<int> blocks;
  std::optional<int> format;
  std::optional<int> bucket_bits;
  std::optional<std::int64_t> rows;
  std::string icu;
  std::string unicode;
  while ((rc = sqlite3_step(statement.get())) == SQLITE_ROW) {
    const auto* key_text = reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), 0));
    const std::string key = key_text != nullptr ? key_text : "";
    if (key == "icu" || key == "unicode") {
      // Informative only (see IndexConfig): any value is kept as text.
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), 1));
      (key == "icu" ? icu : unicode) = text != nullptr ? text : "";
      continue;
    }
    std::optional<int>* slot = key == "k"             ? &k
                               : key == "blocks"      ? &blocks
                               : key == "format"      ? &format
                               : key == "bucket_bits" ? &bucket_bits
                                                      : nullptr;
    if (slot == nullptr && key != "rows") {
      continue;
    }
    // A value that is not a non-negative INTEGER (small, but for the rows)
    // must not be read as some number.
    const sqlite3_int64 stored = sqlite3_column_int64(statement.get(), 1);
    if (sqlite3_column_type(statement.get(), 1) != SQLITE_INTEGER || stored < 0 ||
        (slot != nullptr && stored > 1'000'000)) {
      const auto* shown = reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), 1));
      throw_damaged(name, "the config table's " + key + " is '" +
                              (shown != nullptr ? shown : "NULL") + "', not a count");
    }
    if (slot == nullptr) {
      rows = row_count_in(statement.get(), 1, name);
    } else {
      *slot = static_cast<int>(stored);
    }
  }
  if (rc != SQLITE_DONE) {
    throw SqliteError(rc, sqlite3_errmsg(db));
  }
  if (!k || !blocks || !format) {
    throw_damaged(name, std::string("the config table lacks ") + (!k        ? "k"
                                                                  : !blocks ? "blocks"
                                                                            : "format"));
  }
  IndexConfig config;
  config.k = *k;
  config.blocks = *blocks;
  config.format = *format;
  config.rows = rows;
  config.icu = icu;
  config.unicode = unicode;
  if (config.format > kIndexFormat) {
    throw SqliteError(SQLITE_ERROR, "simhash_index " + name + ": storage format " +
                                        std::to_string(config.format) +
                                        " is newer than this extension reads (format " +
                                        std::to_string(kIndexFormat) +
                                        "); upgrade the simhash extension");
  }
  if (config.format < 1) {
    throw_damaged(name, "unknown storage format " + std::to_string(config.format));
  }
  if (config.format < kFixedBucketsFormat) {
    throw SqliteError(SQLITE_ERROR, "simhash_index " + name + ": storage format " +
                                        std::to_string(config.format) +
                                        " is an older development layout this extension no "
                                        "longer reads (formats " +
                                        std::to_string(kFixedBucketsFormat) + " to " +
                                        std::to_string(kIndexFormat) +
                                        "); drop the table and create it again");
  }
  if (config.format == kFixedBucketsFormat) {
    if (bucket_bits && *bucket_bits != BucketLayout::kDefaultBucketBits) {
      throw_damaged(name, "format " + std::to_string(kFixedBucketsFormat) + " has bucket_bits=" +
                              std::to_string(*bucket_bits) + "; only 16 is valid there");
    }
  } else if (!bucket_bits) {
    throw_damaged(name, "the config table lacks bucket_bits");
  } else if (*bucket_bits < BucketLayout::kMinBucketBits ||
             *bucket_bits > BucketLayout::kMaxBucketBits) {
    throw_damaged(name, "stored bucket_bits=" + std::to_string(*bucket_bits) +
                            " is out of range (" + std::to_string(BucketLayout::kMinBucketBits) +
                            " to " + std::to_string(BucketLayout::kMaxBucketBits) + ")");
  } else {
    config.bucket_bits = *bucket_bits;
  }
  if (config.k > kMaxIndexK) {
    throw_damaged(name, "stored k=" + std::to_string(config.k) + " is invalid");
  }
  std::string error;
  std::optional<PermutationPlan> plan = PermutationPlan::create(config.k, config.blocks, error);
  if (!plan) {
    throw_damaged(name, "the stored plan is invalid (" + error + ")");
  }
  return StoredIndex{config, *std::move(plan)};
}

}  // namespace simhash::sql
