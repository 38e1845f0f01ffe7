// SPDX-License-Identifier: MIT
// The batch table-valued functions against a hostile or careless caller:
// queries and views that call the function again (refused at a nesting cap,
// each case in a child process so that a regression fails instead of
// killing the run); radius NULL with texts that have features but no
// fingerprint (symbols, emoji under character options) against brute force
// over every pair; repeated ids, also where a row has no text, refused by
// every function that reads (id, text) rows; query parameters, which nothing
// binds, refused; and messages that show the value they refuse exactly.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sqlite3.h>

#include <array>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "batch_sql_support.h"
#include "index_test_support.h"
#include "leader_rule_model.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

// ---------------------------------------------------------------------------
// Nesting: each case runs in a forked child (gtest death test), which exits
// 0 when the statement fails with the nesting message; a stack overflow
// kills the child and fails the test.

// Runs `setup`, then expects `sql` to fail naming the nesting cap, prints
// the message and exits 0; exits 1 otherwise.
[[noreturn]] void expect_refused_in_child(const std::string& setup, const std::string& sql) {
  TestDatabase db;
  std::string message;
  if (db.try_exec(setup, &message) != SQLITE_OK) {
    std::cerr << "setup failed: " << message << "\n";
    std::exit(2);
  }
  const int rc = db.try_exec(sql, &message);
  std::cerr << "rc " << rc << ": " << message << "\n";
  // The connection still works afterwards: the depth went back to 0.
  const bool usable =
      db.try_exec(
          "SELECT * FROM simhash_dedup('SELECT 1, ''a b c'' UNION ALL SELECT 2, ''a b "
          "c''')") == SQLITE_OK;
  std::exit(rc == SQLITE_ERROR && usable ? 0 : 1);
}

constexpr const char* kNested = "nested too deeply";

TEST(BatchNestingDeathTest, DedupWhoseQueryCallsItselfIsRefused) {
  const std::string setup =
      "CREATE TABLE q(s);"
      "INSERT INTO q VALUES ('SELECT id, cluster FROM simhash_dedup((SELECT s FROM q))')";
  EXPECT_EXIT(expect_refused_in_child(setup, "SELECT * FROM simhash_dedup((SELECT s FROM q))"),
              ::testing::ExitedWithCode(0), "simhash_dedup: nested too deeply");
}

TEST(BatchNestingDeathTest, VerifiedPairsWhoseQueryCallsItselfIsRefused) {
  const std::string setup =
      "CREATE TABLE q(s);"
      "INSERT INTO q VALUES ('SELECT a, b FROM simhash_verified_pairs((SELECT s FROM q))')";
  EXPECT_EXIT(
      expect_refused_in_child(setup, "SELECT * FROM simhash_verified_pairs((SELECT s FROM q))"),
      ::testing::ExitedWithCode(0), "simhash_verified_pairs: nested too deeply");
  const std::string between =
      "CREATE TABLE q(s);"
      "INSERT INTO q VALUES ('SELECT a, b FROM simhash_verified_pairs_between((SELECT s FROM q), "
      "''SELECT 1, 2'')')";
  EXPECT_EXIT(
      expect_refused_in_child(between,
                              "SELECT * FROM simhash_verified_pairs_between((SELECT s FROM q), "
                              "'SELECT 1, 2')"),
      ::testing::ExitedWithCode(0), "simhash_verified_pairs_between: nested too deeply");
}

// Two functions calling each other: the cap counts every level, whichever
// function runs it.
TEST(BatchNestingDeathTest, FunctionsCallingEachOtherAreRefused) {
  const std::string setup =
      "CREATE TABLE q(name, s);"
      "INSERT INTO q VALUES ('dedup', 'SELECT a, b FROM simhash_verified_pairs((SELECT s FROM q "
      "WHERE name = ''pairs''))');"
      "INSERT INTO q VALUES ('pairs', 'SELECT id, cluster FROM simhash_dedup((SELECT s FROM q "
      "WHERE name = ''dedup''))')";
  EXPECT_EXIT(expect_refused_in_child(
                  setup, "SELECT * FROM simhash_dedup((SELECT s FROM q WHERE name = 'dedup'))"),
              ::testing::ExitedWithCode(0), kNested);
}

// A view over simhash_clusters of itself (as a table of pairs): refused
// under trusted_schema=OFF (simhash_clusters is not innocuous), and with the
// default, by the cap.
TEST(BatchNestingDeathTest, ViewOverClustersOfItselfIsRefused) {
  const std::string setup =
      "CREATE VIEW v AS SELECT id AS a, cluster AS b FROM simhash_clusters('v')";
  EXPECT_EXIT(expect_refused_in_child(setup, "SELECT * FROM v"), ::testing::ExitedWithCode(0),
              "simhash_clusters: nested too deeply");
  EXPECT_EXIT(expect_refused_in_child("PRAGMA trusted_schema=OFF;" + setup, "SELECT * FROM v"),
              ::testing::ExitedWithCode(0), "unsafe use of virtual table");
  const std::string two_views =
      "CREATE VIEW v1 AS SELECT id AS a, cluster AS b FROM simhash_clusters('v2');"
      "CREATE VIEW v2 AS SELECT id AS a, cluster AS b FROM simhash_clusters('v1')";
  EXPECT_EXIT(expect_refused_in_child(two_views, "SELECT * FROM simhash_clusters('v1')"),
              ::testing::ExitedWithCode(0), "simhash_clusters: nested too deeply");
}

// The cap is small enough for a thread with a small stack: the refused
// nesting fits in 512 KiB (a Release build needs under 64 KiB for the 8
// levels and overflows 24 KiB, so this fails if the cap stops working;
// the room is for sanitizer builds, whose frames are larger).
void* nest_on_small_stack(void* result) {
  TestDatabase db;
  db.exec(
      "CREATE TABLE q(s);"
      "INSERT INTO q VALUES ('SELECT id, cluster FROM simhash_dedup((SELECT s FROM q))')");
  *static_cast<std::string*>(result) = db.error("SELECT * FROM simhash_dedup((SELECT s FROM q))");
  return nullptr;
}

TEST(BatchNestingDeathTest, TheCapFitsASmallThreadStack) {
  const auto run = [] {
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, std::size_t{512} << 10);
    std::string message;
    pthread_t thread;
    if (pthread_create(&thread, &attributes, nest_on_small_stack, &message) != 0) {
      std::exit(2);
    }
    pthread_join(thread, nullptr);
    std::cerr << message << "\n";
    std::exit(message.find(kNested) != std::string::npos ? 0 : 1);
  };
  EXPECT_EXIT(run(), ::testing::ExitedWithCode(0), kNested);
}

// Nesting below the cap is allowed and right: a dedup of a query that reads
// simhash_clusters over a table of pairs.
TEST(BatchNesting, ShallowNestingWorks) {
  TestDatabase db;
  db.exec(
      "CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT);"
      "INSERT INTO docs VALUES (1, 'red green blue one'), (2, 'red green blue one'),"
      " (3, 'apple pear plum fig'), (4, 'apple pear plum fig');"
      "CREATE VIEW verified AS SELECT 1 AS a, 2 AS b UNION ALL SELECT 3, 4");
  EXPECT_EQ(db.rows("SELECT id, cluster FROM simhash_dedup('SELECT c.id, d.body FROM "
                    "simhash_clusters(''verified'') c JOIN docs d USING (id) ORDER BY c.id')"),
            (std::vector<Row>{{"1", "1"}, {"2", "1"}, {"3", "3"}, {"4", "3"}}));
}

// ---------------------------------------------------------------------------
// Radius NULL: none missed, texts without a fingerprint included.

// Random texts: words, symbols only, emoji only, mixes, copies of earlier
// texts (so identical pairs at 1.0), a few NULL and empty ones.
std::vector<std::optional<std::string>> hostile_texts(std::size_t count, std::uint64_t seed) {
  static const std::array<const char*, 8> words = {"red",  "green", "blue", "one",
                                                   "lamp", "river", "fig",  "stone"};
  static const std::array<const char*, 9> symbols = {"★", "★★", "+1", "!!", "?!",
                                                     "#", "…",  "—",  "%"};
  static const std::array<const char*, 6> emoji = {"😀", "🎉", "👍", "🔥", "❤️", "🚀"};
  std::mt19937_64 random(seed);
  std::vector<std::optional<std::string>> texts;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t kind = random() % 10;
    if (kind == 0 && !texts.empty()) {
      texts.push_back(texts[random() % texts.size()]);  // an exact copy
      continue;
    }
    if (kind == 1) {
      texts.push_back(random() % 3 == 0 ? std::nullopt : std::optional<std::string>(""));
      continue;
    }
    std::string text;
    const int tokens = 2 + static_cast<int>(random() % 6);
    for (int token = 0; token < tokens; ++token) {
      const char* separator = random() % 2 == 0 ? " " : "";
      text += token > 0 ? separator : "";
      if (kind < 4) {
        text += symbols[random() % symbols.size()];
      } else if (kind < 7) {
        text += emoji[random() % emoji.size()];
      } else if (kind < 9) {
        text += words[random() % words.size()];
      } else {
        text +=
            random() % 2 == 0 ? words[random() % words.size()] : symbols[random() % symbols.size()];
      }
    }
    texts.push_back(text);
  }
  return texts;
}

void fill_texts(TestDatabase& db, const std::vector<std::optional<std::string>>& texts) {
  db.exec("DROP TABLE IF EXISTS docs; CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)");
  Prepared insert(db.handle(), "INSERT INTO docs VALUES (?1, ?2)");
  for (std::size_t i = 0; i < texts.size(); ++i) {
    sqlite3_bind_int64(insert.get(), 1, static_cast<sqlite3_int64>(i + 1));
    if (texts[i]) {
      sqlite3_bind_text(insert.get(), 2, texts[i]->c_str(), static_cast<int>(texts[i]->size()),
                        SQLITE_TRANSIENT);
    } else {
      sqlite3_bind_null(insert.get(), 2);
    }
    step_write(db.handle(), insert.get());
  }
}

// (id, simhash(body)) of every row, by id.
std::map<std::int64_t, std::optional<std::uint64_t>> fingerprints(TestDatabase& db) {
  std::map<std::int64_t, std::optional<std::uint64_t>> result;
  Prepared query(db.handle(), "SELECT id, simhash(body) FROM docs");
  step_all(db.handle(), query.get(), [&](sqlite3_stmt* row) {
    result[sqlite3_column_int64(row, 0)] =
        sqlite3_column_type(row, 1) == SQLITE_NULL
            ? std::nullopt
            : std::optional<std::uint64_t>(
                  static_cast<std::uint64_t>(sqlite3_column_int64(row, 1)));
  });
  return result;
}

// simhash_jaccard of every pair of rows (a < b) that has one.
std::map<std::pair<std::int64_t, std::int64_t>, double> every_similarity(
    TestDatabase& db, const std::string& options) {
  std::map<std::pair<std::int64_t, std::int64_t>, double> result;
  Prepared query(db.handle(), "SELECT x.id, y.id, simhash_jaccard(x.body, y.body, '" + options +
                                  "') FROM docs x JOIN docs y ON x.id < y.id");
  step_all(db.handle(), query.get(), [&](sqlite3_stmt* row) {
    if (sqlite3_column_type(row, 2) != SQLITE_NULL) {
      result[{sqlite3_column_int64(row, 0), sqlite3_column_int64(row, 1)}] =
          sqlite3_column_double(row, 2);
    }
  });
  return result;
}

// (id, cluster or b, distance or -1 for NULL, similarity).
using Found = std::tuple<std::int64_t, std::int64_t, std::int64_t, double>;

std::vector<Found> found(TestDatabase& db, const std::string& sql) {
  std::vector<Found> rows;
  Prepared query(db.handle(), sql);
  step_all(db.handle(), query.get(), [&](sqlite3_stmt* row) {
    rows.emplace_back(
        sqlite3_column_int64(row, 0), sqlite3_column_int64(row, 1),
        sqlite3_column_type(row, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(row, 2),
        sqlite3_column_double(row, 3));
  });
  return rows;
}

std::int64_t distance_or_null(const std::optional<std::uint64_t>& a,
                              const std::optional<std::uint64_t>& b) {
  return a && b ? std::popcount(*a ^ *b) : -1;
}

const std::vector<std::string>& join_options() {
  static const std::vector<std::string> options = {
      "unit=char n=3 weight=binary", "unit=char n=1 weight=binary", "unit=char,n=5,weight=binary",
      "n=3 weight=binary", "n=1 weight=binary"};
  return options;
}

TEST(BatchRadiusNull, DedupMissesNoPairOfTextsWithoutAFingerprint) {
  TestDatabase db;
  int symbol_groups = 0;
  for (const std::uint64_t seed : {1, 2, 3}) {
    fill_texts(db, hostile_texts(70, seed));
    const auto fingerprint = fingerprints(db);
    std::vector<std::int64_t> ids;
    for (const auto& entry : fingerprint) {
      ids.push_back(entry.first);
    }
    for (const std::string& options : join_options()) {
      const auto similarity = every_similarity(db, options);
      for (const double threshold : {0.5, 0.8, 1.0}) {
        // The leader rule over every pair at the threshold, rows by id.
        const std::vector<ModelLeader> leaders =
            leader_rule_model(ids.size(), [&](std::size_t row, std::size_t leader) {
              const auto it = similarity.find({ids[leader], ids[row]});
              return it != similarity.end() && it->second >= threshold
                         ? std::optional<double>(it->second)
                         : std::nullopt;
            });
        std::map<std::size_t, int> size;
        for (const ModelLeader& leader : leaders) {
          ++size[leader.leader];
        }
        std::vector<Found> expected;
        for (std::size_t i = 0; i < ids.size(); ++i) {
          if (size[leaders[i].leader] < 2) {
            continue;
          }
          const std::int64_t kept = ids[leaders[i].leader];
          expected.emplace_back(ids[i], kept,
                                distance_or_null(fingerprint.at(ids[i]), fingerprint.at(kept)),
                                leaders[i].similarity);
          symbol_groups += fingerprint.at(ids[i]) ? 0 : 1;
        }
        const std::string call =
            "SELECT id, cluster, distance, similarity FROM simhash_dedup("
            "'SELECT id, body FROM docs ORDER BY id', " +
            std::to_string(threshold) + ", NULL, '" + options + "')";
        EXPECT_EQ(found(db, call), expected) << call << " seed " << seed;
      }
    }
  }
  EXPECT_GT(symbol_groups, 100) << "the data groups texts without a fingerprint";
}

// With a radius a text without a fingerprint has no candidates, as in the
// recipe (its simhash() is NULL, so the index finds nothing for it).
TEST(BatchRadiusNull, WithARadiusTextsWithoutAFingerprintStayOut) {
  TestDatabase db;
  db.exec(
      "CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT);"
      "INSERT INTO docs VALUES (1, '★★★★★'), (2, '★★★★★'), (3, '!! ?!'), (4, '!! ?!'),"
      " (5, '😀🎉'), (6, '😀🎉'), (7, 'red green'), (8, 'red green')");
  const std::string options = "'unit=char n=3 weight=binary'";
  EXPECT_EQ(found(db, "SELECT * FROM simhash_dedup('SELECT id, body FROM docs', 1.0, NULL, " +
                          options + ")"),
            (std::vector<Found>{{1, 1, -1, 1.0},
                                {2, 1, -1, 1.0},
                                {3, 3, -1, 1.0},
                                {4, 3, -1, 1.0},
                                {5, 5, -1, 1.0},
                                {6, 5, -1, 1.0},
                                {7, 7, 0, 1.0},
                                {8, 7, 0, 1.0}}));
  EXPECT_EQ(found(db, "SELECT * FROM simhash_dedup('SELECT id, body FROM docs', 1.0, 3, " +
                          options + ")"),
            (std::vector<Found>{{7, 7, 0, 1.0}, {8, 7, 0, 1.0}}));
  // Left out, character options take the fallback radius: the same.
  EXPECT_EQ(found(db, "SELECT * FROM simhash_dedup('SELECT id, body FROM docs', 1.0, 10, " +
                          options + ")"),
            found(db,
                  "SELECT id, cluster, distance, similarity FROM "
                  "simhash_dedup('SELECT id, body FROM docs', 1.0) WHERE options = " +
                      options));
}

TEST(BatchRadiusNull, VerifiedPairsMissNoPairOfTextsWithoutAFingerprint) {
  TestDatabase db;
  int without_fingerprint = 0;
  for (const std::uint64_t seed : {4, 5}) {
    fill_texts(db, hostile_texts(70, seed));
    const auto fingerprint = fingerprints(db);
    for (const std::string& options : join_options()) {
      const auto similarity = every_similarity(db, options);
      for (const double threshold : {0.5, 0.8, 1.0}) {
        std::vector<Found> expected;
        std::vector<Found> expected_between;  // new: odd ids; kept: even ids
        for (const auto& [pair, value] : similarity) {
          if (value < threshold) {
            continue;
          }
          const auto [a, b] = pair;
          const std::int64_t distance = distance_or_null(fingerprint.at(a), fingerprint.at(b));
          expected.emplace_back(a, b, distance, value);
          without_fingerprint += distance < 0 ? 1 : 0;
          if (a % 2 != b % 2) {
            expected_between.emplace_back(a % 2 == 1 ? a : b, a % 2 == 1 ? b : a, distance, value);
          }
        }
        std::sort(expected_between.begin(), expected_between.end());
        const std::string tail = std::to_string(threshold) + ", '" + options + "')";
        const std::string call =
            "SELECT a, b, distance, similarity FROM simhash_verified_pairs("
            "'SELECT id, body FROM docs', " +
            tail;
        EXPECT_EQ(found(db, call), expected) << call << " seed " << seed;
        const std::string between =
            "SELECT a, b, distance, similarity FROM simhash_verified_pairs_between("
            "'SELECT id, body FROM docs WHERE id % 2 = 1', "
            "'SELECT id, body FROM docs WHERE id % 2 = 0', " +
            tail;
        EXPECT_EQ(found(db, between), expected_between) << between << " seed " << seed;
      }
    }
  }
  EXPECT_GT(without_fingerprint, 100) << "the data pairs texts without a fingerprint";
}

// ---------------------------------------------------------------------------
// Validation.

void expect_error(TestDatabase& db, const std::string& sql, const std::string& expected) {
  const std::string message = db.error(sql);
  EXPECT_EQ(message, expected) << sql;
}

TEST(BatchValidation, RepeatedIdsAreRefusedByEveryTextFunction) {
  TestDatabase db;
  db.exec(
      "CREATE TABLE docs(id INTEGER, body TEXT);"
      "INSERT INTO docs VALUES (1, 'red green blue one'), (2, 'red green blue one'),"
      " (1, 'red green blue one');"
      "CREATE TABLE holes(id INTEGER, body TEXT);"
      "INSERT INTO holes VALUES (1, 'red green blue one'), (2, 'red green blue one'),"
      " (2, NULL), (3, ''), (3, '!!!');"
      "CREATE TABLE other(id INTEGER, body TEXT);"
      "INSERT INTO other VALUES (1, 'red green blue one'), (5, 'red green blue one')");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"SELECT * FROM simhash_dedup('SELECT id, body FROM docs')",
       "simhash_dedup: the query returns id 1 more than once; ids must be distinct"},
      {"SELECT * FROM simhash_verified_pairs('SELECT id, body FROM docs')",
       "simhash_verified_pairs: the query returns id 1 more than once; ids must be distinct"},
      {"SELECT * FROM simhash_verified_pairs_between('SELECT id, body FROM docs', 'SELECT id, "
       "body FROM other')",
       "simhash_verified_pairs_between: the new rows' query returns id 1 more than once; ids "
       "must be distinct"},
      {"SELECT * FROM simhash_verified_pairs_between('SELECT id, body FROM other', 'SELECT id, "
       "body FROM docs')",
       "simhash_verified_pairs_between: the kept rows' query returns id 1 more than once; ids "
       "must be distinct"},
      // One of the rows has no text (or no features): still a repeated id.
      {"SELECT * FROM simhash_dedup('SELECT id, body FROM holes')",
       "simhash_dedup: the query returns id 2 more than once; ids must be distinct"},
      {"SELECT * FROM simhash_dedup('SELECT id, body FROM holes WHERE id <> 2')",
       "simhash_dedup: the query returns id 3 more than once; ids must be distinct"},
      {"SELECT * FROM simhash_verified_pairs('SELECT id, body FROM holes')",
       "simhash_verified_pairs: the query returns id 2 more than once; ids must be distinct"},
  };
  for (const auto& [sql, expected] : cases) {
    expect_error(db, sql, expected);
  }
  // Between, the same id on both sides is two rows of two sets: allowed.
  EXPECT_EQ(db.rows("SELECT a, b, similarity FROM simhash_verified_pairs_between('SELECT id, "
                    "body FROM other WHERE id = 1', 'SELECT id, body FROM other')"),
            (std::vector<Row>{{"1", "1", "1.0"}, {"1", "5", "1.0"}}));
}

TEST(BatchValidation, QueryParametersAreRefused) {
  TestDatabase db;
  db.exec(
      "CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT, lang TEXT);"
      "INSERT INTO docs VALUES (1, 'red green blue one', 'en'), (2, 'red green blue one', 'en')");
  const std::string advice =
      ") that nothing binds (it would read as NULL); write its value into the query's text "
      "instead, e.g. 'SELECT id, body FROM docs WHERE lang = ' || quote(:lang)";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"SELECT * FROM simhash_dedup('SELECT id, body FROM docs WHERE lang = ?')",
       "simhash_dedup: the query has a parameter (?" + advice},
      {"SELECT * FROM simhash_dedup('SELECT id, body FROM docs WHERE lang = :lang')",
       "simhash_dedup: the query has a parameter (:lang" + advice},
      {"SELECT * FROM simhash_verified_pairs('SELECT id, body FROM docs WHERE id > ?2')",
       "simhash_verified_pairs: the query has a parameter (?2" + advice},
      {"SELECT * FROM simhash_verified_pairs_between('SELECT id, body FROM docs', 'SELECT id, "
       "body FROM docs WHERE lang = @lang')",
       "simhash_verified_pairs_between: the kept rows' query has a parameter (@lang" + advice},
  };
  for (const auto& [sql, expected] : cases) {
    expect_error(db, sql, expected);
  }
  // The advice works: the value inlined with quote().
  Prepared inlined(db.handle(),
                   "SELECT count(*) FROM simhash_dedup('SELECT id, body FROM docs WHERE lang = ' "
                   "|| quote(:lang))");
  sqlite3_bind_text(inlined.get(), 1, "en", -1, SQLITE_STATIC);
  std::int64_t count = -1;
  step_all(db.handle(), inlined.get(),
           [&](sqlite3_stmt* row) { count = sqlite3_column_int64(row, 0); });
  EXPECT_EQ(count, 2);
}

TEST(BatchValidation, MessagesShowTheValueExactly) {
  TestDatabase db;
  db.exec(
      "CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT);"
      "INSERT INTO docs VALUES (1, 'red green blue one'), (2, 'red green blue one');"
      "CREATE VIRTUAL TABLE near USING simhash_index;"
      "INSERT INTO near(rowid, fp) VALUES (1, 1), (2, 3), (3, 7)");
  const std::string dedup = "SELECT * FROM simhash_dedup('SELECT id, body FROM docs', ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {dedup + "1.0000000000000002)",
       "simhash_dedup: the threshold must be in (0, 1], got 1.0000000000000002"},
      {dedup + "1.5)", "simhash_dedup: the threshold must be in (0, 1], got 1.5"},
      {dedup + "-0.0)", "simhash_dedup: the threshold must be in (0, 1], got -0.0"},
      {dedup + "2)", "simhash_dedup: the threshold must be in (0, 1], got 2"},
      {dedup + "4.9e-324 - 4.9e-324)", "simhash_dedup: the threshold must be in (0, 1], got 0.0"},
      {"SELECT * FROM simhash_verified_pairs('SELECT id, body FROM docs', 1e300)",
       "simhash_verified_pairs: the threshold must be in (0, 1], got 1.0e+300"},
      {dedup + "0.8, 0.1 + 0.2)",
       "simhash_dedup: the radius must be an integer, got 0.30000000000000004"},
      {dedup + "0.8, -1.0)", "simhash_dedup: the radius must not be negative (got -1.0)"},
      {dedup + "0.8, 3, NULL, 2.5)",
       "simhash_dedup: threads must be an integer from 1 to 64 (NULL: every core), got 2.5"},
      {dedup + "0.8, 3, NULL, 65.0)",
       "simhash_dedup: threads must be an integer from 1 to 64 (NULL: every core), got 65.0"},
      {"SELECT * FROM simhash_pairs('near', 2.5)",
       "simhash_pairs: the radius must be an integer, got 2.5"},
      {"SELECT * FROM near(1, 64, 2.5)",
       "simhash_index near: nearest must be a count of rows, an integer of 0 or more, got 2.5"},
      {"SELECT * FROM near(1, 64, -1.0)",
       "simhash_index near: nearest must be a count of rows, an integer of 0 or more, got -1.0"},
      {"SELECT * FROM near(1, 64, 1e19)",
       "simhash_index near: nearest must be a count of rows, an integer of 0 or more, got 1.0e+19"},
      {"SELECT * FROM near(1, 64, '5')",
       "simhash_index near: nearest must be a count of rows, an integer of 0 or more, got TEXT "
       "'5'"},
  };
  for (const auto& [sql, expected] : cases) {
    expect_error(db, sql, expected);
  }
}

// An integral REAL is the integer wherever a count is read: radius, nearest,
// threads.
TEST(BatchValidation, IntegralRealsReadAsIntegers) {
  TestDatabase db;
  db.exec(
      "CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT);"
      "INSERT INTO docs VALUES (1, 'red green blue one'), (2, 'red green blue one'),"
      " (3, 'apple pear plum fig');"
      "CREATE VIRTUAL TABLE near USING simhash_index;"
      "INSERT INTO near(rowid, fp) VALUES (1, 1), (2, 3), (3, 7), (4, 255)");
  EXPECT_EQ(db.rows("SELECT * FROM near(1, 64, 2.0)"), db.rows("SELECT * FROM near(1, 64, 2)"));
  EXPECT_EQ(db.rows("SELECT rowid FROM near WHERE query = 1 AND nearest = 3.0"),
            db.rows("SELECT rowid FROM near WHERE query = 1 AND nearest = 3"));
  EXPECT_EQ(db.rows("SELECT * FROM simhash_pairs('near', 5.0)"),
            db.rows("SELECT * FROM simhash_pairs('near', 5)"));
  EXPECT_EQ(db.rows("SELECT * FROM simhash_dedup('SELECT id, body FROM docs', 0.8, 5.0, NULL, "
                    "2.0)"),
            db.rows("SELECT * FROM simhash_dedup('SELECT id, body FROM docs', 0.8, 5, NULL, 2)"));
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_verified_pairs('SELECT id, body FROM docs', "
                       "1, NULL, 1.0)"),
            1);
}

}  // namespace
}  // namespace simhash::testing
