// SPDX-License-Identifier: MIT
// Speed of exact verification: simhash_jaccard and simhash_cosine over
// candidate pairs, beside the same Jaccard written in SQL over a features
// table (simhash_features stored once, joined to itself), in the same run.
//
// Texts are windows of the English corpus (tests/support/corpus.h): short ones of 50
// words and documents of 500, each with a copy that has a tenth of its words
// replaced. Every text is paired with its copy and with 9 other texts, and
// the pairs are walked grouped by their first text (as verifying the output
// of simhash_pairs does) and, to show what the remembered vectors are worth,
// in random order. Each query runs `--runs` times, interleaved, after one
// warm-up, each time on a new connection to the database file (so the
// functions start with an empty cache of feature vectors, as a verifying
// statement in a new session does); times are medians of the thread's CPU
// time.
//
// Usage: build/similarity_benchmark [--runs 5] [--short 2000] [--documents 400]
// (the database lives in /tmp/simhash_similarity_benchmark.db while it runs)
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_support.h"
#include "corpus.h"

namespace {

using simhash::bench::exec;
using simhash::bench::fail;
using simhash::bench::median;
using simhash::bench::thread_seconds;

constexpr int kPartnersPerText = 10;  // its edited copy and 9 others

// The value of a one-row, one-column query, and the CPU time it took.
struct Timed {
  double value;
  double seconds;
};

// Runs `untimed` and then, timed, `timed` and the one-row query `sql` on a new
// connection to `path`; returns the query's value and the timed CPU seconds.
Timed run_query(const std::string& path, const std::string& sql, const std::string& untimed = "",
                const std::string& timed = "") {
  sqlite3* db = simhash::bench::open_with_extension(path);
  if (!untimed.empty()) {
    exec(db, untimed);
  }
  const double start = thread_seconds();
  if (!timed.empty()) {
    exec(db, timed);
  }
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
    fail(db, sql);
  }
  if (sqlite3_step(statement) != SQLITE_ROW) {
    fail(db, sql);
  }
  const double value = sqlite3_column_double(statement, 0);
  sqlite3_finalize(statement);
  const double stop = thread_seconds();
  sqlite3_close(db);
  return {value, stop - start};
}

std::vector<std::string> corpus_words() {
  std::vector<std::string> words;
  for (const auto& document : simhash::bench::load_english_corpus()) {
    std::istringstream stream(document.text);
    std::string word;
    while (stream >> word) {
      words.push_back(word);
    }
  }
  return words;
}

// The Jaccard of every pair in SQL, from features tables named `features`
// and `totals`.
constexpr const char* kSqlJaccard =
    "SELECT sum(shared / (ta.total + tb.total - shared)) FROM ("
    "  SELECT p.a, p.b, (SELECT coalesce(sum(min(fa.weight, fb.weight)), 0)"
    "    FROM %1$s AS fa JOIN %1$s AS fb ON fb.id = p.b AND fb.feature = fa.feature"
    "    WHERE fa.id = p.a) AS shared FROM pairs AS p) AS s"
    "  JOIN %2$s AS ta ON ta.id = s.a JOIN %2$s AS tb ON tb.id = s.b";

// Builds the features and totals tables the SQL needs, under `prefix`.
std::string features_tables(const std::string& prefix) {
  return "CREATE TABLE " + prefix + "features(id INTEGER, feature TEXT, weight REAL," +
         " PRIMARY KEY (id, feature)) WITHOUT ROWID;" + "INSERT INTO " + prefix +
         "features SELECT texts.id, f.feature, f.weight"
         "  FROM texts, simhash_features(texts.body, 'n=3 weight=binary') AS f;"
         "CREATE TABLE " +
         prefix + "totals(id INTEGER PRIMARY KEY, total REAL);" + "INSERT INTO " + prefix +
         "totals SELECT id, sum(weight) FROM " + prefix + "features GROUP BY id;";
}

std::string format(const char* pattern, const char* first, const char* second = "") {
  char sql[1024];
  std::snprintf(sql, sizeof sql, pattern, first, second);
  return sql;
}

// Fills texts(id, body) with `count` windows of `length` words (ids 1..count)
// and their edited copies (ids count+1..2 count), and pairs(a, b) grouped by
// a, and shuffled_pairs with the same rows in random order.
void make_tables(sqlite3* db, const std::vector<std::string>& words, int count, int length,
                 std::mt19937_64& random) {
  exec(db,
       "DROP TABLE IF EXISTS texts; DROP TABLE IF EXISTS pairs; DROP TABLE IF EXISTS "
       "shuffled_pairs; DROP TABLE IF EXISTS features; DROP TABLE IF EXISTS totals;"
       "CREATE TABLE texts(id INTEGER PRIMARY KEY, body TEXT);"
       "CREATE TABLE pairs(a INTEGER, b INTEGER);"
       "CREATE TABLE shuffled_pairs(a INTEGER, b INTEGER)");
  std::vector<std::string> originals;
  std::vector<std::string> copies;
  std::uniform_real_distribution<double> coin(0, 1);
  const auto word_count = static_cast<std::size_t>(length);
  for (int i = 0; i < count; ++i) {
    const std::size_t start = random() % (words.size() - word_count);
    std::string original;
    std::string copy;
    for (std::size_t w = start; w < start + word_count; ++w) {
      original += words[w] + ' ';
      copy += (coin(random) < 0.1 ? words[random() % words.size()] : words[w]) + ' ';
    }
    originals.push_back(original);
    copies.push_back(copy);
  }
  exec(db, "BEGIN");
  sqlite3_stmt* insert = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO texts(body) VALUES (?)", -1, &insert, nullptr);
  for (const auto* texts : {&originals, &copies}) {
    for (const std::string& text : *texts) {
      sqlite3_bind_text(insert, 1, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
      sqlite3_step(insert);
      sqlite3_reset(insert);
    }
  }
  sqlite3_finalize(insert);
  std::vector<std::pair<int, int>> pairs;
  for (int a = 1; a <= count; ++a) {
    pairs.emplace_back(a, a + count);
    for (int other = 1; other < kPartnersPerText; ++other) {
      pairs.emplace_back(a, 1 + static_cast<int>(random() % static_cast<unsigned>(2 * count)));
    }
  }
  std::vector<std::pair<int, int>> shuffled = pairs;
  std::shuffle(shuffled.begin(), shuffled.end(), random);
  for (const auto& [table, rows] : {std::pair{"pairs", &pairs}, {"shuffled_pairs", &shuffled}}) {
    sqlite3_prepare_v2(db, (std::string("INSERT INTO ") + table + " VALUES (?, ?)").c_str(), -1,
                       &insert, nullptr);
    for (const auto& [a, b] : *rows) {
      sqlite3_bind_int(insert, 1, a);
      sqlite3_bind_int(insert, 2, b);
      sqlite3_step(insert);
      sqlite3_reset(insert);
    }
    sqlite3_finalize(insert);
  }
  // The SQL baseline's inputs, built once and not timed.
  exec(db, features_tables("main.") + "COMMIT");
}

void measure(const std::string& path, const char* label, int runs) {
  const double pairs = run_query(path, "SELECT count(*) FROM pairs").value;
  struct Query {
    const char* name;
    std::string sql;
    std::string untimed{};
    std::string timed{};
  };
  const auto over = [](const char* select, const char* table) {
    return format((std::string("SELECT ") + select +
                   " FROM %s AS p JOIN texts AS x ON x.id = p.a JOIN texts AS y ON y.id = p.b")
                      .c_str(),
                  table);
  };
  const std::string jaccard = "sum(simhash_jaccard(x.body, y.body, 'n=3 weight=binary'))";
  const std::vector<Query> queries = {
      {"SQL over the stored features table (built beforehand, not timed)",
       format(kSqlJaccard, "features", "totals")},
      {"SQL, building its features table first (timed)",
       format(kSqlJaccard, "temp.features", "temp.totals"), "", features_tables("temp.")},
      {"baseline: the join alone, `sum(length(x.body) + length(y.body))`",
       over("sum(length(x.body) + length(y.body))", "pairs")},
      {"`simhash_jaccard(x.body, y.body, 'n=3 weight=binary')`, grouped by a",
       over(jaccard.c_str(), "pairs")},
      {"the same, pairs in random order", over(jaccard.c_str(), "shuffled_pairs")},
      {"the same again on the connection (feature vectors cached)", over(jaccard.c_str(), "pairs"),
       over(jaccard.c_str(), "pairs")},
      {"`simhash_cosine(x.body, y.body)` (defaults), grouped by a",
       over("sum(simhash_cosine(x.body, y.body))", "pairs")},
  };
  constexpr std::size_t kSql = 0;
  constexpr std::size_t kSqlBuilding = 1;
  constexpr std::size_t kJaccard = 3;
  std::vector<std::vector<double>> times(queries.size());
  std::vector<double> values(queries.size());
  for (int run = -1; run < runs; ++run) {
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const Timed timed = run_query(path, queries[i].sql, queries[i].untimed, queries[i].timed);
      values[i] = timed.value;
      if (run >= 0) {
        times[i].push_back(timed.seconds);
      }
    }
  }
  // The functions and the SQL compute the same Jaccard: their sums agree.
  for (const std::size_t i : {kSqlBuilding, kJaccard, kJaccard + 1, kJaccard + 2}) {
    if (std::fabs(values[i] - values[kSql]) > 1e-6 * pairs) {
      std::fprintf(stderr, "%s: %s sums to %.9f, the SQL to %.9f\n", label, queries[i].name,
                   values[i], values[kSql]);
      std::exit(1);
    }
  }
  std::printf("\n%s: %.0f pairs, %d runs, medians\n", label, pairs, runs);
  std::printf(
      "| query | median s | pairs/s | speed vs the SQL | vs the SQL building its table |\n"
      "| --- | --- | --- | --- | --- |\n");
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const double seconds = median(times[i]);
    std::printf("| %s | %.4f | %.0f | %.1fx | %.1fx |\n", queries[i].name, seconds, pairs / seconds,
                median(times[kSql]) / seconds, median(times[kSqlBuilding]) / seconds);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  int short_texts = 2000;
  int documents = 400;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--runs") == 0) {
      runs = std::atoi(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--short") == 0) {
      short_texts = std::atoi(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--documents") == 0) {
      documents = std::atoi(argv[i + 1]);
    }
  }
  const std::vector<std::string> words = corpus_words();
  const std::string path = "/tmp/simhash_similarity_benchmark.db";
  std::remove(path.c_str());
  sqlite3* db = simhash::bench::open_with_extension(path);
  std::mt19937_64 random(20261123);
  make_tables(db, words, short_texts, 50, random);
  measure(path, "short texts (50 words)", runs);
  make_tables(db, words, documents, 500, random);
  measure(path, "documents (500 words)", runs);
  sqlite3_close(db);
  std::remove(path.c_str());
  return 0;
}
