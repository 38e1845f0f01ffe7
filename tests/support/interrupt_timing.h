// SPDX-License-Identifier: MIT
// How soon a long statement stops when asked to: sqlite3_interrupt() from
// another thread at a fixed delay (the stop latency, against a bound scaled
// to the machine's speed), and a progress handler that asks to stop at a
// quarter of the statement's whole run (a time limit, as Datasette's, here in
// CPU time so that a loaded machine does not move it).
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include <time.h>

#include "test_database.h"

namespace simhash::testing {

using InterruptClock = std::chrono::steady_clock;

// Steps `sql` once while another thread calls sqlite3_interrupt() `after`
// its start. The time from the interrupt to the return, or nothing when the
// statement finished first (expected SQLITE_INTERRUPT otherwise).
inline std::optional<std::chrono::milliseconds> stop_latency(sqlite3* db, const std::string& sql,
                                                             std::chrono::milliseconds after) {
  sqlite3_stmt* statement = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), SQLITE_OK) << sql;
  InterruptClock::time_point interrupted_at;
  std::thread interrupter([&] {
    std::this_thread::sleep_for(after);
    interrupted_at = InterruptClock::now();
    sqlite3_interrupt(db);
  });
  int rc = sqlite3_step(statement);
  while (rc == SQLITE_ROW) {
    rc = sqlite3_step(statement);
  }
  const InterruptClock::time_point stopped = InterruptClock::now();
  interrupter.join();
  sqlite3_finalize(statement);
  if (stopped <= interrupted_at) {
    EXPECT_EQ(rc, SQLITE_DONE) << sql;
    return std::nullopt;
  }
  if (rc == SQLITE_DONE) {
    return std::nullopt;  // finished in the instant between the interrupt and its check
  }
  EXPECT_EQ(rc, SQLITE_INTERRUPT) << sql;
  return std::chrono::duration_cast<std::chrono::milliseconds>(stopped - interrupted_at);
}

// The CPU time of the whole process (every thread): unlike a wall clock it
// does not run on while a loaded machine gives the test no core, so a
// deadline in it is a share of the statement's work on any machine.
inline std::chrono::nanoseconds process_cpu_time() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}

// Runs `sql` (a one-integer query) to the end and returns its value, then
// runs it again under a progress handler that asks to stop at a quarter of
// the first run's CPU time: expects SQLITE_INTERRUPT before half of it.
// Bounds relative to the run hold on machines of any speed and load.
inline std::int64_t expect_stopped_by_progress_deadline(TestDatabase& db, const std::string& sql) {
  std::chrono::nanoseconds started = process_cpu_time();
  const std::int64_t whole_result = db.integer(sql);
  const std::chrono::nanoseconds whole_run = process_cpu_time() - started;
  struct Deadline {
    std::chrono::nanoseconds at;
    bool passed = false;
  } deadline{process_cpu_time() + whole_run / 4};
  sqlite3_progress_handler(
      db.handle(), 1000,
      [](void* data) {
        auto* limit = static_cast<Deadline*>(data);
        limit->passed = limit->passed || process_cpu_time() >= limit->at;
        return limit->passed ? 1 : 0;
      },
      &deadline);
  started = process_cpu_time();
  std::string message;
  const int rc = db.try_exec(sql, &message);
  const std::chrono::nanoseconds took = process_cpu_time() - started;
  sqlite3_progress_handler(db.handle(), 0, nullptr, nullptr);
  EXPECT_EQ(rc, SQLITE_INTERRUPT) << sql << ": " << message;
  EXPECT_LT(took, whole_run / 2)
      << sql << ": the deadline was a quarter of the whole run, "
      << std::chrono::duration_cast<std::chrono::milliseconds>(whole_run).count() << " ms";
  return whole_result;
}

}  // namespace simhash::testing
