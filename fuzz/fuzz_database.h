// SPDX-License-Identifier: MIT
// The in-memory database the SQL fuzz targets run their programs on: the
// extension registered once for every connection, statements that must
// succeed, and the rows of a query read by the caller's reader. Any
// surprise aborts with the target's name, which libFuzzer reports as a
// crash with the input that caused it.
#pragma once

#include <sqlite3.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sqlite_simhash.h"

namespace simhash::fuzz {

class FuzzDatabase {
 public:
  explicit FuzzDatabase(const char* target) : target_(target) {
    static const bool registered = [] {
      return sqlite3_auto_extension(reinterpret_cast<void (*)()>(sqlite3_simhash_init)) ==
             SQLITE_OK;
    }();
    if (!registered || sqlite3_open(":memory:", &db_) != SQLITE_OK) {
      fail("cannot open");
    }
  }
  ~FuzzDatabase() { sqlite3_close(db_); }
  FuzzDatabase(const FuzzDatabase&) = delete;
  FuzzDatabase& operator=(const FuzzDatabase&) = delete;

  [[noreturn]] void fail(const std::string& what) const {
    std::fprintf(stderr, "%s: %s\n", target_, what.c_str());
    std::abort();
  }

  sqlite3* handle() const { return db_; }

  int run(const std::string& sql) {
    return sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
  }
  void exec(const std::string& sql) {
    if (run(sql) != SQLITE_OK) {
      fail(sql + ": " + sqlite3_errmsg(db_));
    }
  }

  // The rows of `sql` with `bind(statement)` applied first, each made by
  // `read(statement)`; the statement must succeed.
  template <typename Row, typename Bind, typename Read>
  std::vector<Row> rows(const std::string& sql, Bind&& bind, Read&& read) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
      fail(sql + ": " + sqlite3_errmsg(db_));
    }
    bind(statement);
    std::vector<Row> out;
    int rc = SQLITE_ROW;
    while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
      out.push_back(read(statement));
    }
    sqlite3_finalize(statement);
    if (rc != SQLITE_DONE) {
      fail(sql + ": " + sqlite3_errmsg(db_));
    }
    return out;
  }

 private:
  const char* target_;
  sqlite3* db_ = nullptr;
};

// BEGIN and SAVEPOINTs, each with the model as it was then, so that COMMIT,
// ROLLBACK and ROLLBACK TO change the model as they change the database.
template <typename Model>
class ModelTransactions {
 public:
  void begin(FuzzDatabase& db, const Model& model) {
    db.exec(saved_.empty() ? std::string("BEGIN") : "SAVEPOINT s" + std::to_string(saved_.size()));
    saved_.push_back(model);
  }
  void commit(FuzzDatabase& db) {
    if (!saved_.empty()) {
      db.exec("COMMIT");
      saved_.clear();
    }
  }
  // The last savepoint's rollback (which stays open), or the transaction's.
  void roll_back(FuzzDatabase& db, Model& model) {
    if (saved_.size() == 1) {
      db.exec("ROLLBACK");
      model = saved_.front();
      saved_.clear();
    } else if (saved_.size() > 1) {
      db.exec("ROLLBACK TO s" + std::to_string(saved_.size() - 1));
      model = saved_.back();
    }
  }

 private:
  std::vector<Model> saved_;  // the model at BEGIN, then at each SAVEPOINT
};

}  // namespace simhash::fuzz
