// SPDX-License-Identifier: MIT
// A database file simhash_similar did not write: a shadow table (alike_rows,
// alike_postings, alike_sizes, alike_counts, alike_config) replaced by a view that reads
// the similar table, or by a virtual table, or a trigger on a shadow table
// that uses the similar table. Every use must then fail with an error naming
// what is wrong, never recurse until the stack overflows, with PRAGMA
// trusted_schema on and off, whether the file came so or the same connection
// edited it after using the table. Each case runs in a forked child, so a
// regression (a SIGSEGV) fails the test instead of killing the run.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

#include "child_process.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

// Every kind of use: a query, a full scan, a rowid lookup, writes of each
// kind and the command.
const std::vector<std::string> kUses = {
    "SELECT rowid FROM alike('the cat sat on the mat by the door', 0.5)",
    "SELECT count(*) FROM alike",
    "SELECT rowid FROM alike WHERE rowid = 1",
    "INSERT INTO alike(rowid, text) VALUES (9, 'a dog slept in the yard all day')",
    "UPDATE alike SET text = 'a dog slept in the yard all day' WHERE rowid = 1",
    "UPDATE alike SET rowid = 7 WHERE rowid = 1",
    "DELETE FROM alike WHERE rowid = 2",
    "INSERT INTO alike(alike) VALUES ('integrity-check')",
};

// Runs each use on `db`: each must fail with a message containing
// `expected`. Returns what went otherwise, one line each.
std::string expect_each_use_refused(TestDatabase& db, const std::string& expected) {
  std::string problems;
  for (const std::string& sql : kUses) {
    std::string message;
    const int rc = db.try_exec(sql, &message);
    if (rc == SQLITE_OK || message.find(expected) == std::string::npos) {
      problems += sql + ": rc " + std::to_string(rc) + " '" + message + "'\n";
    }
  }
  return problems;
}

// A table of storage `format` (the hidden CREATE option format=N).
void make_table(const std::string& path, int format = 3) {
  TestDatabase db(path);
  db.exec(
      "CREATE VIRTUAL TABLE alike USING simhash_similar(threshold=0.5, "
      "options='n=3 weight=binary', format=" +
      std::to_string(format) + ")");
  db.exec(
      "INSERT INTO alike(rowid, text) VALUES (1, 'the cat sat on the mat by the door'), "
      "(2, 'the cat sat on the mat by the old door'), (3, NULL)");
}

struct Replacement {
  const char* suffix;
  const char* kind;  // as the message names it
  const char* sql;   // run on the file by a connection that has not used it
  int format = 3;    // the table's storage format
};

// Each shadow table replaced by a view that reads the similar table (so that
// a read of the table would read it again without end), and by a virtual
// table.
const Replacement kReplacements[] = {
    {"rows", "a view",
     "DROP TABLE alike_rows; CREATE VIEW alike_rows(id, size, features) AS "
     "SELECT rowid, 8, NULL FROM alike('the cat sat on the mat by the door')"},
    // The postings kept, each read of them reading the table too (a view
    // whose columns are the table's own would let SQLite see that no row
    // can match a lookup, and not read it).
    {"postings", "a view",
     "CREATE TABLE kept AS SELECT * FROM alike_postings; DROP TABLE alike_postings; "
     "CREATE VIEW alike_postings(feature, size, id) AS SELECT feature, size, id FROM kept "
     "WHERE (SELECT count(*) FROM alike('the cat sat on the mat by the door')) >= 0",
     2},
    {"postings", "a view",
     "CREATE TABLE kept AS SELECT * FROM alike_postings; DROP TABLE alike_postings; "
     "CREATE VIEW alike_postings(first, entries) AS SELECT first, entries FROM kept "
     "WHERE (SELECT count(*) FROM alike('the cat sat on the mat by the door')) >= 0"},
    {"sizes", "a view",
     "DROP TABLE alike_sizes; CREATE VIEW alike_sizes(size, id) AS "
     "SELECT 8, rowid FROM alike"},
    {"counts", "a view",
     "DROP TABLE alike_counts; CREATE VIEW alike_counts(feature, count) AS "
     "SELECT rowid, 1 FROM alike('the cat sat on the mat by the door')",
     2},
    {"config", "a view",
     "DROP TABLE alike_config; CREATE VIEW alike_config(key, value) AS SELECT 'format', 1 "
     "UNION ALL SELECT 'threshold', (SELECT max(similarity) FROM alike('the cat sat on the mat')) "
     "UNION ALL SELECT 'options', 'n=3 weight=binary'"},
    {"rows", "a virtual table",
     "DROP TABLE alike_rows; CREATE VIRTUAL TABLE alike_rows USING simhash_similar"},
    {"postings", "a virtual table",
     "DROP TABLE alike_postings; CREATE VIRTUAL TABLE alike_postings USING simhash_similar"},
};

TEST(SimilarHostileFile, ShadowTableReplacedIsRefusedNotRecursed) {
  for (const Replacement& replacement : kReplacements) {
    for (const bool trusted : {true, false}) {
      SCOPED_TRACE(std::string(replacement.suffix) + " as " + replacement.kind +
                   (trusted ? ", trusted_schema=ON" : ", trusted_schema=OFF"));
      TempDatabaseFile file("similar_hostile_file");
      make_table(file.path(), replacement.format);
      {
        TestDatabase editor(file.path());
        editor.exec(replacement.sql);
      }
      const std::string problems = run_in_child([&] {
        TestDatabase db(file.path());
        db.exec(trusted ? "PRAGMA trusted_schema=ON" : "PRAGMA trusted_schema=OFF");
        std::string found = expect_each_use_refused(
            db, "simhash_similar alike: shadow table alike_" + std::string(replacement.suffix) +
                    " is " + replacement.kind +
                    ", not the table the index made; the database file is damaged or was edited "
                    "(DROP TABLE alike still removes it)");
        std::string message;
        if (db.try_exec("DROP TABLE alike", &message) != SQLITE_OK) {
          found += "DROP TABLE alike: " + message + "\n";
        } else if (db.integer("SELECT count(*) FROM sqlite_master WHERE name LIKE 'alike%'") != 0) {
          found += "DROP TABLE alike left objects behind\n";
        }
        return found;
      });
      EXPECT_EQ(problems, "");
    }
  }
}

// The same connection replaces a shadow table after it has used the table
// (its config read, its statements compiled): a use that would read the
// table through the view is refused, as the module's calls refuse to nest;
// others may answer from the tables still there, or fail as SQLite says (a
// view cannot be written), but none may crash.
TEST(SimilarHostileFile, ShadowTableReplacedByTheSameConnectionIsRefused) {
  for (const Replacement& replacement : kReplacements) {
    if (std::string(replacement.kind) != "a view" || std::string(replacement.suffix) == "config") {
      continue;  // the config is read once, at connect
    }
    for (const bool trusted : {true, false}) {
      SCOPED_TRACE(std::string(replacement.suffix) + (trusted ? " (trusted)" : " (untrusted)"));
      TempDatabaseFile file("similar_hostile_edit");
      make_table(file.path(), replacement.format);
      const std::string problems = run_in_child([&] {
        TestDatabase db(file.path());
        db.exec(trusted ? "PRAGMA trusted_schema=ON" : "PRAGMA trusted_schema=OFF");
        std::string found;
        if (db.integer("SELECT count(*) FROM alike('the cat sat on the mat by the door')") != 2 ||
            db.integer("SELECT count(*) FROM alike") != 3) {
          found += "wrong answers before the edit\n";
        }
        db.exec(replacement.sql);
        int refused = 0;
        for (const std::string& sql : kUses) {
          std::string message;
          if (db.try_exec(sql, &message) != SQLITE_OK &&
              message.find("simhash_similar alike: used from inside one of its own reads or "
                           "writes") != std::string::npos) {
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
}

// A trigger on a shadow table that uses the similar table: the table's own
// writes of that shadow table would run the trigger, and the trigger the
// table again. The module is innocuous, so trusted_schema=OFF allows it.
TEST(SimilarHostileFile, TriggerOnAShadowTableThatUsesTheTableIsRefused) {
  const char* const triggers[] = {
      // (A flush updates a format-3 table's postings blob in place.)
      "CREATE TRIGGER again AFTER UPDATE ON alike_postings BEGIN "
      "INSERT INTO alike(text) VALUES ('one more text of words'); END",
      "CREATE TRIGGER again AFTER INSERT ON alike_rows BEGIN "
      "DELETE FROM alike WHERE rowid = 1; END",
      "CREATE TABLE seen(n); CREATE TRIGGER again AFTER INSERT ON alike_sizes BEGIN "
      "INSERT INTO seen SELECT count(*) FROM alike('the cat sat on the mat by the door'); END",
  };
  for (const char* trigger : triggers) {
    for (const bool trusted : {true, false}) {
      SCOPED_TRACE(std::string(trigger) + (trusted ? " (trusted)" : " (untrusted)"));
      TempDatabaseFile file("similar_hostile_trigger");
      make_table(file.path());
      exec_without_extension(file.path(), trigger);
      const std::string problems = run_in_child([&] {
        TestDatabase db(file.path());
        db.exec(trusted ? "PRAGMA trusted_schema=ON" : "PRAGMA trusted_schema=OFF");
        std::string found;
        std::string message;
        // A trigger on the postings fires when they are written: at COMMIT
        // (xSync), where SQLite itself refuses the write into alike.
        if (db.try_exec("INSERT INTO alike(rowid, text) VALUES (5, 'a dog slept in the yard')",
                        &message) == SQLITE_OK ||
            (message.find("used from inside one of its own reads or writes") == std::string::npos &&
             message != "database table is locked")) {
          found += "INSERT: '" + message + "'\n";
        }
        // The failed statement changed nothing, and reads still answer.
        if (db.integer("SELECT count(*) FROM alike") != 3 ||
            db.integer("SELECT count(*) FROM alike('the cat sat on the mat by the door')") != 2) {
          found += "the failed INSERT changed the table, or a read answered wrongly\n";
        }
        db.exec("INSERT INTO alike(alike) VALUES ('integrity-check')");
        return found;
      });
      EXPECT_EQ(problems, "");
    }
  }
}

// Five words of row `id` of its own: "w<id>a w<id>b ... w<id>e".
std::string five_words(int id) {
  const std::string word = std::string(1, 'w').append(std::to_string(id));
  std::string text;
  for (const char last : {'a', 'b', 'c', 'd', 'e'}) {
    text.append(text.empty() ? "" : " ").append(word).push_back(last);
  }
  return text;
}

// Format 3: a damaged postings blob (a number cut off, keys out of order,
// a key outside its blob's range) fails every query that reads it with
// SQLITE_CORRUPT_VTAB and a message naming the table and the fault, and
// the integrity check names it; nothing crashes. 40 rows of the query's
// size make the search read postings rather than verify the rows of its
// sizes.
TEST(SimilarHostileFile, DamagedPostingsBlobFailsTheQuery) {
  struct Damage {
    const char* sql;
    const char* problem;
  };
  const Damage damages[] = {
      {"UPDATE alike_postings SET entries = x'0203'", "a number is cut off or too long"},
      {"UPDATE alike_postings SET entries = x'02ffffffffffffffffff7f00'",
       "a number is cut off or too long"},
      {"UPDATE alike_postings SET entries = x'0402020002'", "its keys are not ascending"},
      {"UPDATE alike_postings SET entries = x'0300030100ffffffffffffffffff01'",
       "its postings are not ascending"},
      {"UPDATE alike_postings SET entries = x'feffffff3f030a'", "a key is beyond 32 bits"},
      {"UPDATE alike_postings SET entries = x'03ff7f0301'",
       "a key's count of postings is more than the bytes hold"},
      {"UPDATE alike_postings SET entries = x'02ffffffffffffffff800102'", "a size is out of range"},
      {"UPDATE alike_postings SET entries = x'feffffff1f0602' WHERE first = (SELECT min(first) "
       "FROM alike_postings WHERE first > 0)",
       "a posting is outside its range"},
  };
  for (const Damage& damage : damages) {
    SCOPED_TRACE(damage.sql);
    TempDatabaseFile file("similar_damaged_blob");
    {
      TestDatabase db(file.path());
      db.exec("CREATE VIRTUAL TABLE alike USING simhash_similar(options='n=1 weight=binary')");
      db.exec("BEGIN");
      for (int id = 1; id <= 400; ++id) {
        db.exec("INSERT INTO alike(rowid, text) VALUES (" + std::to_string(id) + ", '" +
                five_words(id) + "')");
      }
      db.exec("COMMIT");
      ASSERT_GT(db.integer("SELECT count(*) FROM alike_postings"), 1);
    }
    exec_without_extension(file.path(), damage.sql);
    const std::string problems = run_in_child([&] {
      TestDatabase db(file.path());
      std::string found;
      std::string message;
      // Every key of the query is read where the blob is the first; the
      // second blob is read by a query of its keys.
      const std::string where = std::string(damage.problem) == "a posting is outside its range"
                                    ? "(SELECT min(first) FROM alike_postings WHERE first > 0)"
                                    : "0";
      const std::string first = std::to_string(db.integer("SELECT " + where));
      bool failed = false;
      for (int id = 1; id <= 400 && !failed; id += 7) {
        const int rc =
            db.try_exec("SELECT rowid FROM alike('" + five_words(id) + "', 0.8)", &message);
        if (rc != SQLITE_OK) {
          failed = true;
          // The blob is the one of the query's key: any, where all are damaged.
          const std::string start = "simhash_similar alike: damaged postings: the blob at ";
          const std::string end =
              std::string(": ") + damage.problem + "; drop and create the table again";
          if (sqlite3_extended_errcode(db.handle()) != SQLITE_CORRUPT_VTAB ||
              message.rfind(start, 0) != 0 || message.size() < end.size() ||
              message.compare(message.size() - end.size(), end.size(), end) != 0 ||
              (where != "0" && message.find(" at " + first + ": ") == std::string::npos)) {
            found += "query: '" + message + "'\n";
          }
        }
      }
      if (!failed) {
        found += "no query failed\n";
      }
      if (db.try_exec("INSERT INTO alike(alike) VALUES ('integrity-check')", &message) ==
              SQLITE_OK ||
          message.find(std::string("the postings blob at ") + first + ": " + damage.problem) ==
              std::string::npos) {
        found += "integrity-check: '" + message + "'\n";
      }
      return found;
    });
    EXPECT_EQ(problems, "");
  }
}

}  // namespace
}  // namespace simhash::testing
