// SPDX-License-Identifier: MIT
// libFuzzer target: SQL on simhash_similar, checked against a model. The
// input is a program of 4-byte instructions (operation, rowid, two bytes
// that make a text near one of a few bases) run on an in-memory database:
// inserts (plain, OR REPLACE), updates of text and rowid, deletes, BEGIN /
// COMMIT / ROLLBACK / SAVEPOINT / ROLLBACK TO, and queries at thresholds
// 0.5 to 1.0. Every answer must be the stored rows whose simhash_jaccard
// with the query reaches the threshold, with that similarity; every write
// must succeed or fail as the model predicts; the integrity check must pass
// at the end.
#include <sqlite3.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_database.h"
#include "fuzz_texts.h"

namespace {

constexpr const char* kOptions = "n=3 weight=binary symbols=strict";
using Model = std::map<std::int64_t, std::string>;
using Hit = std::pair<std::int64_t, double>;

class Database : public simhash::fuzz::FuzzDatabase {
 public:
  Database() : FuzzDatabase("similar_sql_fuzzer") {
    exec(std::string("CREATE VIRTUAL TABLE sim USING simhash_similar(threshold=0.5, options='") +
         kOptions + "')");
  }

  int write(const std::string& sql, std::int64_t id, const std::string& body) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(handle(), sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
      fail(sql + ": " + sqlite3_errmsg(handle()));
    }
    sqlite3_bind_int64(statement, 1, id);
    sqlite3_bind_text(statement, 2, body.data(), static_cast<int>(body.size()), SQLITE_TRANSIENT);
    const int rc = sqlite3_step(statement);
    sqlite3_finalize(statement);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
  }

  std::vector<Hit> found(const std::string& query, double threshold) {
    return rows<Hit>(
        "SELECT rowid, similarity FROM sim(?1, ?2) ORDER BY rowid",
        [&](sqlite3_stmt* statement) {
          sqlite3_bind_text(statement, 1, query.data(), static_cast<int>(query.size()),
                            SQLITE_TRANSIENT);
          sqlite3_bind_double(statement, 2, threshold);
        },
        [](sqlite3_stmt* statement) {
          return Hit(sqlite3_column_int64(statement, 0), sqlite3_column_double(statement, 1));
        });
  }

  // The model's rows at `threshold` or more, by simhash_jaccard itself.
  std::vector<Hit> expected(const Model& model, const std::string& query, double threshold) {
    std::vector<Hit> out;
    for (const auto& row : model) {
      const std::string& body = row.second;
      const auto similarity = rows<double>(
          std::string("SELECT simhash_jaccard(?1, ?2, '") + kOptions + "')",
          [&](sqlite3_stmt* statement) {
            sqlite3_bind_text(statement, 1, query.data(), static_cast<int>(query.size()),
                              SQLITE_TRANSIENT);
            sqlite3_bind_text(statement, 2, body.data(), static_cast<int>(body.size()),
                              SQLITE_TRANSIENT);
          },
          [](sqlite3_stmt* statement) {
            return sqlite3_column_type(statement, 0) == SQLITE_NULL
                       ? -1.0
                       : sqlite3_column_double(statement, 0);
          });
      if (similarity.at(0) >= threshold) {
        out.emplace_back(row.first, similarity[0]);
      }
    }
    return out;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Database db;
  Model model;
  simhash::fuzz::ModelTransactions<Model> transactions;
  for (std::size_t at = 0; at + 4 <= size && at < 4 * 200; at += 4) {
    const std::uint8_t op = data[at] % 10;
    const std::int64_t id = data[at + 1] % 16;
    const std::string body = simhash::fuzz::text(data[at + 2], data[at + 3]);
    const std::string ids = std::to_string(id);
    switch (op) {
      case 0: {
        const int rc = db.write("INSERT INTO sim(rowid, text) VALUES (?1, ?2)", id, body);
        if ((rc == SQLITE_OK) != (model.count(id) == 0)) {
          db.fail("insert of rowid " + ids + " gave " + std::to_string(rc));
        }
        model.emplace(id, body);
        break;
      }
      case 1:
        if (db.write("INSERT OR REPLACE INTO sim(rowid, text) VALUES (?1, ?2)", id, body) !=
            SQLITE_OK) {
          db.fail("insert or replace of rowid " + ids);
        }
        model[id] = body;
        break;
      case 2:
        if (db.write("UPDATE sim SET text = ?2 WHERE rowid = ?1", id, body) != SQLITE_OK) {
          db.fail("update of rowid " + ids);
        }
        if (model.count(id) != 0) {
          model[id] = body;
        }
        break;
      case 3: {
        const std::int64_t new_id = (id + 1 + data[at + 3] % 15) % 16;
        const int rc =
            db.run("UPDATE sim SET rowid = " + std::to_string(new_id) + " WHERE rowid = " + ids);
        const bool expect_ok = model.count(id) == 0 || model.count(new_id) == 0;
        if ((rc == SQLITE_OK) != expect_ok) {
          db.fail("update of rowid " + ids + " gave " + std::to_string(rc));
        }
        if (rc == SQLITE_OK && model.count(id) != 0) {
          std::string moved = model[id];
          model.erase(id);
          model[new_id] = std::move(moved);
        }
        break;
      }
      case 4:
        db.exec("DELETE FROM sim WHERE rowid = " + ids);
        model.erase(id);
        break;
      case 5:
        transactions.begin(db, model);
        break;
      case 6:
        transactions.commit(db);
        break;
      case 7:
        transactions.roll_back(db, model);
        break;
      default: {
        const double threshold = 0.5 + 0.1 * static_cast<double>(data[at + 1] % 6);
        if (db.found(body, threshold) != db.expected(model, body, threshold)) {
          db.fail("query \"" + body + "\" at " + std::to_string(threshold));
        }
        break;
      }
    }
  }
  transactions.commit(db);
  db.exec("INSERT INTO sim(sim) VALUES('integrity-check')");
  return 0;
}
