// SPDX-License-Identifier: MIT
// Where the time of one index query goes: the same warm database answers,
// in one run, statements that each add one part of a MATCH query's work,
// once in autocommit (each statement its own read transaction, as users run
// them) and once inside one BEGIN ... COMMIT (SQLite's per-transaction cost
// gone). Parts:
//   point lookup   SELECT fp FROM near_data WHERE id = ?: SQLite's floor for
//                  one tiny statement (one B-tree descent)
//   bucket reads   the index's nested statement alone: one point lookup in
//                  near_buckets per permuted copy, as a UNION ALL
//   MATCH          the whole query through the virtual table
// The differences say what the transaction, the B-tree descents and the
// virtual table (decoding, pending changes, cursor) each cost.
//
// The journal mode and locking mode are the user's settings that change what
// the read transaction of an autocommit statement costs (journal=wal,
// locking=exclusive); the defaults are SQLite's.
//
// usage: probe_cost_benchmark [n=1000000] [queries=20000] [dir=/tmp]
//                             [journal=delete|wal] [locking=normal|exclusive]
//                             [ext=<path of simhash.so>]
#include <sqlite3.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "bench_support.h"

namespace {

using simhash::bench::arg;
using simhash::bench::exec;
using simhash::bench::fail;
using simhash::bench::Latency;
using simhash::bench::time_statement;

sqlite3_stmt* prepare(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v3(db, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &statement, nullptr) !=
      SQLITE_OK) {
    fail(db, "prepare " + sql);
  }
  return statement;
}

}  // namespace

int main(int argc, char** argv) {
  const auto n = static_cast<std::int64_t>(std::stoll(arg(argc, argv, "n", "1000000")));
  const int query_count = std::stoi(arg(argc, argv, "queries", "20000"));
  const std::string path = arg(argc, argv, "dir", "/tmp") + "/simhash_probe_cost.db";
  const std::string extension = arg(argc, argv, "ext", SIMHASH_EXTENSION_PATH);
  const std::string journal = arg(argc, argv, "journal", "delete");
  const std::string locking = arg(argc, argv, "locking", "normal");
  const auto remove_database = [&] {
    for (const char* suffix : {"", "-journal", "-wal", "-shm"}) {
      std::filesystem::remove(path + suffix);
    }
  };
  remove_database();
  sqlite3* db = simhash::bench::open_with_extension(path, extension);
  exec(db, "PRAGMA journal_mode = " + journal);
  exec(db, "PRAGMA locking_mode = " + locking);
  exec(db, "PRAGMA cache_size = -2000000");  // warm: the whole file stays cached
  exec(db, "CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  std::mt19937_64 random(20261123);
  exec(db, "BEGIN");
  sqlite3_stmt* insert = prepare(db, "INSERT INTO near(rowid, fp) VALUES (?1, ?2)");
  for (std::int64_t id = 1; id <= n; ++id) {
    sqlite3_bind_int64(insert, 1, id);
    sqlite3_bind_int64(insert, 2, static_cast<sqlite3_int64>(random()));
    if (sqlite3_step(insert) != SQLITE_DONE) {
      fail(db, "insert");
    }
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);
  exec(db, "COMMIT");
  const int tables = static_cast<int>(simhash::bench::count_of(
      db, "SELECT count(DISTINCT id >> 16) FROM near_buckets"));  // row id = (table << 16) | bucket

  std::vector<std::uint64_t> queries(static_cast<std::size_t>(query_count));
  for (std::uint64_t& query : queries) {
    query = random();
  }
  // The buckets a query reads: with k=3 and 4 blocks of 16 bits, copy t's
  // bucket is the query's block t (the copies' leading blocks, in order).
  std::string union_sql;
  for (int table = 0; table < tables; ++table) {
    union_sql += (table > 0 ? " UNION ALL " : "") +
                 std::string("SELECT id, entries FROM near_buckets WHERE id = ?") +
                 std::to_string(table + 1);
  }
  sqlite3_stmt* point = prepare(db, "SELECT fp FROM near_data WHERE id = ?1");
  sqlite3_stmt* buckets = prepare(db, union_sql);
  sqlite3_stmt* match =
      prepare(db, "SELECT rowid, distance FROM near WHERE fp MATCH ?1 AND distance <= 3");
  const auto bind_point = [&](sqlite3_stmt* statement, std::uint64_t query) {
    sqlite3_bind_int64(statement, 1,
                       static_cast<sqlite3_int64>(query % static_cast<std::uint64_t>(n)) + 1);
  };
  const auto bind_buckets = [&](sqlite3_stmt* statement, std::uint64_t query) {
    for (int table = 0; table < tables; ++table) {
      const auto block = static_cast<sqlite3_int64>((query >> (48 - 16 * table)) & 0xffff);
      sqlite3_bind_int64(statement, table + 1, (sqlite3_int64{table} << 16) | block);
    }
  };
  const auto bind_match = [&](sqlite3_stmt* statement, std::uint64_t query) {
    sqlite3_bind_int64(statement, 1, static_cast<sqlite3_int64>(query));
  };

  std::printf(
      "n=%lld, k=3, %d permuted copies, %d random queries, radius 3, warm cache, "
      "journal_mode=%s, locking_mode=%s\n",
      static_cast<long long>(n), tables, query_count, journal.c_str(), locking.c_str());
  std::printf("%-14s %22s %22s\n", "", "autocommit med / p99", "in one txn med / p99");
  for (const auto& [name, statement, bind] :
       {std::tuple{"point lookup", point,
                   std::function<void(sqlite3_stmt*, std::uint64_t)>(bind_point)},
        std::tuple{"bucket reads", buckets,
                   std::function<void(sqlite3_stmt*, std::uint64_t)>(bind_buckets)},
        std::tuple{"MATCH", match,
                   std::function<void(sqlite3_stmt*, std::uint64_t)>(bind_match)}}) {
    const Latency alone = time_statement(db, statement, queries, bind);
    exec(db, "BEGIN");
    const Latency inside = time_statement(db, statement, queries, bind);
    exec(db, "COMMIT");
    std::printf("%-14s %10.2f / %7.2f us %10.2f / %7.2f us\n", name, alone.median_us, alone.p99_us,
                inside.median_us, inside.p99_us);
  }
  for (sqlite3_stmt* statement : {point, buckets, match}) {
    sqlite3_finalize(statement);
  }
  sqlite3_close(db);
  remove_database();
  return 0;
}
