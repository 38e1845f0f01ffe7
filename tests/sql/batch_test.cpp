// SPDX-License-Identifier: MIT
// simhash_pairs, simhash_clusters and simhash_components through SQL against
// brute force on an index of 5,000 rows with planted clusters: several radii
// and block settings, after deletes and updates, inside a transaction rolled
// back; simhash_clusters over tables of pairs; and the errors for names that
// are not an index.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "batch_sql_support.h"
#include "batch_test_data.h"
#include "index_test_support.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

// Every row of `sql` as "x|y|z" lines, NULL shown as NULL.
std::string rows_text(TestDatabase& db, const std::string& sql) {
  std::string text;
  for (const Row& row : db.rows(sql)) {
    if (!text.empty()) {
      text += "\n";
    }
    for (std::size_t column = 0; column < row.size(); ++column) {
      if (column > 0) {
        text += '|';
      }
      text += row[column] ? *row[column] : std::string("NULL");
    }
  }
  return text;
}

// `radius_sql` is "" for the default radius, else ", r".
std::vector<NearPair> sql_pairs(TestDatabase& db, const std::string& index,
                                const std::string& radius_sql) {
  std::vector<NearPair> pairs;
  Prepared query(db.handle(),
                 "SELECT a, b, distance FROM simhash_pairs('" + index + "'" + radius_sql + ")");
  step_all(db.handle(), query.get(), [&](sqlite3_stmt* row) {
    pairs.push_back(NearPair{sqlite3_column_int64(row, 0), sqlite3_column_int64(row, 1),
                             sqlite3_column_int(row, 2)});
  });
  return pairs;
}

// simhash_components: id -> the smallest id of its component.
std::map<std::int64_t, std::int64_t> sql_components(TestDatabase& db, const std::string& index,
                                                    const std::string& radius_sql) {
  std::map<std::int64_t, std::int64_t> clusters;
  Prepared query(db.handle(),
                 "SELECT id, cluster FROM simhash_components('" + index + "'" + radius_sql + ")");
  step_all(db.handle(), query.get(), [&](sqlite3_stmt* row) {
    const bool fresh =
        clusters.emplace(sqlite3_column_int64(row, 0), sqlite3_column_int64(row, 1)).second;
    EXPECT_TRUE(fresh) << "id " << sqlite3_column_int64(row, 0) << " twice";
  });
  return clusters;
}

// simhash_clusters over an index, in the order it gives them.
std::vector<FingerprintLeader> sql_leaders(TestDatabase& db, const std::string& index,
                                           const std::string& radius_sql) {
  std::vector<FingerprintLeader> leaders;
  Prepared query(db.handle(), "SELECT id, cluster, distance, similarity FROM simhash_clusters('" +
                                  index + "'" + radius_sql + ")");
  step_all(db.handle(), query.get(), [&](sqlite3_stmt* row) {
    EXPECT_EQ(sqlite3_column_type(row, 3), SQLITE_NULL) << "no similarity without verification";
    leaders.push_back(FingerprintLeader{sqlite3_column_int64(row, 0), sqlite3_column_int64(row, 1),
                                        sqlite3_column_int(row, 2)});
  });
  return leaders;
}

// Brute-force answers for one model, computed once per radius and shared by
// every block setting (brute force dominates the test's time under ASan).
class Reference {
 public:
  explicit Reference(const Model& model) : records_(records_of(model)) {}

  const std::vector<NearPair>& pairs(int radius) {
    auto found = pairs_.find(radius);
    if (found == pairs_.end()) {
      found = pairs_.emplace(radius, brute_force_pairs(records_, radius)).first;
    }
    return found->second;
  }
  const std::map<std::int64_t, std::int64_t>& clusters(int radius) {
    auto found = clusters_.find(radius);
    if (found == clusters_.end()) {
      found = clusters_.emplace(radius, reference_clusters(records_, pairs(radius))).first;
    }
    return found->second;
  }
  const std::vector<FingerprintLeader>& leaders(int radius) {
    auto found = leaders_.find(radius);
    if (found == leaders_.end()) {
      found = leaders_.emplace(radius, reference_leaders(records_, radius)).first;
    }
    return found->second;
  }

 private:
  std::vector<IdFingerprint> records_;
  std::map<int, std::vector<NearPair>> pairs_;
  std::map<int, std::map<std::int64_t, std::int64_t>> clusters_;
  std::map<int, std::vector<FingerprintLeader>> leaders_;
};

// The pairs (exact set, each once, a < b), the components (labelled by their
// smallest id) and the leader grouping (in id order, with distances) at
// `radius` equal brute force.
void expect_matches(TestDatabase& db, const std::string& index, Reference& reference, int radius,
                    const std::string& radius_sql) {
  const std::vector<NearPair>& expected = reference.pairs(radius);
  std::vector<NearPair> pairs = sql_pairs(db, index, radius_sql);
  for (const NearPair& pair : pairs) {
    ASSERT_LT(pair.a, pair.b);
  }
  std::sort(pairs.begin(), pairs.end());
  ASSERT_EQ(pairs.size(), expected.size()) << index << " radius " << radius;
  EXPECT_TRUE(pairs == expected) << index << " radius " << radius;
  EXPECT_EQ(sql_components(db, index, radius_sql), reference.clusters(radius))
      << index << " radius " << radius;
  EXPECT_TRUE(sql_leaders(db, index, radius_sql) == reference.leaders(radius))
      << index << " radius " << radius;
}

void expect_matches_model(TestDatabase& db, const std::string& index, const Model& model,
                          int radius) {
  Reference reference(model);
  expect_matches(db, index, reference, radius, ", " + std::to_string(radius));
}

TEST(BatchSql, MatchBruteForceAtSeveralRadiiAndBlockSettings) {
  const Model model = planted_model(5000, 4242);
  Reference reference(model);
  struct Setting {
    int k;
    const char* options;
  };
  for (const Setting setting : {Setting{3, "k=3"}, Setting{3, "k=3, blocks=6"},
                                Setting{2, "k=2, blocks=3"}, Setting{8, "k=8, blocks=10"}}) {
    TestDatabase db;
    db.exec(std::string("CREATE VIRTUAL TABLE near USING simhash_index(") + setting.options + ")");
    insert_rows(db, "near", model);
    for (int radius : {0, 1, 3, 5, 8}) {
      expect_matches(db, "near", reference, radius, ", " + std::to_string(radius));
    }
    // No radius: the index's k.
    expect_matches(db, "near", reference, setting.k, "");
  }
}

TEST(BatchSql, FollowDeletesAndUpdates) {
  Model model = planted_model(5000, 77);
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  insert_rows(db, "near", model);
  std::mt19937_64 random(78);
  mutate(db, model, random);
  Reference reference(model);
  for (int radius : {0, 3, 5}) {
    expect_matches(db, "near", reference, radius, ", " + std::to_string(radius));
  }
}

TEST(BatchSql, SeeTheOpenTransactionAndItsRollback) {
  const Model original = planted_model(5000, 91);
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  insert_rows(db, "near", original);
  Model changed = original;
  std::mt19937_64 random(92);
  db.exec("BEGIN");
  mutate(db, changed, random);
  expect_matches_model(db, "near", changed, 3);
  db.exec("ROLLBACK");
  expect_matches_model(db, "near", original, 3);

  // ROLLBACK TO a savepoint as well.
  db.exec("BEGIN; SAVEPOINT before_changes");
  changed = original;
  mutate(db, changed, random);
  expect_matches_model(db, "near", changed, 2);
  db.exec("ROLLBACK TO before_changes");
  expect_matches_model(db, "near", original, 2);
  db.exec("COMMIT");
}

TEST(BatchSql, RadiusOf64OrMoreGivesEveryPair) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=1)");
  insert_rows(db, "near", planted_model(300, 5));
  for (const char* radius : {"64", "100", "9223372036854775807"}) {
    EXPECT_EQ(db.integer(std::string("SELECT count(*) FROM simhash_pairs('near', ") + radius + ")"),
              300 * 299 / 2)
        << radius;
    for (const std::string function : {"simhash_clusters", "simhash_components"}) {
      EXPECT_EQ(db.integer("SELECT count(DISTINCT cluster) FROM " + function + "('near', " +
                           radius + ")"),
                1)
          << function;
    }
  }
}

TEST(BatchSql, NamesThatAreNotAnIndexAreErrors) {
  TestDatabase db;
  db.exec(
      "CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT);"
      "CREATE VIEW recent AS SELECT * FROM docs;"
      "CREATE VIRTUAL TABLE words USING fts5(body);"
      "CREATE VIRTUAL TABLE near USING simhash_index(k=3);");
  // (arguments, message after "<function>: ") for both functions.
  struct Case {
    const char* arguments;
    const char* message;
  };
  const Case cases[] = {
      {"('nothing')", "no simhash_index named 'nothing'"},
      {"('docs')", "'docs' is not a simhash_index (it is an ordinary table)"},
      {"('recent')", "'recent' is not a simhash_index (it is a view)"},
      {"('words')", "'words' is not a simhash_index (it is a virtual table of another module)"},
      {"('near_data')",
       "'near_data' is not a simhash_index (it is a shadow table of a virtual table)"},
      {"('nosuchdb.near')", "no simhash_index named 'nosuchdb.near'"},
      {"(42)", "the index must be named by a TEXT value, got INTEGER"},
      {"('near', -1)", "the radius must not be negative (got -1)"},
      {"('near', '3')",
       "the radius must be an integer or 'default' (the radius left out), got TEXT '3'"},
      {"('near', 2.5)", "the radius must be an integer, got 2.5"},
  };
  for (const char* function : {"simhash_pairs", "simhash_components", "simhash_clusters"}) {
    const std::string f = function;
    for (const Case& c : cases) {
      if (f == "simhash_clusters" &&
          std::string(c.message).find("simhash_index") != std::string::npos) {
        continue;  // it also reads tables of pairs: below
      }
      EXPECT_EQ(db.error("SELECT * FROM " + f + c.arguments), f + ": " + c.message);
    }
    EXPECT_EQ(db.error("SELECT * FROM " + f), f +
                                                  "(index [, radius]) needs the name of a "
                                                  "simhash_index, e.g. SELECT * FROM " +
                                                  f + "('near')");
    // NULL equals nothing: no rows, as for any "= NULL".
    EXPECT_EQ(db.integer("SELECT count(*) FROM " + f + "(NULL)"), 0);
    EXPECT_EQ(db.integer("SELECT count(*) FROM " + f + "('near', NULL)"), 0);
  }
}

// The batch functions read an index's config through the same checks as the
// index itself (index_shadow_tables.h), so they refuse what it refuses, with
// its message after their name.
TEST(BatchSql, RefuseTheConfigsTheIndexRefuses) {
  const TempDatabaseFile file("batch_config");
  {
    TestDatabase db(file.path());
    db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
    db.exec("INSERT INTO near(rowid, fp) VALUES (1, 5), (2, 7)");
  }
  struct Damage {
    const char* sql;
    const char* message;  // after "<function>: simhash_index near: "
  };
  for (const Damage& damage :
       {Damage{"UPDATE near_config SET value = 5 WHERE key = 'format'",
               "storage format 5 is newer than this extension reads (format 4); upgrade the "
               "simhash extension"},
        Damage{"UPDATE near_config SET value = 30 WHERE key = 'k'", "stored k=30 is invalid"},
        Damage{"UPDATE near_config SET value = 'x' WHERE key = 'k'",
               "the config table's k is 'x', not a count"},
        Damage{"DELETE FROM near_config WHERE key = 'k'", "the config table lacks k"}}) {
    exec_without_extension(file.path(),
                           "DELETE FROM near_config; INSERT INTO near_config VALUES ('k', 3), "
                           "('blocks', 4), ('format', 2)");
    {
      TestDatabase db(file.path());
      EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_pairs('near', 1)"), 1);
    }
    exec_without_extension(file.path(), damage.sql);
    TestDatabase db(file.path());
    for (const std::string function : {"simhash_pairs", "simhash_components", "simhash_clusters"}) {
      EXPECT_EQ(db.error("SELECT * FROM " + function + "('near')"),
                function + ": simhash_index near: " + damage.message);
    }
  }
}

TEST(BatchSql, ClustersNameWhatIsNeitherAnIndexNorPairs) {
  TestDatabase db;
  db.exec(
      "CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT);"
      "CREATE VIEW recent AS SELECT * FROM docs;"
      "CREATE VIRTUAL TABLE words USING fts5(body);"
      "CREATE TABLE pairs(a, b, similarity, distance);"
      "INSERT INTO pairs VALUES (1, 2, 0.9, 3);");
  const std::string neither =
      "simhash_clusters: '%s' is neither a simhash_index nor a table of "
      "pairs (it is %s without columns a and b)";
  const auto message = [&](const char* name, const char* kind) {
    std::string text = neither;
    text.replace(text.find("%s"), 2, name);
    text.replace(text.find("%s"), 2, kind);
    return text;
  };
  EXPECT_EQ(db.error("SELECT * FROM simhash_clusters('nothing')"),
            "simhash_clusters: no simhash_index or table of pairs named 'nothing'");
  EXPECT_EQ(db.error("SELECT * FROM simhash_clusters('docs')"),
            message("docs", "an ordinary table"));
  EXPECT_EQ(db.error("SELECT * FROM simhash_clusters('recent')"), message("recent", "a view"));
  EXPECT_EQ(db.error("SELECT * FROM simhash_clusters('words')"),
            message("words", "a virtual table of another module"));
  EXPECT_EQ(db.error("SELECT * FROM simhash_clusters('pairs', 3)"),
            "simhash_clusters: 'pairs' is a table of pairs, not a simhash_index: a radius applies "
            "only to an index (choose the pairs in the table or a view instead)");
  db.exec("INSERT INTO pairs VALUES (2, 3, NULL, 4)");
  EXPECT_EQ(db.error("SELECT * FROM simhash_clusters('pairs')"),
            "simhash_clusters: 'pairs': the pair (2, 3) has a NULL similarity; leave such pairs "
            "out or give a number");
  db.exec("DELETE FROM pairs WHERE b = 3; INSERT INTO pairs VALUES ('2', 3, 0.5, 4)");
  EXPECT_EQ(db.error("SELECT * FROM simhash_clusters('pairs')"),
            "simhash_clusters: 'pairs': column a must hold INTEGER ids, got TEXT");
  db.exec("DELETE FROM pairs WHERE b = 3; INSERT INTO pairs VALUES (2, 3, 0.5, 4.5)");
  EXPECT_EQ(db.error("SELECT * FROM simhash_clusters('pairs')"),
            "simhash_clusters: 'pairs': column distance must hold INTEGER distances, got REAL");
}

// simhash_clusters over a table of pairs: the rule over the rows, nearest by
// similarity, else distance, else the smaller id; with each member's
// distance and similarity to its representative.
TEST(BatchSql, ClustersOverATableOfPairs) {
  TestDatabase db;
  // 1-2 and 2-3 chain; 3 is nearer to 4 than to 1; 5-6 only by distance.
  db.exec(
      "CREATE TABLE verified(a INTEGER, b INTEGER, distance INTEGER, similarity REAL);"
      "INSERT INTO verified VALUES (1, 2, 3, 0.9), (2, 3, 1, 0.95), (1, 3, 5, 0.6),"
      "  (4, 3, 2, 0.8), (1, 4, 7, 0.85), (7, 7, 0, 1.0);"
      "CREATE VIEW by_distance AS SELECT a, b, distance FROM verified;"
      "CREATE VIEW bare AS SELECT b AS a, a AS b FROM verified;");
  EXPECT_EQ(rows_text(db,
                      "SELECT id, cluster, distance, similarity FROM "
                      "simhash_clusters('verified')"),
            "1|1|0|1.0\n2|1|3|0.9\n3|1|5|0.6\n4|1|7|0.85");
  // By distance: 3 joins 1 at 5 (the only representative linked to it).
  EXPECT_EQ(rows_text(db,
                      "SELECT id, cluster, distance, similarity FROM "
                      "simhash_clusters('by_distance')"),
            "1|1|0|NULL\n2|1|3|NULL\n3|1|5|NULL\n4|1|7|NULL");
  // No ranking column: every link is as near; the row with a self-pair only
  // does not appear.
  EXPECT_EQ(rows_text(db, "SELECT id, cluster, distance, similarity FROM simhash_clusters('bare')"),
            "1|1|NULL|NULL\n2|1|NULL|NULL\n3|1|NULL|NULL\n4|1|NULL|NULL");
  db.exec("DELETE FROM verified WHERE a = 1 AND b IN (3, 4)");
  EXPECT_EQ(rows_text(db,
                      "SELECT id, cluster, distance, similarity FROM "
                      "simhash_clusters('verified')"),
            "1|1|0|1.0\n2|1|3|0.9\n3|3|0|1.0\n4|3|2|0.8");
}

TEST(BatchSql, ClustersOverRandomPairsMatchTheRule) {
  TestDatabase db;
  db.exec("CREATE TEMP TABLE candidates(a INTEGER, b INTEGER, similarity REAL)");
  std::mt19937_64 random(5150);
  std::vector<RankedPair> pairs;
  Prepared insert(db.handle(), "INSERT INTO candidates VALUES (?1, ?2, ?3)");
  for (int i = 0; i < 3000; ++i) {
    const std::int64_t a = static_cast<std::int64_t>(random() % 800) - 400;
    const std::int64_t b = static_cast<std::int64_t>(random() % 800) - 400;
    const double similarity = static_cast<double>(random() % 8) / 8.0;
    pairs.push_back({a, b, -similarity});
    sqlite3_bind_int64(insert.get(), 1, a);
    sqlite3_bind_int64(insert.get(), 2, b);
    sqlite3_bind_double(insert.get(), 3, similarity);
    step_write(db.handle(), insert.get());
  }
  std::vector<std::string> expected;
  for (const PairLeader& row : reference_ranked_leaders(pairs)) {
    expected.push_back(std::to_string(row.id) + "|" + std::to_string(row.leader) + "|" +
                       (row.pair == PairLeader::kNoPair ? "1.0" : "x"));
  }
  std::size_t row = 0;
  for (const auto& values :
       db.rows("SELECT id, cluster, similarity FROM simhash_clusters('candidates')")) {
    ASSERT_LT(row, expected.size());
    std::string got = *values[0] + "|" + *values[1] + "|";
    got += expected[row].ends_with("x") ? "x" : *values[2];
    EXPECT_EQ(got, expected[row]) << "row " << row;
    ++row;
  }
  EXPECT_EQ(row, expected.size());
}

TEST(BatchSql, NamesResolveLikeSql) {
  TestDatabase db;
  db.exec(
      "CREATE VIRTUAL TABLE \"Odd \"\"Name\"\"\" USING simhash_index(k=2);"
      "INSERT INTO \"Odd \"\"Name\"\"\"(rowid, fp) VALUES (1, 5), (2, 5), (3, 4);"
      "ATTACH ':memory:' AS other;"
      "CREATE VIRTUAL TABLE other.far USING simhash_index(k=1);"
      "INSERT INTO other.far(rowid, fp) VALUES (10, 3), (11, 2), (12, 1);"
      "CREATE VIRTUAL TABLE temp.far USING simhash_index(k=1);"
      "INSERT INTO temp.far(rowid, fp) VALUES (20, 7), (21, 7);");
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_pairs('Odd \"Name\"')"), 3);
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_pairs('odd \"NAME\"')"), 3);
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_pairs('main.Odd \"Name\"')"), 3);
  // temp comes first, as in SQL; a schema prefix picks the database.
  EXPECT_EQ(db.integer("SELECT min(a) FROM simhash_pairs('far')"), 20);
  EXPECT_EQ(db.integer("SELECT min(a) FROM simhash_pairs('temp.far')"), 20);
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_pairs('other.far')"),
            2);  // 3-2, 3-1 (2 and 1 differ in two bits)
  EXPECT_EQ(db.error("SELECT * FROM simhash_pairs('main.far')"),
            "simhash_pairs: no simhash_index named 'main.far'");
  // An index is recognised by the module itself (index_registry.h): it
  // follows a rename, in the same connection and in a new one.
  db.exec("ALTER TABLE other.far RENAME TO Renamed");
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_pairs('renamed')"), 2);
  EXPECT_EQ(db.integer("SELECT min(a) FROM simhash_pairs('far')"), 20);
  db.exec("DROP TABLE temp.far");
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_pairs('other.renamed')"), 2);
  EXPECT_EQ(db.error("SELECT * FROM simhash_pairs('far')"),
            "simhash_pairs: no simhash_index named 'far'");
}

TEST(BatchSql, IndexesAreRecognisedInAFreshConnection) {
  const TempDatabaseFile file("batch_fresh");
  {
    TestDatabase db(file.path());
    db.exec(
        "CREATE VIRTUAL TABLE near USING simhash_index(k=3);"
        "INSERT INTO near(rowid, fp) VALUES (1, 0), (2, 1);"
        "CREATE VIRTUAL TABLE words USING fts5(body)");
  }
  // Nothing has touched the tables in this connection yet.
  TestDatabase db(file.path());
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_pairs('near')"), 1);
  EXPECT_EQ(db.error("SELECT * FROM simhash_pairs('words')"),
            "simhash_pairs: 'words' is not a simhash_index (it is a virtual table of another "
            "module)");
}

TEST(BatchSql, HiddenColumnsJoinsAndOrder) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  const Model model = planted_model(2000, 12);
  insert_rows(db, "near", model);
  const std::int64_t pairs = db.integer("SELECT count(*) FROM simhash_pairs('near', 2)");
  EXPECT_GT(pairs, 0);
  EXPECT_EQ(
      db.integer("SELECT count(*) FROM simhash_pairs WHERE \"index\" = 'near' AND radius = 2"),
      pairs);
  // The argument comes from another table: the join must feed it first.
  EXPECT_EQ(db.integer("SELECT count(*) FROM (SELECT 'near' AS name, 2 AS r) AS args, "
                       "simhash_pairs(args.name, args.r)"),
            pairs);
  EXPECT_EQ(db.integer("SELECT max(radius) FROM simhash_pairs('near')"), 3);
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_pairs('near', 2) WHERE distance > 2"), 0);
  // Clusters come in id order.
  std::int64_t previous = INT64_MIN;
  bool ordered = true;
  for (const auto& row : db.rows("SELECT id FROM simhash_clusters('near') ORDER BY id")) {
    const std::int64_t id = std::stoll(*row[0]);
    ordered = ordered && id > previous;
    previous = id;
  }
  EXPECT_TRUE(ordered);
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_clusters('near')"),
            static_cast<std::int64_t>(model.size()));
}

TEST(BatchSql, KeepOnePerClusterDeletesTheRest) {
  TestDatabase db;
  db.exec(
      "CREATE TABLE docs(id INTEGER PRIMARY KEY, fp INTEGER);"
      "CREATE VIRTUAL TABLE near USING simhash_index(k=3);");
  const Model model = planted_model(3000, 31);
  insert_rows(db, "near", model);
  db.exec("INSERT INTO docs SELECT rowid, fp FROM near");
  const std::int64_t clusters =
      db.integer("SELECT count(DISTINCT cluster) FROM simhash_clusters('near')");
  db.exec(
      "DELETE FROM docs WHERE id IN (SELECT id FROM simhash_clusters('near') WHERE id <> "
      "cluster)");
  EXPECT_EQ(db.integer("SELECT count(*) FROM docs"), clusters);
  // Each kept row is its cluster's representative, and every deleted row was
  // within the radius of the row kept in its place: nothing chains.
  EXPECT_EQ(db.integer("SELECT count(*) FROM docs WHERE id NOT IN "
                       "(SELECT cluster FROM simhash_clusters('near'))"),
            0);
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_clusters('near') AS c "
                       "JOIN near AS member ON member.rowid = c.id "
                       "JOIN docs AS kept ON kept.id = c.cluster "
                       "WHERE hamming(member.fp, kept.fp) <> c.distance OR c.distance > 3"),
            0);
  // Single link, asked for by name, would have kept fewer rows (its chains).
  EXPECT_LT(db.integer("SELECT count(DISTINCT cluster) FROM simhash_components('near')"), clusters);
}

TEST(BatchSql, ExplainQueryPlanNamesTheBatchSearch) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  const auto plan = db.rows("EXPLAIN QUERY PLAN SELECT * FROM simhash_pairs('near', 5)");
  ASSERT_FALSE(plan.empty());
  const std::string detail = *plan.back().back();
  EXPECT_NE(detail.find("radius 5"), std::string::npos) << detail;
  EXPECT_NE(detail.find("block permutation"), std::string::npos) << detail;
  // The plan says what the cost model does as the rows grow: at radius 10
  // tables, at 30 every pair at any size (both read the same).
  const std::string ten = plan_of(db, "SELECT * FROM simhash_pairs('near', 10)");
  EXPECT_NE(ten.find("from 10^7 fingerprints block permutation, 1001 sorted tables (k=10, "
                     "blocks=14)"),
            std::string::npos)
      << ten;
  const std::string thirty = plan_of(db, "SELECT * FROM simhash_pairs('near', 30)");
  EXPECT_NE(thirty.find("radius 30: all pairs compared (radius 30) at any size"), std::string::npos)
      << thirty;
  EXPECT_NE(plan_of(db, "SELECT * FROM simhash_pairs('near', ?1)").find("given at run time"),
            std::string::npos);
}

}  // namespace
}  // namespace simhash::testing
