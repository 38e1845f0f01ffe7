// SPDX-License-Identifier: MIT
// The static-link path: an application links libsimhash_static.a and
// registers the entry point with sqlite3_auto_extension; every connection it
// opens afterwards has the extension, with no load_extension call.
#include "sqlite_simhash.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

namespace {

TEST(StaticLink, AutoExtensionRegistersTheFunctions) {
  ASSERT_EQ(sqlite3_auto_extension(reinterpret_cast<void (*)()>(sqlite3_simhash_init)), SQLITE_OK);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  ASSERT_EQ(
      sqlite3_prepare_v2(db, "SELECT simhash_version(), hamming(1, 7)", -1, &statement, nullptr),
      SQLITE_OK)
      << sqlite3_errmsg(db);
  ASSERT_EQ(sqlite3_step(statement), SQLITE_ROW);
  EXPECT_FALSE(
      std::string(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0))).empty());
  EXPECT_EQ(sqlite3_column_int64(statement, 1), 2);
  sqlite3_finalize(statement);
  sqlite3_close(db);
  sqlite3_reset_auto_extension();
}

}  // namespace
