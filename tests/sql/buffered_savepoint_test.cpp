// SPDX-License-Identifier: MIT
// simhash_index and simhash_similar keep their pending writes across
// savepoints (a trigger-driven insert opens a statement savepoint
// per row, and writing the pending changes at each cost 3-7x a direct
// insert). This test drives random writes through sql/recipes/follow_table.sql
// and similar_follow_table.sql inside transactions (begun by BEGIN or by a
// SAVEPOINT) with nested SAVEPOINTs, ROLLBACK TO, RELEASE, statements of
// several rows that fail half-way, OR REPLACE, and merges while savepoints
// are open (a 'rebuild' of simhash_index, an integrity check of
// simhash_similar, which writes its pending postings first; its searches
// read them beside the stored ones), which a later ROLLBACK TO undoes, so
// the changes made before that savepoint must be pending again. A
// brute-force model, a map of id -> body with a copy per open savepoint, is
// the answer: the rows, the integrity check and the queries (near(:q, r)
// within and above k; alike(:q, t) against a simhash_jaccard scan) must equal
// it inside the transaction, after COMMIT or ROLLBACK, and after the
// database is closed and opened again.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "index_test_support.h"
#include "near_duplicate_texts.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

// `prefix` and a number, appended: GCC 12 (i686) warns of an overlapping
// copy (-Wrestrict) in "literal" + std::string once inlined here.
std::string numbered(const char* prefix, std::size_t number) {
  std::string text = prefix;
  text += std::to_string(number);
  return text;
}

// id -> body.
using Rows = std::map<std::int64_t, std::string>;
// id -> simhash(body), nullopt for a body simhash() gives NULL.
using Fingerprints = std::map<std::int64_t, std::optional<std::uint64_t>>;

std::string recipe(const std::string& name) {
  std::ifstream stream(std::string(SIMHASH_SOURCE_DIR) + "/sql/recipes/" + name);
  std::ostringstream content;
  content << stream.rdbuf();
  return content.str();
}

// The parameter: true for simhash_similar through
// similar_follow_table.sql, false for simhash_index through follow_table.sql.
class BufferedSavepoints : public ::testing::TestWithParam<bool> {
 protected:
  bool similar() const { return GetParam(); }

  static constexpr int kIds = 300;  // ids collide often

  void open() {
    db_ = std::make_unique<TestDatabase>(file_.path());
    db_->exec(recipe(similar() ? "similar_follow_table.sql" : "follow_table.sql"));
  }

  std::optional<std::uint64_t> fingerprint(const std::string& body) {
    Prepared statement(db_->handle(), "SELECT simhash(?1)");
    sqlite3_bind_text(statement.get(), 1, body.c_str(), -1, SQLITE_TRANSIENT);
    EXPECT_EQ(sqlite3_step(statement.get()), SQLITE_ROW);
    if (sqlite3_column_type(statement.get(), 0) == SQLITE_NULL) {
      return std::nullopt;
    }
    return static_cast<std::uint64_t>(sqlite3_column_int64(statement.get(), 0));
  }

  std::string body() {
    if (random_() % 15 == 0) {
      return "?!";  // no words: simhash() is NULL
    }
    return families_.member(static_cast<int>(random_() % families_.family_count()),
                            static_cast<int>(random_() % 4), random_);
  }

  std::int64_t id() { return static_cast<std::int64_t>(1 + random_() % kIds); }

  // Runs `sql` with the integer or text arguments; true when it succeeded,
  // false when a PRIMARY KEY conflict undid it (anything else fails the test).
  bool run(const std::string& sql, const std::vector<std::int64_t>& ids, const std::string& text) {
    Prepared statement(db_->handle(), sql);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      sqlite3_bind_int64(statement.get(), static_cast<int>(i + 1), ids[i]);
    }
    sqlite3_bind_text(statement.get(), static_cast<int>(ids.size() + 1), text.c_str(), -1,
                      SQLITE_TRANSIENT);
    const int rc = sqlite3_step(statement.get());
    if (rc == SQLITE_DONE) {
      return true;
    }
    EXPECT_EQ(sqlite3_extended_errcode(db_->handle()), SQLITE_CONSTRAINT_PRIMARYKEY)
        << sql << ": " << sqlite3_errmsg(db_->handle());
    return false;
  }

  // One random write, applied to the table (and so through the triggers to
  // the index) and to the model as SQLite's documented semantics say.
  void write() {
    const std::string text = body();
    const std::string& fp = text;
    const std::int64_t a = id();
    const std::int64_t b = id();
    const std::int64_t c = id();
    switch (random_() % 8) {
      case 0: {
        const bool done = run("INSERT INTO docs(id, body) VALUES (?1, ?2)", {a}, text);
        EXPECT_EQ(done, !model_.count(a));
        if (done) {
          model_[a] = fp;
        }
        break;
      }
      case 1:
        run("INSERT OR REPLACE INTO docs(id, body) VALUES (?1, ?2)", {a}, text);
        model_[a] = fp;
        break;
      case 2:
        run("UPDATE docs SET body = ?2 WHERE id = ?1", {a}, text);
        if (model_.count(a)) {
          model_[a] = fp;
        }
        break;
      case 3: {
        const bool done =
            run("UPDATE docs SET id = ?2 WHERE id = ?1 AND ?3 IS NOT NULL", {a, b}, text);
        const bool moves = model_.count(a) && a != b;
        EXPECT_EQ(done, !moves || !model_.count(b));
        if (done && moves) {
          model_[b] = model_[a];
          model_.erase(a);
        }
        break;
      }
      case 4:
        run("UPDATE OR REPLACE docs SET id = ?2 WHERE id = ?1 AND ?3 IS NOT NULL", {a, b}, text);
        if (model_.count(a) && a != b) {
          model_[b] = model_[a];
          model_.erase(a);
        }
        break;
      case 5:
        run("DELETE FROM docs WHERE id = ?1 AND ?2 IS NOT NULL", {a}, text);
        model_.erase(a);
        break;
      case 6: {
        // Three rows in one statement: the whole statement fails, its rows
        // written before the conflict undone, when any id is taken.
        const bool done =
            run("INSERT INTO docs(id, body) VALUES (?1, ?4), (?2, ?4), (?3, ?4)", {a, b, c}, text);
        const bool free =
            a != b && b != c && a != c && !model_.count(a) && !model_.count(b) && !model_.count(c);
        EXPECT_EQ(done, free);
        if (done) {
          model_[a] = model_[b] = model_[c] = fp;
        }
        break;
      }
      default:
        run("UPDATE docs SET body = ?2 WHERE id BETWEEN ?1 AND ?1 + 20", {a}, text);
        for (auto it = model_.lower_bound(a); it != model_.end() && it->first <= a + 20; ++it) {
          it->second = fp;
        }
        break;
    }
  }

  void expect_index_equals_model(const std::string& when) {
    SCOPED_TRACE(when);
    if (similar()) {
      expect_similar_equals_model();
      return;
    }
    Fingerprints stored;
    Prepared rows(db_->handle(), "SELECT rowid, fp FROM near");
    while (sqlite3_step(rows.get()) == SQLITE_ROW) {
      const std::int64_t rowid = sqlite3_column_int64(rows.get(), 0);
      stored[rowid] = sqlite3_column_type(rows.get(), 1) == SQLITE_NULL
                          ? std::nullopt
                          : std::optional<std::uint64_t>(
                                static_cast<std::uint64_t>(sqlite3_column_int64(rows.get(), 1)));
    }
    Fingerprints expected;
    Model fingerprints;
    for (const auto& [row, text] : model_) {
      expected[row] = fingerprint(text);
      if (expected[row]) {
        fingerprints[row] = *expected[row];
      }
    }
    ASSERT_EQ(stored, expected);
    expect_integrity(db_->handle(), "near");
    Prepared near(db_->handle(), "SELECT rowid, distance FROM near(?1, ?2)");
    for (int i = 0; i < 4; ++i) {
      std::uint64_t query = random_();
      if (!fingerprints.empty() && i != 0) {
        auto it = fingerprints.lower_bound(id());
        query = (it != fingerprints.end() ? it : fingerprints.begin())->second;
        query = flip_random_bits(query, static_cast<int>(random_() % 3), random_);
      }
      for (const int radius : {0, 3, 5, 10}) {
        ASSERT_EQ(run_hits(db_->handle(), near.get(), query, radius),
                  brute_force(fingerprints, query, radius))
            << "near(:q, " << radius << ")";
      }
    }
  }

  // alike's rowids are the model's ids, and alike(:q, t) equals a
  // simhash_jaccard() scan of the model's bodies.
  void expect_similar_equals_model() {
    std::vector<std::int64_t> stored;
    std::vector<std::int64_t> ids;
    for (const auto& row : db_->rows("SELECT rowid FROM alike ORDER BY rowid")) {
      stored.push_back(std::stoll(*row[0]));
    }
    for (const auto& entry : model_) {
      ids.push_back(entry.first);
    }
    ASSERT_EQ(stored, ids);
    expect_integrity(db_->handle(), "alike");
    Prepared search(db_->handle(), "SELECT rowid FROM alike(?1, ?2) ORDER BY rowid");
    Prepared jaccard(db_->handle(), "SELECT simhash_jaccard(?1, ?2, 'n=3 weight=binary')");
    for (int i = 0; i < 3; ++i) {
      const std::string query = body();
      for (const double t : {0.5, 0.8, 1.0}) {
        std::vector<std::int64_t> expected;
        for (const auto& [row, text] : model_) {
          sqlite3_reset(jaccard.get());
          sqlite3_bind_text(jaccard.get(), 1, query.c_str(), -1, SQLITE_TRANSIENT);
          sqlite3_bind_text(jaccard.get(), 2, text.c_str(), -1, SQLITE_TRANSIENT);
          ASSERT_EQ(sqlite3_step(jaccard.get()), SQLITE_ROW);
          if (sqlite3_column_type(jaccard.get(), 0) != SQLITE_NULL &&
              sqlite3_column_double(jaccard.get(), 0) >= t) {
            expected.push_back(row);
          }
        }
        std::vector<std::int64_t> found;
        sqlite3_reset(search.get());
        sqlite3_bind_text(search.get(), 1, query.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_double(search.get(), 2, t);
        while (sqlite3_step(search.get()) == SQLITE_ROW) {
          found.push_back(sqlite3_column_int64(search.get(), 0));
        }
        ASSERT_EQ(found, expected) << query << " at " << t;
      }
    }
  }

  TempDatabaseFile file_{"index_buffered_savepoint"};
  std::unique_ptr<TestDatabase> db_;
  std::mt19937_64 random_{3232};
  TextFamilies families_{300, 40, 20, 32};
  Rows model_;
};

TEST_P(BufferedSavepoints, RandomWritesEqualABruteForceModel) {
  open();
  int rebuilds_rolled_back = 0;
  // Fewer under the sanitizers, but enough to reopen once and to undo merges
  // (the similar scan costs more).
  const int rounds = kSanitizedBuild ? 10 : similar() ? 20 : 40;
  for (int round = 0; round < rounds; ++round) {
    const std::string name = numbered("round ", static_cast<std::size_t>(round));
    // A transaction begun by BEGIN, or by a SAVEPOINT outside one (SQLite
    // then calls xRollbackTo(-1) for ROLLBACK TO it).
    const bool by_savepoint = random_() % 3 == 0;
    db_->exec(by_savepoint ? "SAVEPOINT outer_sp" : "BEGIN");
    const Rows at_begin = model_;
    std::vector<Rows> savepoints;  // the model when each open one was made
    std::vector<bool> rebuilt;     // a rebuild since it was made
    const int steps = 40 + static_cast<int>(random_() % 40);
    for (int step = 0; step < steps; ++step) {
      const int action = static_cast<int>(random_() % 20);
      if (action == 0 && savepoints.size() < 4) {
        db_->exec(numbered("SAVEPOINT s", savepoints.size()));
        savepoints.push_back(model_);
        rebuilt.push_back(false);
      } else if (action == 1 && !savepoints.empty()) {
        // To the newest or an older one: the newer ones are gone after it.
        const std::size_t to = random_() % savepoints.size();
        db_->exec(numbered("ROLLBACK TO s", to));
        model_ = savepoints[to];
        rebuilds_rolled_back += rebuilt[to] ? 1 : 0;
        savepoints.resize(to + 1);
        rebuilt.resize(to + 1);
        rebuilt[to] = false;
      } else if (action == 2 && !savepoints.empty()) {
        const std::size_t to = random_() % savepoints.size();
        db_->exec(numbered("RELEASE s", to));
        savepoints.resize(to);
        rebuilt.resize(to);
      } else if (action == 3) {
        // A merge of everything pending while savepoints are open: a
        // rebuild of simhash_index, an integrity check of simhash_similar
        // (which writes its pending postings first).
        db_->exec(similar() ? "INSERT INTO alike(alike) VALUES ('integrity-check')"
                            : "INSERT INTO near(near) VALUES ('rebuild')");
        rebuilt.assign(rebuilt.size(), true);
      } else if (action == 4 && by_savepoint && random_() % 2 == 0) {
        db_->exec("ROLLBACK TO outer_sp");
        model_ = at_begin;
        rebuilds_rolled_back += std::count(rebuilt.begin(), rebuilt.end(), true) > 0 ? 1 : 0;
        savepoints.clear();
        rebuilt.clear();
      } else if (action == 4) {
        expect_index_equals_model(name + ", inside, step " + std::to_string(step));
      } else {
        write();
      }
    }
    expect_index_equals_model(name + ", before its end");
    if (random_() % 4 == 0) {
      db_->exec(by_savepoint ? "ROLLBACK TO outer_sp; RELEASE outer_sp" : "ROLLBACK");
      model_ = at_begin;
    } else {
      db_->exec(by_savepoint ? "RELEASE outer_sp" : "COMMIT");
    }
    expect_index_equals_model(name + ", ended");
    if (round % 10 == 9) {
      db_.reset();
      open();
      expect_index_equals_model(name + ", reopened");
    }
  }
  EXPECT_GT(rebuilds_rolled_back, kSanitizedBuild ? 0 : 3)
      << "merges made inside a savepoint and then undone";
  EXPECT_GT(model_.size(), 50u);
}

INSTANTIATE_TEST_SUITE_P(Modules, BufferedSavepoints, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Similar" : "Index"; });

}  // namespace
}  // namespace simhash::testing
