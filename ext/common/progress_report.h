// SPDX-License-Identifier: MIT
// The progress report of the long batch functions (simhash_dedup,
// simhash_verified_pairs), switched on per connection with
// simhash_progress(1) and off with simhash_progress(0) (each returns the
// setting before it; simhash_progress() only reads it). While on, a call
// writes lines to stderr for a person watching the shell: the phase, how far
// of how much, elapsed and an estimate, at most two a second, then one line
// with its totals (progress_lines.h makes them). On a terminal the lines
// overwrite each other in place; elsewhere each is a line. Off, nothing is
// counted or printed: the engine gets an empty hook.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ext/common/progress_lines.h"
#include "ext/common/sqlite_api.h"
#include "util/progress.h"

namespace simhash::sql {

// Whether simhash_progress(1) is in force on `db`.
bool progress_switched_on(sqlite3* db);

// The report of one call: inert when the switch is off.
class ProgressReport {
 public:
  ProgressReport(sqlite3* db, std::string_view function);
  // The hook holds this report: it stays where it was made.
  ProgressReport(const ProgressReport&) = delete;
  ProgressReport& operator=(const ProgressReport&) = delete;

  bool on() const { return lines_.has_value(); }
  // Prints a line for the step when it is time for one (nothing when off).
  void step(const ProgressStep& step);
  // What to hand the engine: this report's step(), or empty when off.
  ProgressHook hook();
  // Prints the final line with `totals` (nothing when off).
  void finish(std::string_view totals);

 private:
  double seconds() const;

  std::optional<ProgressLines> lines_;
  std::chrono::steady_clock::time_point start_;
  bool in_place_ = false;  // stderr is a terminal: each line replaces the last
};

}  // namespace simhash::sql
