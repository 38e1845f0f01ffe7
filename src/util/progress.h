// SPDX-License-Identifier: MIT
// The hook long engine work reports its progress to: which phase it is in
// and how far along (rows or pairs done, of a total when one is known). The
// engine calls it where it already calls its check point (check_point.h),
// between bounded pieces of work, so a report costs one call per piece; an
// empty hook is never called, so progress switched off costs a test of an
// empty std::function. What to do with a report (print it, throttle it) is
// the caller's: the SQL glue writes a line for a person (ext/common/progress_report.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

namespace simhash {

struct ProgressStep {
  std::string_view phase;          // a few words: "joining", "verifying candidates"
  std::uint64_t done = 0;          // rows (or pairs) done in this phase
  std::uint64_t total = 0;         // of this many; 0 when not known
  std::string_view unit = "rows";  // what done counts
};

using ProgressHook = std::function<void(const ProgressStep&)>;

// Calls `hook` (when given) with the step.
inline void report_progress(const ProgressHook& hook, std::string_view phase, std::uint64_t done,
                            std::uint64_t total, std::string_view unit = "rows") {
  if (hook) {
    hook(ProgressStep{phase, done, total, unit});
  }
}

}  // namespace simhash
