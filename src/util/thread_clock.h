// SPDX-License-Identifier: MIT
// The CPU time this thread has run, for the cost model's measurements
// (index/measured_cost.h). Not the wall clock: on a machine with more
// runnable threads than cores the wall clock also counts, by chance, the
// time other threads ran, and a choice made on it would follow that noise;
// what a loop or a search makes this thread do, its stalls on memory
// included, is its CPU time. Where the platform has no thread CPU clock,
// the steady clock stands in.
#pragma once

#include <chrono>
#include <ctime>

namespace simhash {

// Nanoseconds from an arbitrary start; only differences mean anything.
inline double thread_cpu_nanoseconds() {
#if defined(CLOCK_THREAD_CPUTIME_ID)
  timespec now{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) == 0) {
    return static_cast<double>(now.tv_sec) * 1e9 + static_cast<double>(now.tv_nsec);
  }
  return 0;  // a start and an end of 0: the run counts as free, once
#else
  return std::chrono::duration<double, std::nano>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
#endif
}

}  // namespace simhash
