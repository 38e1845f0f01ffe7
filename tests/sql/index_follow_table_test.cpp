// SPDX-License-Identifier: MIT
// An index that follows its table, and near-duplicates refused, skipped or
// recorded at insert. Every SQL block is read from sql/recipes/,
// the files docs/application.md shows, so the documentation and the tests
// cannot drift apart.
//   - follow_table.sql: random writes to docs(id, body) (INSERT with and
//     without an id, OR REPLACE, OR IGNORE, UPSERT, UPDATE of body, of id,
//     of both, UPDATE OR REPLACE, DELETE, statements of many rows; texts
//     without words and NULL) in transactions with savepoints, rollbacks and
//     failing statements, with PRAGMA recursive_triggers off and on; after
//     each round (and inside the open transaction) the index must equal a
//     rebuild from the table, pass its integrity check, and answer near(:q, r)
//     and MATCH as a hamming() scan of the rebuild does, radii above k=3
//     (multi-probe) included.
//   - refuse/skip/record: each decision equals the same check made by a scan
//     of the table; the refusal names the most similar row, and
//     near_duplicate_of.sql lists them all.
//   - two processes inserting the same near-duplicate at the same moment into
//     a WAL database, many times: never both succeed.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "index_test_support.h"
#include "near_duplicate_texts.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

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

// The SQL of a recipe file without its comment lines and the blank lines
// around it: what docs/application.md shows of it.
std::string recipe_sql(const std::string& name) {
  std::istringstream lines(read_recipe(name));
  std::string sql;
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("--", 0) != 0 && !(sql.empty() && line.empty())) {
      sql += line + "\n";
    }
  }
  while (sql.size() >= 2 && sql[sql.size() - 1] == '\n' && sql[sql.size() - 2] == '\n') {
    sql.pop_back();
  }
  return sql;
}

// Binds ?1..?n: an integer, a text or NULL (std::nullopt).
using Argument = std::optional<std::string>;

void bind_text(sqlite3_stmt* statement, int place, const Argument& text) {
  if (text) {
    sqlite3_bind_text(statement, place, text->c_str(), static_cast<int>(text->size()),
                      SQLITE_TRANSIENT);
  } else {
    sqlite3_bind_null(statement, place);
  }
}

// The texts the writes use: families of near-duplicates, texts of no family,
// texts without words and NULL.
class Bodies {
 public:
  explicit Bodies(std::uint64_t seed) : families_(400, 60, 30, seed) {}

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
      return families_.fresh(5 + static_cast<int>(random() % 30), random);
    }
    const int family = static_cast<int>(random() % families_.family_count());
    return families_.member(family, static_cast<int>(random() % 4), random);
  }

 private:
  TextFamilies families_;
};

// The writes of the differential test, each with ?1 an id, ?2 a body, ?3
// another id. A statement may fail on a constraint (a duplicate id): SQLite
// then undoes the whole statement, the index's part included, which the
// checks see too.
const char* const kWrites[] = {
    "INSERT INTO docs(id, body) VALUES (?1, ?2)",
    "INSERT INTO docs(body) VALUES (?2)",
    "INSERT OR REPLACE INTO docs(id, body) VALUES (?1, ?2)",
    "REPLACE INTO docs(id, body) VALUES (?3, ?2)",
    "INSERT OR IGNORE INTO docs(id, body) VALUES (?1, ?2)",
    "INSERT INTO docs(id, body) VALUES (?1, ?2) ON CONFLICT(id) DO UPDATE SET body = excluded.body",
    "INSERT INTO docs(id, body) VALUES (?1, ?2) ON CONFLICT(id) DO UPDATE SET id = ?3",
    "INSERT INTO docs(id, body) VALUES (?1, ?2) ON CONFLICT(id) DO NOTHING",
    "UPDATE docs SET body = ?2 WHERE id = ?1",
    "UPDATE docs SET id = ?3 WHERE id = ?1",
    "UPDATE OR REPLACE docs SET id = ?3 WHERE id = ?1",
    "UPDATE docs SET id = ?3, body = ?2 WHERE id = ?1",
    "DELETE FROM docs WHERE id = ?1",
    "DELETE FROM docs WHERE id BETWEEN ?1 AND ?1 + 3",
    // Many rows in one statement: every third row of a range gets its body
    // extended (a NULL ?2 makes them NULL), or is copied to the next id.
    "UPDATE docs SET body = body || ' ' || ?2 WHERE id BETWEEN ?1 AND ?1 + 40 AND id % 3 = 0",
    ("INSERT OR REPLACE INTO docs(id, body) SELECT id + 1, body FROM docs "
     "WHERE id BETWEEN ?1 AND ?1 + 30 AND id % 5 = 0"),
    // Ids of the same range moved by one: collides with itself half-way
    // (the statement then fails and changes nothing) unless OR REPLACE.
    "UPDATE OR REPLACE docs SET id = id + 1 WHERE id BETWEEN ?1 AND ?1 + 10",
};

// Parameters: PRAGMA recursive_triggers on, and docs declared with
// `id INTEGER PRIMARY KEY ON CONFLICT REPLACE` (then a plain INSERT or UPDATE
// replaces a row of the same id, and the triggers' own conflict clauses
// decide, where an OR REPLACE statement's clause overrides them).
class FollowTable : public ::testing::TestWithParam<std::tuple<bool, bool>> {
 protected:
  static constexpr int kIds = 2400;  // ids 1..kIds, so writes collide often

  void SetUp() override {
    db_.exec(std::string("PRAGMA recursive_triggers = ") +
             (std::get<0>(GetParam()) ? "ON" : "OFF"));
    if (std::get<1>(GetParam())) {
      db_.exec("CREATE TABLE docs(id INTEGER PRIMARY KEY ON CONFLICT REPLACE, body TEXT)");
    }
    db_.exec(read_recipe("follow_table.sql"));
    for (const char* sql : kWrites) {
      writes_.push_back(std::make_unique<Prepared>(db_.handle(), sql));
    }
  }

  std::int64_t some_id() {
    // Mostly an id in use (an update or a delete then does something).
    if (random_() % 4 != 0) {
      const auto found =
          db_.rows("SELECT id FROM docs WHERE id >= " + std::to_string(1 + random_() % kIds) +
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
      const int rc = sqlite3_step(statement);
      if (rc != SQLITE_DONE) {
        EXPECT_EQ(sqlite3_extended_errcode(db_.handle()), SQLITE_CONSTRAINT_PRIMARYKEY)
            << sqlite3_sql(statement) << ": " << sqlite3_errmsg(db_.handle());
        ++failed_statements_;
      }
      sqlite3_reset(statement);
    }
  }

  // The index against a rebuild from the table, `rebuilt`, made here.
  void expect_index_follows(const std::string& when) {
    SCOPED_TRACE(when);
    db_.exec(
        "DROP TABLE IF EXISTS temp.rebuilt;"
        "CREATE TEMP TABLE rebuilt AS SELECT id, simhash(body) AS fp FROM docs");
    ASSERT_EQ(db_.rows("SELECT rowid, fp FROM near ORDER BY rowid"),
              db_.rows("SELECT id, fp FROM rebuilt ORDER BY id"));
    expect_integrity(db_.handle(), "near");
    Prepared function(db_.handle(), "SELECT rowid, distance FROM near(?1, ?2)");
    Prepared match(db_.handle(),
                   "SELECT rowid, distance FROM near WHERE fp MATCH ?1 AND distance <= ?2");
    Prepared scan(db_.handle(),
                  "SELECT id, hamming(fp, ?1) FROM rebuilt WHERE hamming(fp, ?1) <= ?2");
    for (int i = 0; i < 6; ++i) {
      std::uint64_t query = random_();
      if (i % 3 != 0) {
        const auto row = db_.rows("SELECT fp FROM rebuilt WHERE fp IS NOT NULL AND id >= " +
                                  std::to_string(random_() % kIds) + " ORDER BY id LIMIT 1");
        if (!row.empty() && row[0][0]) {
          query = flip_random_bits(static_cast<std::uint64_t>(std::stoll(*row[0][0])),
                                   static_cast<int>(random_() % 4), random_);
        }
      }
      for (const int radius : {0, 2, 3, 4, 6, 8, 10, 14}) {
        const Hits expected = run_hits(db_.handle(), scan.get(), query, radius);
        ASSERT_EQ(run_hits(db_.handle(), function.get(), query, radius), expected)
            << "near(:q, " << radius << ")";
        ASSERT_EQ(run_hits(db_.handle(), match.get(), query, radius), expected)
            << "MATCH, distance <= " << radius;
      }
    }
  }

  TestDatabase db_;
  std::mt19937_64 random_{2400};
  Bodies bodies_{24};
  std::vector<std::unique_ptr<Prepared>> writes_;
  int failed_statements_ = 0;
};

TEST_P(FollowTable, IndexEqualsARebuildAfterRandomWrites) {
  // A first load through the triggers, large enough that radii 4 to 8 are
  // answered by multi-probe rather than by a scan of every row.
  const int rows = scaled(1500);
  db_.exec("BEGIN");
  Prepared insert(db_.handle(), "INSERT INTO docs(id, body) VALUES (?1, ?2)");
  for (int id = 1; id <= rows; ++id) {
    sqlite3_reset(insert.get());
    sqlite3_bind_int64(insert.get(), 1, id);
    bind_text(insert.get(), 2, bodies_.next(random_));
    ASSERT_EQ(sqlite3_step(insert.get()), SQLITE_DONE) << sqlite3_errmsg(db_.handle());
  }
  db_.exec("COMMIT");
  expect_index_follows("after the load");
  if (!kSanitizedBuild) {
    EXPECT_TRUE(contains(plan_of(db_, "SELECT rowid FROM near(1, 6)"), "multi-probe"))
        << plan_of(db_, "SELECT rowid FROM near(1, 6)");
  }

  const int rounds = scaled(30);
  for (int round = 0; round < rounds; ++round) {
    const std::string name = "round " + std::to_string(round);
    const int shape = static_cast<int>(random_() % 4);
    if (shape == 0) {  // autocommit
      write(20);
      expect_index_follows(name + ", autocommit");
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
    expect_index_follows(name + ", inside the transaction");
    if (shape == 1) {
      db_.exec("ROLLBACK");
    } else {
      db_.exec("COMMIT");
    }
    expect_index_follows(name + (shape == 1 ? ", rolled back" : ", committed"));
  }
  if (!std::get<1>(GetParam())) {
    EXPECT_GT(failed_statements_, 0) << "some writes collide and are undone";
  }
  RecordProperty("failed_statements", failed_statements_);
}

INSTANTIATE_TEST_SUITE_P(Triggers, FollowTable,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) ? "RecursiveOn"
                                                                      : "RecursiveOff") +
                                  (std::get<1>(info.param) ? "_KeyReplaces" : "_KeyAborts");
                         });

// The page that documents the recipes shows each file's SQL as it is.
TEST(NearDuplicateAtInsert, TheDocumentationShowsTheRecipesAsTheTestsRunThem) {
  std::ifstream stream(std::string(SIMHASH_SOURCE_DIR) + "/docs/application.md");
  std::ostringstream page;
  page << stream.rdbuf();
  for (const char* name : {"follow_table.sql", "refuse_near_duplicates.sql",
                           "near_duplicate_of.sql", "skip_near_duplicates.sql",
                           "insert_unless_near_duplicate.sql", "record_near_duplicates.sql"}) {
    const std::string sql = recipe_sql(name);
    EXPECT_GT(sql.size(), 50u) << name;
    EXPECT_TRUE(contains(page.str(), "```sql\n" + sql + "```")) << name << ":\n" << sql;
  }
}

// The check every recipe makes, as a scan of the whole table: a row whose
// fingerprint is within 10 bits and whose word-3-shingle Jaccard similarity
// is at least 0.8.
std::vector<Row> near_duplicates_by_scan(TestDatabase& db, const std::string& body) {
  Prepared scan(db.handle(),
                "SELECT id FROM docs WHERE hamming(simhash(body), simhash(?1)) <= 10 AND "
                "simhash_jaccard(?1, body, 'n=3 weight=binary') >= 0.8 ORDER BY id");
  bind_text(scan.get(), 1, body);
  std::vector<Row> ids;
  while (sqlite3_step(scan.get()) == SQLITE_ROW) {
    ids.push_back({std::to_string(sqlite3_column_int64(scan.get(), 0))});
  }
  return ids;
}

// The row the refusal names: the most similar of those, ties by id.
std::string most_similar_by_scan(TestDatabase& db, const std::string& body) {
  Prepared scan(db.handle(),
                "SELECT id FROM docs WHERE hamming(simhash(body), simhash(?1)) <= 10 AND "
                "simhash_jaccard(?1, body, 'n=3 weight=binary') >= 0.8 "
                "ORDER BY simhash_jaccard(?1, body, 'n=3 weight=binary') DESC, id LIMIT 1");
  bind_text(scan.get(), 1, body);
  return sqlite3_step(scan.get()) == SQLITE_ROW
             ? std::to_string(sqlite3_column_int64(scan.get(), 0))
             : std::string();
}

std::vector<Row> near_duplicate_of(TestDatabase& db, const std::string& body) {
  Prepared query(db.handle(), read_recipe("near_duplicate_of.sql"));
  bind_text(query.get(), sqlite3_bind_parameter_index(query.get(), ":body"), body);
  std::vector<Row> ids;
  while (sqlite3_step(query.get()) == SQLITE_ROW) {
    ids.push_back({std::to_string(sqlite3_column_int64(query.get(), 0))});
  }
  std::sort(ids.begin(), ids.end(),
            [](const Row& a, const Row& b) { return std::stoll(*a[0]) < std::stoll(*b[0]); });
  return ids;
}

// Inserts texts of a few families one by one (members with 0 to 3 words
// replaced, so some are near-duplicates and some not); calls `check` with
// each text, the rows the scan finds before it, and the statement's result.
template <typename Check>
void insert_one_by_one(TestDatabase& db, const std::string& sql, int count, Check check) {
  const TextFamilies families(300, 25, 40, 7);
  std::mt19937_64 random(8);
  Prepared insert(db.handle(), sql);
  for (int i = 0; i < count; ++i) {
    const std::string body =
        i % 10 == 9 ? std::string("!!!")
                    : families.member(static_cast<int>(random() % families.family_count()),
                                      static_cast<int>(random() % 4), random);
    const std::vector<Row> before = near_duplicates_by_scan(db, body);
    sqlite3_reset(insert.get());
    bind_text(insert.get(), sqlite3_bind_parameter_index(insert.get(), ":body"), body);
    const int rc = sqlite3_step(insert.get());
    check(body, before, rc);
  }
}

TEST(NearDuplicateAtInsert, RefusedWhenTheScanFindsOneAndNamedByTheLookup) {
  TestDatabase db;
  db.exec(read_recipe("follow_table.sql"));
  db.exec(read_recipe("refuse_near_duplicates.sql"));
  int refused = 0;
  int inserted = 0;
  insert_one_by_one(db, "INSERT INTO docs(body) VALUES (:body)", scaled(300),
                    [&](const std::string& body, const std::vector<Row>& before, int rc) {
                      if (before.empty()) {
                        ASSERT_EQ(rc, SQLITE_DONE) << body << ": " << sqlite3_errmsg(db.handle());
                        ++inserted;
                        return;
                      }
                      ASSERT_EQ(rc, SQLITE_CONSTRAINT) << body << " duplicates " << *before[0][0];
                      // The message names the most similar row (simhash_raise).
                      const std::string message = sqlite3_errmsg(db.handle());
                      EXPECT_TRUE(contains(message, "near-duplicate of docs row " +
                                                        most_similar_by_scan(db, body) +
                                                        " (word-3-shingle Jaccard "))
                          << message;
                      // What the application asks to name the row.
                      EXPECT_EQ(near_duplicate_of(db, body), before) << body;
                      ++refused;
                    });
  // Both outcomes happen often (a tenth of the texts at least; the
  // sanitizer builds insert a fifth as many).
  EXPECT_GT(refused, scaled(300) / 30);
  EXPECT_GT(inserted, scaled(300) / 30);
  // Nothing near-duplicate went in, and the index followed every refusal.
  EXPECT_EQ(db.integer("SELECT count(*) FROM docs AS a JOIN docs AS b ON a.id < b.id "
                       "WHERE hamming(simhash(a.body), simhash(b.body)) <= 10 AND "
                       "simhash_jaccard(a.body, b.body, 'n=3 weight=binary') >= 0.8"),
            0);
  EXPECT_EQ(db.rows("SELECT rowid, fp FROM near ORDER BY rowid"),
            db.rows("SELECT id, simhash(body) FROM docs ORDER BY id"));
  expect_integrity(db.handle(), "near");

  // A new version of a row, through OR REPLACE of its own id, is checked
  // against the other rows only; a wordless text is never refused.
  const std::string first = *db.cell("SELECT body FROM docs WHERE id = 1");
  Prepared replace(db.handle(), "INSERT OR REPLACE INTO docs(id, body) VALUES (1, ?1 || ' more')");
  bind_text(replace.get(), 1, first);
  EXPECT_EQ(sqlite3_step(replace.get()), SQLITE_DONE) << sqlite3_errmsg(db.handle());
  db.exec("INSERT INTO docs(body) VALUES ('!!!'), ('!!!'), (NULL)");
  // Refused inside a transaction: the statement is undone, the transaction
  // goes on.
  db.exec("BEGIN");
  db.exec("INSERT INTO docs(body) VALUES ('a text of its own to keep')");
  EXPECT_TRUE(contains(db.error("INSERT INTO docs(body) SELECT body || ' more' FROM docs "
                                "WHERE id = 1"),
                       "near-duplicate"));
  db.exec("COMMIT");
  EXPECT_EQ(db.integer("SELECT count(*) FROM docs WHERE body = 'a text of its own to keep'"), 1);
  EXPECT_EQ(db.rows("SELECT rowid, fp FROM near ORDER BY rowid"),
            db.rows("SELECT id, simhash(body) FROM docs ORDER BY id"));
}

TEST(NearDuplicateAtInsert, SkippedByTheTriggerOrTheStatement) {
  for (const bool trigger : {true, false}) {
    SCOPED_TRACE(trigger ? "skip_near_duplicates.sql" : "insert_unless_near_duplicate.sql");
    TestDatabase db;
    db.exec(read_recipe("follow_table.sql"));
    std::string sql = read_recipe("insert_unless_near_duplicate.sql");
    if (trigger) {
      db.exec(read_recipe("skip_near_duplicates.sql"));
      sql = "INSERT INTO docs(body) VALUES (:body)";
    }
    int skipped = 0;
    insert_one_by_one(db, sql, scaled(300),
                      [&](const std::string& body, const std::vector<Row>& before, int rc) {
                        ASSERT_EQ(rc, SQLITE_DONE) << sqlite3_errmsg(db.handle());
                        EXPECT_EQ(sqlite3_changes(db.handle()), before.empty() ? 1 : 0) << body;
                        skipped += before.empty() ? 0 : 1;
                      });
    EXPECT_GT(skipped, scaled(300) / 30);
    EXPECT_EQ(db.rows("SELECT rowid, fp FROM near ORDER BY rowid"),
              db.rows("SELECT id, simhash(body) FROM docs ORDER BY id"));
    expect_integrity(db.handle(), "near");
  }
}

// A statement of many rows checks each against the rows it inserted before.
TEST(NearDuplicateAtInsert, ManyRowsInOneStatementAreCheckedAgainstEachOther) {
  const TextFamilies families(300, 2, 40, 11);
  std::mt19937_64 random(12);
  TestDatabase db;
  db.exec(read_recipe("follow_table.sql"));
  db.exec("CREATE TABLE incoming(n INTEGER PRIMARY KEY, body TEXT)");
  Prepared fill(db.handle(), "INSERT INTO incoming(body) VALUES (?1)");
  // Two members of family 0 (the second nearly duplicates the first), one of
  // family 1.
  for (const auto& [family, edits] : std::vector<std::pair<int, int>>{{0, 0}, {0, 1}, {1, 0}}) {
    sqlite3_reset(fill.get());
    bind_text(fill.get(), 1, families.member(family, edits, random));
    ASSERT_EQ(sqlite3_step(fill.get()), SQLITE_DONE);
  }
  ASSERT_EQ(near_duplicates_by_scan(db, *db.cell("SELECT body FROM incoming WHERE n = 2")).size(),
            0u);
  db.exec("INSERT INTO docs(body) SELECT body FROM incoming WHERE n = 1");
  ASSERT_EQ(near_duplicates_by_scan(db, *db.cell("SELECT body FROM incoming WHERE n = 2")),
            (std::vector<Row>{{"1"}}))
      << "the premise: row 2 nearly duplicates row 1";
  db.exec("DELETE FROM docs");

  db.exec(read_recipe("skip_near_duplicates.sql"));
  db.exec("INSERT INTO docs(body) SELECT body FROM incoming ORDER BY n");
  EXPECT_EQ(db.rows("SELECT i.n FROM docs AS d JOIN incoming AS i USING (body) ORDER BY i.n"),
            (std::vector<Row>{{"1"}, {"3"}}));
  db.exec("DROP TRIGGER docs_skip_near_duplicate; DELETE FROM docs");

  db.exec(read_recipe("refuse_near_duplicates.sql"));
  EXPECT_TRUE(contains(db.error("INSERT INTO docs(body) SELECT body FROM incoming ORDER BY n"),
                       "near-duplicate"));
  EXPECT_EQ(db.integer("SELECT count(*) FROM docs"), 0) << "the statement changed nothing";
  EXPECT_EQ(db.integer("SELECT count(*) FROM near"), 0);
}

TEST(NearDuplicateAtInsert, RecordedWithTheirSimilarity) {
  TestDatabase db;
  db.exec(read_recipe("follow_table.sql"));
  db.exec(read_recipe("record_near_duplicates.sql"));
  std::vector<Row> expected;
  insert_one_by_one(db, "INSERT INTO docs(body) VALUES (:body)", scaled(300),
                    [&](const std::string&, const std::vector<Row>& before, int rc) {
                      ASSERT_EQ(rc, SQLITE_DONE) << sqlite3_errmsg(db.handle());
                      const std::string id = std::to_string(sqlite3_last_insert_rowid(db.handle()));
                      for (const Row& existing : before) {
                        expected.push_back({id, existing[0]});
                      }
                    });
  EXPECT_GT(expected.size(), static_cast<std::size_t>(scaled(300) / 30));
  EXPECT_EQ(db.rows("SELECT new_id, existing_id FROM duplicates ORDER BY new_id, existing_id"),
            expected);
  EXPECT_EQ(
      db.integer("SELECT count(*) FROM duplicates AS l JOIN docs AS n ON n.id = l.new_id "
                 "JOIN docs AS e ON e.id = l.existing_id "
                 "WHERE l.similarity <> simhash_jaccard(n.body, e.body, 'n=3 weight=binary')"),
      0);
  // A deleted row's links go with it.
  const std::int64_t linked = db.integer("SELECT existing_id FROM duplicates LIMIT 1");
  db.exec("DELETE FROM docs WHERE id = " + std::to_string(linked));
  EXPECT_EQ(db.integer("SELECT count(*) FROM duplicates WHERE " + std::to_string(linked) +
                       " IN (new_id, existing_id)"),
            0);
}

// How a racing process inserts: through the refusing trigger, by the
// one-statement form, or by the application's own check (the lookup query)
// and a plain INSERT inside BEGIN IMMEDIATE.
enum class Form { kTrigger, kStatement, kImmediateTransaction };

// One insert of `body` the way `form` says: 'S' inserted, 'R' refused or
// skipped, 'E' any other outcome.
char insert_once(TestDatabase& db, Form form, sqlite3_stmt* insert, sqlite3_stmt* lookup,
                 const std::string& body) {
  if (form == Form::kImmediateTransaction) {
    if (db.try_exec("BEGIN IMMEDIATE") != SQLITE_OK) {
      return 'E';
    }
    sqlite3_reset(lookup);
    bind_text(lookup, sqlite3_bind_parameter_index(lookup, ":body"), body);
    const int found = sqlite3_step(lookup);
    sqlite3_reset(lookup);
    char outcome = 'R';
    if (found == SQLITE_DONE) {
      sqlite3_reset(insert);
      bind_text(insert, sqlite3_bind_parameter_index(insert, ":body"), body);
      outcome = sqlite3_step(insert) == SQLITE_DONE ? 'S' : 'E';
      sqlite3_reset(insert);
    } else if (found != SQLITE_ROW) {
      outcome = 'E';
    }
    return db.try_exec("COMMIT") == SQLITE_OK ? outcome : 'E';
  }
  sqlite3_reset(insert);
  bind_text(insert, sqlite3_bind_parameter_index(insert, ":body"), body);
  const int rc = sqlite3_step(insert);
  char outcome = 'E';
  if (rc == SQLITE_DONE) {
    outcome = sqlite3_changes(db.handle()) == 1 ? 'S' : 'R';
  } else if (rc == SQLITE_CONSTRAINT && contains(sqlite3_errmsg(db.handle()), "near-duplicate")) {
    outcome = 'R';
  }
  sqlite3_reset(insert);
  return outcome;
}

// Two processes insert, at the same moment (a barrier of two pipes), two
// near-duplicate texts of a new family, once per round: exactly one of them
// may go in. Each child reports its outcome per round on a pipe of its own.
void race(const std::string& path, int child, int rounds, Form form, int barrier_out,
          int barrier_in, int report) {
  TestDatabase db(path);
  db.exec("PRAGMA busy_timeout = 20000");
  const TextFamilies families(400, rounds, 60, 99);
  const std::string sql = form == Form::kStatement ? read_recipe("insert_unless_near_duplicate.sql")
                                                   : "INSERT INTO docs(body) VALUES (:body)";
  Prepared insert(db.handle(), sql);
  Prepared lookup(db.handle(), read_recipe("near_duplicate_of.sql"));
  for (int round = 0; round < rounds; ++round) {
    std::mt19937_64 random(1000 * round + child);
    // Each child's text is the round's base with one word replaced, in a
    // place of its own: near-duplicates of each other, not equal.
    const std::string body = families.member(round, 1, random);
    char token = 'x';
    if (write(barrier_out, &token, 1) != 1 || read(barrier_in, &token, 1) != 1) {
      _exit(2);
    }
    const char outcome = insert_once(db, form, insert.get(), lookup.get(), body);
    if (write(report, &outcome, 1) != 1) {
      _exit(2);
    }
  }
  _exit(0);
}

class NearDuplicateProcesses : public ::testing::TestWithParam<Form> {};

TEST_P(NearDuplicateProcesses, NeverBothInsertTheSameNearDuplicate) {
  const Form form = GetParam();
  TempDatabaseFile file("follow_table_race");
  const int rounds = scaled(60);
  {
    TestDatabase db(file.path());
    db.exec("PRAGMA journal_mode = WAL");
    db.exec(read_recipe("follow_table.sql"));
    if (form == Form::kTrigger) {
      db.exec(read_recipe("refuse_near_duplicates.sql"));
    }
    // Rows of other texts, so the check has something to read.
    const TextFamilies others(400, 1, 60, 5);
    std::mt19937_64 random(6);
    db.exec("BEGIN");
    for (int i = 0; i < 300; ++i) {
      db.exec("INSERT INTO docs(body) VALUES ('" + others.fresh(60, random) + "')");
    }
    db.exec("COMMIT");
    // Each round's two texts are near-duplicates by the recipes' check (the
    // premise of the race).
    const TextFamilies families(400, rounds, 60, 99);
    for (int round = 0; round < rounds; ++round) {
      std::mt19937_64 first(1000 * round);
      std::mt19937_64 second(1000 * round + 1);
      Prepared pair(db.handle(),
                    "SELECT hamming(simhash(?1), simhash(?2)) <= 10 AND "
                    "simhash_jaccard(?1, ?2, 'n=3 weight=binary') >= 0.8");
      bind_text(pair.get(), 1, families.member(round, 1, first));
      bind_text(pair.get(), 2, families.member(round, 1, second));
      ASSERT_EQ(sqlite3_step(pair.get()), SQLITE_ROW);
      ASSERT_EQ(sqlite3_column_int(pair.get(), 0), 1) << "round " << round;
    }
  }
  int to_second[2], to_first[2], reports[2][2];
  ASSERT_EQ(pipe(to_second), 0);
  ASSERT_EQ(pipe(to_first), 0);
  ASSERT_EQ(pipe(reports[0]), 0);
  ASSERT_EQ(pipe(reports[1]), 0);
  pid_t children[2];
  for (int child = 0; child < 2; ++child) {
    children[child] = fork();
    ASSERT_GE(children[child], 0);
    if (children[child] == 0) {
      race(file.path(), child, rounds, form, child == 0 ? to_second[1] : to_first[1],
           child == 0 ? to_first[0] : to_second[0], reports[child][1]);
    }
  }
  for (int* fds : {to_second, to_first, reports[0], reports[1]}) {
    close(fds[1]);
  }
  close(to_second[0]);
  close(to_first[0]);
  std::string outcomes[2];
  for (int child = 0; child < 2; ++child) {
    char buffer[256];
    ssize_t got;
    while ((got = read(reports[child][0], buffer, sizeof buffer)) > 0) {
      outcomes[child].append(buffer, static_cast<std::size_t>(got));
    }
    close(reports[child][0]);
    int status = 0;
    waitpid(children[child], &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child " << child;
  }
  ASSERT_EQ(outcomes[0].size(), static_cast<std::size_t>(rounds));
  ASSERT_EQ(outcomes[1].size(), static_cast<std::size_t>(rounds));
  int wins[2] = {0, 0};
  for (int round = 0; round < rounds; ++round) {
    const std::string pair = {outcomes[0][static_cast<std::size_t>(round)],
                              outcomes[1][static_cast<std::size_t>(round)]};
    EXPECT_TRUE(pair == "SR" || pair == "RS") << "round " << round << ": " << pair;
    wins[0] += pair[0] == 'S' ? 1 : 0;
    wins[1] += pair[1] == 'S' ? 1 : 0;
  }
  RecordProperty("first_process_wins", wins[0]);
  RecordProperty("second_process_wins", wins[1]);
  TestDatabase db(file.path());
  EXPECT_EQ(db.integer("SELECT count(*) FROM docs"), 300 + rounds);
  EXPECT_EQ(db.rows("SELECT rowid, fp FROM near ORDER BY rowid"),
            db.rows("SELECT id, simhash(body) FROM docs ORDER BY id"));
  expect_integrity(db.handle(), "near");
}

INSTANTIATE_TEST_SUITE_P(Recipes, NearDuplicateProcesses,
                         ::testing::Values(Form::kTrigger, Form::kStatement,
                                           Form::kImmediateTransaction),
                         [](const auto& info) {
                           return info.param == Form::kTrigger     ? "Trigger"
                                  : info.param == Form::kStatement ? "Statement"
                                                                   : "ImmediateTransaction";
                         });

}  // namespace
}  // namespace simhash::testing
