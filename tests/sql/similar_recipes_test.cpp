// SPDX-License-Identifier: MIT
// The recipes built on simhash_similar, run from sql/recipes/ as they are:
//   - similar_follow_table.sql: random writes to docs(id, body) (INSERT with
//     a chosen id, negative ones included, and with one SQLite chooses; OR
//     REPLACE, REPLACE, OR IGNORE, UPSERT, UPDATE of body, of id, of both,
//     UPDATE OR REPLACE, DELETE, statements of many rows; wordless and NULL
//     texts) in transactions with savepoints, rollbacks and failing
//     statements, with PRAGMA recursive_triggers off and on and with the
//     table's key declared to replace or not. After each round, inside the
//     open transaction and after it ends, `alike` must hold exactly the rows
//     of docs, each with the features of its body, and answer as a
//     simhash_jaccard scan of docs does.
//   - similar_refuse.sql: each insert is refused exactly when the scan finds
//     another row at the threshold or above, the message names the most
//     similar one, a refused statement changes nothing, and the threshold
//     is set as the recipe says.
//   - similar_skip.sql: each insert is skipped exactly then, without an
//     error; similar_near_duplicate_of.sql lists what the scan finds.
//   - similar_record.sql: after every write (inserts, replaces, updates of
//     body and id, deletes) the links equal a model that applies the
//     recipe's rule with the scan.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "index_test_support.h"
#include "near_duplicate_texts.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

constexpr const char* kOptions = "n=3 weight=binary";  // what the recipe creates

std::string read_recipe(const std::string& name) {
  const std::string path = std::string(SIMHASH_SOURCE_DIR) + "/sql/recipes/" + name;
  std::ifstream stream(path);
  EXPECT_TRUE(stream.good()) << "cannot read " << path;
  std::ostringstream content;
  content << stream.rdbuf();
  return content.str();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

using Argument = std::optional<std::string>;

void bind_text(sqlite3_stmt* statement, int place, const Argument& text) {
  if (text) {
    sqlite3_bind_text(statement, place, text->c_str(), static_cast<int>(text->size()),
                      SQLITE_TRANSIENT);
  } else {
    sqlite3_bind_null(statement, place);
  }
}

// Texts: families of near-duplicates (so queries find rows at every
// threshold), texts of no family, short texts, wordless texts and NULL.
class Bodies {
 public:
  explicit Bodies(std::uint64_t seed) : families_(300, 50, 20, seed) {}

  Argument next(std::mt19937_64& random) const {
    const int kind = static_cast<int>(random() % 20);
    if (kind == 0) {
      return std::nullopt;
    }
    if (kind == 1) {
      static const char* const kWordless[] = {"", "!!!", " -- ... ", "?!"};
      return std::string(kWordless[random() % 4]);
    }
    if (kind == 2) {
      return families_.fresh(1 + static_cast<int>(random() % 20), random);
    }
    const int family = static_cast<int>(random() % families_.family_count());
    return families_.member(family, static_cast<int>(random() % 5), random);
  }

 private:
  TextFamilies families_;
};

// ?1 an id, ?2 a body, ?3 another id. A statement may fail on the key (a
// duplicate id); SQLite then undoes all of it, `alike`'s part included.
const char* const kWrites[] = {
    "INSERT INTO docs(id, body) VALUES (?1, ?2)",
    "INSERT INTO docs(body) VALUES (?2)",
    "INSERT INTO docs(id, body) VALUES (-?1, ?2)",
    "INSERT OR REPLACE INTO docs(id, body) VALUES (?1, ?2)",
    "REPLACE INTO docs(id, body) VALUES (?3, ?2)",
    "REPLACE INTO docs(id, body) VALUES (-?3, ?2)",
    "INSERT OR IGNORE INTO docs(id, body) VALUES (?1, ?2)",
    "INSERT INTO docs(id, body) VALUES (?1, ?2) ON CONFLICT(id) DO UPDATE SET body = excluded.body",
    "INSERT INTO docs(id, body) VALUES (?1, ?2) ON CONFLICT(id) DO UPDATE SET id = ?3",
    "UPDATE docs SET body = ?2 WHERE id = ?1",
    "UPDATE docs SET id = ?3 WHERE id = ?1",
    "UPDATE docs SET id = -id WHERE id = ?1",
    "UPDATE OR REPLACE docs SET id = ?3 WHERE id = ?1",
    "UPDATE docs SET id = ?3, body = ?2 WHERE id = ?1",
    "DELETE FROM docs WHERE id = ?1",
    "DELETE FROM docs WHERE id BETWEEN -?1 - 2 AND -?1",
    "UPDATE docs SET body = body || ' ' || ?2 WHERE id BETWEEN ?1 AND ?1 + 30 AND id % 3 = 0",
    ("INSERT OR REPLACE INTO docs(id, body) SELECT id + 1, body FROM docs "
     "WHERE id BETWEEN ?1 AND ?1 + 20 AND id % 4 = 0"),
    "INSERT INTO docs(body) SELECT body FROM docs WHERE id BETWEEN ?1 AND ?1 + 3",
    "UPDATE OR REPLACE docs SET id = id + 1 WHERE id BETWEEN ?1 AND ?1 + 8",
};

// The state `alike` must be in: its rowids are the ids of docs; a row whose
// body has no features is stored without any (size 0); every other row is
// found at similarity 1.0 by its own body, so its stored features are its
// body's; and queries answer as the scan does.
void expect_follows(TestDatabase& db, std::mt19937_64& random, const Bodies& bodies,
                    const std::string& when) {
  SCOPED_TRACE(when);
  ASSERT_EQ(db.rows("SELECT rowid FROM alike ORDER BY rowid"),
            db.rows("SELECT id FROM docs ORDER BY id"));
  const std::string self = std::string("simhash_jaccard(body, body, '") + kOptions + "')";
  EXPECT_EQ(db.rows("SELECT id FROM alike_rows WHERE size = 0 ORDER BY id"),
            db.rows("SELECT id FROM docs WHERE " + self + " IS NULL ORDER BY id"));
  EXPECT_EQ(db.integer("SELECT count(*) FROM docs AS d WHERE " + self +
                       " = 1.0 AND NOT EXISTS (SELECT 1 FROM alike(d.body, 1.0) AS a "
                       "WHERE a.rowid = d.id)"),
            0);
  expect_integrity(db.handle(), "alike");
  Prepared table(db.handle(), "SELECT rowid, similarity FROM alike(?1, ?2)");
  Prepared scan(db.handle(),
                std::string("SELECT id, s FROM (SELECT id, simhash_jaccard(?1, body, '") +
                    kOptions + "') AS s FROM docs) WHERE s >= ?2 ORDER BY s DESC, id");
  auto answer = [&](sqlite3_stmt* statement, const std::string& query, double t) {
    sqlite3_reset(statement);
    bind_text(statement, 1, query);
    sqlite3_bind_double(statement, 2, t);
    std::vector<std::pair<std::int64_t, double>> rows;
    int rc = 0;
    while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
      rows.emplace_back(sqlite3_column_int64(statement, 0), sqlite3_column_double(statement, 1));
    }
    EXPECT_EQ(rc, SQLITE_DONE) << sqlite3_errmsg(db.handle());
    return rows;
  };
  int found = 0;
  for (int i = 0; i < 8; ++i) {
    const Argument query = bodies.next(random);
    if (!query) {
      continue;
    }
    for (const double t : {0.5, 0.7, 0.9, 1.0}) {
      const auto expected = answer(scan.get(), *query, t);
      ASSERT_EQ(answer(table.get(), *query, t), expected) << *query << " at " << t;
      found += static_cast<int>(expected.size());
    }
  }
  ::testing::Test::RecordProperty("found", found);
}

// Parameters: PRAGMA recursive_triggers on, and docs declared with
// `id INTEGER PRIMARY KEY ON CONFLICT REPLACE`.
class SimilarFollowTable : public ::testing::TestWithParam<std::tuple<bool, bool>> {
 protected:
  static constexpr int kIds = 300;  // ids -kIds..kIds, so writes collide often

  void SetUp() override {
    db_.exec(std::string("PRAGMA recursive_triggers = ") +
             (std::get<0>(GetParam()) ? "ON" : "OFF"));
    if (std::get<1>(GetParam())) {
      db_.exec("CREATE TABLE docs(id INTEGER PRIMARY KEY ON CONFLICT REPLACE, body TEXT)");
    }
    // Rows the table held before the recipe ran, which its fill indexes.
    db_.exec("CREATE TABLE IF NOT EXISTS docs(id INTEGER PRIMARY KEY, body TEXT)");
    db_.exec(
        "INSERT INTO docs(id, body) VALUES (-7, 'a row from before the recipe ran'), "
        "(8, NULL), (9, '!!!')");
    db_.exec(read_recipe("similar_follow_table.sql"));
    db_.exec(read_recipe("similar_follow_table.sql"));  // runs again harmlessly
    for (const char* sql : kWrites) {
      writes_.push_back(std::make_unique<Prepared>(db_.handle(), sql));
    }
  }

  std::int64_t some_id() {
    if (random_() % 4 != 0) {  // mostly an id in use
      const auto found =
          db_.rows("SELECT abs(id) FROM docs WHERE id >= " +
                   std::to_string(static_cast<std::int64_t>(random_() % (2 * kIds)) - kIds) +
                   " ORDER BY id LIMIT 1");
      if (!found.empty() && found[0][0]) {
        return std::stoll(*found[0][0]);
      }
    }
    return static_cast<std::int64_t>(1 + random_() % kIds);
  }

  void write(int count) {
    for (int i = 0; i < count; ++i) {
      sqlite3_stmt* statement = writes_[random_() % writes_.size()]->get();
      sqlite3_reset(statement);
      sqlite3_bind_int64(statement, 1, some_id());
      bind_text(statement, 2, bodies_.next(random_));
      sqlite3_bind_int64(statement, 3, some_id());
      if (sqlite3_step(statement) != SQLITE_DONE) {
        EXPECT_EQ(sqlite3_extended_errcode(db_.handle()), SQLITE_CONSTRAINT_PRIMARYKEY)
            << sqlite3_sql(statement) << ": " << sqlite3_errmsg(db_.handle());
        ++failed_statements_;
      }
      sqlite3_reset(statement);
    }
  }

  TestDatabase db_;
  std::mt19937_64 random_{3200};
  Bodies bodies_{32};
  std::vector<std::unique_ptr<Prepared>> writes_;
  int failed_statements_ = 0;
};

TEST_P(SimilarFollowTable, EqualsAScanOfTheTableAfterRandomWrites) {
  expect_follows(db_, random_, bodies_, "after the recipe's fill");
  db_.exec("BEGIN");
  write(scaled(400));
  db_.exec("COMMIT");
  expect_follows(db_, random_, bodies_, "after the load");
  const int rounds = scaled(25);
  for (int round = 0; round < rounds; ++round) {
    const std::string name = "round " + std::to_string(round);
    const int shape = static_cast<int>(random_() % 4);
    if (shape == 0) {  // autocommit
      write(20);
      expect_follows(db_, random_, bodies_, name + ", autocommit");
      continue;
    }
    db_.exec("BEGIN");
    write(20);
    db_.exec("SAVEPOINT a");
    write(20);
    if (random_() % 2 == 0) {
      db_.exec("ROLLBACK TO a");
    }
    db_.exec("RELEASE a");
    write(10);
    expect_follows(db_, random_, bodies_, name + ", inside the transaction");
    db_.exec(shape == 1 ? "ROLLBACK" : "COMMIT");
    expect_follows(db_, random_, bodies_, name + (shape == 1 ? ", rolled back" : ", committed"));
  }
  EXPECT_GT(db_.integer("SELECT count(*) FROM docs WHERE id < 0"), 0);
  if (!std::get<1>(GetParam())) {
    EXPECT_GT(failed_statements_, 0) << "some writes collide and are undone";
  }
  RecordProperty("failed_statements", failed_statements_);
}

INSTANTIATE_TEST_SUITE_P(Triggers, SimilarFollowTable,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) ? "RecursiveOn"
                                                                      : "RecursiveOff") +
                                  (std::get<1>(info.param) ? "_KeyReplaces" : "_KeyAborts");
                         });

// Without the DELETE of new.id in the insert trigger, a plain INSERT into a
// table whose key replaces (recursive_triggers off) leaves the replaced
// row's entry behind and the trigger's INSERT fails on it: the line is
// needed. (After an INSERT OR REPLACE statement the trigger's INSERT would
// replace too, as the statement's clause overrides the trigger's.)
TEST(SimilarFollowTableRecipe, TheInsertTriggersDeleteIsNeeded) {
  std::string recipe = read_recipe("similar_follow_table.sql");
  const std::string line = "  DELETE FROM alike WHERE rowid = new.id;\n";
  const auto at = recipe.find(line);
  ASSERT_NE(at, std::string::npos);
  recipe.erase(at, line.size());
  TestDatabase db;
  db.exec("CREATE TABLE docs(id INTEGER PRIMARY KEY ON CONFLICT REPLACE, body TEXT)");
  db.exec(recipe);
  db.exec("INSERT INTO docs(id, body) VALUES (1, 'the cat sat on the mat')");
  EXPECT_TRUE(contains(db.error("INSERT INTO docs(id, body) VALUES (1, 'a dog in the yard')"),
                       "UNIQUE constraint failed"));
  db.exec("DROP TRIGGER docs_alike_insert");
  db.exec(read_recipe("similar_follow_table.sql"));
  db.exec("INSERT INTO docs(id, body) VALUES (1, 'a dog in the yard')");
  EXPECT_EQ(db.rows("SELECT rowid FROM alike('a dog in the yard', 1.0)"),
            (std::vector<Row>{{"1"}}));
}

// The refusal decision the recipe must make, as a scan: the other rows (not
// `id`) at `t` or above, most similar first, ties by id.
std::vector<Row> duplicated_by_scan(TestDatabase& db, const Argument& body, std::int64_t id,
                                    double t) {
  Prepared scan(db.handle(),
                std::string("SELECT id, s FROM (SELECT id, simhash_jaccard(?1, body, '") +
                    kOptions + "') AS s FROM docs WHERE id IS NOT ?2) " +
                    "WHERE s >= ?3 ORDER BY s DESC, id");
  bind_text(scan.get(), 1, body);
  sqlite3_bind_int64(scan.get(), 2, id);
  sqlite3_bind_double(scan.get(), 3, t);
  std::vector<Row> rows;
  while (sqlite3_step(scan.get()) == SQLITE_ROW) {
    rows.push_back({std::to_string(sqlite3_column_int64(scan.get(), 0))});
  }
  return rows;
}

TEST(SimilarRefuseRecipe, RefusedExactlyWhenTheScanFindsAnotherRowAtTheThreshold) {
  TestDatabase db;
  db.exec(read_recipe("similar_follow_table.sql"));
  db.exec(read_recipe("similar_refuse.sql"));
  db.exec(read_recipe("similar_refuse.sql"));  // runs again harmlessly
  EXPECT_EQ(db.rows("SELECT threshold FROM alike_refuse_at"), (std::vector<Row>{{"0.8"}}));
  // Fewer families in the sanitizer builds, which insert a fifth as many texts.
  const TextFamilies families(300, scaled(30), 25, 41);
  std::mt19937_64 random(42);
  // An id SQLite chooses (-1 in the statement: no id given), a chosen one,
  // a negative one, or an id in use replaced (a new version of that row).
  Prepared chosen(db.handle(), "INSERT INTO docs(id, body) VALUES (?1, ?2)");
  Prepared automatic(db.handle(), "INSERT INTO docs(body) VALUES (?2)");
  Prepared replace(db.handle(), "INSERT OR REPLACE INTO docs(id, body) VALUES (?1, ?2)");
  int refused = 0;
  int inserted = 0;
  const int count = scaled(400);
  for (int i = 0; i < count; ++i) {
    if (i == count / 2) {
      db.exec("UPDATE alike_refuse_at SET threshold = 0.6");  // as the recipe says
    }
    const double t = i < count / 2 ? 0.8 : 0.6;
    const int shape = static_cast<int>(random() % 4);
    Argument body = families.member(static_cast<int>(random() % families.family_count()),
                                    static_cast<int>(random() % 6), random);
    if (i % 25 == 24) {
      body = std::nullopt;
    } else if (i % 25 == 12) {
      body = "!!!";
    }
    std::int64_t id = 0;
    sqlite3_stmt* statement = automatic.get();
    if (shape == 0) {
      id = db.integer("SELECT coalesce(max(id), 0) + 1 FROM docs");
    } else if (shape == 1 || shape == 2) {
      id = (shape == 1 ? 1 : -1) * static_cast<std::int64_t>(1000 + i);
      statement = chosen.get();
    } else {
      const auto some = db.rows("SELECT id FROM docs ORDER BY random() LIMIT 1");
      id = some.empty() ? 5 : std::stoll(*some[0][0]);
      statement = replace.get();
    }
    const std::vector<Row> before = duplicated_by_scan(db, body, id, t);
    const auto rows_before = db.rows("SELECT id, body FROM docs ORDER BY id");
    const bool in_transaction = random() % 3 == 0;
    if (in_transaction) {
      db.exec("BEGIN; INSERT INTO docs(id, body) VALUES (-1000000 - " + std::to_string(i) +
              ", NULL)");
    }
    sqlite3_reset(statement);
    sqlite3_bind_int64(statement, 1, id);
    bind_text(statement, 2, body);
    const int rc = sqlite3_step(statement);
    const std::string message = sqlite3_errmsg(db.handle());
    sqlite3_reset(statement);
    if (!body || before.empty()) {
      ASSERT_EQ(rc, SQLITE_DONE) << message;
      if (statement == automatic.get()) {
        EXPECT_EQ(sqlite3_last_insert_rowid(db.handle()), id);
      }
      ++inserted;
    } else {
      ASSERT_EQ(rc, SQLITE_CONSTRAINT) << *body << " duplicates " << *before[0][0];
      EXPECT_TRUE(
          contains(message, "near-duplicate of docs row " + *before[0][0] + " (similarity "))
          << message;
      EXPECT_TRUE(contains(message, t == 0.8 ? ">= 0.8)" : ">= 0.6)")) << message;
      ++refused;
    }
    if (in_transaction) {
      db.exec("DELETE FROM docs WHERE id = -1000000 - " + std::to_string(i) + "; COMMIT");
    }
    if (rc != SQLITE_DONE) {
      ASSERT_EQ(db.rows("SELECT id, body FROM docs ORDER BY id"), rows_before)
          << "a refused statement changes nothing";
    }
  }
  EXPECT_GT(refused, count / 10);
  EXPECT_GT(inserted, count / 10);
  RecordProperty("refused", refused);
  RecordProperty("inserted", inserted);
  expect_follows(db, random, Bodies(43), "after the inserts");
  // A statement of many rows is checked row by row against the rows before
  // it, its own included; refused, it inserts none.
  const std::string base = families.member(0, 0, random);
  db.exec("DELETE FROM docs");
  EXPECT_TRUE(contains(db.error("INSERT INTO docs(body) VALUES ('" + base + "'), ('" + base +
                                " more'), ('something else entirely here')"),
                       "near-duplicate of docs row 1 "));
  EXPECT_EQ(db.integer("SELECT count(*) FROM docs"), 0);
  EXPECT_EQ(db.integer("SELECT count(*) FROM alike"), 0);
  // A threshold below the table's is refused with the table's error, not
  // silently ignored.
  db.exec("UPDATE alike_refuse_at SET threshold = 0.4");
  EXPECT_TRUE(contains(db.error("INSERT INTO docs(body) VALUES ('" + base + "')"),
                       "threshold 0.4 is below the table's threshold 0.5"));
}

// A new version of a row, through INSERT OR REPLACE of its own id, is
// checked against the other rows only, whichever order the triggers fire
// in and with recursive_triggers off or on; the same text under another id
// is refused.
TEST(SimilarRefuseRecipe, ANewVersionOfARowIsNotItsOwnDuplicate) {
  const std::string base = "the quick brown fox jumps over the lazy dog near the river bank";
  for (const bool recursive : {false, true}) {
    for (const bool refuse_first : {false, true}) {
      SCOPED_TRACE(std::string(recursive ? "recursive" : "not recursive") +
                   (refuse_first ? ", refuse recipe run first" : ""));
      TestDatabase db;
      db.exec(std::string("PRAGMA recursive_triggers = ") + (recursive ? "ON" : "OFF"));
      if (refuse_first) {
        db.exec("CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)");
        db.exec("CREATE VIRTUAL TABLE alike USING simhash_similar(threshold=0.5, options='" +
                std::string(kOptions) + "')");
        db.exec(read_recipe("similar_refuse.sql"));
        db.exec(read_recipe("similar_follow_table.sql"));
      } else {
        db.exec(read_recipe("similar_follow_table.sql"));
        db.exec(read_recipe("similar_refuse.sql"));
      }
      db.exec("INSERT INTO docs(id, body) VALUES (1, '" + base + "')");
      db.exec("INSERT INTO docs(id, body) VALUES (2, 'a text of its own about other things')");
      db.exec("INSERT OR REPLACE INTO docs(id, body) VALUES (1, '" + base + " today')");
      db.exec("REPLACE INTO docs(id, body) VALUES (1, '" + base + " today')");
      EXPECT_EQ(db.rows("SELECT rowid FROM alike('" + base + " today', 1.0)"),
                (std::vector<Row>{{"1"}}));
      EXPECT_TRUE(contains(db.error("REPLACE INTO docs(id, body) VALUES (2, '" + base + "')"),
                           "near-duplicate of docs row 1 (similarity 0.92 >= 0.8)"));
      EXPECT_TRUE(contains(db.error("INSERT INTO docs(body) VALUES ('" + base + "')"),
                           "near-duplicate of docs row 1 "));
      EXPECT_EQ(db.rows("SELECT id FROM docs ORDER BY id"), (std::vector<Row>{{"1"}, {"2"}}));
    }
  }
}

// The skip decision and the listing, against the scan: each insert goes in
// exactly when no other row reaches 0.8 with it (an id SQLite chooses, a
// chosen one, a negative one, or a new version of a row in use), the
// statement never fails, and similar_near_duplicate_of.sql lists the rows
// the scan finds, in its order.
TEST(SimilarSkipRecipe, SkippedExactlyWhenTheScanFindsAnotherRowAtTheThreshold) {
  TestDatabase db;
  db.exec(read_recipe("similar_follow_table.sql"));
  db.exec(read_recipe("similar_skip.sql"));
  db.exec(read_recipe("similar_skip.sql"));  // runs again harmlessly
  const TextFamilies families(300, scaled(30), 25, 41);
  std::mt19937_64 random(52);
  Prepared chosen(db.handle(), "INSERT INTO docs(id, body) VALUES (?1, ?2)");
  Prepared automatic(db.handle(), "INSERT INTO docs(body) VALUES (?2)");
  Prepared replace(db.handle(), "INSERT OR REPLACE INTO docs(id, body) VALUES (?1, ?2)");
  Prepared listing(db.handle(), read_recipe("similar_near_duplicate_of.sql"));
  int skipped = 0;
  int inserted = 0;
  const int count = scaled(400);
  for (int i = 0; i < count; ++i) {
    const int shape = static_cast<int>(random() % 4);
    Argument body = families.member(static_cast<int>(random() % families.family_count()),
                                    static_cast<int>(random() % 6), random);
    if (i % 25 == 24) {
      body = std::nullopt;
    }
    std::int64_t id = 0;
    sqlite3_stmt* statement = automatic.get();
    if (shape == 0) {
      id = db.integer("SELECT coalesce(max(id), 0) + 1 FROM docs");
    } else if (shape == 1 || shape == 2) {
      id = (shape == 1 ? 1 : -1) * static_cast<std::int64_t>(1000 + i);
      statement = chosen.get();
    } else {
      const auto some =
          db.rows("SELECT id FROM docs ORDER BY id LIMIT 1 OFFSET " +
                  std::to_string(random() % 64) + " % max(1, (SELECT count(*) FROM docs))");
      id = some.empty() ? 5 : std::stoll(*some[0][0]);
      statement = replace.get();
    }
    const std::vector<Row> before = duplicated_by_scan(db, body, id, 0.8);
    if (body) {
      sqlite3_reset(listing.get());
      bind_text(listing.get(), 1, body);
      std::vector<Row> listed;
      while (sqlite3_step(listing.get()) == SQLITE_ROW) {
        listed.push_back({std::to_string(sqlite3_column_int64(listing.get(), 0))});
      }
      ASSERT_EQ(listed, duplicated_by_scan(db, body, 0, 0.8)) << *body;
    }
    const auto rows_before = db.rows("SELECT id, body FROM docs ORDER BY id");
    sqlite3_reset(statement);
    sqlite3_bind_int64(statement, 1, id);
    bind_text(statement, 2, body);
    ASSERT_EQ(sqlite3_step(statement), SQLITE_DONE) << sqlite3_errmsg(db.handle());
    sqlite3_reset(statement);
    if (!body || before.empty()) {
      EXPECT_EQ(sqlite3_changes(db.handle()), 1);
      EXPECT_EQ(db.rows("SELECT body FROM docs WHERE id = " + std::to_string(id)),
                (std::vector<Row>{{body}}));
      ++inserted;
    } else {
      EXPECT_EQ(sqlite3_changes(db.handle()), 0) << *body << " duplicates " << *before[0][0];
      ASSERT_EQ(db.rows("SELECT id, body FROM docs ORDER BY id"), rows_before);
      ++skipped;
    }
  }
  EXPECT_GT(skipped, count / 20);
  EXPECT_GT(inserted, count / 20);
  expect_follows(db, random, Bodies(53), "after the inserts");
}

// The links the record recipe keeps, against a model of its rule: after a
// row arrives or changes, its links are those to every other row at 0.8 or
// more by the scan; every write drops the links of the rows it touches.
TEST(SimilarRecordRecipe, TheLinksEqualTheRuleAppliedWithTheScan) {
  TestDatabase db;
  db.exec(read_recipe("similar_follow_table.sql"));
  db.exec(read_recipe("similar_record.sql"));
  db.exec(read_recipe("similar_record.sql"));            // runs again harmlessly
  const TextFamilies families(300, scaled(10), 60, 61);  // an edit costs about 0.05
  std::mt19937_64 random(53);
  std::set<std::vector<std::string>> model;  // {new_id, existing_id}
  const auto drop_links_of = [&](std::int64_t a, std::int64_t b) {
    std::erase_if(model, [&](const std::vector<std::string>& link) {
      for (const std::string& end : link) {
        if (end == std::to_string(a) || end == std::to_string(b)) {
          return true;
        }
      }
      return false;
    });
  };
  const auto link_from = [&](std::int64_t id, std::int64_t other_left_out) {
    const auto body = db.rows("SELECT body FROM docs WHERE id = " + std::to_string(id));
    for (const Row& row : duplicated_by_scan(db, body.at(0).at(0), id, 0.8)) {
      if (*row[0] != std::to_string(other_left_out)) {
        model.insert({std::to_string(id), *row[0]});
      }
    }
  };
  const int count = scaled(300);
  std::size_t links_seen = 0;  // summed over the writes
  for (int i = 0; i < count; ++i) {
    const Argument body =
        i % 20 == 19
            ? Argument()
            : Argument(families.member(static_cast<int>(random() % families.family_count()),
                                       static_cast<int>(random() % 4), random));
    const auto some =
        db.rows("SELECT id FROM docs ORDER BY id LIMIT 1 OFFSET " + std::to_string(random() % 64) +
                " % max(1, (SELECT count(*) FROM docs))");
    const std::int64_t existing = some.empty() ? 0 : std::stoll(*some[0][0]);
    const int shape = existing == 0 ? 0 : static_cast<int>(random() % 5);
    if (shape == 0 || shape == 1) {  // a new row, or a new version of one
      const std::int64_t id =
          shape == 0 ? db.integer("SELECT coalesce(max(id), 0) + 1 FROM docs") : existing;
      Prepared insert(db.handle(), "INSERT OR REPLACE INTO docs(id, body) VALUES (?1, ?2)");
      sqlite3_bind_int64(insert.get(), 1, id);
      bind_text(insert.get(), 2, body);
      ASSERT_EQ(sqlite3_step(insert.get()), SQLITE_DONE);
      drop_links_of(id, id);
      link_from(id, id);
    } else if (shape == 2) {  // its body changes
      Prepared update(db.handle(), "UPDATE docs SET body = ?2 WHERE id = ?1");
      sqlite3_bind_int64(update.get(), 1, existing);
      bind_text(update.get(), 2, body);
      ASSERT_EQ(sqlite3_step(update.get()), SQLITE_DONE);
      drop_links_of(existing, existing);
      link_from(existing, existing);
    } else if (shape == 3) {  // its id changes
      const std::int64_t moved = db.integer("SELECT max(id) + 1 FROM docs");
      db.exec("UPDATE docs SET id = " + std::to_string(moved) +
              " WHERE id = " + std::to_string(existing));
      drop_links_of(existing, moved);
      link_from(moved, existing);
    } else {
      db.exec("DELETE FROM docs WHERE id = " + std::to_string(existing));
      drop_links_of(existing, existing);
    }
    std::vector<Row> expected;
    for (const auto& link : model) {
      expected.push_back({link[0], link[1]});
    }
    std::sort(expected.begin(), expected.end());
    auto links = db.rows("SELECT new_id, existing_id FROM duplicates");
    std::sort(links.begin(), links.end());
    ASSERT_EQ(links, expected) << "after write " << i << " (shape " << shape << ")";
    links_seen += links.size();
  }
  EXPECT_GE(links_seen, static_cast<std::size_t>(count / 10)) << "links are made";
}

// docs/similar.md shows each recipe's SQL as the tests run it.
TEST(SimilarRecipes, TheDocumentationShowsTheRecipesAsTheTestsRunThem) {
  std::ifstream stream(std::string(SIMHASH_SOURCE_DIR) + "/docs/similar.md");
  std::ostringstream page;
  page << stream.rdbuf();
  for (const char* name : {"similar_follow_table.sql", "similar_refuse.sql", "similar_skip.sql",
                           "similar_record.sql", "similar_near_duplicate_of.sql"}) {
    std::istringstream lines(read_recipe(name));
    std::string sql;
    std::string line;
    while (std::getline(lines, line)) {
      if (line.rfind("--", 0) != 0 && !(sql.empty() && line.empty())) {
        sql += line + "\n";
      }
    }
    EXPECT_GT(sql.size(), 50u) << name;
    EXPECT_TRUE(contains(page.str(), "```sql\n" + sql + "```")) << name << ":\n" << sql;
  }
}

}  // namespace
}  // namespace simhash::testing
