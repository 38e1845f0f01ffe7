// SPDX-License-Identifier: MIT
// The shared workload and checks of the fault-injection tests.
#include "fault_workload.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "sqlite_simhash.h"

namespace simhash::testing {

bool sanitized() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

sqlite3* open_with_extension(const std::string& path, const char* vfs) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs) !=
      SQLITE_OK) {
    ADD_FAILURE() << "cannot open " << path << ": " << sqlite3_errmsg(db);
    return db;
  }
  char* message = nullptr;
  if (sqlite3_simhash_init(db, &message, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "cannot register the extension: " << (message != nullptr ? message : "");
  }
  sqlite3_free(message);
  return db;
}

void remove_database(const std::string& path) {
  for (const char* suffix : {"", "-journal", "-wal", "-shm"}) {
    std::remove((path + suffix).c_str());
  }
}

std::string query_text(sqlite3* db, const char* sql) {
  sqlite3_stmt* statement = nullptr;
  std::string text;
  if (sqlite3_prepare_v2(db, sql, -1, &statement, nullptr) != SQLITE_OK) {
    return std::string("prepare failed: ") + sqlite3_errmsg(db);
  }
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(statement); ++i) {
      const auto* cell = reinterpret_cast<const char*>(sqlite3_column_text(statement, i));
      text += cell != nullptr ? cell : "NULL";
      text += i + 1 < sqlite3_column_count(statement) ? "|" : "\n";
    }
  }
  if (rc != SQLITE_DONE) {
    text += std::string("step failed: ") + sqlite3_errmsg(db);
  }
  sqlite3_finalize(statement);
  return text;
}

std::vector<std::string> fault_workload() {
  std::vector<std::string> statements = {
      "CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)",
      "CREATE TABLE mirror(id INTEGER PRIMARY KEY, fp INTEGER)",
      // Each query within k loads the copy of the buckets (a hidden option
      // of test builds), so that its loading and reading fail here too.
      "CREATE VIRTUAL TABLE near USING simhash_index(k=3, load_buckets_after=0)",
  };
  const char* bodies[] = {
      "the quick brown fox jumps over the lazy dog",
      "the quick brown fox jumped over the lazy dog",
      "a completely different sentence about databases",
      "Größe und Straße: Unicode text with ümlauts",
      "the quick brown fox jumps over the lazy dog again",
      "near duplicate detection with simhash fingerprints",
      "near duplicate detection with simhash fingerprint",
      "日本語のテキストもあります",
  };
  for (int i = 0; i < 8; ++i) {
    statements.push_back("INSERT INTO docs VALUES (" + std::to_string(i + 1) + ", '" + bodies[i] +
                         "')");
  }
  statements.insert(
      statements.end(),
      {
          "BEGIN",
          "INSERT INTO near(rowid, fp) SELECT id, simhash(body) FROM docs",
          "INSERT INTO mirror SELECT id, simhash(body) FROM docs",
          "COMMIT",
          "BEGIN",
          "INSERT INTO near(rowid, fp) SELECT id + 100, simhash(body, 'n=2') FROM docs",
          "INSERT INTO mirror SELECT id + 100, simhash(body, 'n=2') FROM docs",
          "UPDATE near SET fp = fp / 2 WHERE rowid % 3 = 0",
          "UPDATE mirror SET fp = fp / 2 WHERE id % 3 = 0",
          "DELETE FROM near WHERE rowid % 4 = 0",
          "DELETE FROM mirror WHERE id % 4 = 0",
          "SELECT rowid, distance FROM near WHERE fp MATCH (SELECT simhash(body) FROM docs)",
          "COMMIT",
          "SELECT rowid, distance FROM near(simhash('quick fox')) ORDER BY distance LIMIT 3",
          "SELECT count(*) FROM simhash_pairs('near', 3)",
          "SELECT count(*) FROM simhash_clusters('near', 10)",
          "SELECT simhash_jaccard(a.body, b.body, 'n=3') FROM docs a, docs b WHERE a.id < b.id",
          "SELECT count(*) FROM simhash_features((SELECT body FROM docs WHERE id = 4))",
          "INSERT INTO near(near) VALUES('rebuild')",
          "INSERT INTO near(near) VALUES('integrity-check')",
          "SELECT * FROM near WHERE near = 'integrity-check'",
      });
  return statements;
}

std::size_t run_statements(sqlite3* db, const std::vector<std::string>& statements, int& rc,
                           char*& message) {
  rc = SQLITE_OK;
  message = nullptr;
  for (std::size_t i = 0; i < statements.size(); ++i) {
    rc = sqlite3_exec(db, statements[i].c_str(), nullptr, nullptr, &message);
    if (rc != SQLITE_OK) {
      return i;
    }
  }
  return statements.size();
}

std::string take_failure(const std::vector<std::string>& statements, std::size_t failed_statement,
                         int rc, char* message) {
  std::string failure;
  if (failed_statement < statements.size()) {
    failure = ": " + statements[failed_statement] + ": " + std::to_string(rc) + " " +
              (message != nullptr ? message : "");
  }
  sqlite3_free(message);
  return failure;
}

void roll_back_and_close(sqlite3* db) {
  if (sqlite3_get_autocommit(db) == 0) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  sqlite3_close(db);
}

void expect_sound_database(const std::string& path, const std::string& context) {
  sqlite3* db = open_with_extension(path);
  EXPECT_EQ(query_text(db, "PRAGMA integrity_check"), "ok\n") << context;
  if (query_text(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'near'") == "1\n") {
    EXPECT_EQ(query_text(db, "SELECT count(*) FROM near WHERE near = 'integrity-check'"), "0\n")
        << context;
    if (query_text(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'mirror'") == "1\n") {
      EXPECT_EQ(query_text(db, "SELECT rowid, fp FROM near ORDER BY rowid"),
                query_text(db, "SELECT id, fp FROM mirror ORDER BY id"))
          << context;
    }
  }
  sqlite3_close(db);
}

}  // namespace simhash::testing
