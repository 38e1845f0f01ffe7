// SPDX-License-Identifier: MIT
// simhash_dedup through SQL: the same groups as the README's three-step
// recipe (simhash_pairs, simhash_jaccard >= threshold, simhash_clusters over
// the verified pairs) on random texts at several thresholds, radii and
// options; another keep order against a brute-force model (every pair, the
// SQL function's similarity, the leader rule in visit order); the defaults;
// radius NULL (every pair at the threshold) against radius 64, the recipe
// and the model; the errors, which name the argument; no use from views or
// triggers; and a prompt stop on interrupt or the progress handler.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "batch_sql_support.h"
#include "dedup_docs.h"
#include "index_test_support.h"
#include "interrupt_timing.h"
#include "leader_rule_model.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

struct Grouped {
  std::int64_t id;
  std::int64_t cluster;
  std::int64_t distance;
  double similarity;

  friend auto operator<=>(const Grouped&, const Grouped&) = default;
};

std::ostream& operator<<(std::ostream& out, const Grouped& row) {
  return out << "(" << row.id << ", " << row.cluster << ", " << row.distance << ", "
             << row.similarity << ")";
}

// Rows (id, cluster, distance, similarity) of `sql`, in the order given.
std::vector<Grouped> grouped_rows(TestDatabase& db, const std::string& sql) {
  std::vector<Grouped> rows;
  Prepared query(db.handle(), sql);
  step_all(db.handle(), query.get(), [&](sqlite3_stmt* row) {
    rows.push_back(Grouped{sqlite3_column_int64(row, 0), sqlite3_column_int64(row, 1),
                           sqlite3_column_int64(row, 2), sqlite3_column_double(row, 3)});
  });
  return rows;
}

// Only the rows of groups of two or more, sorted by id.
std::vector<Grouped> groups_of_two_or_more(std::vector<Grouped> rows) {
  std::map<std::int64_t, int> size;
  for (const Grouped& row : rows) {
    ++size[row.cluster];
  }
  std::erase_if(rows, [&](const Grouped& row) { return size[row.cluster] < 2; });
  std::sort(rows.begin(), rows.end());
  return rows;
}

// The README's recipe: its groups of two or more, sorted by id.
std::vector<Grouped> recipe_groups(TestDatabase& db, const std::string& threshold, int radius,
                                   const std::string& options) {
  db.exec("DROP TABLE IF EXISTS verified");
  db.exec(
      "CREATE TEMP TABLE verified AS SELECT * FROM (SELECT a, b, distance, "
      "simhash_jaccard(x.body, y.body, '" +
      options +
      "') AS similarity FROM "
      "simhash_pairs('near', " +
      std::to_string(radius) +
      ") JOIN docs AS x ON x.id = a "
      "JOIN docs AS y ON y.id = b) WHERE similarity >= " +
      threshold);
  return groups_of_two_or_more(grouped_rows(
      db, "SELECT id, cluster, distance, similarity FROM simhash_clusters('verified')"));
}

TEST(SimhashDedup, GivesTheRecipesGroupsInIdOrder) {
  // Under the sanitizers, which check the same code paths rather than more
  // answers, the first seed's table only (every options, threshold and
  // radius still compared).
  for (const std::uint64_t seed : {11, 12}) {
    if (kSanitizedBuild && seed != 11) {
      continue;
    }
    TestDatabase db;
    fill_docs(db, 150, seed);
    for (const std::string options : {"n=3 weight=binary", "n=2 weight=tf", "unit=char n=4"}) {
      for (const std::string threshold : {"0.5", "0.8", "0.9"}) {
        for (const int radius : {3, 10, 20}) {
          const std::vector<Grouped> expected = recipe_groups(db, threshold, radius, options);
          const std::vector<Grouped> got = grouped_rows(
              db,
              "SELECT id, cluster, distance, similarity FROM simhash_dedup('SELECT id, body "
              "FROM docs ORDER BY id', " +
                  threshold + ", " + std::to_string(radius) + ", '" + options + "')");
          EXPECT_TRUE(std::is_sorted(got.begin(), got.end())) << "rows come in visit order";
          EXPECT_EQ(got, groups_of_two_or_more(got)) << "only groups of two or more";
          EXPECT_EQ(got, expected) << "seed " << seed << " options " << options << " threshold "
                                   << threshold << " radius " << radius;
          if (radius == 10 && threshold == "0.8") {
            EXPECT_GT(expected.size(), 40U) << "the data makes groups";
          }
        }
      }
    }
  }
}

// A row of the model: id, fingerprint (simhash()'s defaults) and text.
struct ModelRow {
  std::int64_t id;
  std::uint64_t fp;
  std::string body;
};

// Every pair compared: within `radius` bits and simhash_jaccard at least
// `threshold`; then in visit order each row joins the most similar earlier
// representative it is linked to (ties: the earliest), else becomes one.
std::vector<Grouped> brute_force_groups(TestDatabase& db, const std::string& query,
                                        double threshold, int radius, const std::string& options) {
  // The query itself gives the visit order; each text's fingerprint and
  // features are asked of SQL row by row.
  std::vector<ModelRow> rows;
  Prepared read(db.handle(), query);
  Prepared describe(db.handle(), "SELECT simhash(?1), simhash_jaccard(?1, ?1, ?2) IS NOT NULL");
  step_all(db.handle(), read.get(), [&](sqlite3_stmt* row) {
    if (sqlite3_column_type(row, 1) == SQLITE_NULL) {
      return;
    }
    ModelRow added{sqlite3_column_int64(row, 0), 0,
                   reinterpret_cast<const char*>(sqlite3_column_text(row, 1))};
    sqlite3_bind_text(describe.get(), 1, added.body.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(describe.get(), 2, options.c_str(), -1, SQLITE_TRANSIENT);
    bool verifiable = false;
    step_all(db.handle(), describe.get(), [&](sqlite3_stmt* described) {
      verifiable =
          sqlite3_column_type(described, 0) != SQLITE_NULL && sqlite3_column_int(described, 1) != 0;
      added.fp = static_cast<std::uint64_t>(sqlite3_column_int64(described, 0));
    });
    if (verifiable) {
      rows.push_back(added);
    }
  });
  Prepared jaccard(db.handle(), "SELECT simhash_jaccard(?1, ?2, ?3)");
  const auto similarity = [&](const ModelRow& a, const ModelRow& b) {
    sqlite3_bind_text(jaccard.get(), 1, a.body.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(jaccard.get(), 2, b.body.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(jaccard.get(), 3, options.c_str(), -1, SQLITE_TRANSIENT);
    double value = -1;
    step_all(db.handle(), jaccard.get(),
             [&](sqlite3_stmt* row) { value = sqlite3_column_double(row, 0); });
    return value;
  };
  const std::vector<ModelLeader> leaders =
      leader_rule_model(rows.size(), [&](std::size_t row, std::size_t leader) {
        if (std::popcount(rows[row].fp ^ rows[leader].fp) > radius) {
          return std::optional<double>();
        }
        const double value = similarity(rows[row], rows[leader]);
        return value >= threshold ? std::optional<double>(value) : std::nullopt;
      });
  std::vector<Grouped> assigned;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ModelRow& leader = rows[leaders[i].leader];
    assigned.push_back(Grouped{rows[i].id, leader.id, std::popcount(rows[i].fp ^ leader.fp),
                               leaders[i].similarity});
  }
  return groups_of_two_or_more(assigned);
}

std::string quoted_sql(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) {
    quoted += c == '\'' ? std::string("''") : std::string(1, c);
  }
  return quoted + "'";
}

TEST(SimhashDedup, OrderByIsTheKeepPolicy) {
  TestDatabase db;
  fill_docs(db, 90, 21);
  const std::string by_length = "SELECT id, body FROM docs ORDER BY length(body) DESC, id DESC";
  for (const auto& [threshold, radius] : {std::pair{0.6, 10}, std::pair{0.8, 64}}) {
    const std::string options = "n=3 weight=binary";
    const std::string call = "SELECT id, cluster, distance, similarity FROM simhash_dedup(" +
                             quoted_sql(by_length) + ", " + std::to_string(threshold) + ", " +
                             std::to_string(radius) + ")";
    const std::vector<Grouped> got = grouped_rows(db, call);
    const std::vector<Grouped> expected =
        brute_force_groups(db, by_length, threshold, radius, options);
    EXPECT_EQ(groups_of_two_or_more(got), expected) << call;
    EXPECT_GT(expected.size(), 20U) << "the data makes groups";
    // Kept rows are the longest of their groups here, unlike in id order.
    const std::vector<Grouped> by_id = grouped_rows(
        db,
        "SELECT id, cluster, distance, similarity FROM simhash_dedup('SELECT id, body FROM "
        "docs ORDER BY id', " +
            std::to_string(threshold) + ", " + std::to_string(radius) + ")");
    EXPECT_NE(groups_of_two_or_more(by_id), expected);
  }
}

// Radius NULL: every pair at the threshold, whatever its distance. A radius
// of 64 bits also takes every pair (as candidates), so the two must agree,
// in any order; in id order both must equal the recipe over all pairs, and
// in another order the brute-force model.
TEST(SimhashDedup, RadiusNullGroupsEveryPairAtTheThreshold) {
  TestDatabase db;
  fill_docs(db, 120, 51);
  const std::string by_id = "SELECT id, body FROM docs ORDER BY id";
  const std::string by_length = "SELECT id, body FROM docs ORDER BY length(body) DESC, id DESC";
  const auto dedup = [&](const std::string& query, const std::string& threshold,
                         const std::string& radius, const std::string& options) {
    return grouped_rows(db, "SELECT id, cluster, distance, similarity FROM simhash_dedup(" +
                                quoted_sql(query) + ", " + threshold + ", " + radius + ", '" +
                                options + "')");
  };
  for (const std::string options :
       {"n=3 weight=binary", "n=1 weight=binary", "unit=char n=3 weight=binary"}) {
    for (const std::string threshold : {"0.5", "0.7", "0.8", "0.9", "0.95"}) {
      for (const std::string& query : {by_id, by_length}) {
        // Radius 64 leaves out the texts without a fingerprint (no
        // candidates within a radius, as in the recipe's index); NULL takes
        // them too where the options see features (the wordless "!!! ...
        // ???" copies, to character options): over the others both agree.
        std::string with_fingerprint = query;
        with_fingerprint.insert(query.find(" ORDER BY"), " WHERE simhash(body) IS NOT NULL");
        const std::vector<Grouped> exact = dedup(with_fingerprint, threshold, "NULL", options);
        EXPECT_EQ(exact, dedup(query, threshold, "64", options))
            << options << " threshold " << threshold << " " << query;
        if (threshold == "0.8") {
          EXPECT_GT(exact.size(), 40U) << "the data makes groups";
        }
      }
    }
  }
  EXPECT_EQ(dedup(by_id, "0.7", "NULL", "n=3 weight=binary"),
            recipe_groups(db, "0.7", 64, "n=3 weight=binary"));
  EXPECT_EQ(groups_of_two_or_more(dedup(by_length, "0.6", "NULL", "n=3 weight=binary")),
            brute_force_groups(db, by_length, 0.6, 64, "n=3 weight=binary"));
  // The radius column says NULL: no radius was used.
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_dedup(" + quoted_sql(by_id) +
                       ", 0.8, NULL) WHERE radius IS NULL"),
            static_cast<std::int64_t>(dedup(by_id, "0.8", "NULL", "n=3 weight=binary").size()));
}

TEST(SimhashDedup, DefaultsAreTheJoinAtTheRecipesThreshold) {
  TestDatabase db;
  fill_docs(db, 60, 31);
  const std::string query = "'SELECT id, body FROM docs ORDER BY id'";
  const std::vector<Grouped> defaults = grouped_rows(
      db, "SELECT id, cluster, distance, similarity FROM simhash_dedup(" + query + ")");
  EXPECT_FALSE(defaults.empty());
  // No radius: every pair at the recipe's threshold and verification.
  EXPECT_EQ(defaults,
            groups_of_two_or_more(brute_force_groups(db, "SELECT id, body FROM docs ORDER BY id",
                                                     0.8, 64, "n=3 weight=binary symbols=strict")));
  for (const std::string arguments :
       {", 0.8", ", 0.8, NULL", ", 0.8, NULL, NULL",
        ", 0.8, NULL, 'n=3 weight=binary symbols=strict'", ", 0.8, NULL, NULL, NULL",
        ", 0.8, NULL, NULL, 1", ", 0.8, NULL, NULL, 3"}) {
    EXPECT_EQ(grouped_rows(db, "SELECT id, cluster, distance, similarity FROM simhash_dedup(" +
                                   query + arguments + ")"),
              defaults)
        << arguments;
  }
  // A radius gives the recipe's groups.
  EXPECT_EQ(
      grouped_rows(db, "SELECT id, cluster, distance, similarity FROM simhash_dedup(" + query +
                           ", 0.8, 10)"),
      groups_of_two_or_more(recipe_groups(db, "0.8", 10, "n=3 weight=binary symbols=strict")));
  const std::vector<Row> used = db.rows(
      "SELECT DISTINCT query, threshold, radius, options FROM simhash_dedup(" + query + ")");
  ASSERT_EQ(used.size(), 1U);
  EXPECT_EQ(used[0], (Row{"SELECT id, body FROM docs ORDER BY id", "0.8", std::nullopt,
                          "n=3 weight=binary symbols=strict"}));
  EXPECT_GE(db.integer("SELECT DISTINCT threads FROM simhash_dedup(" + query + ")"), 1);
  EXPECT_EQ(
      db.integer("SELECT DISTINCT threads FROM simhash_dedup(" + query + ", 0.8, NULL, NULL, 2)"),
      2);
  // Weighted options, which the join cannot serve, and character shingles,
  // for which it is slower, take radius 10 when it is left out; NULL still
  // asks for the join.
  EXPECT_EQ(db.integer("SELECT DISTINCT radius FROM simhash_dedup(" + query +
                       ") WHERE options = 'n=3' AND threshold = 0.5"),
            10);
  EXPECT_EQ(db.integer("SELECT DISTINCT radius FROM simhash_dedup(" + query +
                       ") WHERE options = 'unit=char n=4 weight=binary' AND threshold = 0.5"),
            10);
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_dedup(" + query +
                       ", 0.5, NULL, 'unit=char n=4 weight=binary') WHERE radius IS NOT NULL"),
            0);
  // Texts without a fingerprint are left out, however low the bar; the
  // one-word texts (one feature each, the word) group with each other.
  const std::string everything =
      "SELECT count(*) FROM simhash_dedup(" + query + ", 0.01, 64) JOIN docs USING (id) WHERE ";
  EXPECT_EQ(db.integer(everything + "body IS NULL OR simhash(body) IS NULL"), 0);
  EXPECT_EQ(db.integer(everything + "body = 'alpha'"),
            db.integer("SELECT count(*) FROM docs WHERE body = 'alpha'"));
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_dedup('SELECT id, body FROM docs WHERE "
                       "id < 0 AND 0')"),
            0);
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_dedup(NULL)"), 0);
}

// The headline use: keep one of each group in one DELETE, whose subquery
// reads the very table it deletes from.
// Features built on 1 to 4 threads: the same rows, in both candidate modes.
// Texts that differ only in an operator are different texts, texts
// that differ only in case, whitespace or sentence punctuation are copies.
// Python's operator docstrings and copies of them with their punctuation
// changed: the default check groups each with its copies and nothing else,
// exactly as the brute-force groups under the same options do.
TEST(SimhashDedup, DefaultCheckTellsOperatorsApartNotPunctuation) {
  TestDatabase db;
  db.exec("CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)");
  const std::vector<std::string> operators = {"<", "<=", "&", "|", "^",  "**",
                                              "*", "%",  "/", "+", ">>", ">="};
  const std::vector<std::string> punctuated = {"same as a {} b", "SAME AS a {} b!",
                                               "\"Same as  a {} b.\"", "Same, as a {} b..."};
  std::mt19937 random(3434);
  std::map<std::int64_t, std::int64_t>
      original_of;  // every row: the id of its operator's first row
  std::int64_t id = 0;
  for (const std::string& op : operators) {
    const std::int64_t first = ++id;
    db.exec("INSERT INTO docs VALUES (" + std::to_string(first) + ", 'Same as a " + op + " b.')");
    original_of[first] = first;
    for (int copy = 0; copy < 2; ++copy) {
      std::string text = punctuated[random() % punctuated.size()];
      text.replace(text.find("{}"), 2, op);
      db.exec("INSERT INTO docs VALUES (" + std::to_string(++id) + ", " + quoted_sql(text) + ")");
      original_of[id] = first;
    }
  }
  const std::string query = "SELECT id, body FROM docs ORDER BY id";
  const std::vector<Grouped> groups = grouped_rows(
      db, "SELECT id, cluster, distance, similarity FROM simhash_dedup(" + quoted_sql(query) + ")");
  ASSERT_EQ(groups.size(), original_of.size()) << "every row is in its operator's group";
  for (const Grouped& row : groups) {
    EXPECT_EQ(row.cluster, original_of.at(row.id)) << "row " << row.id;
    EXPECT_DOUBLE_EQ(row.similarity, 1.0) << "row " << row.id;
  }
  EXPECT_EQ(groups_of_two_or_more(groups),
            groups_of_two_or_more(
                brute_force_groups(db, query, 0.8, 64, "n=3 weight=binary symbols=strict")));
  // Without symbols, every docstring would be one group.
  EXPECT_EQ(db.integer("SELECT count(DISTINCT cluster) FROM simhash_dedup(" + quoted_sql(query) +
                       ", 0.8, NULL, 'n=3 weight=binary')"),
            1);
}

TEST(SimhashDedup, TheThreadCountChangesNothing) {
  TestDatabase db;
  fill_docs(db, 150, 35);
  // The join without and within a radius, and the radius path (character
  // shingles, weighted ones), whose candidates are verified on the threads.
  const std::vector<std::pair<std::string, std::string>> paths = {
      {"NULL", "NULL"}, {"10", "NULL"}, {"10", "'unit=char n=4'"}, {"64", "''"}};
  for (const auto& path : paths) {
    // Named copies: a lambda cannot capture structured bindings in C++20.
    const std::string radius = path.first;
    const std::string options = path.second;
    const auto run = [&](const std::string& threads) {
      return grouped_rows(db,
                          "SELECT id, cluster, distance, similarity FROM simhash_dedup('SELECT id, "
                          "body FROM docs ORDER BY length(body), id', 0.7, " +
                              radius + ", " + options + ", " + threads + ")");
    };
    const std::vector<Grouped> one = run("1");
    EXPECT_GT(one.size(), 50U) << "radius " << radius << ", options " << options;
    // More threads than cores too: the join's blocks are probed by all.
    for (const std::string threads : {"2", "3", "4", "8", "NULL"}) {
      EXPECT_EQ(run(threads), one)
          << "radius " << radius << ", options " << options << ", threads " << threads;
    }
  }
}

// Enough rows for several read batches on every thread count (256 rows a
// thread each), so that batches are read while others are built, and for
// many of the join's blocks: the same rows on 1, 2, 3 and 8 threads, also
// when rows are read in an order that puts copies far apart.
TEST(SimhashDedupManyBatches, TheThreadCountChangesNothing) {
  TestDatabase db;
  fill_docs(db, 1400, 36);
  ASSERT_GT(db.integer("SELECT count(*) FROM docs"), 8 * 256 + 100);
  for (const std::string order : {"id", "length(body) DESC, id"}) {
    const auto run = [&](const std::string& threads) {
      return grouped_rows(db,
                          "SELECT id, cluster, distance, similarity FROM simhash_dedup('SELECT id, "
                          "body FROM docs ORDER BY " +
                              order + "', 0.7, NULL, NULL, " + threads + ")");
    };
    const std::vector<Grouped> one = run("1");
    EXPECT_GT(one.size(), 1000U);
    for (const std::string threads : {"2", "3", "8"}) {
      EXPECT_EQ(run(threads), one) << "order " << order << ", threads " << threads;
    }
  }
}

TEST(SimhashDedup, KeepsOneOfEachGroupInOneDelete) {
  TestDatabase db;
  fill_docs(db, 60, 33);
  const std::string removed_sql =
      "SELECT id FROM simhash_dedup('SELECT id, body FROM docs ORDER BY id') WHERE id <> cluster";
  const std::vector<Row> removed = db.rows(removed_sql + " ORDER BY id");
  const std::int64_t before = db.integer("SELECT count(*) FROM docs");
  ASSERT_FALSE(removed.empty());
  db.exec("DELETE FROM docs WHERE id IN (" + removed_sql + ")");
  EXPECT_EQ(db.integer("SELECT count(*) FROM docs"),
            before - static_cast<std::int64_t>(removed.size()));
  EXPECT_TRUE(db.rows("SELECT docs.id FROM docs JOIN (" + removed_sql + ") USING (id)").empty());
  EXPECT_EQ(db.integer("SELECT count(*) FROM (" + removed_sql + ")"), 0)
      << "what is left has no near-duplicates at the same settings";
}

// 'default' as the radius means exactly "left out", so options can follow
// positionally: the same rows and the same radius used as the named form
// that leaves the radius out, with word and with character options (whose
// default is radius 10, where NULL would be the join).
TEST(SimhashDedup, RadiusDefaultIsTheRadiusLeftOut) {
  TestDatabase db;
  fill_docs(db, 120, 37);
  const std::string query = "'SELECT id, body FROM docs ORDER BY id'";
  const std::string columns = "SELECT id, cluster, distance, similarity, radius FROM ";
  for (const std::string options :
       {"n=3 weight=binary symbols=keep", "n=2 weight=tf", "unit=char n=4 weight=binary"}) {
    const std::vector<Row> left_out =
        db.rows(columns + "simhash_dedup(" + query + ") WHERE threshold = 0.5 AND options = '" +
                options + "'");
    EXPECT_FALSE(left_out.empty()) << options;
    for (const std::string spelling : {"'default'", "'DEFAULT'", "'Default'"}) {
      EXPECT_EQ(db.rows(columns + "simhash_dedup(" + query + ", 0.5, " + spelling + ", '" +
                        options + "')"),
                left_out)
          << options << " " << spelling;
    }
  }
  // With character options 'default' is radius 10, not the join NULL asks for.
  EXPECT_EQ(db.integer(std::string("SELECT DISTINCT radius FROM simhash_dedup(") + query +
                       ", 0.5, 'default', 'unit=char n=4 weight=binary')"),
            10);
  // Anything else that is text is still an error naming the radius, and the
  // batch functions over an index take the same spelling for their k.
  for (const std::string bad : {"'ten'", "'defaults'", "''", "'default '"}) {
    EXPECT_EQ(db.error(std::string("SELECT * FROM simhash_dedup(") + query + ", 0.8, " + bad + ")"),
              std::string("simhash_dedup: the radius must be an integer or 'default' (the radius "
                          "left out), got TEXT ") +
                  bad)
        << bad;
  }
  for (const std::string function : {"simhash_pairs", "simhash_clusters", "simhash_components"}) {
    EXPECT_EQ(db.rows(std::string("SELECT * FROM ") + function + "('near', 'default')"),
              db.rows(std::string("SELECT * FROM ") + function + "('near')"))
        << function;
  }
}

// EXPLAIN QUERY PLAN names the path of every form of the call: the radius
// left out (the options' default: the join for word shingles with binary
// weights, radius 10 for others), 'default', NULL, a radius, and arguments
// known only at run time.
TEST(SimhashDedup, QueryPlanNamesThePath) {
  TestDatabase db;
  const auto plan = [&](const std::string& arguments) {
    const std::vector<Row> rows =
        db.rows("EXPLAIN QUERY PLAN SELECT * FROM simhash_dedup('SELECT 1, 2'" + arguments + ")");
    return rows.empty() ? std::string() : rows[0].back().value_or("");
  };
  const std::string join = "every pair at the threshold (a set-similarity join)";
  const std::string fallback =
      "radius left out, for these options candidates within 10 bits (block-permutation tables)";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", std::string("radius left out, for these options ") + join},
      {", 0.8", std::string("radius left out, for these options ") + join},
      {", 0.8, 'default'", std::string("radius left out, for these options ") + join},
      {", 0.8, 'default', NULL", std::string("radius left out, for these options ") + join},
      {", 0.8, 'default', 'n=1 weight=binary'",
       std::string("radius left out, for these options ") + join},
      {", 0.8, 'default', 'unit=char n=4'", fallback},
      {", 0.8, 'default', 'unit=char n=4 weight=binary'", fallback},
      {", 0.8, 'default', 'n=3'", fallback},
      {", 0.8, NULL", std::string(": ") + join},
      {", 0.8, NULL, 'unit=char n=4 weight=binary'", std::string(": ") + join},
      {", 0.8, 6", ": the set-similarity join's pairs within 6 bits"},
      {", 0.8, 6, 'unit=char n=4'", ": candidates within 6 bits (block-permutation tables)"},
      {", 0.8, ?", "candidates by the radius and options given at run time"},
      {", 0.8, 'default', ?", "candidates by the radius and options given at run time"},
  };
  for (const auto& [arguments, path] : cases) {
    const std::string shown = plan(arguments);
    EXPECT_NE(shown.find("dedup of the query's rows in its order"), std::string::npos) << shown;
    EXPECT_NE(shown.find(path), std::string::npos) << arguments << "\n  shows: " << shown;
  }
  // Named arguments give the same plan as positional ones.
  const std::vector<Row> named = db.rows(
      "EXPLAIN QUERY PLAN SELECT * FROM simhash_dedup WHERE query = 'SELECT 1, 2' AND options = "
      "'unit=char n=4'");
  ASSERT_FALSE(named.empty());
  EXPECT_NE(named[0].back().value_or("").find(fallback), std::string::npos);
}

TEST(SimhashDedup, ErrorsNameTheArgument) {
  TestDatabase db;
  db.exec(
      "CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT);"
      "INSERT INTO docs VALUES (1, 'one two three four'), (2, 'one two three four')");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"SELECT * FROM simhash_dedup()",
       "simhash_dedup(query [, threshold [, radius [, options [, threads [, memory]]]]])"},
      {"SELECT * FROM simhash_dedup(42)", "simhash_dedup: the query must be TEXT, got INTEGER"},
      {"SELECT * FROM simhash_dedup('SELECT id FROM docs')",
       "simhash_dedup: the query must return two columns (id, text), it returns 1"},
      {"SELECT * FROM simhash_dedup('SELECT id, body, 3 FROM docs')",
       "simhash_dedup: the query must return two columns (id, text), it returns 3"},
      {"SELECT * FROM simhash_dedup('SELECT id, body FROM nowhere')",
       "simhash_dedup: the query does not prepare: no such table: nowhere"},
      {"SELECT * FROM simhash_dedup('')", "simhash_dedup: the query is empty"},
      {"SELECT * FROM simhash_dedup('SELECT id, body FROM docs; SELECT 1, 2')",
       "simhash_dedup: the query must be one statement"},
      {"SELECT * FROM simhash_dedup('DELETE FROM docs RETURNING id, body')",
       "simhash_dedup: the query must only read"},
      {"SELECT * FROM simhash_dedup('SELECT body, body FROM docs')",
       "simhash_dedup: the query's first column (id) must be an INTEGER, got TEXT in row 1; a "
       "table keyed otherwise still has an INTEGER rowid (unless WITHOUT ROWID): 'SELECT rowid, "
       "body FROM ...'"},
      {"SELECT * FROM simhash_dedup('docs')",
       "simhash_dedup: the query does not prepare: near \"docs\": syntax error; it is SQL text "
       "returning (id, text), not a table's name: e.g. 'SELECT rowid, body FROM docs'"},
      {"SELECT * FROM simhash_dedup('SELECT 7, body FROM docs')",
       "simhash_dedup: the query returns id 7 more than once"},
      {"SELECT * FROM simhash_dedup('SELECT id, body FROM docs', 0)",
       "simhash_dedup: the threshold must be in (0, 1], got 0"},
      {"SELECT * FROM simhash_dedup('SELECT id, body FROM docs', 1.5)",
       "simhash_dedup: the threshold must be in (0, 1], got 1.5"},
      {"SELECT * FROM simhash_dedup('SELECT id, body FROM docs', '0.8')",
       "simhash_dedup: the threshold must be a number in (0, 1], got TEXT"},
      {"SELECT * FROM simhash_dedup('SELECT id, body FROM docs', NULL)",
       "simhash_dedup: the threshold must be a number in (0, 1], got NULL"},
      {"SELECT * FROM simhash_dedup('SELECT id, body FROM docs', 0.8, -1)",
       "simhash_dedup: the radius must not be negative"},
      {"SELECT * FROM simhash_dedup('SELECT id, body FROM docs', 0.8, 2.5)",
       "simhash_dedup: the radius must be an integer"},
      {"SELECT * FROM simhash_dedup('SELECT id, body FROM docs', 0.8, 10, 'n=0')",
       "simhash_dedup: "},
      {"SELECT * FROM simhash_dedup('SELECT id, body FROM docs', 0.8, 10, 'colour=red')", "colour"},
      {"SELECT * FROM simhash_dedup('SELECT id, body FROM docs', 0.8, 10, 3)",
       "simhash_dedup: options must be TEXT, got INTEGER"},
      {"SELECT * FROM simhash_dedup('SELECT id, body FROM docs', 0.8, NULL, 'n=3')",
       "simhash_dedup: radius NULL (every pair at the threshold) serves set Jaccard, "
       "weight=binary, with any unit and n; the options ask for unit=word n=3 weight=tf"},
      {"SELECT * FROM simhash_dedup('SELECT id, body FROM docs', 0.8, NULL, 'weight=log')",
       "weight=log: add weight=binary or give a radius"},
      {"SELECT * FROM simhash_dedup('SELECT id, body FROM docs', 0.8, NULL, NULL, 0)",
       "simhash_dedup: threads must be an integer from 1 to 64 (NULL: every core), got 0"},
      {"SELECT * FROM simhash_dedup('SELECT id, body FROM docs', 0.8, NULL, NULL, 65)", "got 65"},
      {"SELECT * FROM simhash_dedup('SELECT id, body FROM docs', 0.8, NULL, NULL, '2')",
       "threads must be an integer from 1 to 64 (NULL: every core), got TEXT '2'"},
  };
  for (const auto& [sql, expected] : cases) {
    const std::string message = db.error(sql);
    EXPECT_NE(message.find(expected), std::string::npos) << sql << "\n  gave: " << message;
  }
  EXPECT_EQ(db.integer("SELECT count(*) FROM docs"), 2) << "nothing was deleted";
}

TEST(SimhashDedup, RunsNoSqlFromViewsOrTriggers) {
  TestDatabase db;
  db.exec(
      "CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT);"
      "INSERT INTO docs VALUES (1, 'one two three four'), (2, 'one two three four');"
      "CREATE VIEW kept AS SELECT * FROM simhash_dedup('SELECT id, body FROM docs');"
      "CREATE TABLE log(n); CREATE TABLE other(x);"
      "CREATE TRIGGER count_groups AFTER INSERT ON other BEGIN "
      "INSERT INTO log SELECT count(*) FROM simhash_dedup('SELECT id, body FROM docs'); END");
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_dedup('SELECT id, body FROM docs')"), 2);
  EXPECT_NE(db.error("SELECT * FROM kept").find("unsafe use of virtual table"), std::string::npos);
  EXPECT_NE(db.error("INSERT INTO other VALUES (1)").find("unsafe use of virtual table"),
            std::string::npos);
  EXPECT_EQ(db.integer("SELECT count(*) FROM log"), 0);
}

TEST(SimhashDedup, StopsSoonAfterAnInterrupt) {
  TestDatabase db;
  db.exec(
      "CREATE TABLE edited(id INTEGER PRIMARY KEY, body TEXT);"
      "CREATE TABLE unrelated(id INTEGER PRIMARY KEY, body TEXT)");
  std::mt19937_64 random(41);
  Prepared edited_insert(db.handle(), "INSERT INTO edited(body) VALUES (?1)");
  Prepared unrelated_insert(db.handle(), "INSERT INTO unrelated(body) VALUES (?1)");
  db.exec("BEGIN");
  const std::string base = random_text(random, 60);
  for (int row = 0; row < 3000; ++row) {
    const std::string body = edited(base, 3, random);
    sqlite3_bind_text(edited_insert.get(), 1, body.c_str(), -1, SQLITE_TRANSIENT);
    step_write(db.handle(), edited_insert.get());
    const std::string other = random_text(random, 60);
    sqlite3_bind_text(unrelated_insert.get(), 1, other.c_str(), -1, SQLITE_TRANSIENT);
    step_write(db.handle(), unrelated_insert.get());
  }
  db.exec("COMMIT");
  // Radius 64: every pair is a candidate and most pass 0.5, while few are
  // identical, so the verification takes most of the run. Radius NULL at a
  // low threshold: nearly every row is a representative sharing common
  // three-word shingles with the others, so each probes most of them.
  for (const char* sql :
       {"SELECT count(*) FROM simhash_dedup('SELECT id, body FROM edited', 0.5, 64)",
        "SELECT count(*) FROM simhash_dedup('SELECT id, body FROM unrelated', 0.2, NULL)"}) {
    const long long late = expect_stopped_by_interrupt(db.handle(), sql);
    RecordProperty(std::string("ms_after_interrupt ") + sql, static_cast<int>(late));
  }
  EXPECT_EQ(db.integer("SELECT count(*) FROM edited"), 3000);
}

// A progress handler that asks to stop (a time limit) stops it too, in the
// engine's work as in the query it runs.
TEST(SimhashDedup, ProgressHandlerStopsIt) {
  TestDatabase db;
  db.exec("CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)");
  std::mt19937_64 random(43);
  Prepared insert(db.handle(), "INSERT INTO docs(body) VALUES (?1)");
  db.exec("BEGIN");
  const std::string base = random_text(random, 60);
  for (int row = 0; row < 2500; ++row) {
    const std::string body = edited(base, 3, random);
    sqlite3_bind_text(insert.get(), 1, body.c_str(), -1, SQLITE_TRANSIENT);
    step_write(db.handle(), insert.get());
  }
  db.exec("COMMIT");
  EXPECT_GT(expect_stopped_by_progress_deadline(
                db, "SELECT count(*) FROM simhash_dedup('SELECT id, body FROM docs', 0.5, 64)"),
            0);
}

}  // namespace
}  // namespace simhash::testing
