// SPDX-License-Identifier: MIT
// Single-row INSERTs in autocommit (each its own transaction, so each ends
// with the index's merge in xSync) into an in-memory database that already
// holds `n` rows, against the same inserts into an ordinary table with an
// index on fp (the baseline, measured in the same run). In memory, so the
// figures show the extension's cost per commit rather than the disk's
// fsync. Reports the median and p99 per insert.
//
// usage: autocommit_benchmark [n=100000] [inserts=20000] [k=3] [ext=path of simhash.so]
#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench_support.h"

namespace {

using simhash::bench::arg;
using simhash::bench::exec;
using simhash::bench::fail;
using simhash::bench::Latency;
using Clock = std::chrono::steady_clock;

// Loads `n` rows in one transaction, then times `inserts` autocommit inserts.
Latency time_autocommit_inserts(sqlite3* db, const std::string& table, std::size_t n,
                                std::size_t inserts, std::mt19937_64& random) {
  sqlite3_stmt* insert = nullptr;
  const std::string sql = "INSERT INTO " + table + "(rowid, fp) VALUES (?1, ?2)";
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &insert, nullptr) != SQLITE_OK) {
    fail(db, "prepare " + sql);
  }
  const auto run = [&](std::size_t id) {
    sqlite3_bind_int64(insert, 1, static_cast<sqlite3_int64>(id));
    sqlite3_bind_int64(insert, 2, static_cast<sqlite3_int64>(random()));
    if (sqlite3_step(insert) != SQLITE_DONE) {
      fail(db, "insert");
    }
    sqlite3_reset(insert);
  };
  exec(db, "BEGIN");
  for (std::size_t id = 1; id <= n; ++id) {
    run(id);
  }
  exec(db, "COMMIT");
  std::vector<double> micros;
  micros.reserve(inserts);
  for (std::size_t i = 0; i < inserts; ++i) {
    const auto start = Clock::now();
    run(n + 1 + i);
    micros.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  sqlite3_finalize(insert);
  return simhash::bench::latency_of(std::move(micros));
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = std::stoull(arg(argc, argv, "n", "100000"));
  const std::size_t inserts = std::stoull(arg(argc, argv, "inserts", "20000"));
  const std::string k = arg(argc, argv, "k", "3");
  const std::string extension = arg(argc, argv, "ext", SIMHASH_EXTENSION_PATH);
  std::mt19937_64 random(7);

  sqlite3* index_db = simhash::bench::open_with_extension(":memory:", extension);
  exec(index_db, "CREATE VIRTUAL TABLE near USING simhash_index(k=" + k + ")");
  const Latency index = time_autocommit_inserts(index_db, "near", n, inserts, random);
  sqlite3_close(index_db);

  sqlite3* plain_db = simhash::bench::open_with_extension(":memory:", extension);
  exec(plain_db, "CREATE TABLE plain(rowid INTEGER PRIMARY KEY, fp INTEGER)");
  exec(plain_db, "CREATE INDEX plain_fp ON plain(fp)");
  const Latency plain = time_autocommit_inserts(plain_db, "plain", n, inserts, random);
  sqlite3_close(plain_db);

  std::printf("autocommit inserts after %zu rows, k=%s, in memory (%zu each):\n", n, k.c_str(),
              inserts);
  std::printf("  simhash_index   median %.1f us, p99 %.1f us\n", index.median_us, index.p99_us);
  std::printf("  table + index   median %.1f us, p99 %.1f us (baseline)\n", plain.median_us,
              plain.p99_us);
  std::printf("  ratio (median)  %.1fx the baseline\n", index.median_us / plain.median_us);
  return 0;
}
