// SPDX-License-Identifier: MIT
// libFuzzer target: SQL on simhash_index, checked against a model. The input
// is a program of 4-byte instructions (operation, rowid, two bytes that make
// a fingerprint near one of a few bases) run on an in-memory database:
// inserts (plain, OR REPLACE, OR IGNORE), updates of fp and rowid, deletes,
// BEGIN / COMMIT / ROLLBACK / SAVEPOINT / ROLLBACK TO, rebuild, and queries
// at radii 0..5 (the index up to k=3, a scan above) in both forms and as the
// n nearest. Every answer must equal a scan of the model; every statement
// must succeed or fail with the error the model predicts; the
// integrity check must pass at the end.
#include <sqlite3.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_database.h"

namespace {

using Model = std::map<std::int64_t, std::int64_t>;

// The index and the reading of (rowid, distance) rows.
class Database : public simhash::fuzz::FuzzDatabase {
 public:
  Database() : FuzzDatabase("index_sql_fuzzer") {
    exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  }
  // (rowid, distance) rows of `sql`, sorted.
  std::vector<std::pair<std::int64_t, int>> hits(const std::string& sql) {
    return rows<std::pair<std::int64_t, int>>(
        sql, [](sqlite3_stmt*) {},
        [](sqlite3_stmt* statement) {
          return std::pair<std::int64_t, int>(sqlite3_column_int64(statement, 0),
                                              sqlite3_column_int(statement, 1));
        });
  }
};

std::vector<std::pair<std::int64_t, int>> within(const Model& model, std::int64_t query,
                                                 int radius) {
  std::vector<std::pair<std::int64_t, int>> rows;
  for (const auto& [id, fp] : model) {
    const int distance = std::popcount(static_cast<std::uint64_t>(fp ^ query));
    if (distance <= radius) {
      rows.emplace_back(id, distance);
    }
  }
  return rows;
}

std::int64_t fingerprint(std::uint8_t a, std::uint8_t b) {
  constexpr std::uint64_t kBases[] = {0, 0x0123456789abcdefULL, 0xfedcba9876543210ULL,
                                      0x5555555555555555ULL};
  std::uint64_t fp = kBases[a % 4];
  fp ^= std::uint64_t{1} << (a >> 2);  // one of 64 bits
  if (b & 1) {
    fp ^= std::uint64_t{1} << (b >> 2);
  }
  return static_cast<std::int64_t>(fp);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Database db;
  Model model;
  simhash::fuzz::ModelTransactions<Model> transactions;
  for (std::size_t at = 0; at + 4 <= size && at < 4 * 400; at += 4) {
    const std::uint8_t op = data[at] % 16;
    const std::int64_t id = data[at + 1] % 32;
    const std::int64_t fp = fingerprint(data[at + 2], data[at + 3]);
    const std::string ids = std::to_string(id);
    const std::string fps = std::to_string(fp);
    switch (op) {
      case 0:
      case 1: {
        const int rc = db.run("INSERT INTO near(rowid, fp) VALUES (" + ids + ", " + fps + ")");
        if ((rc == SQLITE_OK) != (model.count(id) == 0)) {
          db.fail("insert of rowid " + ids + " gave " + std::to_string(rc));
        }
        model.emplace(id, fp);
        break;
      }
      case 2:
        db.exec("INSERT OR REPLACE INTO near(rowid, fp) VALUES (" + ids + ", " + fps + ")");
        model[id] = fp;
        break;
      case 3:
        db.exec("INSERT OR IGNORE INTO near(rowid, fp) VALUES (" + ids + ", " + fps + ")");
        model.emplace(id, fp);
        break;
      case 4:
        db.exec("UPDATE near SET fp = " + fps + " WHERE rowid = " + ids);
        if (model.count(id) != 0) {
          model[id] = fp;
        }
        break;
      case 5: {
        const std::int64_t new_id = (id + 1 + data[at + 3] % 31) % 32;
        const int rc =
            db.run("UPDATE near SET rowid = " + std::to_string(new_id) + " WHERE rowid = " + ids);
        const bool expect_ok = model.count(id) == 0 || model.count(new_id) == 0;
        if ((rc == SQLITE_OK) != expect_ok) {
          db.fail("update of rowid " + ids + " gave " + std::to_string(rc));
        }
        if (rc == SQLITE_OK && model.count(id) != 0) {
          const std::int64_t moved = model[id];
          model.erase(id);
          model[new_id] = moved;
        }
        break;
      }
      case 6:
        db.exec("DELETE FROM near WHERE rowid = " + ids);
        model.erase(id);
        break;
      case 7:
        transactions.begin(db, model);
        break;
      case 8:
        transactions.commit(db);
        break;
      case 9:
        transactions.roll_back(db, model);
        break;
      case 10:
        db.exec("INSERT INTO near(near) VALUES('rebuild')");
        break;
      case 11: {
        const std::int64_t count = 1 + data[at + 1] % 8;
        auto expected = within(model, fp, 64);
        std::sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) {
          return a.second != b.second ? a.second < b.second : a.first < b.first;
        });
        expected.resize(std::min<std::size_t>(expected.size(), static_cast<std::size_t>(count)));
        const auto found = db.hits("SELECT rowid, distance FROM near(" + fps +
                                   ") ORDER BY distance LIMIT " + std::to_string(count));
        if (found != expected) {
          db.fail("nearest " + std::to_string(count) + " of " + fps);
        }
        break;
      }
      default: {
        const int radius = op - 12 + (data[at + 1] & 1) * 2;  // 0..5
        const std::string r = std::to_string(radius);
        const auto expected = within(model, fp, radius);
        if (db.hits("SELECT rowid, distance FROM near WHERE fp MATCH " + fps +
                    " AND distance <= " + r + " ORDER BY rowid") != expected ||
            db.hits("SELECT rowid, distance FROM near(" + fps + ", " + r + ") ORDER BY rowid") !=
                expected) {
          db.fail("query " + fps + " radius " + r);
        }
        break;
      }
    }
  }
  transactions.commit(db);
  db.exec("INSERT INTO near(near) VALUES('integrity-check')");
  if (db.hits("SELECT rowid, fp FROM near ORDER BY rowid").size() != model.size()) {
    db.fail("row count");
  }
  return 0;
}
