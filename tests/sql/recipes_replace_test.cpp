// SPDX-License-Identifier: MIT
// The SQL recipes of sql/recipes/ against a brute-force model:
//   - random single-row writes to docs(id, body) (INSERT with an id, with an
//     id SQLite chooses, OR REPLACE, REPLACE, OR IGNORE, UPSERTs that update
//     the body or the id or do nothing, UPDATE of body, of id, of both,
//     UPDATE OR REPLACE, DELETE, two-row INSERTs) over ids around -1, in
//     transactions with savepoints rolled back, with follow_table.sql,
//     record_near_duplicates.sql and the refusing or skipping trigger: after
//     each statement the table, the index and the duplicates links must equal
//     a model kept in C++ that applies the same write and decides each
//     near-duplicate check by hamming() and simhash_jaccard() over every
//     pair (no index). recursive_triggers off and on, the key declared
//     aborting or replacing.
//   - follow_table.sql installed on an index filled by hand before the
//     triggers existed (as docs/dedup.md fills one), then edited and
//     deleted from: the index must equal a rebuild, and the refusing
//     trigger decide as a scan of the table.
//   - large texts (over 100,000 bytes, compared through their shingle lists
//     rather than simhash_jaccard): every decision, link and similarity as
//     simhash_jaccard's (texts around the 0.8 ratio, one at a time and many
//     in one statement); a large text is not handed to simhash_jaccard once
//     per candidate; and a check stops at the next candidate on
//     sqlite3_interrupt(), leaving nothing changed.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
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

using Body = std::optional<std::string>;  // NULL is std::nullopt

void bind_body(sqlite3_stmt* statement, int place, const Body& body) {
  if (body) {
    sqlite3_bind_text(statement, place, body->c_str(), static_cast<int>(body->size()),
                      SQLITE_TRANSIENT);
  } else {
    sqlite3_bind_null(statement, place);
  }
}

// The recipes' check made directly on two texts: fingerprints within 10
// bits and word-3-shingle Jaccard >= 0.8; nothing read from a table.
class PairCheck {
 public:
  explicit PairCheck(sqlite3* db)
      : pair_(db,
              "SELECT hamming(simhash(?1), simhash(?2)) <= 10 AND "
              "simhash_jaccard(?1, ?2, 'n=3 weight=binary') >= 0.8, "
              "simhash_jaccard(?1, ?2, 'n=3 weight=binary')") {}

  // The similarity when the two are near-duplicates.
  std::optional<double> near_duplicates(const Body& a, const Body& b) {
    sqlite3_stmt* statement = pair_.get();
    sqlite3_reset(statement);
    bind_body(statement, 1, a);
    bind_body(statement, 2, b);
    EXPECT_EQ(sqlite3_step(statement), SQLITE_ROW);
    std::optional<double> similarity;
    if (sqlite3_column_int(statement, 0) == 1) {
      similarity = sqlite3_column_double(statement, 1);
    }
    sqlite3_reset(statement);
    return similarity;
  }

 private:
  Prepared pair_;
};

enum class Guard { kNone, kRefuse, kSkip };

// What a statement does when its row meets a row of the same id.
enum class Conflict { kAbort, kReplace, kIgnore, kUpdateBody, kUpdateId, kNothing };

// The table and the links the recipes must produce, and the rules by which
// each write changes them (the recipes' comments state these rules).
struct Expected {
  std::map<std::int64_t, Body> rows;
  std::set<std::pair<std::int64_t, std::int64_t>> links;  // (new_id, existing_id)
};

enum class Outcome { kDone, kKeyConflict, kRefused };

// What a run met, kept outside the model so that undoing a statement in the
// model does not undo the count: links removed because a row was replaced,
// renumbered, edited or deleted; inserts with an id SQLite chose checked
// while a row -1 existed; rows skipped.
struct Tally {
  int links_removed = 0;
  int chosen_ids_beside_row_minus_one = 0;
  int skipped = 0;
};

class RecipeModel {
 public:
  RecipeModel(PairCheck& check, Tally& tally, Guard guard, bool key_replaces)
      : check_(&check), tally_(&tally), guard_(guard), key_replaces_(key_replaces) {}

  Expected state;
  std::string refused_message;  // the row the last refusal must name

  // One row inserted with `id` (nullopt: SQLite chooses) under `conflict`;
  // `update_id` is the id an UPSERT's DO UPDATE SET id = ... gives.
  Outcome insert(std::optional<std::int64_t> id, const Body& body, Conflict conflict,
                 std::int64_t update_id) {
    std::int64_t target = 0;
    if (id) {
      target = *id;
    } else {
      target = state.rows.empty() ? 1 : state.rows.rbegin()->first + 1;
    }
    if (!id && guard_ != Guard::kNone && state.rows.count(-1) != 0) {
      ++tally_->chosen_ids_beside_row_minus_one;
    }
    if (guard_ == Guard::kSkip) {
      // BEFORE INSERT, new.id is -1 for a chosen id: the named row is left
      // out unless it is -1 (or the id is chosen).
      const bool leave_out_target = id && *id != -1;
      for (const auto& [other, other_body] : state.rows) {
        if (!(leave_out_target && other == target) && check_->near_duplicates(body, other_body)) {
          ++tally_->skipped;
          return Outcome::kDone;  // skipped: nothing changes
        }
      }
    }
    if (state.rows.count(target) != 0) {
      switch (conflict) {
        case Conflict::kAbort:
          return Outcome::kKeyConflict;
        case Conflict::kIgnore:
        case Conflict::kNothing:
          return Outcome::kDone;
        case Conflict::kUpdateBody:
          return update(target, target, body, Conflict::kAbort);
        case Conflict::kUpdateId:
          return update(target, update_id, state.rows[target], Conflict::kAbort);
        case Conflict::kReplace:
          remove(target);
          break;
      }
    }
    state.rows[target] = body;
    if (guard_ == Guard::kRefuse) {
      // AFTER INSERT: every other row, the replaced one already gone.
      std::optional<std::pair<double, std::int64_t>> best;
      for (const auto& [other, other_body] : state.rows) {
        if (other == target) {
          continue;
        }
        if (const auto similarity = check_->near_duplicates(body, other_body)) {
          if (!best || *similarity > best->first) {
            best = std::make_pair(*similarity, other);
          }
        }
      }
      if (best) {
        refused_message = "near-duplicate of docs row " + std::to_string(best->second) + " ";
        return Outcome::kRefused;
      }
    }
    record(target);
    return Outcome::kDone;
  }

  // UPDATE of row `from` to id `to` and `body` (an UPSERT's DO UPDATE too).
  Outcome update(std::int64_t from, std::int64_t to, Body body, Conflict conflict) {
    if (state.rows.count(from) == 0) {
      return Outcome::kDone;
    }
    if (to != from && state.rows.count(to) != 0) {
      if (conflict == Conflict::kAbort) {
        return Outcome::kKeyConflict;
      }
      remove(to);
    }
    remove(from);
    state.rows[to] = body;
    record(to);
    return Outcome::kDone;
  }

  void remove(std::int64_t id) {
    state.rows.erase(id);
    forget(id);
  }

  Conflict plain() const { return key_replaces_ ? Conflict::kReplace : Conflict::kAbort; }

 private:
  void forget(std::int64_t id) {
    for (auto link = state.links.begin(); link != state.links.end();) {
      if (link->first == id || link->second == id) {
        link = state.links.erase(link);
        ++tally_->links_removed;
      } else {
        ++link;
      }
    }
  }

  // A row written: its links go, and are made again from it.
  void record(std::int64_t id) {
    forget(id);
    for (const auto& [other, other_body] : state.rows) {
      if (other != id && check_->near_duplicates(state.rows[id], other_body)) {
        state.links.emplace(id, other);
      }
    }
  }

  PairCheck* check_;  // pointers, so that a model can be assigned
  Tally* tally_;
  Guard guard_;
  bool key_replaces_;
};

// The texts: families of near-duplicates (40 words, so one word replaced
// keeps the word-3-shingle Jaccard above 0.8 and two or more mostly below),
// texts of no family, wordless texts and NULL.
Body next_body(const TextFamilies& families, std::mt19937_64& random) {
  const int kind = static_cast<int>(random() % 16);
  if (kind == 0) {
    return std::nullopt;
  }
  if (kind == 1) {
    return std::string(random() % 2 == 0 ? "!!!" : "");
  }
  if (kind == 2) {
    return families.fresh(40, random);
  }
  return families.member(static_cast<int>(random() % families.family_count()),
                         static_cast<int>(random() % 3), random);
}

// Parameters: the guard, PRAGMA recursive_triggers, and the key declared
// `ON CONFLICT REPLACE` (a plain INSERT or UPDATE then replaces).
class RecipesUnderRandomWrites : public ::testing::TestWithParam<std::tuple<Guard, bool, bool>> {
 protected:
  void SetUp() override {
    db_.exec(std::string("PRAGMA recursive_triggers = ") +
             (std::get<1>(GetParam()) ? "ON" : "OFF"));
    if (std::get<2>(GetParam())) {
      db_.exec("CREATE TABLE docs(id INTEGER PRIMARY KEY ON CONFLICT REPLACE, body TEXT)");
    }
    db_.exec(read_recipe("follow_table.sql"));
    db_.exec(read_recipe("record_near_duplicates.sql"));
    if (guard() == Guard::kRefuse) {
      db_.exec(read_recipe("refuse_near_duplicates.sql"));
    } else if (guard() == Guard::kSkip) {
      db_.exec(read_recipe("skip_near_duplicates.sql"));
    }
  }

  Guard guard() const { return std::get<0>(GetParam()); }

  // Mostly ids around -1 (so SQLite's choice and -1 meet often), some in use.
  std::int64_t some_id() {
    if (random_() % 3 == 0 && !model_.state.rows.empty()) {
      auto row = model_.state.rows.begin();
      std::advance(row, static_cast<long>(random_() % model_.state.rows.size()));
      return row->first;
    }
    return static_cast<std::int64_t>(random_() % 10) - 7;  // -7 .. 2
  }

  // One random statement, applied to the database and to the model.
  void write() {
    const std::int64_t id = some_id();
    const std::int64_t other_id = some_id();
    const Body body = next_body(families_, random_);
    const Body other_body = next_body(families_, random_);
    const RecipeModel before = model_;
    const int kind = static_cast<int>(random_() % 16);
    std::string sql;
    Outcome outcome = Outcome::kDone;
    switch (kind) {
      case 0:
        sql = "INSERT INTO docs(id, body) VALUES (?1, ?2)";
        outcome = model_.insert(id, body, model_.plain(), 0);
        break;
      case 1:
        sql = "INSERT INTO docs(body) VALUES (?2)";
        outcome = model_.insert(std::nullopt, body, model_.plain(), 0);
        break;
      case 2:
        sql = "INSERT OR REPLACE INTO docs(id, body) VALUES (?1, ?2)";
        outcome = model_.insert(id, body, Conflict::kReplace, 0);
        break;
      case 3:
        sql = "REPLACE INTO docs(id, body) VALUES (?1, ?2)";
        outcome = model_.insert(id, body, Conflict::kReplace, 0);
        break;
      case 4:
        sql = "INSERT OR IGNORE INTO docs(id, body) VALUES (?1, ?2)";
        outcome = model_.insert(id, body, Conflict::kIgnore, 0);
        break;
      case 5:
        sql =
            "INSERT INTO docs(id, body) VALUES (?1, ?2) "
            "ON CONFLICT(id) DO UPDATE SET body = excluded.body";
        outcome = model_.insert(id, body, Conflict::kUpdateBody, 0);
        break;
      case 6:
        sql = "INSERT INTO docs(id, body) VALUES (?1, ?2) ON CONFLICT(id) DO UPDATE SET id = ?3";
        outcome = model_.insert(id, body, Conflict::kUpdateId, other_id);
        break;
      case 7:
        sql = "INSERT INTO docs(id, body) VALUES (?1, ?2) ON CONFLICT(id) DO NOTHING";
        outcome = model_.insert(id, body, Conflict::kNothing, 0);
        break;
      case 8:
        sql = "UPDATE docs SET body = ?2 WHERE id = ?1";
        outcome = model_.update(id, id, body, model_.plain());
        break;
      case 9:
        sql = "UPDATE docs SET id = ?3 WHERE id = ?1";
        outcome = model_.update(id, other_id,
                                model_.state.rows.count(id) ? model_.state.rows[id] : Body(),
                                model_.plain());
        break;
      case 10:
        sql = "UPDATE OR REPLACE docs SET id = ?3 WHERE id = ?1";
        outcome = model_.update(id, other_id,
                                model_.state.rows.count(id) ? model_.state.rows[id] : Body(),
                                Conflict::kReplace);
        break;
      case 11:
        sql = "UPDATE docs SET id = ?3, body = ?2 WHERE id = ?1";
        outcome = model_.update(id, other_id, body, model_.plain());
        break;
      case 12:
      case 13:
        sql = "DELETE FROM docs WHERE id = ?1";
        model_.remove(id);
        break;
      case 14:
        sql = "INSERT INTO docs(body) VALUES (?2), (?4)";
        outcome = model_.insert(std::nullopt, body, model_.plain(), 0);
        if (outcome == Outcome::kDone) {
          outcome = model_.insert(std::nullopt, other_body, model_.plain(), 0);
        }
        break;
      default:
        sql = "INSERT OR REPLACE INTO docs(id, body) VALUES (?1, ?2), (?3, ?4)";
        outcome = model_.insert(id, body, Conflict::kReplace, 0);
        if (outcome == Outcome::kDone) {
          outcome = model_.insert(other_id, other_body, Conflict::kReplace, 0);
        }
        break;
    }
    Prepared statement(db_.handle(), sql);
    sqlite3_bind_int64(statement.get(), 1, id);
    bind_body(statement.get(), 2, body);
    sqlite3_bind_int64(statement.get(), 3, other_id);
    bind_body(statement.get(), 4, other_body);
    const int rc = sqlite3_step(statement.get());
    const std::string message = sqlite3_errmsg(db_.handle());
    const std::string trace =
        sql + " with ?1 = " + std::to_string(id) + ", ?3 = " + std::to_string(other_id);
    switch (outcome) {
      case Outcome::kDone:
        ASSERT_EQ(rc, SQLITE_DONE) << trace << ": " << message;
        break;
      case Outcome::kKeyConflict:
        ASSERT_EQ(sqlite3_extended_errcode(db_.handle()), SQLITE_CONSTRAINT_PRIMARYKEY)
            << trace << ": " << message;
        ++key_conflicts_;
        break;
      case Outcome::kRefused:
        ASSERT_EQ(rc, SQLITE_CONSTRAINT) << trace << ": " << message;
        ASSERT_TRUE(contains(message, model_.refused_message)) << trace << ": " << message;
        ++refusals_;
        break;
    }
    if (outcome != Outcome::kDone) {
      model_ = before;  // the statement changed nothing
    }
    ++statements_;
    expect_model(trace);
  }

  void expect_model(const std::string& when) {
    SCOPED_TRACE(when);
    std::vector<Row> rows;
    for (const auto& [id, body] : model_.state.rows) {
      rows.push_back({std::to_string(id), body});
    }
    ASSERT_EQ(db_.rows("SELECT id, body FROM docs ORDER BY id"), rows);
    std::vector<Row> links;
    for (const auto& [new_id, existing_id] : model_.state.links) {
      links.push_back({std::to_string(new_id), std::to_string(existing_id)});
    }
    ASSERT_EQ(db_.rows("SELECT new_id, existing_id FROM duplicates ORDER BY new_id, existing_id"),
              links);
    // Each link's similarity is the two rows' as they are now.
    ASSERT_EQ(
        db_.integer("SELECT count(*) FROM duplicates AS l "
                    "JOIN docs AS n ON n.id = l.new_id JOIN docs AS e ON e.id = l.existing_id "
                    "WHERE l.similarity IS NOT simhash_jaccard(n.body, e.body, "
                    "'n=3 weight=binary')"),
        0);
    ASSERT_EQ(db_.rows("SELECT rowid, fp FROM near ORDER BY rowid"),
              db_.rows("SELECT id, simhash(body) FROM docs ORDER BY id"));
  }

  TestDatabase db_;
  PairCheck check_{db_.handle()};
  Tally tally_;
  RecipeModel model_{check_, tally_, std::get<0>(GetParam()), std::get<2>(GetParam())};
  TextFamilies families_{200, 6, 40, 31};
  std::mt19937_64 random_{31};
  int statements_ = 0;
  int key_conflicts_ = 0;
  int refusals_ = 0;
};

TEST_P(RecipesUnderRandomWrites, TableIndexAndLinksEqualTheModel) {
  const int rounds = scaled(25);
  for (int round = 0; round < rounds && !HasFatalFailure(); ++round) {
    const int shape = static_cast<int>(random_() % 3);
    if (shape == 0) {  // autocommit
      for (int i = 0; i < 8 && !HasFatalFailure(); ++i) {
        write();
      }
      continue;
    }
    const RecipeModel at_begin = model_;
    db_.exec("BEGIN");
    for (int i = 0; i < 6 && !HasFatalFailure(); ++i) {
      write();
    }
    const RecipeModel at_savepoint = model_;
    db_.exec("SAVEPOINT a");
    for (int i = 0; i < 6 && !HasFatalFailure(); ++i) {
      write();
    }
    if (random_() % 2 == 0) {
      db_.exec("ROLLBACK TO a");
      model_ = at_savepoint;
      expect_model("after ROLLBACK TO");
    }
    db_.exec("RELEASE a");
    if (shape == 1) {
      db_.exec("ROLLBACK");
      model_ = at_begin;
      expect_model("after ROLLBACK");
    } else {
      db_.exec("COMMIT");
    }
  }
  expect_integrity(db_.handle(), "near");
  // The run meets what it is about: links removed with their rows, ids
  // SQLite chose beside a row -1, refusals and skips, statements undone.
  // (With a guard, near-duplicates are rarely let in, so links are few.)
  // The full run counts them; the sanitizer builds' fifth of it, from the
  // same seeds, checks the same code for memory errors.
  if (!kSanitizedBuild) {
    EXPECT_GT(tally_.links_removed, guard() == Guard::kNone ? 20 : 0);
    EXPECT_GT(key_conflicts_ + refusals_, 0);
    if (guard() != Guard::kNone) {
      EXPECT_GT(tally_.chosen_ids_beside_row_minus_one, 5);
    }
    if (guard() == Guard::kRefuse) {
      EXPECT_GT(refusals_, 10);
    }
    if (guard() == Guard::kSkip) {
      EXPECT_GT(tally_.skipped, 10);
    }
  }
  RecordProperty("statements", statements_);
  RecordProperty("refusals", refusals_);
  RecordProperty("skipped", tally_.skipped);
  RecordProperty("links_removed", tally_.links_removed);
  RecordProperty("chosen_ids_beside_row_minus_one", tally_.chosen_ids_beside_row_minus_one);
}

INSTANTIATE_TEST_SUITE_P(Recipes, RecipesUnderRandomWrites,
                         ::testing::Combine(::testing::Values(Guard::kNone, Guard::kRefuse,
                                                              Guard::kSkip),
                                            ::testing::Bool(), ::testing::Bool()),
                         [](const auto& info) {
                           const Guard guard = std::get<0>(info.param);
                           return std::string(guard == Guard::kNone     ? "RecordOnly"
                                              : guard == Guard::kRefuse ? "Refuse"
                                                                        : "Skip") +
                                  (std::get<1>(info.param) ? "_RecursiveOn" : "_RecursiveOff") +
                                  (std::get<2>(info.param) ? "_KeyReplaces" : "_KeyAborts");
                         });

// The reported case, as a user meets it: row 2 replaced by an unrelated
// text keeps no link, and an exact copy of row -1 is refused.
TEST(RecipesReplace, TheIssuesCases) {
  const std::string first =
      "the committee met on tuesday to review the budget for the coming year and agreed to "
      "postpone the vote until every member had read the final report in full";
  TestDatabase db;
  db.exec(read_recipe("follow_table.sql"));
  db.exec(read_recipe("record_near_duplicates.sql"));
  Prepared insert(db.handle(), "INSERT OR REPLACE INTO docs(id, body) VALUES (?1, ?2)");
  for (const auto& [id, body] : std::vector<std::pair<int, std::string>>{
           {1, first},
           {2, first + " today"},
           {2, "an unrelated text about the weather in the mountains this week"}}) {
    sqlite3_reset(insert.get());
    sqlite3_bind_int(insert.get(), 1, id);
    bind_body(insert.get(), 2, body);
    ASSERT_EQ(sqlite3_step(insert.get()), SQLITE_DONE) << sqlite3_errmsg(db.handle());
  }
  EXPECT_EQ(db.integer("SELECT count(*) FROM duplicates"), 0);
  db.exec("UPDATE docs SET body = (SELECT body FROM docs WHERE id = 1) || ' again' WHERE id = 2");
  EXPECT_EQ(db.rows("SELECT new_id, existing_id FROM duplicates"), (std::vector<Row>{{"2", "1"}}));
  db.exec("UPDATE docs SET id = 5 WHERE id = 1");
  EXPECT_EQ(db.rows("SELECT new_id, existing_id FROM duplicates"), (std::vector<Row>{{"5", "2"}}));

  for (const char* recipe : {"refuse_near_duplicates.sql", "skip_near_duplicates.sql"}) {
    SCOPED_TRACE(recipe);
    TestDatabase guarded;
    guarded.exec(read_recipe("follow_table.sql"));
    guarded.exec("INSERT INTO docs(id, body) VALUES (-1, '" + first + "')");
    guarded.exec(read_recipe(recipe));
    std::string message;
    const int rc = guarded.try_exec("INSERT INTO docs(body) VALUES ('" + first + "')", &message);
    EXPECT_EQ(guarded.integer("SELECT count(*) FROM docs"), 1) << message;
    if (contains(recipe, "refuse")) {
      EXPECT_EQ(rc, SQLITE_CONSTRAINT);
      EXPECT_TRUE(contains(message, "near-duplicate of docs row -1 ")) << message;
      // A new version of a row through OR REPLACE of its own id goes in.
      guarded.exec("INSERT OR REPLACE INTO docs(id, body) VALUES (-1, '" + first + " today')");
      EXPECT_EQ(*guarded.cell("SELECT body FROM docs WHERE id = -1"), first + " today");
    }
  }
}

// An index filled by hand before the triggers existed, as docs/dedup.md
// fills one (texts without words left out), then the table edited: rows
// deleted, bodies changed, rows added, without the index.
TEST(RecipesReplace, FollowTableBringsAStaleIndexUpToDate) {
  const TextFamilies families(200, 30, 40, 41);
  std::mt19937_64 random(41);
  TestDatabase db;
  db.exec("CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)");
  Prepared insert(db.handle(), "INSERT INTO docs(id, body) VALUES (?1, ?2)");
  const int rows = scaled(300);
  for (int id = 1; id <= rows; ++id) {
    sqlite3_reset(insert.get());
    sqlite3_bind_int(insert.get(), 1, id);
    bind_body(insert.get(), 2, next_body(families, random));
    ASSERT_EQ(sqlite3_step(insert.get()), SQLITE_DONE);
  }
  db.exec(
      "CREATE VIRTUAL TABLE near USING simhash_index(k=3);"
      "INSERT INTO near(rowid, fp) SELECT id, simhash(body) FROM docs "
      "WHERE simhash(body) IS NOT NULL;");
  Prepared edit(db.handle(), "UPDATE docs SET body = ?2 WHERE id = ?1");
  for (int i = 0; i < 60; ++i) {
    sqlite3_reset(edit.get());
    sqlite3_bind_int(edit.get(), 1, static_cast<int>(1 + random() % static_cast<unsigned>(rows)));
    bind_body(edit.get(), 2, next_body(families, random));
    ASSERT_EQ(sqlite3_step(edit.get()), SQLITE_DONE);
  }
  db.exec("DELETE FROM docs WHERE id % 7 = 0");
  for (int id = rows + 1; id <= rows + 30; ++id) {
    sqlite3_reset(insert.get());
    sqlite3_bind_int(insert.get(), 1, id);
    bind_body(insert.get(), 2, next_body(families, random));
    ASSERT_EQ(sqlite3_step(insert.get()), SQLITE_DONE);
  }
  ASSERT_NE(db.rows("SELECT rowid, fp FROM near ORDER BY rowid"),
            db.rows("SELECT id, simhash(body) FROM docs ORDER BY id"))
      << "the premise: the index is stale";

  for (int run = 0; run < 2; ++run) {  // a second run changes nothing
    db.exec(read_recipe("follow_table.sql"));
    ASSERT_EQ(db.rows("SELECT rowid, fp FROM near ORDER BY rowid"),
              db.rows("SELECT id, simhash(body) FROM docs ORDER BY id"));
    expect_integrity(db.handle(), "near");
  }

  // The refusing trigger then decides as a scan of the table.
  db.exec(read_recipe("refuse_near_duplicates.sql"));
  Prepared scan(db.handle(),
                "SELECT count(*) FROM docs WHERE hamming(simhash(body), simhash(?1)) <= 10 "
                "AND simhash_jaccard(?1, body, 'n=3 weight=binary') >= 0.8");
  Prepared probe(db.handle(), "INSERT INTO docs(body) VALUES (?1)");
  const int probes = scaled(60);
  int refused = 0;
  for (int i = 0; i < probes; ++i) {
    // Half of them members of the families (mostly near-duplicates of a
    // row), half texts of no family.
    const Body body = i % 2 == 0
                          ? families.fresh(40, random)
                          : families.member(static_cast<int>(random() % families.family_count()),
                                            static_cast<int>(random() % 2), random);
    sqlite3_reset(scan.get());
    bind_body(scan.get(), 1, body);
    ASSERT_EQ(sqlite3_step(scan.get()), SQLITE_ROW);
    const bool expected_refusal = sqlite3_column_int(scan.get(), 0) > 0;
    sqlite3_reset(scan.get());
    sqlite3_reset(probe.get());
    bind_body(probe.get(), 1, body);
    const int rc = sqlite3_step(probe.get());
    ASSERT_EQ(rc, expected_refusal ? SQLITE_CONSTRAINT : SQLITE_DONE) << *body;
    refused += expected_refusal ? 1 : 0;
  }
  EXPECT_GT(refused, probes / 12);
  EXPECT_LT(refused, probes - probes / 12);
}

// Texts of 11,000 to 20,000 words (about 65 to 120 KB, on both sides of
// the 100,000 bytes above which the recipes compare through shingle
// lists): a base and its prefixes of 55% to 100% of its length (Jaccard =
// the shorter's share of the longer's shingles, so on both sides of 0.8),
// some with words added.
std::vector<std::string> large_texts() {
  const TextFamilies families(3000, 3, 20000, 51);
  std::mt19937_64 random(51);
  std::vector<std::string> texts;
  for (int family = 0; family < families.family_count(); ++family) {
    std::mt19937_64 no_edits(0);
    const std::string base = families.member(family, 0, no_edits);
    std::vector<std::size_t> spaces;
    for (std::size_t i = 0; i < base.size(); ++i) {
      if (base[i] == ' ') {
        spaces.push_back(i);
      }
    }
    for (int i = 0; i < 4; ++i) {
      const double share = 0.55 + 0.45 * static_cast<double>(random() % 1000) / 1000.0;
      const auto words = static_cast<std::size_t>(share * static_cast<double>(spaces.size()));
      std::string text = words < spaces.size() ? base.substr(0, spaces[words]) : base;
      if (random() % 3 == 0) {
        text += " and a few words more";
      }
      texts.push_back(text);
    }
  }
  std::shuffle(texts.begin(), texts.end(), random);
  return texts;
}

TEST(RecipesReplace, LargeTextsAreDecidedAsBySimhashJaccard) {
  const std::vector<std::string> texts = large_texts();
  int large = 0;
  for (const std::string& text : texts) {
    large += text.size() > 100000 ? 1 : 0;
  }
  ASSERT_GT(large, 2) << "the premise: texts on both sides of 100,000 bytes";
  ASSERT_LT(large, static_cast<int>(texts.size()) - 2);
  std::vector<std::uint64_t> fingerprints;
  {
    TestDatabase db;
    for (const std::string& text : texts) {
      Prepared fingerprint(db.handle(), "SELECT simhash(?1)");
      bind_body(fingerprint.get(), 1, text);
      ASSERT_EQ(sqlite3_step(fingerprint.get()), SQLITE_ROW);
      fingerprints.push_back(
          static_cast<std::uint64_t>(sqlite3_column_int64(fingerprint.get(), 0)));
    }
  }
  // The sanitizer builds, where tokenizing 100 KB texts is slow, run the
  // recording recipe alone (its one-statement check included).
  std::vector<const char*> recipes = {"refuse_near_duplicates.sql", "skip_near_duplicates.sql",
                                      "record_near_duplicates.sql"};
  if (kSanitizedBuild) {
    recipes = {"record_near_duplicates.sql"};
  }
  for (const char* recipe : recipes) {
    SCOPED_TRACE(recipe);
    TestDatabase db;
    db.exec(read_recipe("follow_table.sql"));
    db.exec(read_recipe(recipe));
    Prepared insert(db.handle(), "INSERT INTO docs(body) VALUES (?1)");
    Prepared similarity(db.handle(), "SELECT simhash_jaccard(?1, ?2, 'n=3 weight=binary') >= 0.8");
    int near_duplicates = 0;
    std::vector<std::pair<std::int64_t, std::size_t>> inserted;  // (id, text index)
    for (std::size_t t = 0; t < texts.size(); ++t) {
      const std::string& text = texts[t];
      // Brute force: every row, by its fingerprint (computed once per text)
      // and simhash_jaccard.
      std::vector<std::int64_t> expected;
      for (const auto& [id, other] : inserted) {
        if (std::popcount(fingerprints[t] ^ fingerprints[other]) > 10) {
          continue;
        }
        sqlite3_reset(similarity.get());
        bind_body(similarity.get(), 1, text);
        bind_body(similarity.get(), 2, texts[other]);
        ASSERT_EQ(sqlite3_step(similarity.get()), SQLITE_ROW);
        if (sqlite3_column_int(similarity.get(), 0) == 1) {
          expected.push_back(id);
        }
      }
      near_duplicates += expected.empty() ? 0 : 1;
      const std::int64_t count_before = db.integer("SELECT count(*) FROM docs");
      sqlite3_reset(insert.get());
      bind_body(insert.get(), 1, text);
      const int rc = sqlite3_step(insert.get());
      const std::int64_t count_after = db.integer("SELECT count(*) FROM docs");
      if (count_after > count_before) {
        inserted.emplace_back(sqlite3_last_insert_rowid(db.handle()), t);
      }
      if (contains(recipe, "refuse")) {
        ASSERT_EQ(rc, expected.empty() ? SQLITE_DONE : SQLITE_CONSTRAINT);
      } else if (contains(recipe, "skip")) {
        ASSERT_EQ(rc, SQLITE_DONE);
        ASSERT_EQ(count_after, count_before + (expected.empty() ? 1 : 0));
      } else {
        ASSERT_EQ(rc, SQLITE_DONE);
        std::vector<Row> links;
        for (const std::int64_t id : expected) {
          links.push_back({std::to_string(id)});
        }
        ASSERT_EQ(db.rows("SELECT existing_id FROM duplicates WHERE new_id = last_insert_rowid() "
                          "ORDER BY existing_id"),
                  links);
      }
    }
    EXPECT_GT(near_duplicates, 2);
    EXPECT_LT(near_duplicates, static_cast<int>(texts.size()) - 2);
    if (contains(recipe, "record")) {
      // The similarities are simhash_jaccard's to the last bit.
      EXPECT_EQ(
          db.integer("SELECT count(*) FROM duplicates AS l "
                     "JOIN docs AS n ON n.id = l.new_id JOIN docs AS e ON e.id = l.existing_id "
                     "WHERE l.similarity IS NOT simhash_jaccard(n.body, e.body, "
                     "'n=3 weight=binary')"),
          0);
      // All in one statement: each row is compared with its own text (the
      // shingle list of the row before is not reused) against the rows
      // inserted before it.
      std::vector<Row> one_by_one =
          db.rows("SELECT new_id, existing_id FROM duplicates ORDER BY new_id, existing_id");
      db.exec(
          "CREATE TEMP TABLE incoming AS SELECT id, body FROM docs;"
          "DELETE FROM docs;"
          "INSERT INTO docs(id, body) SELECT id, body FROM incoming ORDER BY id");
      EXPECT_EQ(db.rows("SELECT new_id, existing_id FROM duplicates ORDER BY new_id, existing_id"),
                one_by_one);
    }
  }
}

// A large text whose fingerprint every row of the table shares: rows that
// are orders of the same 50 words (one fingerprint under simhash()'s word
// counts, low word-3-shingle Jaccard among them) and a text of many such
// orders. The recipes hand it to simhash_jaccard for none of the candidates
// (counted by a simhash_jaccard of the test's own that counts its calls).
class LargeText : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937_64 random(61);
    std::vector<std::string> words;
    for (int i = 0; i < 50; ++i) {
      std::string word = std::to_string(100 + i);
      word.insert(word.begin(), 'w');
      words.push_back(word);
    }
    auto order = [&] {
      std::shuffle(words.begin(), words.end(), random);
      std::string text;
      for (const std::string& word : words) {
        text += (text.empty() ? "" : " ") + word;
      }
      return text;
    };
    db_.exec(read_recipe("follow_table.sql"));
    db_.exec("BEGIN");
    for (int i = 0; i < kCandidates; ++i) {
      db_.exec("INSERT INTO docs(body) VALUES ('" + order() + "')");
    }
    db_.exec("COMMIT");
    const std::size_t size = static_cast<std::size_t>(scaled(600000));
    while (large_.size() < size) {
      large_ += order() + " ";
    }
    unused_order_ = order();
  }

  static constexpr int kCandidates = 300;
  TestDatabase db_;
  std::string large_;
  std::string unused_order_;
};

// Counts its calls and answers as the extension's simhash_jaccard, asked on
// a second connection.
struct CountingJaccard {
  TestDatabase original;
  Prepared jaccard{original.handle(), "SELECT simhash_jaccard(?1, ?2, ?3)"};
  int calls = 0;
  int interrupt_at = 0;  // calls sqlite3_interrupt() at this call (0: never)

  static void call(sqlite3_context* context, int, sqlite3_value** argv) {
    auto* self = static_cast<CountingJaccard*>(sqlite3_user_data(context));
    ++self->calls;
    if (self->calls == self->interrupt_at) {
      sqlite3_interrupt(sqlite3_context_db_handle(context));
    }
    sqlite3_stmt* statement = self->jaccard.get();
    sqlite3_reset(statement);
    for (int i = 0; i < 3; ++i) {
      sqlite3_bind_value(statement, i + 1, argv[i]);
    }
    if (sqlite3_step(statement) == SQLITE_ROW) {
      sqlite3_result_value(context, sqlite3_column_value(statement, 0));
    } else {
      sqlite3_result_error(context, "counting simhash_jaccard failed", -1);
    }
    sqlite3_reset(statement);
  }
};

TEST_F(LargeText, ItIsNotReadOncePerCandidate) {
  ASSERT_EQ(
      db_.integer("SELECT count(*) FROM near(simhash(" + std::string("'") + large_ + "'), 10)"),
      kCandidates)
      << "the premise: every row is a candidate";
  CountingJaccard counting;
  ASSERT_EQ(sqlite3_create_function(db_.handle(), "simhash_jaccard", 3, SQLITE_UTF8, &counting,
                                    CountingJaccard::call, nullptr, nullptr),
            SQLITE_OK);
  for (const char* recipe :
       {"refuse_near_duplicates.sql", "skip_near_duplicates.sql", "record_near_duplicates.sql"}) {
    SCOPED_TRACE(recipe);
    db_.exec("BEGIN");
    db_.exec(read_recipe(recipe));
    counting.calls = 0;
    Prepared insert(db_.handle(), "INSERT INTO docs(body) VALUES (?1)");
    bind_body(insert.get(), 1, large_);
    EXPECT_EQ(sqlite3_step(insert.get()), SQLITE_DONE) << sqlite3_errmsg(db_.handle());
    EXPECT_EQ(db_.integer("SELECT count(*) FROM docs"), kCandidates + 1);
    EXPECT_EQ(counting.calls, 0);
    // A small text of the same fingerprint is compared to every candidate.
    counting.calls = 0;
    db_.exec("INSERT INTO docs(body) VALUES ('" + unused_order_ + "')");
    EXPECT_GE(counting.calls, kCandidates);
    db_.exec("ROLLBACK");
  }
}

// The check runs in SQLite's virtual machine, candidate by candidate, so
// sqlite3_interrupt() stops it at the next candidate: here called from the
// 5th comparison (by the counting simhash_jaccard), the statement fails
// with SQLITE_INTERRUPT after at most one more, and changes nothing.
TEST_F(LargeText, ACheckStopsAtTheNextCandidateOnInterrupt) {
  CountingJaccard counting;
  counting.interrupt_at = 5;
  ASSERT_EQ(sqlite3_create_function(db_.handle(), "simhash_jaccard", 3, SQLITE_UTF8, &counting,
                                    CountingJaccard::call, nullptr, nullptr),
            SQLITE_OK);
  for (const char* recipe :
       {"refuse_near_duplicates.sql", "skip_near_duplicates.sql", "record_near_duplicates.sql"}) {
    SCOPED_TRACE(recipe);
    db_.exec(read_recipe(recipe));
    counting.calls = 0;
    std::string message;
    EXPECT_EQ(db_.try_exec("INSERT INTO docs(body) VALUES ('" + unused_order_ + "')", &message),
              SQLITE_INTERRUPT)
        << message;
    EXPECT_GE(counting.calls, 5);
    EXPECT_LE(counting.calls, 6);
    EXPECT_EQ(db_.integer("SELECT count(*) FROM docs"), kCandidates);
    EXPECT_EQ(db_.rows("SELECT rowid, fp FROM near ORDER BY rowid"),
              db_.rows("SELECT id, simhash(body) FROM docs ORDER BY id"));
    db_.exec(
        "DROP TRIGGER IF EXISTS docs_refuse_near_duplicate;"
        "DROP TRIGGER IF EXISTS docs_skip_near_duplicate;"
        "DROP TRIGGER IF EXISTS docs_record_near_duplicates;");
  }
}

}  // namespace
}  // namespace simhash::testing
