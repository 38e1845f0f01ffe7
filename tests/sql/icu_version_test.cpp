// SPDX-License-Identifier: MIT
// simhash_icu_version() and the ICU and Unicode versions a new index records
// in its config: what is recorded, that an index without them (made before
// they were recorded) reads as before, and that an index made under another
// ICU still answers exactly and only leaves a warning in SQLite's error log.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "log_capture.h"
#include "test_database.h"
#include "text/icu_versions.h"

namespace simhash::testing {
namespace {

// The versions an index's config records, in simhash_icu_version()'s form.
constexpr const char* kRecordedVersions =
    "SELECT 'icu=' || (SELECT value FROM near_config WHERE key = 'icu') ||"
    " ' unicode=' || (SELECT value FROM near_config WHERE key = 'unicode')";
// The README's check: 1 when the index was made under the running versions.
constexpr const char* kReadmeVersionCheck =
    "SELECT (SELECT 'icu=' || value FROM near_config WHERE key = 'icu') ||"
    " ' unicode=' || (SELECT value FROM near_config WHERE key = 'unicode')"
    " = simhash_icu_version()";

std::string running_versions() {
  const IcuVersions versions = icu_versions();
  return "icu=" + versions.icu + " unicode=" + versions.unicode;
}

TEST(IcuVersion, NamesTheRunningIcuAndUnicode) {
  TestDatabase db;
  EXPECT_EQ(db.cell("SELECT simhash_icu_version()"), running_versions());
  EXPECT_EQ(db.cell("SELECT simhash_icu_version() GLOB 'icu=[0-9]*.[0-9]* unicode=[0-9]*.[0-9]*'"),
            "1");
}

TEST(IcuVersion, RecordedInANewIndexConfig) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  EXPECT_EQ(db.cell(kRecordedVersions), running_versions());
  EXPECT_EQ(db.integer(kReadmeVersionCheck), 1);
}

TEST(IcuVersion, IndexWithoutTheRecordReadsAsBefore) {
  const TempDatabaseFile file("simhash_icu_absent");
  {
    TestDatabase db(file.path());
    db.exec(
        "CREATE VIRTUAL TABLE near USING simhash_index(k=3);"
        "INSERT INTO near(rowid, fp) VALUES (1, 0), (2, 7);"
        "DELETE FROM near_config WHERE key IN ('icu', 'unicode')");
  }
  TestDatabase db(file.path());
  EXPECT_EQ(db.integer("SELECT count(*) FROM near(0, 3)"), 2);
  db.exec("INSERT INTO near(near) VALUES ('integrity-check')");
}

TEST(IcuVersion, OtherIcuStillAnswersAndWarnsInTheLog) {
  const TempDatabaseFile file("simhash_icu_other");
  {
    TestDatabase db(file.path());
    db.exec(
        "CREATE VIRTUAL TABLE near USING simhash_index(k=3);"
        "INSERT INTO near(rowid, fp) VALUES (1, 0), (2, 7), (3, -1);"
        "UPDATE near_config SET value = '60.2' WHERE key = 'icu';"
        "UPDATE near_config SET value = '10.0' WHERE key = 'unicode'");
  }
  std::vector<std::string> messages;
  {
    const LogCapture capture(&messages, SQLITE_WARNING);
    TestDatabase db(file.path());
    EXPECT_EQ(db.integer("SELECT count(*) FROM near(0, 3)"), 2);
    EXPECT_EQ(db.integer(kReadmeVersionCheck), 0);
  }
  ASSERT_EQ(messages.size(), 1U);
  const IcuVersions running = icu_versions();
  EXPECT_EQ(messages[0],
            "simhash_index near: created with ICU 60.2 (Unicode 10.0), now running ICU " +
                running.icu + " (Unicode " + running.unicode +
                "): fingerprints of the same text may differ");
}

}  // namespace
}  // namespace simhash::testing
