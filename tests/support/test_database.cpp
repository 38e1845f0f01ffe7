// SPDX-License-Identifier: MIT
// TestDatabase: the SQL-level tests' connection helper.
#include "test_database.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace simhash::testing {
namespace {

// The module the tests load: the build's, unless SIMHASH_TEST_MODULE names
// another (scripts/test.sh points the aarch64 test program at the arm64
// module packed in the npm tarball, so that module is seen to load and answer).
const char* module_path() {
  const char* chosen = std::getenv("SIMHASH_TEST_MODULE");
  return chosen != nullptr && *chosen != '\0' ? chosen : SIMHASH_EXTENSION_PATH;
}

}  // namespace

TestDatabase::TestDatabase(const std::string& path, bool load) {
  const int rc = sqlite3_open_v2(
      path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI, nullptr);
  if (rc != SQLITE_OK) {
    ADD_FAILURE() << "cannot open " << path << ": " << sqlite3_errmsg(db_);
    return;
  }
  if (load) {
    sqlite3_enable_load_extension(db_, 1);
    char* message = nullptr;
    if (sqlite3_load_extension(db_, module_path(), nullptr, &message) != SQLITE_OK) {
      ADD_FAILURE() << "cannot load " << module_path() << ": "
                    << (message != nullptr ? message : "?");
    }
    sqlite3_free(message);
  }
}

TestDatabase::~TestDatabase() { sqlite3_close_v2(db_); }

int TestDatabase::try_exec(std::string_view sql, std::string* message) {
  char* raw = nullptr;
  const std::string owned(sql);
  const int rc = sqlite3_exec(db_, owned.c_str(), nullptr, nullptr, &raw);
  if (message != nullptr) {
    *message = raw != nullptr ? raw : "";
  }
  sqlite3_free(raw);
  return rc;
}

void TestDatabase::exec(std::string_view sql) {
  std::string message;
  if (try_exec(sql, &message) != SQLITE_OK) {
    ADD_FAILURE() << "SQL failed: " << sql << "\n  " << message;
  }
}

std::string TestDatabase::error(std::string_view sql) {
  std::string message;
  if (try_exec(sql, &message) == SQLITE_OK) {
    ADD_FAILURE() << "expected an error from: " << sql;
  }
  return message;
}

namespace {

Cell cell_text(sqlite3_stmt* statement, int column) {
  switch (sqlite3_column_type(statement, column)) {
    case SQLITE_NULL:
      return std::nullopt;
    case SQLITE_BLOB: {
      const auto* bytes = static_cast<const unsigned char*>(sqlite3_column_blob(statement, column));
      const int size = sqlite3_column_bytes(statement, column);
      std::string hex = "X'";
      char digits[3];
      for (int i = 0; i < size; ++i) {
        std::snprintf(digits, sizeof digits, "%02x", bytes[i]);
        hex += digits;
      }
      return hex + "'";
    }
    default: {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, column));
      return std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(statement, column)));
    }
  }
}

}  // namespace

std::vector<Row> TestDatabase::rows(std::string_view sql) {
  std::vector<Row> result;
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &statement, nullptr) !=
      SQLITE_OK) {
    ADD_FAILURE() << "cannot prepare: " << sql << "\n  " << sqlite3_errmsg(db_);
    return result;
  }
  int rc = SQLITE_OK;
  while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
    Row row;
    for (int column = 0; column < sqlite3_column_count(statement); ++column) {
      row.push_back(cell_text(statement, column));
    }
    result.push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) {
    ADD_FAILURE() << "SQL failed: " << sql << "\n  " << sqlite3_errmsg(db_);
    result.clear();
  }
  sqlite3_finalize(statement);
  return result;
}

Cell TestDatabase::cell(std::string_view sql) {
  const std::vector<Row> result = rows(sql);
  if (result.empty() || result.front().empty()) {
    ADD_FAILURE() << "no value from: " << sql;
    return std::nullopt;
  }
  return result.front().front();
}

std::int64_t TestDatabase::integer(std::string_view sql) {
  sqlite3_stmt* statement = nullptr;
  std::int64_t value = 0;
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &statement, nullptr) !=
      SQLITE_OK) {
    ADD_FAILURE() << "cannot prepare: " << sql << "\n  " << sqlite3_errmsg(db_);
  } else if (sqlite3_step(statement) != SQLITE_ROW) {
    ADD_FAILURE() << "no row from: " << sql << "\n  " << sqlite3_errmsg(db_);
  } else if (sqlite3_column_type(statement, 0) != SQLITE_INTEGER) {
    ADD_FAILURE() << "not an INTEGER from: " << sql;
  } else {
    value = sqlite3_column_int64(statement, 0);
  }
  sqlite3_finalize(statement);
  return value;
}

TempDatabaseFile::TempDatabaseFile(const std::string& stem)
    : path_(
          (std::filesystem::temp_directory_path() / (stem + "_" + std::to_string(getpid()) + ".db"))
              .string()) {
  remove_all();
}

TempDatabaseFile::~TempDatabaseFile() { remove_all(); }

void TempDatabaseFile::remove_all() const {
  for (const char* suffix : {"", "-journal", "-wal", "-shm"}) {
    std::remove((path_ + suffix).c_str());
  }
}

void exec_without_extension(const std::string& path, std::string_view sql) {
  TestDatabase(path, false).exec(sql);
}

std::string plan_of(TestDatabase& db, const std::string& sql) {
  std::string plan;
  for (const Row& row : db.rows("EXPLAIN QUERY PLAN " + sql)) {
    plan += row.back().value_or("") + "\n";
  }
  return plan;
}

}  // namespace simhash::testing
