// SPDX-License-Identifier: MIT
// Making progress lines (see progress_lines.h).
#include "ext/common/progress_lines.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace simhash::sql {
namespace {

// Seconds with one decimal ("3.2 s"); minutes and seconds from two minutes
// on ("14 min 5 s"), where tenths no longer help.
std::string seconds_text(double seconds) {
  seconds = std::max(seconds, 0.0);
  char buffer[48];
  if (seconds < 120) {
    std::snprintf(buffer, sizeof buffer, "%.1f s", seconds);
  } else {
    const auto whole = static_cast<std::uint64_t>(std::llround(seconds));
    std::snprintf(buffer, sizeof buffer, "%llu min %llu s",
                  static_cast<unsigned long long>(whole / 60),
                  static_cast<unsigned long long>(whole % 60));
  }
  return buffer;
}

}  // namespace

std::string grouped_digits(std::uint64_t number) {
  // Built front to back (an insert into the middle trips GCC 12's
  // -Wrestrict false positive).
  const std::string digits = std::to_string(number);
  std::string grouped;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) {
      grouped.push_back(',');
    }
    grouped.push_back(digits[i]);
  }
  return grouped;
}

std::string progress_line(std::string_view function, const ProgressStep& step, double elapsed,
                          double phase_elapsed) {
  std::string line(function);
  line += ": ";
  line += step.phase;
  if (step.total > 0) {
    const std::uint64_t done = std::min(step.done, step.total);
    // Appended piece by piece: "literal" + std::string trips GCC 12's
    // -Wrestrict false positive in the i686 build.
    line.append(", ").append(grouped_digits(done)).append(" of ");
    line.append(grouped_digits(step.total)).append(" ").append(step.unit);
    line.append(" (").append(std::to_string(done * 100 / step.total)).append("%)");
  } else if (step.done > 0) {
    line.append(", ").append(grouped_digits(step.done)).append(" ").append(step.unit);
  }
  line.append("; ").append(seconds_text(elapsed)).append(" elapsed");
  if (step.total > 0 && step.done > 0 && step.done < step.total && phase_elapsed > 0) {
    const double left = phase_elapsed * static_cast<double>(step.total - step.done) /
                        static_cast<double>(step.done);
    line.append(", about ").append(seconds_text(left)).append(" left in this phase");
  }
  return line;
}

std::optional<std::string> ProgressLines::step(const ProgressStep& step, double now) {
  if (step.phase != phase_) {
    phase_ = step.phase;
    phase_start_ = now;
  }
  if (now - last_line_ < interval_) {
    return std::nullopt;
  }
  last_line_ = now;
  ++lines_;
  return progress_line(function_, step, now, now - phase_start_);
}

std::string ProgressLines::finish(std::string_view totals, double now) const {
  std::string line = function_;
  line.append(": done in ").append(seconds_text(now)).append(": ").append(totals);
  return line;
}

}  // namespace simhash::sql
