// SPDX-License-Identifier: MIT
// Option caching, observed through the glue's parse counter: a constant
// option argument is parsed once per statement, the defaults once per
// connection. Links the static library, since the module exports nothing
// but its entry point.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

#include "ext/functions/extractor_cache.h"
#include "sqlite_simhash.h"

namespace {

constexpr const char* kTenThousandRows =
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000) ";

class Connection {
 public:
  Connection() {
    EXPECT_EQ(sqlite3_open(":memory:", &db_), SQLITE_OK);
    char* error = nullptr;
    EXPECT_EQ(sqlite3_simhash_init(db_, &error, nullptr), SQLITE_OK) << (error ? error : "");
    sqlite3_free(error);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection() { sqlite3_close(db_); }

  long long integer(const std::string& sql) {
    sqlite3_stmt* statement = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db_);
    EXPECT_EQ(sqlite3_step(statement), SQLITE_ROW) << sqlite3_errmsg(db_);
    const long long value = sqlite3_column_int64(statement, 0);
    sqlite3_finalize(statement);
    return value;
  }

 private:
  sqlite3* db_ = nullptr;
};

unsigned long long options_parsed() { return simhash::sql::options_parse_count(); }

TEST(OptionsCache, ConstantOptionsAreParsedOncePerStatement) {
  Connection db;
  const unsigned long long before = options_parsed();
  EXPECT_EQ(db.integer(std::string(kTenThousandRows) +
                       "SELECT count(simhash('row ' || i || ' of some text', 'unit=char n=3')) "
                       "FROM n"),
            10000);
  EXPECT_EQ(options_parsed() - before, 1U);

  // The counter does see per-row parsing: options computed per row (here
  // alternating) cannot be cached as a constant argument.
  const unsigned long long before_varying = options_parsed();
  EXPECT_EQ(db.integer(std::string(kTenThousandRows) +
                       "SELECT count(simhash('row ' || i, 'unit=char n=' || (3 + i % 2))) FROM n"),
            10000);
  EXPECT_GE(options_parsed() - before_varying, 10000U);

  // The defaults are parsed once per connection, not per statement.
  db.integer("SELECT simhash('warm up')");
  const unsigned long long before_defaults = options_parsed();
  EXPECT_EQ(db.integer(std::string(kTenThousandRows) + "SELECT count(simhash('row ' || i)) FROM n"),
            10000);
  EXPECT_EQ(
      db.integer(std::string(kTenThousandRows) + "SELECT count(simhash('row ' || i, '')) FROM n"),
      10000);
  EXPECT_LE(options_parsed() - before_defaults, 1U);
}

}  // namespace
