// SPDX-License-Identifier: MIT
// Benchmark of near-duplicates refused at insert: the cost of
// inserting one text into docs(id INTEGER PRIMARY KEY, body TEXT) holding a
// collection of `n` texts, three ways, each in a database file of its own
// loaded with the same collection:
//   plain    no index, no check: the insert alone;
//   indexed  sql/recipes/follow_table.sql alone: the index follows the
//            table, nothing is checked;
//   checked  sql/recipes/follow_table.sql and refuse_near_duplicates.sql, as
//            docs/application.md gives them (candidates within 10 bits from
//            the simhash_index, verified by word-3-shingle Jaccard >= 0.8);
//   scan     the same check written over an ordinary table fps(id, fp) kept
//            by a trigger: hamming() over every row, then the same Jaccard.
// The texts are pseudo-words (tests/support/near_duplicate_texts.h) in
// families of `family` near-duplicates of `length` words. The new texts are
// half members of the collection's families (1 or 2 words replaced: most are
// refused) and half texts of no family (inserted). Reported: the median and
// p99 latency of one insert in autocommit, the inserts per second that
// makes, and the inserts per second of `inserts` more in one transaction;
// the refusals of checked and scan must be the same (the index is exact).
// Journal: WAL with synchronous=NORMAL, a common application setting.
//
// usage: checked_insert_benchmark [n=100000] [inserts=2000] [scan_inserts=200]
//                                 [length=60] [family=8] [dir=/tmp] [cache_mb=64]
//                                 [ext=path of simhash.so to load]
//                                 [recipes=sql/recipes directory]
//                                 [keep=0 (1: leave the database files in dir)]
//                                 [pragmas=name:value,... (e.g. wal_autocheckpoint:0)]
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_support.h"
#include "near_duplicate_texts.h"

namespace {

using simhash::bench::arg;
using simhash::bench::Clock;
using simhash::bench::exec;
using simhash::bench::fail;
using simhash::bench::Latency;
using simhash::bench::seconds_since;
using simhash::testing::TextFamilies;

// sql/recipes/ of this source tree (recipes=... overrides): the benchmark
// measures the files the documentation shows.
std::string recipes = std::filesystem::path(__FILE__).parent_path().parent_path() / "sql/recipes";

std::string read_recipe(const std::string& name) {
  const std::string path = recipes + "/" + name;
  std::ifstream stream(path);
  if (!stream.good()) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(1);
  }
  std::ostringstream content;
  content << stream.rdbuf();
  return content.str();
}

// The scan baseline: the refuse recipe's check over an ordinary table of
// fingerprints. The query's fingerprint is a scalar subquery, computed once
// per insert, not once per row.
const char* const kScanSchema = R"sql(
CREATE TABLE fps(id INTEGER PRIMARY KEY, fp INTEGER);
CREATE TRIGGER docs_fps_insert AFTER INSERT ON docs BEGIN
  INSERT OR REPLACE INTO fps(id, fp) VALUES (new.id, simhash(new.body));
END;
CREATE TRIGGER docs_refuse_near_duplicate BEFORE INSERT ON docs
WHEN EXISTS (
  SELECT 1
    FROM fps AS f
    JOIN docs AS d ON d.id = f.id
   WHERE hamming(f.fp, (SELECT simhash(new.body))) <= 10
     AND f.id IS NOT new.id
     AND simhash_jaccard(new.body, d.body, 'n=3 weight=binary') >= 0.8)
BEGIN
  SELECT RAISE(ABORT, 'near-duplicate: a row of docs has word-3-shingle Jaccard >= 0.8 with this text');
END;
)sql";

std::string extension_path = SIMHASH_EXTENSION_PATH;
std::string cache_mb = "64";
std::string pragmas;  // pragmas=name:value,... run on every database after the defaults

sqlite3* open_fresh(const std::string& path) {
  for (const char* suffix : {"", "-journal", "-wal", "-shm"}) {
    std::filesystem::remove(path + suffix);
  }
  sqlite3* db = simhash::bench::open_with_extension(path, extension_path);
  exec(db, "PRAGMA journal_mode = WAL");
  exec(db, "PRAGMA synchronous = NORMAL");
  exec(db, "PRAGMA cache_size = -" + cache_mb + "000");
  // Settings to try against the defaults above (pragmas=name:value,...).
  for (std::size_t start = 0; start < pragmas.size();) {
    std::size_t end = pragmas.find(',', start);
    if (end == std::string::npos) end = pragmas.size();
    std::string setting = pragmas.substr(start, end - start);
    const std::size_t colon = setting.find(':');
    if (colon != std::string::npos) setting[colon] = '=';
    exec(db, "PRAGMA " + setting);
    start = end + 1;
  }
  exec(db, "CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)");
  return db;
}

void load(sqlite3* db, const std::vector<std::string>& texts) {
  sqlite3_stmt* insert = nullptr;
  if (sqlite3_prepare_v2(db, "INSERT INTO docs(body) VALUES (?1)", -1, &insert, nullptr) !=
      SQLITE_OK) {
    fail(db, "prepare load");
  }
  exec(db, "BEGIN");
  for (const std::string& text : texts) {
    sqlite3_bind_text(insert, 1, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
    if (sqlite3_step(insert) != SQLITE_DONE) {
      fail(db, "load");
    }
    sqlite3_reset(insert);
  }
  exec(db, "COMMIT");
  sqlite3_finalize(insert);
}

struct Result {
  Latency autocommit;
  double p90_us = 0;
  double max_us = 0;
  double autocommit_per_second = 0;
  double transaction_per_second = 0;
  int refused = 0;
  std::vector<char> outcomes;  // per autocommit insert: 'S' inserted, 'R' refused
};

// Inserts each text by one prepared statement; a refusal is an outcome, any
// other error ends the run.
Result insert_texts(sqlite3* db, const std::vector<std::string>& autocommit,
                    const std::vector<std::string>& in_transaction) {
  sqlite3_stmt* insert = nullptr;
  if (sqlite3_prepare_v2(db, "INSERT INTO docs(body) VALUES (?1)", -1, &insert, nullptr) !=
      SQLITE_OK) {
    fail(db, "prepare insert");
  }
  Result result;
  auto one = [&](const std::string& text) {
    sqlite3_bind_text(insert, 1, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
    const int rc = sqlite3_step(insert);
    sqlite3_reset(insert);
    if (rc == SQLITE_DONE) {
      return 'S';
    }
    if (rc == SQLITE_CONSTRAINT) {
      return 'R';
    }
    fail(db, "insert");
  };
  std::vector<double> micros;
  const auto start = Clock::now();
  for (const std::string& text : autocommit) {
    const auto before = Clock::now();
    const char outcome = one(text);
    micros.push_back(std::chrono::duration<double, std::micro>(Clock::now() - before).count());
    result.outcomes.push_back(outcome);
    result.refused += outcome == 'R' ? 1 : 0;
  }
  result.autocommit_per_second = static_cast<double>(autocommit.size()) / seconds_since(start);
  std::vector<double> sorted = micros;
  std::sort(sorted.begin(), sorted.end());
  if (!sorted.empty()) {
    result.p90_us = sorted[sorted.size() * 9 / 10];
    result.max_us = sorted.back();
  }
  result.autocommit = simhash::bench::latency_of(std::move(micros));
  if (!in_transaction.empty()) {
    const auto batch_start = Clock::now();
    exec(db, "BEGIN");
    for (const std::string& text : in_transaction) {
      one(text);
    }
    exec(db, "COMMIT");
    result.transaction_per_second =
        static_cast<double>(in_transaction.size()) / seconds_since(batch_start);
  }
  sqlite3_finalize(insert);
  return result;
}

void report(const char* name, const Result& result, std::size_t count) {
  std::printf(
      "%-8s  %6zu autocommit inserts: median %8.1f us  p90 %8.1f us  p99 %8.1f us  max %8.1f us  "
      "%7.0f inserts/s  (%d refused)  |  in one transaction: %7.0f inserts/s\n",
      name, count, result.autocommit.median_us, result.p90_us, result.autocommit.p99_us,
      result.max_us, result.autocommit_per_second, result.refused, result.transaction_per_second);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const auto n = static_cast<std::size_t>(std::stoll(arg(argc, argv, "n", "100000")));
  const int inserts = std::stoi(arg(argc, argv, "inserts", "2000"));
  const int scan_inserts = std::stoi(arg(argc, argv, "scan_inserts", "200"));
  const int length = std::stoi(arg(argc, argv, "length", "60"));
  const int family = std::stoi(arg(argc, argv, "family", "8"));
  const std::string dir = arg(argc, argv, "dir", "/tmp");
  extension_path = arg(argc, argv, "ext", extension_path);
  cache_mb = arg(argc, argv, "cache_mb", cache_mb);
  pragmas = arg(argc, argv, "pragmas", pragmas);
  recipes = arg(argc, argv, "recipes", recipes);
  const bool keep = arg(argc, argv, "keep", "0") == "1";

  // The collection: families of `family` texts, a base and members with 1 to
  // 6 of its words replaced.
  const int families = static_cast<int>((n + static_cast<std::size_t>(family) - 1) /
                                        static_cast<std::size_t>(family));
  const TextFamilies texts(20000, families, length, 24);
  std::mt19937_64 random(25);
  std::vector<std::string> collection;
  collection.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int f = static_cast<int>(i / static_cast<std::size_t>(family));
    const int edits =
        i % static_cast<std::size_t>(family) == 0 ? 0 : 1 + static_cast<int>(random() % 6);
    collection.push_back(texts.member(f, edits, random));
  }
  // New texts: even ones members of a family (1 or 2 words replaced), odd
  // ones of no family.
  auto make_new = [&](int count) {
    std::vector<std::string> result;
    for (int i = 0; i < count; ++i) {
      if (i % 2 == 0) {
        result.push_back(
            texts.member(static_cast<int>(random() % static_cast<std::uint64_t>(families)),
                         1 + static_cast<int>(random() % 2), random));
      } else {
        result.push_back(texts.fresh(length, random));
      }
    }
    return result;
  };
  const std::vector<std::string> autocommit = make_new(inserts);
  const std::vector<std::string> in_transaction = make_new(inserts);
  std::size_t bytes = 0;
  for (const std::string& text : collection) {
    bytes += text.size();
  }
  std::printf("collection: %zu texts of %d words (%.0f bytes on average) in families of %d\n", n,
              length, static_cast<double>(bytes) / static_cast<double>(n), family);

  // plain
  {
    sqlite3* db = open_fresh(dir + "/checked_insert_plain.db");
    load(db, collection);
    const Result result = insert_texts(db, autocommit, in_transaction);
    report("plain", result, autocommit.size());
    sqlite3_close(db);
  }
  // indexed: the index follows the table, no check (what the check adds)
  {
    sqlite3* db = open_fresh(dir + "/checked_insert_indexed.db");
    load(db, collection);
    exec(db, read_recipe("follow_table.sql"));
    const Result result = insert_texts(db, autocommit, in_transaction);
    report("indexed", result, autocommit.size());
    sqlite3_close(db);
  }
  // checked, by the recipes as the documentation gives them
  std::vector<char> checked_outcomes;
  {
    sqlite3* db = open_fresh(dir + "/checked_insert_index.db");
    load(db, collection);
    const auto start = Clock::now();
    exec(db, read_recipe("follow_table.sql"));
    exec(db, read_recipe("refuse_near_duplicates.sql"));
    std::printf("checked: index of %zu rows built in %.1f s\n", n, seconds_since(start));
    const Result result = insert_texts(db, autocommit, in_transaction);
    report("checked", result, autocommit.size());
    checked_outcomes = result.outcomes;
    sqlite3_close(db);
  }
  // scan
  {
    sqlite3* db = open_fresh(dir + "/checked_insert_scan.db");
    load(db, collection);
    exec(db, kScanSchema);
    exec(db, "INSERT INTO fps(id, fp) SELECT id, simhash(body) FROM docs");
    const std::vector<std::string> few(
        autocommit.begin(),
        autocommit.begin() +
            std::min<std::size_t>(autocommit.size(), static_cast<std::size_t>(scan_inserts)));
    const std::vector<std::string> few_batch(
        in_transaction.begin(),
        in_transaction.begin() +
            std::min<std::size_t>(in_transaction.size(), static_cast<std::size_t>(scan_inserts)));
    const Result result = insert_texts(db, few, few_batch);
    report("scan", result, few.size());
    // The same decisions as the index's, text by text (the first `few`).
    for (std::size_t i = 0; i < few.size(); ++i) {
      if (result.outcomes[i] != checked_outcomes[i]) {
        std::fprintf(stderr, "text %zu: scan says %c, index says %c\n", i, result.outcomes[i],
                     checked_outcomes[i]);
        return 1;
      }
    }
    std::printf("scan and checked refused the same texts (%zu compared)\n", few.size());
    sqlite3_close(db);
  }
  if (keep) {
    return 0;
  }
  for (const char* name : {"plain", "indexed", "index", "scan"}) {
    for (const char* suffix : {"", "-journal", "-wal", "-shm"}) {
      std::filesystem::remove(dir + "/checked_insert_" + name + ".db" + suffix);
    }
  }
  return 0;
}
