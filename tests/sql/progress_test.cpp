// SPDX-License-Identifier: MIT
// The progress report of the batch functions: the line maker and its pace
// (progress_lines.h, plain C++, on a made-up clock), and through SQL the
// switch simhash_progress(), the lines a dedup and the verified pairs write
// to stderr while it is on (captured from fd 2 around the call): phases,
// totals, at most about two lines a second; nothing at all while it is off.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "dedup_docs.h"
#include "ext/common/progress_lines.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

using sql::grouped_digits;
using sql::progress_line;
using sql::ProgressLines;

TEST(ProgressLines, GroupsDigits) {
  EXPECT_EQ(grouped_digits(0), "0");
  EXPECT_EQ(grouped_digits(999), "999");
  EXPECT_EQ(grouped_digits(1000), "1,000");
  EXPECT_EQ(grouped_digits(12345), "12,345");
  EXPECT_EQ(grouped_digits(1234567), "1,234,567");
  EXPECT_EQ(grouped_digits(18446744073709551615ULL), "18,446,744,073,709,551,615");
}

TEST(ProgressLines, SayPhaseCountsElapsedAndWhatIsLeft) {
  // A quarter done in 3 s of the phase: three times that is left.
  EXPECT_EQ(progress_line("simhash_dedup", ProgressStep{"joining", 12500, 50000, "rows"}, 5.24, 3),
            "simhash_dedup: joining, 12,500 of 50,000 rows (25%); 5.2 s elapsed, about 9.0 s "
            "left in this phase");
  // No total: the count alone, no estimate.
  EXPECT_EQ(progress_line("simhash_dedup", ProgressStep{"verifying candidates", 40960, 0, "pairs"},
                          3.2, 1),
            "simhash_dedup: verifying candidates, 40,960 pairs; 3.2 s elapsed");
  // Nothing counted yet: the phase alone.
  EXPECT_EQ(progress_line("simhash_dedup", ProgressStep{"ranking features", 0, 0, "rows"}, 0.5, 0),
            "simhash_dedup: ranking features; 0.5 s elapsed");
  // Done: no estimate; minutes from two minutes on.
  EXPECT_EQ(
      progress_line("simhash_verified_pairs", ProgressStep{"joining", 10, 10, "rows"}, 725, 7),
      "simhash_verified_pairs: joining, 10 of 10 rows (100%); 12 min 5 s elapsed");
  EXPECT_EQ(progress_line("f", ProgressStep{"reading and tokenizing", 1, 3, "rows"}, 130, 120),
            "f: reading and tokenizing, 1 of 3 rows (33%); 2 min 10 s elapsed, about 4 min 0 s "
            "left in this phase");
}

TEST(ProgressLines, AtMostOneLineAnIntervalAndThePaceOfThePhase) {
  ProgressLines lines("simhash_dedup");
  const auto step = [&](const char* phase, std::uint64_t done, std::uint64_t total, double now) {
    return lines.step(ProgressStep{phase, done, total, "rows"}, now);
  };
  // Nothing in the first half second: a quick call prints its final line only.
  EXPECT_FALSE(step("reading and tokenizing", 10, 100, 0.1));
  EXPECT_FALSE(step("reading and tokenizing", 40, 100, 0.45));
  EXPECT_EQ(step("reading and tokenizing", 50, 100, 0.5).value_or(""),
            "simhash_dedup: reading and tokenizing, 50 of 100 rows (50%); 0.5 s elapsed, about "
            "0.4 s left in this phase");
  EXPECT_FALSE(step("reading and tokenizing", 90, 100, 0.9));
  // A new phase's pace counts from its first step, printed or not.
  EXPECT_FALSE(step("joining", 0, 1000, 0.96));
  EXPECT_EQ(step("joining", 100, 1000, 1.06).value_or(""),
            "simhash_dedup: joining, 100 of 1,000 rows (10%); 1.1 s elapsed, about 0.9 s left in "
            "this phase");
  EXPECT_FALSE(step("joining", 500, 1000, 1.5));
  EXPECT_TRUE(step("joining", 600, 1000, 1.6));
  EXPECT_EQ(lines.lines(), 3);
  EXPECT_EQ(lines.finish("1,000 rows compared", 2.04),
            "simhash_dedup: done in 2.0 s: 1,000 rows compared");
  // A faster interval, for whoever makes one.
  ProgressLines often("f", 0.1);
  int printed = 0;
  for (int i = 1; i <= 100; ++i) {
    printed += often.step(ProgressStep{"joining", 0, 0, "rows"}, i * 0.01) ? 1 : 0;
  }
  EXPECT_NEAR(printed, 10, 1);
}

// What `body` writes to stderr (fd 2), and how long it took in seconds.
template <typename Body>
std::pair<std::string, double> captured_stderr(Body&& body) {
  std::fflush(stderr);
  std::FILE* capture = std::tmpfile();
  EXPECT_NE(capture, nullptr);
  const int saved = dup(2);
  dup2(fileno(capture), 2);
  const auto start = std::chrono::steady_clock::now();
  body();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::rewind(capture);
  std::string text;
  char buffer[4096];
  for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, capture)) > 0;) {
    text.append(buffer, got);
  }
  std::fclose(capture);
  return {text, seconds};
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

// sleep_us(n): waits n microseconds and returns NULL, so a query's rows come
// at a known pace in every build (a sanitizer's or an emulator's alike).
void sleep_us(sqlite3_context* context, int /*argc*/, sqlite3_value** argv) {
  std::this_thread::sleep_for(std::chrono::microseconds(sqlite3_value_int64(argv[0])));
  sqlite3_result_null(context);
}

TEST(SimhashProgress, SwitchReturnsTheSettingBefore) {
  TestDatabase db;
  EXPECT_EQ(db.integer("SELECT simhash_progress()"), 0);
  EXPECT_EQ(db.integer("SELECT simhash_progress(1)"), 0);
  EXPECT_EQ(db.integer("SELECT simhash_progress(1)"), 1);
  EXPECT_EQ(db.integer("SELECT simhash_progress()"), 1);
  EXPECT_EQ(db.integer("SELECT simhash_progress(0)"), 1);
  EXPECT_EQ(db.integer("SELECT simhash_progress()"), 0);
  for (const std::string bad : {"2", "-1", "'on'", "NULL", "0.5"}) {
    EXPECT_NE(db.error(std::string("SELECT simhash_progress(") + bad + ")")
                  .find("simhash_progress: the switch must be 1 (on) or 0 (off), got "),
              std::string::npos)
        << bad;
  }
  EXPECT_EQ(db.integer("SELECT simhash_progress()"), 0) << "a bad argument changes nothing";
  // Per connection: another one is off.
  db.exec("SELECT simhash_progress(1)");
  TestDatabase other;
  EXPECT_EQ(other.integer("SELECT simhash_progress()"), 0);
  // Not from a view or trigger: it sets the connection's state.
  db.exec("CREATE VIEW switch AS SELECT simhash_progress(1)");
  EXPECT_NE(db.error("SELECT * FROM switch").find("unsafe use of simhash_progress"),
            std::string::npos);
}

TEST(SimhashProgress, DedupWritesPhasesAndTotalsAtMostTwiceASecond) {
  TestDatabase db;
  fill_docs(db, 400, 41);
  ASSERT_EQ(sqlite3_create_function(db.handle(), "sleep_us", 1, SQLITE_UTF8, nullptr, sleep_us,
                                    nullptr, nullptr),
            SQLITE_OK);
  const std::int64_t rows = db.integer("SELECT count(*) FROM docs");
  ASSERT_GT(rows, 1000);
  // 500 us a row: the reading takes about 0.7 s, so it is sure to print a
  // line. The query calls a function, so it is not counted first (it would
  // run twice): the reading's lines have no total.
  const std::string dedup =
      "SELECT count(*) FROM simhash_dedup('SELECT id, body FROM docs WHERE sleep_us(500) IS "
      "NULL ORDER BY id', 0.8, 'default', NULL, 1)";
  const std::string summary =
      "SELECT count(*), count(*) FILTER (WHERE id = cluster) FROM simhash_dedup('SELECT id, body "
      "FROM docs ORDER BY id')";

  const std::vector<Row> totals = db.rows(summary);
  // Off: nothing.
  EXPECT_EQ(captured_stderr([&] { db.exec(summary); }).first, "");
  db.exec("SELECT simhash_progress(1)");
  const auto [text, seconds] = captured_stderr([&] { db.exec(dedup); });
  const std::vector<std::string> lines = lines_of(text);
  ASSERT_GE(lines.size(), 2U) << text;
  // The final line's totals are the call's own.
  const std::int64_t in_groups = std::stoll(*totals[0][0]);
  const std::int64_t groups = std::stoll(*totals[0][1]);
  const std::int64_t compared = db.integer(
      "SELECT count(*) FROM docs WHERE EXISTS (SELECT 1 FROM simhash_features(body, "
      "'n=3 weight=binary symbols=keep'))");
  EXPECT_TRUE(std::regex_match(
      lines.back(),
      std::regex("simhash_dedup: done in [0-9.]+ s: " +
                 grouped_digits(static_cast<std::uint64_t>(compared)) + " rows compared; " +
                 grouped_digits(static_cast<std::uint64_t>(in_groups)) + " rows in " +
                 grouped_digits(static_cast<std::uint64_t>(groups)) + " groups of two or more, " +
                 grouped_digits(static_cast<std::uint64_t>(in_groups - groups)) + " to remove")))
      << lines.back();
  // Every other line names a phase; the reading's have rows read, no total.
  const std::regex phase_line(
      "simhash_dedup: (reading and tokenizing|ranking features|indexing "
      "prefixes|joining|grouping)(, [0-9,]+ (of "
      "[0-9,]+ )?rows( \\([0-9]+%\\))?)?; [0-9.]+ s elapsed(, about [0-9.]+ s left in this "
      "phase)?");
  const std::regex reading_line(
      "simhash_dedup: reading and tokenizing, [0-9,]+ rows; [0-9.]+ s elapsed");
  int reading = 0;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    EXPECT_TRUE(std::regex_match(lines[i], phase_line)) << lines[i];
    if (lines[i].find("reading and tokenizing, ") != std::string::npos) {
      ++reading;
      EXPECT_TRUE(std::regex_match(lines[i], reading_line)) << lines[i];
    }
  }
  EXPECT_GE(reading, 1) << text;
  // At most one line each half second, none in the first.
  EXPECT_LE(static_cast<double>(lines.size() - 1), seconds / 0.5) << text;

  // The verified pairs too; and off again, nothing.
  const auto pairs = captured_stderr(
      [&] { db.exec("SELECT count(*) FROM simhash_verified_pairs('SELECT id, body FROM docs')"); });
  ASSERT_FALSE(pairs.first.empty());
  EXPECT_TRUE(std::regex_match(
      lines_of(pairs.first).back(),
      std::regex("simhash_verified_pairs: done in [0-9.]+ s: [0-9,]+ rows compared; [0-9,]+ pairs "
                 "at the threshold")))
      << pairs.first;
  db.exec("SELECT simhash_progress(0)");
  EXPECT_EQ(captured_stderr([&] { db.exec(summary); }).first, "");
}

// The text batch functions (simhash_dedup, simhash_verified_pairs and
// _between) count a query first, for the reading's total, only where the
// count reads no row's values: a table's rows, or a WHERE on the rowid; an
// ORDER BY (the rows handed over whole), a function or a WHERE on a column
// are not counted, so the query does not run twice. Seen through the
// statements the connection runs (sqlite3_trace_v2).
int record_statement(unsigned /*type*/, void* context, void* statement, void* /*sql*/) {
  static_cast<std::vector<std::string>*>(context)->emplace_back(
      sqlite3_sql(static_cast<sqlite3_stmt*>(statement)));
  return 0;
}

TEST(SimhashProgress, BatchFunctionsCountTheQueryOnlyWhereThatIsCheap) {
  for (const std::string function :
       {"simhash_dedup", "simhash_verified_pairs", "simhash_verified_pairs_between"}) {
    SCOPED_TRACE(function);
    TestDatabase db;
    fill_docs(db, 60, 7);
    db.exec("SELECT simhash_progress(1)");
    std::vector<std::string> statements;
    ASSERT_EQ(sqlite3_trace_v2(db.handle(), SQLITE_TRACE_STMT, record_statement, &statements),
              SQLITE_OK);
    bool on = true;
    // _between reads the query twice, as its new and its kept rows.
    const int queries = function == "simhash_verified_pairs_between" ? 2 : 1;
    const auto counted = [&](const std::string& query) {
      statements.clear();
      std::string call = std::string("SELECT count(*) FROM ").append(function).append("('");
      call.append(query).append("', ");
      if (queries == 2) {
        call.append("'").append(query).append("', ");
      }
      call.append(function == "simhash_dedup" ? "0.8, NULL, NULL, 1)" : "0.8, NULL, 1)");
      const auto run = captured_stderr([&] { db.exec(call); });
      EXPECT_EQ(run.first.find(function + ": done in") != std::string::npos, on) << run.first;
      EXPECT_FALSE(statements.empty()) << "the trace sees the query";
      return std::count_if(statements.begin(), statements.end(), [](const std::string& sql) {
        return sql.starts_with("SELECT count(*) FROM (");
      });
    };
    EXPECT_EQ(counted("SELECT id, body FROM docs"), queries);
    EXPECT_EQ(counted("SELECT id, body FROM docs WHERE id > 1000;"), queries);
    EXPECT_EQ(counted("SELECT id, body FROM docs ORDER BY id"), 0);
    EXPECT_EQ(counted("SELECT id, upper(body) FROM docs WHERE length(body) > 0"), 0);
    EXPECT_EQ(counted("SELECT id, body FROM docs WHERE body LIKE ''%a%''"), 0);
    // Off: nothing counted, whatever the query.
    db.exec("SELECT simhash_progress(0)");
    on = false;
    EXPECT_EQ(counted("SELECT id, body FROM docs"), 0);
    sqlite3_trace_v2(db.handle(), 0, nullptr, nullptr);
  }
}

}  // namespace
}  // namespace simhash::testing
