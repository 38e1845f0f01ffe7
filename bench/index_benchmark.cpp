// SPDX-License-Identifier: MIT
// Benchmark of the simhash_index virtual table against two baselines measured
// in the same run: (1) a full scan with hamming() over an ordinary table and
// (2) the Manku scheme in plain SQL (four expression indexes on the 16-bit
// blocks, each covering fp, a UNION of four lookups filtered by hamming()). Reports query
// latency (median, p99) through one prepared statement in autocommit on a
// warm file database, insert rates and database bytes per fingerprint.
//
// usage: index_benchmark [n=1000000] [data=uniform|clustered|PATH] [k=3] [blocks=0 (default)]
//                        [baselines=1] [queries=1000] [dir=/tmp] [radius=k] [bulk=1]
//                        [vacuum=0] [ext=path of simhash.so to load] [page_size=]
//                        [cache_mb=2000 (SQLite page cache per connection)]
//                        (data=PATH: the fingerprints of a file, one signed integer a line,
//                         such as real texts' simhash() printed by the sqlite3 shell; n is then
//                         at most the file's lines)
//                        [radii=4,6,8,... (each radius above k against a scan of the same
//                         rows with hamming(), in the same run: BENCH.md "Radius above k")]
//                        [pragmas=name:value,... (run on every connection it opens, e.g.
//                         pragmas=mmap_size:4000000000,locking_mode:EXCLUSIVE)]
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bench_support.h"

namespace {

using simhash::bench::arg;
using simhash::bench::Clock;
using simhash::bench::exec;
using simhash::bench::fail;
using simhash::bench::Latency;
using simhash::bench::seconds_since;
using simhash::bench::time_statement;

std::string extension_path = SIMHASH_EXTENSION_PATH;  // ext=... overrides
std::string page_size;                                // page_size=... for new files
std::string cache_mb = "2000";                        // cache_mb=...
std::string pragmas;                                  // pragmas=name:value,...

sqlite3* open_database(const std::string& path, bool fresh) {
  if (fresh) {
    for (const char* suffix : {"", "-journal", "-wal", "-shm"}) {
      std::filesystem::remove(path + suffix);
    }
  }
  sqlite3* db = simhash::bench::open_with_extension(path, extension_path);
  // The baselines' own hamming(), so they do not depend on another part of the extension.
  simhash::bench::use_local_hamming(db);
  // Large enough that the database stays warm (2 GB by default).
  exec(db, "PRAGMA cache_size = -" + cache_mb + "000");
  if (!page_size.empty()) {
    exec(db, "PRAGMA page_size = " + page_size);
  }
  // Settings a user might apply, measured for index and baselines alike.
  for (std::size_t start = 0; start < pragmas.size();) {
    std::size_t end = pragmas.find(',', start);
    if (end == std::string::npos) end = pragmas.size();
    std::string setting = pragmas.substr(start, end - start);
    const std::size_t colon = setting.find(':');
    if (colon != std::string::npos) setting[colon] = '=';
    exec(db, "PRAGMA " + setting);
    start = end + 1;
  }
  return db;
}

// The first `n` fingerprints of a file of signed integers, one a line.
std::vector<std::uint64_t> read_data(const std::string& path, std::size_t n) {
  std::FILE* file = std::fopen(path.c_str(), "r");
  if (file == nullptr) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(1);
  }
  std::vector<std::uint64_t> fps;
  long long value = 0;
  while (fps.size() < n && std::fscanf(file, "%lld", &value) == 1) {
    fps.push_back(static_cast<std::uint64_t>(value));
  }
  std::fclose(file);
  return fps;
}

std::vector<std::uint64_t> make_data(std::size_t n, bool clustered, std::mt19937_64& random) {
  std::vector<std::uint64_t> fps(n);
  for (std::size_t i = 0; i < n; ++i) {
    // Clustered: 5% of rows are near-duplicates (0..3 flipped bits) of an earlier row.
    if (clustered && i > 0 && random() % 20 == 0) {
      std::uint64_t fp = fps[random() % i];
      const int flips = static_cast<int>(random() % 4);
      for (int f = 0; f < flips; ++f) {
        fp ^= std::uint64_t{1} << (random() % 64);
      }
      fps[i] = fp;
    } else {
      fps[i] = random();
    }
  }
  return fps;
}

// Half the queries are perturbed copies of stored rows (0..3 bits), half random.
std::vector<std::uint64_t> make_queries(const std::vector<std::uint64_t>& data, int count,
                                        std::mt19937_64& random) {
  std::vector<std::uint64_t> queries;
  for (int i = 0; i < count; ++i) {
    if (i % 2 == 0) {
      std::uint64_t fp = data[random() % data.size()];
      const int flips = static_cast<int>(random() % 4);
      for (int f = 0; f < flips; ++f) {
        fp ^= std::uint64_t{1} << (random() % 64);
      }
      queries.push_back(fp);
    } else {
      queries.push_back(random());
    }
  }
  return queries;
}

// Runs each query through one prepared statement (bound as ?1): the
// latency of the second of two passes, the first warming the cache.
Latency time_queries(sqlite3* db, const std::string& sql,
                     const std::vector<std::uint64_t>& queries) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
    fail(db, "prepare " + sql);
  }
  const Latency latency =
      time_statement(db, statement, queries, [](sqlite3_stmt* bound, std::uint64_t query) {
        sqlite3_bind_int64(bound, 1, static_cast<sqlite3_int64>(query));
      });
  sqlite3_finalize(statement);
  return latency;
}

double file_bytes(const std::string& path) {
  return static_cast<double>(std::filesystem::file_size(path));
}

struct InsertTiming {
  double rows_per_second;  // the whole transaction, COMMIT included
  double commit_seconds;   // the COMMIT alone (for the index: the last merge, and any growth)
};

// Inserts all rows one statement at a time inside one transaction.
InsertTiming insert_rows(sqlite3* db, const std::string& table,
                         const std::vector<std::uint64_t>& data, const char* columns) {
  sqlite3_stmt* insert = nullptr;
  const std::string sql = "INSERT INTO " + table + "(" + columns + ") VALUES (?1, ?2)";
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &insert, nullptr) != SQLITE_OK) {
    fail(db, "prepare insert");
  }
  const auto start = Clock::now();
  exec(db, "BEGIN");
  for (std::size_t i = 0; i < data.size(); ++i) {
    sqlite3_bind_int64(insert, 1, static_cast<sqlite3_int64>(i + 1));
    sqlite3_bind_int64(insert, 2, static_cast<sqlite3_int64>(data[i]));
    if (sqlite3_step(insert) != SQLITE_DONE) {
      fail(db, "insert");
    }
    sqlite3_reset(insert);
  }
  const auto commit_start = Clock::now();
  exec(db, "COMMIT");
  const double commit_seconds = seconds_since(commit_start);
  sqlite3_finalize(insert);
  return {static_cast<double>(data.size()) / seconds_since(start), commit_seconds};
}

// The plan EXPLAIN QUERY PLAN gives `sql` (its last detail line).
std::string plan_text(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db, ("EXPLAIN QUERY PLAN " + sql).c_str(), -1, &statement, nullptr) !=
      SQLITE_OK) {
    fail(db, "explain " + sql);
  }
  std::string plan;
  while (sqlite3_step(statement) == SQLITE_ROW) {
    plan = reinterpret_cast<const char*>(sqlite3_column_text(statement, 3));
  }
  sqlite3_finalize(statement);
  return plan;
}

// For each radius of `radii` (comma-separated): the index's latency and the
// latency of a scan with hamming() over an ordinary table of the same rows
// in the same database, the plan the index chose, and whether both found
// the same rows for the queries both ran.
void compare_radii(sqlite3* db, const std::vector<std::uint64_t>& data,
                   const std::vector<std::uint64_t>& queries, const std::string& radii) {
  exec(db, "CREATE TABLE plain(id INTEGER PRIMARY KEY, fp INTEGER NOT NULL)");
  insert_rows(db, "plain", data, "id, fp");
  const std::vector<std::uint64_t> few(queries.begin(),
                                       queries.begin() + std::min<std::size_t>(queries.size(), 20));
  std::printf(
      "| radius | index median | index p99 | scan median | scan p99 | scan / index | plan |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- |\n");
  for (std::size_t start = 0; start < radii.size();) {
    std::size_t end = radii.find(',', start);
    if (end == std::string::npos) end = radii.size();
    const std::string radius = radii.substr(start, end - start);
    start = end + 1;
    const std::string index_sql = "SELECT rowid FROM near(?1, " + radius + ")";
    const Latency index = time_queries(db, index_sql, queries);
    const Latency index_few = time_queries(db, index_sql, few);
    const Latency scan =
        time_queries(db, "SELECT id FROM plain WHERE hamming(fp, ?1) <= " + radius, few);
    if (index_few.rows != scan.rows) {
      std::printf("MISMATCH at radius %s: index %lld rows, scan %lld\n", radius.c_str(),
                  static_cast<long long>(index_few.rows), static_cast<long long>(scan.rows));
      std::exit(1);
    }
    std::printf("| %s | %.1f us | %.1f us | %.1f us | %.1f us | %.1fx | %s |\n", radius.c_str(),
                index.median_us, index.p99_us, scan.median_us, scan.p99_us,
                scan.median_us / index.median_us, plan_text(db, index_sql).c_str());
  }
  exec(db, "DROP TABLE plain");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string data_kind = arg(argc, argv, "data", "uniform");
  const bool clustered = data_kind == "clustered";
  const bool from_file = data_kind != "uniform" && !clustered;
  const int k = std::stoi(arg(argc, argv, "k", "3"));
  const int blocks = std::stoi(arg(argc, argv, "blocks", "0"));
  const bool baselines = arg(argc, argv, "baselines", "1") == "1";
  const bool bulk = arg(argc, argv, "bulk", "1") == "1";
  const int query_count = std::stoi(arg(argc, argv, "queries", "1000"));
  const int radius = std::stoi(arg(argc, argv, "radius", std::to_string(k)));
  const std::string dir = arg(argc, argv, "dir", "/tmp");
  extension_path = arg(argc, argv, "ext", extension_path);
  page_size = arg(argc, argv, "page_size", "");
  cache_mb = arg(argc, argv, "cache_mb", cache_mb);
  pragmas = arg(argc, argv, "pragmas", "");

  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows while a long run goes on
  std::mt19937_64 random(20261121);
  const std::vector<std::uint64_t> data =
      from_file ? read_data(data_kind, std::stoull(arg(argc, argv, "n", "1000000000")))
                : make_data(std::stoull(arg(argc, argv, "n", "1000000")), clustered, random);
  const std::size_t n = data.size();
  const std::vector<std::uint64_t> queries = make_queries(data, query_count, random);
  std::printf("n=%zu data=%s k=%d blocks=%s radius=%d queries=%d\n", n, data_kind.c_str(), k,
              blocks ? std::to_string(blocks).c_str() : "default", radius, query_count);

  // The index.
  const std::string index_path = dir + "/simhash_bench_index.db";
  sqlite3* db = open_database(index_path, true);
  exec(db, "CREATE VIRTUAL TABLE near USING simhash_index(k=" + std::to_string(k) +
               (blocks ? ", blocks=" + std::to_string(blocks) : std::string()) + ")");
  const InsertTiming inserts = insert_rows(db, "near", data, "rowid, fp");
  const double index_bytes = file_bytes(index_path) / static_cast<double>(n);
  const std::string index_sql =
      "SELECT rowid, distance FROM near WHERE fp MATCH ?1 AND distance <= " +
      std::to_string(radius);
  const Latency index_latency = time_queries(db, index_sql, queries);
  std::printf(
      "index: single-row inserts %.0f rows/s (one transaction; its COMMIT %.2f s), %.1f "
      "bytes/fp\n",
      inserts.rows_per_second, inserts.commit_seconds, index_bytes);
  std::printf("index: radius %d median %.1f us, p99 %.1f us, %lld rows\n", radius,
              index_latency.median_us, index_latency.p99_us,
              static_cast<long long>(index_latency.rows));
  if (const std::string radii = arg(argc, argv, "radii", ""); !radii.empty()) {
    compare_radii(db, data, queries, radii);
  }
  if (arg(argc, argv, "vacuum", "0") == "1") {
    exec(db, "VACUUM");
    std::printf("index: after VACUUM %.1f bytes/fp\n",
                file_bytes(index_path) / static_cast<double>(n));
  }
  sqlite3_close(db);

  if (bulk) {
    // Bulk load: INSERT ... SELECT from an ordinary table.
    const std::string bulk_path = dir + "/simhash_bench_bulk.db";
    sqlite3* bulk_db = open_database(bulk_path, true);
    exec(bulk_db, "CREATE TABLE source(id INTEGER PRIMARY KEY, fp INTEGER)");
    insert_rows(bulk_db, "source", data, "id, fp");
    exec(bulk_db, "CREATE VIRTUAL TABLE near USING simhash_index(k=" + std::to_string(k) +
                      (blocks ? ", blocks=" + std::to_string(blocks) : std::string()) + ")");
    const auto start = Clock::now();
    exec(bulk_db, "INSERT INTO near(rowid, fp) SELECT id, fp FROM source");
    std::printf("index: bulk INSERT ... SELECT %.0f rows/s\n",
                static_cast<double>(n) / seconds_since(start));
    sqlite3_close(bulk_db);
    std::filesystem::remove(bulk_path);
  }

  if (baselines) {
    const std::string plain_path = dir + "/simhash_bench_plain.db";
    sqlite3* plain = open_database(plain_path, true);
    exec(plain, "CREATE TABLE plain(id INTEGER PRIMARY KEY, fp INTEGER NOT NULL)");
    const double plain_rate = insert_rows(plain, "plain", data, "id, fp").rows_per_second;
    const double plain_bytes = file_bytes(plain_path) / static_cast<double>(n);
    const std::vector<std::uint64_t> few(
        queries.begin(),
        queries.begin() + std::min<std::size_t>(queries.size(), n >= 5000000 ? 10 : 50));
    const Latency scan = time_queries(
        plain, "SELECT id FROM plain WHERE hamming(fp, ?1) <= " + std::to_string(radius), few);
    std::printf(
        "baseline 1 (scan with hamming): median %.1f us, p99 %.1f us over %zu queries, "
        "%lld rows; %.1f bytes/fp; %.0f inserts/s\n",
        scan.median_us, scan.p99_us, few.size(), static_cast<long long>(scan.rows), plain_bytes,
        plain_rate);
    sqlite3_close(plain);
    std::filesystem::remove(plain_path);

    const std::string manku_path = dir + "/simhash_bench_manku.db";
    sqlite3* manku = open_database(manku_path, true);
    exec(manku, "CREATE TABLE manku(id INTEGER PRIMARY KEY, fp INTEGER NOT NULL)");
    for (int block = 0; block < 4; ++block) {
      exec(manku, "CREATE INDEX manku_b" + std::to_string(block) + " ON manku(((fp >> " +
                      std::to_string(48 - 16 * block) + ") & 65535), fp)");
    }
    const double manku_rate = insert_rows(manku, "manku", data, "id, fp").rows_per_second;
    const double manku_bytes = file_bytes(manku_path) / static_cast<double>(n);
    std::string manku_sql;
    for (int block = 0; block < 4; ++block) {
      const std::string expression = "((fp >> " + std::to_string(48 - 16 * block) + ") & 65535)";
      if (block > 0) {
        manku_sql += " UNION ";
      }
      manku_sql += "SELECT id FROM manku WHERE " + expression + " = ((?1 >> " +
                   std::to_string(48 - 16 * block) +
                   ") & 65535) AND hamming(fp, ?1) <= " + std::to_string(radius);
    }
    const Latency manku_latency = time_queries(manku, manku_sql, queries);
    std::printf(
        "baseline 2 (Manku in SQL): median %.1f us, p99 %.1f us, %lld rows; %.1f bytes/fp; "
        "%.0f inserts/s\n",
        manku_latency.median_us, manku_latency.p99_us, static_cast<long long>(manku_latency.rows),
        manku_bytes, manku_rate);
    std::printf("ratio: index median / Manku median = %.2f\n",
                index_latency.median_us / manku_latency.median_us);
    if (radius <= 3 && manku_latency.rows != index_latency.rows) {
      std::printf("MISMATCH: index found %lld rows, Manku %lld\n",
                  static_cast<long long>(index_latency.rows),
                  static_cast<long long>(manku_latency.rows));
      return 1;
    }
    sqlite3_close(manku);
    std::filesystem::remove(manku_path);
  }
  std::filesystem::remove(index_path);
  return 0;
}
