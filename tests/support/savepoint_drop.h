// SPDX-License-Identifier: MIT
// The DROP TABLE of a simhash_index or simhash_similar table inside
// savepoints, for the tests of both (they refuse it the same way,
// PendingWrites::pending_at_an_older_savepoint): refused only where a
// ROLLBACK TO an open savepoint would bring the table back without the
// writes pending when that savepoint was opened (the dropped storage alone
// held them), allowed everywhere else; a refused DROP changes nothing, and
// its message goes to SQLite's error log (the DROP answers SQLITE_LOCKED).
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <string>
#include <vector>

#include "log_capture.h"
#include "test_database.h"

namespace simhash::testing {

// A table of one of the modules: `create` makes `name` and commits row 1;
// "{2}" and "{3}" in a case stand for `insert` with that rowid, "{merge}"
// for a command that writes the pending writes out in the transaction;
// `found` lists, ordered, the ids of the rows 1 to 3 that a query finds.
struct DropTarget {
  std::string module;
  std::string name;
  std::string create;
  std::string insert;  // with "{id}" for the rowid
  std::string merge;
  std::string found;
};

namespace savepoint_drop {

inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

inline std::string expanded(const DropTarget& target, const std::string& sql) {
  std::string text = replaced(sql, "{merge}", target.merge);
  for (const char* id : {"2", "3"}) {
    text = replaced(text, std::string("{") + id + "}", replaced(target.insert, "{id}", id));
  }
  return replaced(text, "{name}", target.name);
}

}  // namespace savepoint_drop

inline void expect_drop_refused_only_under_a_savepoint_over_writes(const DropTarget& target) {
  struct Case {
    const char* before;  // the statements before DROP TABLE
    bool refused;
    const char* after;       // then these
    std::vector<Row> found;  // at the end; none: the table is gone
  };
  const std::vector<Row> first = {{"1"}};
  const std::vector<Row> both = {{"1"}, {"2"}};
  const Case cases[] = {
      // A savepoint opened after writes: a ROLLBACK TO it would lose them.
      {"BEGIN; {2}; SAVEPOINT s", true, "ROLLBACK TO s; COMMIT", both},
      {"BEGIN; {2}; SAVEPOINT s", true, "COMMIT", both},
      {"SAVEPOINT a; {2}; SAVEPOINT b", true, "ROLLBACK TO b; RELEASE a", both},
      // Merged inside the savepoint: its ROLLBACK TO undoes the merge.
      {"BEGIN; {2}; SAVEPOINT s; {merge}", true, "ROLLBACK TO s; COMMIT", both},
      // SQLite connected the table again after a schema change (both
      // connections share the storage: ext/common/shared_storage.h).
      {"BEGIN; CREATE TABLE t(x); {2}; SAVEPOINT s; {3}; ROLLBACK TO s", true,
       "ROLLBACK TO s; COMMIT", both},
      // Allowed once the savepoint is released.
      {"BEGIN; {2}; SAVEPOINT s; SAVEPOINT u; {3}", true, "RELEASE s; DROP TABLE {name}; ROLLBACK",
       first},
      // Nothing pending when each open savepoint was opened.
      {"BEGIN; SAVEPOINT s; {2}", false, "ROLLBACK TO s; COMMIT", first},
      {"SAVEPOINT a; {2}", false, "ROLLBACK TO a; RELEASE a", first},
      {"BEGIN; {2}", false, "ROLLBACK", first},
      {"BEGIN; {2}", false, "COMMIT", {}},
      {"BEGIN; {2}; SAVEPOINT s; RELEASE s", false, "ROLLBACK", first},
      {"{2}", false, "", {}},
      // Merged before the savepoint: its ROLLBACK TO keeps the merge.
      {"BEGIN; {2}; {merge}; SAVEPOINT s", false, "ROLLBACK TO s; COMMIT", both},
  };
  const std::string refusal = target.module + " " + target.name +
                              ": cannot be dropped inside a savepoint opened after writing to it; "
                              "RELEASE the savepoint first, or drop it after COMMIT";
  for (const bool foreign_keys : {false, true}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.before) + (foreign_keys ? " (foreign_keys)" : ""));
      std::vector<std::string> logged;
      {
        const LogCapture capture(&logged, SQLITE_LOCKED);
        TestDatabase db;
        db.exec(foreign_keys ? "PRAGMA foreign_keys = ON" : "PRAGMA foreign_keys = OFF");
        db.exec(target.create);
        db.exec(savepoint_drop::expanded(target, c.before));
        const std::vector<Row> pending = db.rows(target.found);
        std::string message;
        const int rc = db.try_exec("DROP TABLE " + target.name, &message);
        if (c.refused) {
          EXPECT_EQ(rc, SQLITE_LOCKED) << message;
          EXPECT_EQ(message, "database table is locked");
          EXPECT_EQ(db.rows(target.found), pending);  // nothing changed
        } else {
          EXPECT_EQ(rc, SQLITE_OK) << message;
        }
        db.exec(savepoint_drop::expanded(target, c.after));
        if (c.found.empty()) {
          EXPECT_EQ(db.integer("SELECT count(*) FROM sqlite_schema"), 0);
        } else {
          EXPECT_EQ(db.rows(target.found), c.found);
          db.exec("INSERT INTO " + target.name + "(" + target.name +
                  ") VALUES ('integrity-check')");
        }
      }
      EXPECT_EQ(std::count(logged.begin(), logged.end(), refusal), c.refused ? 1 : 0);
    }
  }
}

}  // namespace simhash::testing
