// SPDX-License-Identifier: MIT
// The work of one radius-3 query on an existing index file, for comparing
// builds of the module under a tool that counts instructions (valgrind
// --tool=callgrind), where timings on a shared machine are too noisy to
// resolve a few percent. The file is made once (a 10M index:
//   sqlite3 idx.db ".load build/simhash" "CREATE VIRTUAL TABLE near USING
//   simhash_index(k=3); INSERT INTO near(fp) SELECT random() FROM
//   generate_series(1, 10000000)"
// ) and each build loaded in its own run. Half the queries are stored rows
// with 0-3 flipped bits, half random (as index_benchmark's); they run twice,
// a warm-up pass and a timed one, so the instructions of one query are the
// difference of two runs of different counts, divided by twice the
// difference of the counts.
//
// usage: index_query_cost DB EXTENSION QUERIES
#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: index_query_cost DB EXTENSION QUERIES\n");
    return 2;
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    std::fprintf(stderr, "cannot open %s\n", argv[1]);
    return 1;
  }
  sqlite3_enable_load_extension(db, 1);
  char* error = nullptr;
  if (sqlite3_load_extension(db, argv[2], nullptr, &error) != SQLITE_OK) {
    std::fprintf(stderr, "%s\n", error != nullptr ? error : "cannot load the extension");
    return 1;
  }
  sqlite3_exec(db, "PRAGMA cache_size = -2000000", nullptr, nullptr, nullptr);
  const int count = std::atoi(argv[3]);
  sqlite3_stmt* statement = nullptr;
  sqlite3_prepare_v2(db, "SELECT max(id) FROM near_data", -1, &statement, nullptr);
  sqlite3_step(statement);
  const std::int64_t max_id = sqlite3_column_int64(statement, 0);
  sqlite3_finalize(statement);
  std::mt19937_64 random(7);
  std::vector<std::int64_t> queries;
  sqlite3_prepare_v2(db, "SELECT fp FROM near_data WHERE id = ?1", -1, &statement, nullptr);
  for (int i = 0; i < count; ++i) {
    auto query = static_cast<std::int64_t>(random());
    if (i % 2 == 1 && max_id > 0) {
      sqlite3_bind_int64(statement, 1, 1 + static_cast<std::int64_t>(random() % max_id));
      if (sqlite3_step(statement) == SQLITE_ROW) {
        query = sqlite3_column_int64(statement, 0);
      }
      sqlite3_reset(statement);
      for (int flip = static_cast<int>(random() % 4); flip > 0; --flip) {
        query ^= std::int64_t{1} << (random() % 64);
      }
    }
    queries.push_back(query);
  }
  sqlite3_finalize(statement);
  sqlite3_prepare_v2(db, "SELECT count(*) FROM near WHERE fp MATCH ?1", -1, &statement, nullptr);
  for (int pass = 0; pass < 2; ++pass) {
    const auto started = std::chrono::steady_clock::now();
    long long rows = 0;
    for (const std::int64_t query : queries) {
      sqlite3_bind_int64(statement, 1, query);
      if (sqlite3_step(statement) != SQLITE_ROW) {
        std::fprintf(stderr, "%s\n", sqlite3_errmsg(db));
        return 1;
      }
      rows += sqlite3_column_int64(statement, 0);
      sqlite3_reset(statement);
    }
    if (pass == 1) {
      const std::chrono::duration<double, std::micro> took =
          std::chrono::steady_clock::now() - started;
      std::printf("%d queries, %lld rows, %.2f us/query (wall)\n", count, rows,
                  took.count() / count);
    }
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return 0;
}
