// SPDX-License-Identifier: MIT
// Shared helpers for the simhash_index tests: a brute-force model of the
// table, planted-cluster data, random mutations applied to both, and a
// verifier that compares every query form and radius with brute force.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

// flip_random_bits: one definition for every test in sql_tests (a second
// inline copy here would be an ODR violation once both are linked).
#include "batch_test_data.h"
#include "interrupt_timing.h"
#include "sanitized_build.h"
#include "test_database.h"

namespace simhash::testing {

// Full sizes in the Release run; sanitizer builds use a fifth.
inline int scaled(int full) { return kSanitizedBuild ? std::max(1, full / 5) : full; }

// Steps `sql` once on `db` to the end and times it, then steps it again
// while another thread calls sqlite3_interrupt() a quarter of the way in.
// Expects the second step to fail with SQLITE_INTERRUPT within another
// quarter of the whole run (the checks aim at a few milliseconds; bounds
// relative to the run hold on machines of any speed, which fixed ones did
// not: a fast machine finished before a fixed wait). Both in the process's
// CPU time (interrupt_timing.h): in wall time, a first run slowed by other
// jobs on a shared machine put the interrupt past the end of a second run
// that had the cores, and a first run that had them gave a second one
// slowed by others a bound too tight. `sql` must give the same work twice
// (a read, or a command such as 'rebuild'). Returns the milliseconds of
// wall time from the interrupt to the return.
inline long long expect_stopped_by_interrupt(sqlite3* db, const std::string& sql) {
  using Clock = std::chrono::steady_clock;
  sqlite3_stmt* statement = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), SQLITE_OK) << sql;
  std::chrono::nanoseconds started = process_cpu_time();
  const int whole_rc = sqlite3_step(statement);
  const std::chrono::nanoseconds whole_run = process_cpu_time() - started;
  EXPECT_TRUE(whole_rc == SQLITE_ROW || whole_rc == SQLITE_DONE) << sql << ": " << whole_rc;
  sqlite3_reset(statement);
  std::atomic<bool> returned{false};
  bool interrupted = false;
  Clock::time_point interrupted_at;
  std::chrono::nanoseconds interrupted_cpu{};
  started = process_cpu_time();
  std::thread interrupter([&] {
    // The process's CPU time runs on only while the statement works.
    while (!returned && process_cpu_time() - started < whole_run / 4) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (!returned) {
      interrupted = true;
      interrupted_at = Clock::now();
      interrupted_cpu = process_cpu_time();
      sqlite3_interrupt(db);
    }
  });
  const int rc = sqlite3_step(statement);
  const std::chrono::nanoseconds stopped_cpu = process_cpu_time();
  const Clock::time_point stopped = Clock::now();
  returned = true;
  interrupter.join();
  sqlite3_finalize(statement);
  EXPECT_EQ(rc, SQLITE_INTERRUPT) << sql << ": finished before the interrupt?";
  if (!interrupted) {
    return 0;
  }
  EXPECT_LT(stopped_cpu - interrupted_cpu, whole_run / 4)
      << sql << ": the whole run takes "
      << std::chrono::duration_cast<std::chrono::milliseconds>(whole_run).count() << " ms of CPU";
  return std::chrono::duration_cast<std::chrono::milliseconds>(stopped - interrupted_at).count();
}

using Model = std::map<std::int64_t, std::uint64_t>;
using Hits = std::vector<std::pair<std::int64_t, int>>;  // (rowid, distance), sorted

// Half planted clusters (a base plus 0..6 flipped bits), half uniform.
inline std::vector<std::uint64_t> make_fingerprints(int count, std::mt19937_64& random) {
  std::vector<std::uint64_t> fps;
  fps.reserve(static_cast<std::size_t>(count));
  std::vector<std::uint64_t> bases;
  while (static_cast<int>(fps.size()) < count) {
    if (random() % 2 == 0 || bases.empty()) {
      const std::uint64_t fp = random();
      fps.push_back(fp);
      if (random() % 8 == 0) {
        bases.push_back(fp);
      }
    } else {
      const std::uint64_t base = bases[random() % bases.size()];
      fps.push_back(flip_random_bits(base, static_cast<int>(random() % 7), random));
    }
  }
  return fps;
}

// Inserts one row into the index `near` and into `plain(id, fp)`, the
// ordinary table that tests scan with hamming() as the brute-force answer.
inline void insert_into_near_and_plain(TestDatabase& db, std::int64_t id, std::uint64_t fp) {
  // Built by appending: GCC 12 misreads "(" + std::string as overlapping.
  std::string values = "(";
  values += std::to_string(id);
  values += ", ";
  values += std::to_string(static_cast<std::int64_t>(fp));
  values += ")";
  db.exec("INSERT INTO near(rowid, fp) VALUES " + values);
  db.exec("INSERT INTO plain(id, fp) VALUES " + values);
}

// "rowid:distance" of each row of `sql` (its first two columns, in the
// order SQLite returns them), ?1 bound to `query`; or the error as the only
// element, so a test compares an answer and a failure alike.
inline std::vector<std::string> rows_of(sqlite3* db, const std::string& sql, std::int64_t query) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
    return {std::string("error: ") + sqlite3_errmsg(db)};
  }
  sqlite3_bind_int64(statement, 1, query);
  std::vector<std::string> rows;
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
    std::string row = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
    row += ':';
    row += reinterpret_cast<const char*>(sqlite3_column_text(statement, 1));
    rows.push_back(row);
  }
  if (rc != SQLITE_DONE) {
    rows = {std::string("error: ") + sqlite3_errmsg(db)};
  }
  sqlite3_finalize(statement);
  return rows;
}

// Brute force's rows_of() for the rows of `plain(id, fp)` (filled by
// insert_into_near_and_plain) within `radius` of `query`: a hamming() scan,
// nearest first and ties by id, as the index's queries are ordered.
inline std::vector<std::string> brute_force_rows(TestDatabase& db, std::int64_t query, int radius) {
  return rows_of(db.handle(),
                 "SELECT id, hamming(fp, ?1) AS d FROM plain WHERE hamming(fp, ?1) <= " +
                     std::to_string(radius) + " ORDER BY d, id",
                 query);
}

inline Hits brute_force(const Model& model, std::uint64_t query, int radius) {
  Hits hits;
  for (const auto& [id, fp] : model) {
    const int distance = std::popcount(fp ^ query);
    if (distance <= radius) {
      hits.emplace_back(id, distance);
    }
  }
  return hits;
}

class Prepared {
 public:
  Prepared(sqlite3* db, const std::string& sql) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement_, nullptr) != SQLITE_OK) {
      ADD_FAILURE() << "prepare failed: " << sql << ": " << sqlite3_errmsg(db);
    }
  }
  ~Prepared() { sqlite3_finalize(statement_); }
  Prepared(const Prepared&) = delete;
  Prepared& operator=(const Prepared&) = delete;
  sqlite3_stmt* get() const { return statement_; }

 private:
  sqlite3_stmt* statement_ = nullptr;
};

// Runs a query whose columns are (rowid, distance) with ?1 = query and, if
// radius >= 0, ?2 = radius.
inline Hits run_hits(sqlite3* db, sqlite3_stmt* statement, std::uint64_t query, int radius) {
  sqlite3_reset(statement);
  sqlite3_bind_int64(statement, 1, static_cast<sqlite3_int64>(query));
  if (radius >= 0) {
    sqlite3_bind_int(statement, 2, radius);
  }
  Hits hits;
  int rc;
  while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
    hits.emplace_back(sqlite3_column_int64(statement, 0), sqlite3_column_int(statement, 1));
  }
  EXPECT_EQ(rc, SQLITE_DONE) << sqlite3_errmsg(db);
  sqlite3_reset(statement);
  std::sort(hits.begin(), hits.end());
  return hits;
}

// The rows a plain scan of the index shows, but those with a NULL fp
// (format 4: rows no search finds, so no model holds them).
inline Model read_model(sqlite3* db, const std::string& table) {
  Model model;
  Prepared statement(db, "SELECT rowid, fp FROM \"" + table + "\"");
  while (sqlite3_step(statement.get()) == SQLITE_ROW) {
    const auto id = sqlite3_column_int64(statement.get(), 0);
    EXPECT_EQ(model.count(id), 0u) << "rowid " << id << " twice in a scan";
    if (sqlite3_column_type(statement.get(), 1) == SQLITE_NULL) {
      continue;
    }
    model[id] = static_cast<std::uint64_t>(sqlite3_column_int64(statement.get(), 1));
  }
  return model;
}

inline void expect_integrity(sqlite3* db, const std::string& table) {
  char* message = nullptr;
  const std::string sql =
      "INSERT INTO \"" + table + "\"(\"" + table + "\") VALUES('integrity-check')";
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message), SQLITE_OK)
      << (message != nullptr ? message : "");
  sqlite3_free(message);
}

// Queries near data points and random points, at every radius 0..k+2, in
// both query forms, and compares with brute force; checks the plain scan and
// the integrity check too.
inline void verify_against_model(sqlite3* db, const std::string& table, const Model& model, int k,
                                 std::mt19937_64& random, int query_count = 12,
                                 bool check_integrity = true) {
  EXPECT_EQ(read_model(db, table), model);
  if (check_integrity) {  // a write statement: not from a reader while another connection writes
    expect_integrity(db, table);
  }
  Prepared match(
      db, "SELECT rowid, distance FROM \"" + table + "\" WHERE fp MATCH ?1 AND distance <= ?2");
  Prepared function(db, "SELECT rowid, distance FROM \"" + table + "\"(?1, ?2)");
  Prepared bare(db, "SELECT rowid, distance FROM \"" + table + "\" WHERE fp MATCH ?1");
  std::vector<std::uint64_t> ids;
  for (const auto& entry : model) {
    ids.push_back(entry.second);
  }
  for (int i = 0; i < query_count; ++i) {
    std::uint64_t query = random();
    if (!ids.empty() && i % 3 != 0) {
      query = flip_random_bits(ids[random() % ids.size()], static_cast<int>(random() % 5), random);
    }
    for (int radius = 0; radius <= k + 2; ++radius) {
      const Hits expected = brute_force(model, query, radius);
      ASSERT_EQ(run_hits(db, match.get(), query, radius), expected)
          << "MATCH, k=" << k << " radius=" << radius << " query=" << query;
      ASSERT_EQ(run_hits(db, function.get(), query, radius), expected)
          << "table-valued, k=" << k << " radius=" << radius;
    }
    ASSERT_EQ(run_hits(db, bare.get(), query, -1), brute_force(model, query, k)) << "bare MATCH";
  }
}

// Random writes applied to the table and the model alike: inserts (with and
// without rowid), updates of fp and of rowid, deletes, and OR REPLACE.
inline void mutate(sqlite3* db, const std::string& table, Model& model, int operations,
                   std::mt19937_64& random) {
  const std::string quoted = "\"" + table + "\"";
  Prepared insert(db, "INSERT INTO " + quoted + "(rowid, fp) VALUES (?1, ?2)");
  Prepared insert_auto(db, "INSERT INTO " + quoted + "(fp) VALUES (?2)");
  Prepared update_fp(db, "UPDATE " + quoted + " SET fp = ?2 WHERE rowid = ?1");
  Prepared update_id(db, "UPDATE " + quoted + " SET rowid = ?2 WHERE rowid = ?1");
  Prepared remove(db, "DELETE FROM " + quoted + " WHERE rowid = ?1");
  Prepared replace(db, "INSERT OR REPLACE INTO " + quoted + "(rowid, fp) VALUES (?1, ?2)");
  auto pick_existing = [&]() -> std::int64_t {
    if (model.empty()) {
      return 1;
    }
    auto it = model.lower_bound(static_cast<std::int64_t>(random() % 1000000));
    return it == model.end() ? model.begin()->first : it->first;
  };
  auto new_fp = [&]() -> std::uint64_t {
    if (!model.empty() && random() % 2 == 0) {
      // One draw per statement: the order of a call's arguments differs
      // between compilers and targets, and the portable-file test needs the
      // same writes everywhere.
      const std::uint64_t near = model.at(pick_existing());
      const int bits = static_cast<int>(random() % 7);
      return flip_random_bits(near, bits, random);
    }
    return random();
  };
  auto run = [&](sqlite3_stmt* statement, std::int64_t a, std::int64_t b) {
    sqlite3_reset(statement);
    sqlite3_bind_int64(statement, 1, a);
    sqlite3_bind_int64(statement, 2, b);
    const int rc = sqlite3_step(statement);
    EXPECT_EQ(rc, SQLITE_DONE) << sqlite3_errmsg(db);
    sqlite3_reset(statement);
  };
  for (int i = 0; i < operations; ++i) {
    const int kind = static_cast<int>(random() % 6);
    if (kind == 0 || model.empty()) {
      std::int64_t id = static_cast<std::int64_t>(random() % 1000000) - 1000;
      while (model.count(id) != 0) {
        ++id;
      }
      const std::uint64_t fp = new_fp();
      run(insert.get(), id, static_cast<std::int64_t>(fp));
      model[id] = fp;
    } else if (kind == 1) {
      const std::uint64_t fp = new_fp();
      run(insert_auto.get(), 0, static_cast<std::int64_t>(fp));
      const std::int64_t id = model.empty() ? 1 : model.rbegin()->first + 1;
      EXPECT_EQ(sqlite3_last_insert_rowid(db), id);
      model[id] = fp;
    } else if (kind == 2) {
      const std::int64_t id = pick_existing();
      const std::uint64_t fp = new_fp();
      run(update_fp.get(), id, static_cast<std::int64_t>(fp));
      model[id] = fp;
    } else if (kind == 3) {
      const std::int64_t id = pick_existing();
      std::int64_t target = static_cast<std::int64_t>(random() % 1000000);
      while (model.count(target) != 0) {
        ++target;
      }
      run(update_id.get(), id, target);
      model[target] = model.at(id);
      model.erase(id);
    } else if (kind == 4) {
      const std::int64_t id = pick_existing();
      run(remove.get(), id, 0);
      model.erase(id);
    } else {
      const std::int64_t id =
          random() % 2 ? pick_existing() : static_cast<std::int64_t>(random() % 1000000);
      const std::uint64_t fp = new_fp();
      run(replace.get(), id, static_cast<std::int64_t>(fp));
      model[id] = fp;
    }
  }
}

// An empty index `table` at `bits` bucket bits, as storage format 3 stores
// them (a file may hold any from 1 to 32; the module itself starts at 16), so
// that a few thousand rows make its bucket bits grow.
inline void create_with_bucket_bits(const std::string& path, const std::string& table, int bits,
                                    const std::string& options = "k=3") {
  {
    TestDatabase db(path);
    db.exec("CREATE VIRTUAL TABLE \"" + table + "\" USING simhash_index(" + options + ")");
  }
  const std::string config = "\"" + table + "_config\"";
  exec_without_extension(
      path, "UPDATE " + config + " SET value = 3 WHERE key = 'format'; " + "INSERT INTO " + config +
                "(key, value) VALUES ('bucket_bits', " + std::to_string(bits) + ")");
}

// Inserts `fps` with rowids first_id, first_id + 1, ... into the table and
// the model, in the caller's transaction (or autocommit).
inline void insert_fingerprints(sqlite3* db, const std::string& table, Model& model,
                                const std::vector<std::uint64_t>& fps, std::int64_t first_id) {
  Prepared insert(db, "INSERT INTO \"" + table + "\"(rowid, fp) VALUES (?1, ?2)");
  std::int64_t id = first_id;
  for (std::uint64_t fp : fps) {
    sqlite3_bind_int64(insert.get(), 1, id);
    sqlite3_bind_int64(insert.get(), 2, static_cast<sqlite3_int64>(fp));
    EXPECT_EQ(sqlite3_step(insert.get()), SQLITE_DONE) << sqlite3_errmsg(db);
    sqlite3_reset(insert.get());
    model[id++] = fp;
  }
}

// The same in one transaction of its own.
inline void bulk_insert(sqlite3* db, const std::string& table, Model& model,
                        const std::vector<std::uint64_t>& fps, std::int64_t first_id) {
  EXPECT_EQ(sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr), SQLITE_OK);
  insert_fingerprints(db, table, model, fps, first_id);
  EXPECT_EQ(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
}

}  // namespace simhash::testing
