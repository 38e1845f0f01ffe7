// SPDX-License-Identifier: MIT
// simhash(text [, options]) through SQL: agrees with the engine called
// directly, NULL and non-TEXT arguments, option errors, invalid UTF-8, a
// 10 MB text, and options parsed once per statement.
#include <gtest/gtest.h>

#include <string>

#include "bound_query.h"
#include "sql_test_texts.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

std::optional<std::int64_t> as_sql(std::optional<std::uint64_t> fingerprint) {
  if (!fingerprint) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(*fingerprint);
}

TEST(Simhash, AgreesWithTheEngineOnEveryTextAndOption) {
  TestDatabase db;
  for (const std::string& options : sample_options()) {
    for (const std::string& text : sample_texts()) {
      const auto expected = as_sql(engine_fingerprint(text, options));
      ASSERT_EQ(bound_integer(db.handle(), "SELECT simhash(?, ?)", {text, options}), expected)
          << "options '" << options << "' text: " << text.substr(0, 60);
      if (options.empty()) {
        ASSERT_EQ(bound_integer(db.handle(), "SELECT simhash(?)", {text}), expected);
        ASSERT_EQ(bound_integer(db.handle(), "SELECT simhash(?, NULL)", {text}), expected);
      }
    }
  }
}

TEST(Simhash, NullTextAndTextsWithoutFeaturesGiveNull) {
  TestDatabase db;
  EXPECT_EQ(db.cell("SELECT simhash(NULL)"), std::nullopt);
  EXPECT_EQ(db.cell("SELECT simhash(NULL, 'n=2')"), std::nullopt);
  EXPECT_EQ(db.cell("SELECT simhash('')"), std::nullopt);
  EXPECT_EQ(db.cell("SELECT simhash(' ,.;!? ')"), std::nullopt);
  EXPECT_EQ(db.cell("SELECT typeof(simhash('some words'))"), "integer");
}

TEST(Simhash, NonTextValuesAreReadAsSqliteRendersThem) {
  TestDatabase db;
  // INTEGER and REAL: their SQL text form, as SQLite's own text functions do.
  EXPECT_EQ(db.integer("SELECT simhash(12345) = simhash('12345')"), 1);
  EXPECT_EQ(db.integer("SELECT simhash(2.5) = simhash('2.5')"), 1);
  // BLOB: its bytes, read as UTF-8.
  EXPECT_EQ(db.integer("SELECT simhash(CAST('blob words here' AS BLOB)) = "
                       "simhash('blob words here')"),
            1);
  EXPECT_EQ(db.integer("SELECT simhash(x'c328ff61', 'unit=char n=2') = "
                       "simhash(CAST(x'c328ff61' AS TEXT), 'unit=char n=2')"),
            1);
  EXPECT_EQ(db.cell("SELECT simhash(x'')"), std::nullopt);
}

TEST(Simhash, NormalizationMakesVariantsEqual) {
  TestDatabase db;
  EXPECT_EQ(db.integer("SELECT count(DISTINCT simhash(t)) FROM (SELECT 'Hello, World' AS t "
                       "UNION ALL SELECT 'hello world' UNION ALL SELECT 'ＨＥＬＬＯ　ＷＯＲＬＤ')"),
            1);
}

TEST(Simhash, OptionErrorsNameWhatIsWrong) {
  TestDatabase db;
  // The engine's message, prefixed once with the function's name.
  EXPECT_EQ(db.error("SELECT simhash('text', 'colour=red')"),
            "simhash: unknown option \"colour\" (known: unit, n, weight, symbols)");
  const std::string bad_n = db.error("SELECT simhash('text', 'n=99')");
  EXPECT_NE(bad_n.find("99"), std::string::npos) << bad_n;
  const std::string bad_unit = db.error("SELECT simhash('text', 'unit=sentence')");
  EXPECT_NE(bad_unit.find("sentence"), std::string::npos) << bad_unit;
  const std::string no_equals = db.error("SELECT simhash('text', 'unit')");
  EXPECT_NE(no_equals.find("unit"), std::string::npos) << no_equals;
  // Checked even when the text is NULL: a typo does not hide behind the data.
  EXPECT_NE(db.error("SELECT simhash(NULL, 'colour=red')").find("colour"), std::string::npos);
  EXPECT_EQ(db.error("SELECT simhash('text', 3)"), "simhash: options must be TEXT, got INTEGER");
  EXPECT_EQ(db.error("SELECT simhash('text', x'00')"), "simhash: options must be TEXT, got BLOB");
  // Invalid UTF-8 in the options is an error, not a crash.
  EXPECT_FALSE(db.error("SELECT simhash('text', CAST(x'ff3dc3' AS TEXT))").empty());
  EXPECT_NE(db.error("SELECT simhash('a', 'n=2', 3)").find("wrong number of arguments"),
            std::string::npos);
}

TEST(Simhash, InvalidUtf8NeverCrashes) {
  TestDatabase db;
  const std::string broken = "\xc3\x28\xff\x61";
  for (const std::string& options : sample_options()) {
    EXPECT_EQ(bound_integer(db.handle(), "SELECT simhash(CAST(x'c328ff61' AS TEXT), ?)", {options}),
              as_sql(engine_fingerprint(broken, options)))
        << options;
  }
  // Truncated sequences at the very end of the text.
  for (const char* hex : {"e282", "f0", "c3", "61e2", "edb080"}) {
    db.rows(std::string("SELECT simhash(CAST(x'") + hex + "' AS TEXT)), simhash(x'" + hex + "')");
  }
}

TEST(Simhash, TenMegabyteText) {
  TestDatabase db;
  const std::string text = word_soup(10 * 1024 * 1024, 2026);
  const auto fingerprint = bound_integer(db.handle(), "SELECT simhash(?)", {text});
  ASSERT_TRUE(fingerprint.has_value());
  EXPECT_EQ(fingerprint, as_sql(engine_fingerprint(text, "")));
}

// A UTF-16 database hands the functions the same text converted back to
// UTF-8, so fingerprints, features and the identity do not depend on the
// database encoding.
TEST(Simhash, SameResultsInAUtf16Database) {
  TestDatabase utf8;
  TestDatabase utf16;
  utf16.exec("PRAGMA encoding = 'UTF-16le'; CREATE TABLE t(x)");
  EXPECT_EQ(utf16.cell("PRAGMA encoding"), "UTF-16le");
  for (const std::string& text : sample_texts()) {
    if (text.find('\xff') != std::string::npos || text.find('\x80') != std::string::npos) {
      continue;  // invalid UTF-8 is repaired by SQLite's own conversion first
    }
    // Stored in the table, the text is converted to UTF-16 and back.
    utf16.exec("DELETE FROM t");
    run_bound(utf16.handle(), "INSERT INTO t VALUES (?)", {text});
    for (const std::string options : {"", "n=2", "unit=char n=3"}) {
      ASSERT_EQ(bound_integer(utf16.handle(), "SELECT simhash(x, ?) FROM t", {options}),
                bound_integer(utf8.handle(), "SELECT simhash(?, ?)", {text, options}));
      ASSERT_EQ(bound_integer(utf16.handle(),
                              "SELECT simhash(x, ?1) IS (SELECT simhash_agg(feature, weight) "
                              "FROM simhash_features(t.x, ?1)) FROM t",
                              {options}),
                1);
    }
  }
}

}  // namespace
}  // namespace simhash::testing
