// SPDX-License-Identifier: MIT
// A database file the index did not write: a shadow table
// (near_data, near_buckets, near_config) replaced by a view that reads the
// index, by a virtual table, or a trigger on a shadow table that uses the
// index. Every use of the index must then fail with an error naming what is
// wrong, never recurse until the stack overflows, with PRAGMA trusted_schema
// on and off, whether the file came so or the same connection edited it after
// using the index. Each case runs in a forked child, so a regression (a
// SIGSEGV) fails the test instead of killing the run.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <string>
#include <vector>

#include "child_process.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

// Every kind of use of the index: reads of each plan (a probe within k, the
// multi-probe above it, a rowid lookup, a full scan, nearest), writes, the
// commands, and a batch function reading it.
const std::vector<std::string> kUses = {
    "SELECT rowid FROM near WHERE fp MATCH 1",
    "SELECT rowid FROM near(1, 9)",
    "SELECT fp FROM near WHERE rowid = 1",
    "SELECT count(*) FROM near",
    "SELECT rowid FROM near(1) ORDER BY distance LIMIT 2",
    "INSERT INTO near(fp) VALUES (7)",
    "DELETE FROM near WHERE rowid = 2",
    "INSERT INTO near(near) VALUES('integrity-check')",
    "SELECT * FROM near WHERE near = 'integrity-check'",
    "INSERT INTO near(near) VALUES('rebuild')",
    "SELECT count(*) FROM simhash_pairs('near', 3)",
};

// Runs each use on `db`: each must fail with a message containing one of
// `expected`. Returns what went otherwise, one line each.
std::string expect_each_use_refused(TestDatabase& db, const std::vector<std::string>& expected) {
  std::string problems;
  for (const std::string& sql : kUses) {
    std::string message;
    const int rc = db.try_exec(sql, &message);
    bool named = false;
    for (const std::string& text : expected) {
      named = named || message.find(text) != std::string::npos;
    }
    if (rc == SQLITE_OK || !named) {
      problems += sql + ": rc " + std::to_string(rc) + " '" + message + "'\n";
    }
  }
  return problems;
}

void make_index(const std::string& path) {
  TestDatabase db(path);
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec("INSERT INTO near(rowid, fp) VALUES (1, 1), (2, 3), (3, 7), (4, -1)");
}

struct Replacement {
  const char* suffix;
  const char* kind;  // as the message names it
  const char* sql;   // run on the file without the extension
};

// Each shadow table replaced by a view that reads the index (so that a read
// of the index would read it again without end), and by a virtual table.
const Replacement kReplacements[] = {
    {"data", "a view",
     "DROP TABLE near_data; CREATE VIEW near_data(id, fp) AS SELECT rowid, fp FROM near"},
    {"buckets", "a view",
     "DROP TABLE near_buckets; CREATE VIEW near_buckets(id, entries) AS "
     "SELECT rowid, x'0101' FROM near(1)"},
    {"config", "a view",
     "DROP TABLE near_config; CREATE VIEW near_config(key, value) AS SELECT 'k', 3 UNION ALL "
     "SELECT 'blocks', 4 UNION ALL SELECT 'format', 2 UNION ALL "
     "SELECT 'rows', (SELECT count(*) FROM near(1))"},
    {"data", "a virtual table",
     "DROP TABLE near_data; CREATE VIRTUAL TABLE near_data USING simhash_index(k=3)"},
    {"buckets", "a virtual table",
     "DROP TABLE near_buckets; CREATE VIRTUAL TABLE near_buckets USING simhash_index(k=3)"},
};

TEST(IndexHostileFile, ShadowTableReplacedIsRefusedNotRecursed) {
  for (const Replacement& replacement : kReplacements) {
    for (const bool trusted : {true, false}) {
      SCOPED_TRACE(std::string(replacement.suffix) + " as " + replacement.kind +
                   (trusted ? ", trusted_schema=ON" : ", trusted_schema=OFF"));
      TempDatabaseFile file("index_hostile_file");
      make_index(file.path());
      {
        // A connection with the extension (a virtual table needs its module)
        // that has not used the index, as an editor of the file would be.
        TestDatabase editor(file.path());
        editor.exec(replacement.sql);
      }
      const std::string problems = run_in_child([&] {
        TestDatabase db(file.path());
        db.exec(trusted ? "PRAGMA trusted_schema=ON" : "PRAGMA trusted_schema=OFF");
        std::string found = expect_each_use_refused(
            db, {"simhash_index near: shadow table near_" + std::string(replacement.suffix) +
                 " is " + replacement.kind +
                 ", not the table the index made; the database file "
                 "is damaged or was edited"});
        // The message says DROP TABLE removes the index: it does.
        std::string message;
        if (db.try_exec("DROP TABLE near", &message) != SQLITE_OK) {
          found += "DROP TABLE near: " + message + "\n";
        } else if (db.integer("SELECT count(*) FROM sqlite_master WHERE name LIKE 'near%'") != 0) {
          found += "DROP TABLE near left objects behind\n";
        }
        return found;
      });
      EXPECT_EQ(problems, "");
    }
  }
}

// The same connection replaces a shadow table after it has used the index
// (its statements are compiled, its config read): a use that would read the
// index through the view is refused (the module's calls refuse to nest);
// others may answer from what the connection read before, or fail as SQLite
// says (a view cannot be written), but none may crash.
TEST(IndexHostileFile, ShadowTableReplacedByTheSameConnectionIsRefused) {
  for (const Replacement& replacement : kReplacements) {
    if (std::string(replacement.kind) != "a view") {
      continue;
    }
    SCOPED_TRACE(replacement.suffix);
    TempDatabaseFile file("index_hostile_edit");
    make_index(file.path());
    const std::string problems = run_in_child([&] {
      TestDatabase db(file.path());
      std::string found;
      if (db.integer("SELECT count(*) FROM near(1, 9)") != 3 ||
          db.integer("SELECT count(*) FROM near WHERE fp MATCH 1") != 3) {
        found += "wrong answers before the edit\n";
      }
      db.exec(replacement.sql);
      int refused = 0;
      for (const std::string& sql : kUses) {
        std::string message;
        if (db.try_exec(sql, &message) != SQLITE_OK &&
            message.find("used from inside one of its own reads or writes") != std::string::npos) {
          ++refused;
        }
      }
      if (refused == 0) {
        found += "no use was refused\n";
      }
      return found;
    });
    EXPECT_EQ(problems, "");
  }
}

// A trigger on a shadow table that uses the index: the index's own writes
// of that table would run the trigger, and the trigger the index again. The
// index is innocuous, so trusted_schema=OFF allows such a trigger.
TEST(IndexHostileFile, TriggerOnAShadowTableThatUsesTheIndexIsRefused) {
  const char* const triggers[] = {
      "CREATE TRIGGER again AFTER INSERT ON near_buckets BEGIN "
      "INSERT INTO near(fp) VALUES (new.id); END",
      "CREATE TRIGGER again AFTER INSERT ON near_data BEGIN "
      "INSERT INTO near(near) VALUES ('rebuild'); END",
      "CREATE TABLE seen(n); CREATE TRIGGER again AFTER INSERT ON near_buckets BEGIN "
      "INSERT INTO seen SELECT count(*) FROM near(new.id); END",
  };
  for (const char* trigger : triggers) {
    for (const bool trusted : {true, false}) {
      SCOPED_TRACE(std::string(trigger) + (trusted ? " (trusted)" : " (untrusted)"));
      TempDatabaseFile file("index_hostile_trigger");
      make_index(file.path());
      exec_without_extension(file.path(), trigger);
      const std::string problems = run_in_child([&] {
        TestDatabase db(file.path());
        db.exec(trusted ? "PRAGMA trusted_schema=ON" : "PRAGMA trusted_schema=OFF");
        std::string found;
        std::string message;
        // The write reaches the buckets at the merge, in this statement's
        // commit; a failure must leave the index as it was. A write from
        // inside the commit's merge is refused by SQLite itself (it locks
        // the virtual tables while it syncs them).
        if (db.try_exec("INSERT INTO near(fp) VALUES (5)", &message) == SQLITE_OK ||
            (message.find("used from inside one of its own reads or writes") == std::string::npos &&
             message != "database table is locked")) {
          found += "INSERT: '" + message + "'\n";
        }
        if (db.integer("SELECT count(*) FROM near") != 4) {
          found += "the failed INSERT changed the index\n";
        }
        // Reads that do not write still answer.
        if (db.integer("SELECT count(*) FROM near WHERE fp MATCH 1") != 3) {
          found += "a probe answered wrongly\n";
        }
        return found;
      });
      EXPECT_EQ(problems, "");
    }
  }
}

}  // namespace
}  // namespace simhash::testing
