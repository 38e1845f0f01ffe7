// SPDX-License-Identifier: MIT
// The lines a batch function's progress report writes for a person, and when
// (plain C++, no SQLite, so the SQL tests compile it and test it directly;
// progress_report.h switches it on per connection and prints). A line at most
// every `interval` seconds, the first one `interval` after the start (a call
// that ends sooner prints only its final line), so a long dedup shows a
// couple of lines a second however often the engine reports:
//   simhash_dedup: joining, 12,345 of 50,000 rows (24%); 3.2 s elapsed, about 9.8 s left in this
//   phase simhash_dedup: verifying candidates, 40,960 pairs; 3.2 s elapsed simhash_dedup: done
//   in 12.3 s: 50,000 rows read; 3,456 in 1,234 groups, 2,222 to remove
// The estimate is the phase's own pace so far carried to its total: phases
// whose total is not known (pairs found as they come) give none, and a later
// phase is not in it, so it says "in this phase".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "util/progress.h"

namespace simhash::sql {

// 12345 as "12,345": counts of rows are read at a glance.
std::string grouped_digits(std::uint64_t number);

// One progress line (no newline): `elapsed` seconds since the call began,
// `phase_elapsed` since this phase began.
std::string progress_line(std::string_view function, const ProgressStep& step, double elapsed,
                          double phase_elapsed);

class ProgressLines {
 public:
  static constexpr double kDefaultInterval = 0.5;

  explicit ProgressLines(std::string function, double interval = kDefaultInterval)
      : function_(std::move(function)), interval_(interval) {}

  // A step reported `now` seconds after the call began: the line to print,
  // or nullopt when the last one (or the start) was less than the interval
  // ago. Phases are told apart by name; the pace is measured from the first
  // step of a phase.
  std::optional<std::string> step(const ProgressStep& step, double now);

  // The final line: "<function>: done in <now> s: <totals>".
  std::string finish(std::string_view totals, double now) const;

  int lines() const { return lines_; }

 private:
  std::string function_;
  double interval_;
  double last_line_ = 0;  // when the last line was made (the start before one)
  std::string phase_;
  double phase_start_ = 0;
  int lines_ = 0;
};

}  // namespace simhash::sql
