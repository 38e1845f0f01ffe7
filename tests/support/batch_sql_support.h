// SPDX-License-Identifier: MIT
// Helpers of the SQL tests of the batch functions: stepping statements,
// filling an index from a model (planted clusters), and random writes
// applied to an index and its model alike.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "batch_test_data.h"
#include "index_test_support.h"
#include "test_database.h"

namespace simhash::testing {

// Steps `statement` to the end, handing each result row to `on_row`, and
// resets it for the next bindings.
template <typename OnRow>
inline void step_all(sqlite3* db, sqlite3_stmt* statement, OnRow&& on_row) {
  int rc = SQLITE_OK;
  while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
    on_row(statement);
  }
  EXPECT_EQ(rc, SQLITE_DONE) << sqlite3_errmsg(db);
  sqlite3_reset(statement);
}

// Runs a write statement with its current bindings.
inline void step_write(sqlite3* db, sqlite3_stmt* statement) {
  step_all(db, statement, [](sqlite3_stmt*) {});
}

inline std::vector<IdFingerprint> records_of(const Model& model) {
  std::vector<IdFingerprint> records;
  for (const auto& [id, fp] : model) {
    records.push_back(IdFingerprint{id, fp});
  }
  return records;
}

inline void insert_rows(TestDatabase& db, const std::string& index, const Model& model) {
  db.exec("BEGIN");
  Prepared insert(db.handle(), "INSERT INTO \"" + index + "\"(rowid, fp) VALUES (?1, ?2)");
  for (const auto& [id, fp] : model) {
    sqlite3_bind_int64(insert.get(), 1, id);
    sqlite3_bind_int64(insert.get(), 2, static_cast<sqlite3_int64>(fp));
    step_write(db.handle(), insert.get());
  }
  db.exec("COMMIT");
}

inline Model planted_model(std::size_t count, std::uint64_t seed) {
  Model model;
  for (const auto& record : planted_records(count, seed)) {
    model[record.id] = record.fp;
  }
  return model;
}

// Deletes, fp updates, rowid updates and inserts, applied to the index
// `near` (of at least 2,200 rows) and the model alike.
inline void mutate(TestDatabase& db, Model& model, std::mt19937_64& random) {
  std::vector<std::int64_t> ids;
  for (const auto& entry : model) {
    ids.push_back(entry.first);
  }
  std::shuffle(ids.begin(), ids.end(), random);
  Prepared remove(db.handle(), "DELETE FROM near WHERE rowid = ?1");
  Prepared update_fp(db.handle(), "UPDATE near SET fp = ?2 WHERE rowid = ?1");
  Prepared update_id(db.handle(), "UPDATE near SET rowid = ?2 WHERE rowid = ?1");
  Prepared insert(db.handle(), "INSERT INTO near(rowid, fp) VALUES (?1, ?2)");
  for (std::size_t i = 0; i < 1200; ++i) {
    const std::int64_t id = ids[i];
    if (i < 400) {
      sqlite3_bind_int64(remove.get(), 1, id);
      step_write(db.handle(), remove.get());
      model.erase(id);
    } else if (i < 800) {
      // Move the row next to another one (or far away).
      const std::uint64_t fp = i % 2 == 0 ? flip_random_bits(model.at(ids[i + 1000]), 2, random)
                                          : static_cast<std::uint64_t>(random());
      sqlite3_bind_int64(update_fp.get(), 1, id);
      sqlite3_bind_int64(update_fp.get(), 2, static_cast<sqlite3_int64>(fp));
      step_write(db.handle(), update_fp.get());
      model[id] = fp;
    } else {
      const std::int64_t new_id = 1000000 + static_cast<std::int64_t>(i);
      sqlite3_bind_int64(update_id.get(), 1, id);
      sqlite3_bind_int64(update_id.get(), 2, new_id);
      step_write(db.handle(), update_id.get());
      model[new_id] = model.at(id);
      model.erase(id);
    }
  }
  for (int i = 0; i < 300; ++i) {
    const std::int64_t new_id = 2000000 + i;
    const std::uint64_t fp = flip_random_bits(model.begin()->second, i % 5, random);
    sqlite3_bind_int64(insert.get(), 1, new_id);
    sqlite3_bind_int64(insert.get(), 2, static_cast<sqlite3_int64>(fp));
    step_write(db.handle(), insert.get());
    model[new_id] = fp;
  }
}

}  // namespace simhash::testing
