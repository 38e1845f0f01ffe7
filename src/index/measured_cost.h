// SPDX-License-Identifier: MIT
// A cost the cost model takes from this machine instead of a constant: what
// the last few runs timed where the work ran cost a unit of work (the time
// of all over the units of all), the caller's prior before any. The loop
// over the cached codes costs a few times more a row once its keys no
// longer stay in the caches (a large table, or other work between two
// queries evicting them), and a multi-probe search costs what the machine's
// memory and SQLite's page cache make it, and over clustered rows what the
// buckets' crowding makes it; no constant holds on every machine, table and
// workload. A window of recent runs follows the workload as it changes;
// their total, not their median, is what a run costs on average where a few
// runs cost many times the rest (searches that meet crowded buckets).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>

namespace simhash {

class MeasuredCost {
 public:
  // One run: `cost` for `units` of work (both > 0).
  void record(double cost, double units) {
    samples_[next_] = Sample{cost, units};
    next_ = (next_ + 1) % kSamples;
    count_ = std::min(count_ + 1, kSamples);
  }
  // The cost a unit over the runs kept; `prior` while there are none, and
  // at most `prior` while they are fewer than kTrusted: a cost priced above
  // the alternative is not run again, so not measured again, and one slow
  // run (preempted, or paying a page fault) must not rule it out for good.
  double estimate(double prior) const {
    if (count_ == 0) {
      return prior;
    }
    double cost = 0;
    double units = 0;
    for (std::size_t i = 0; i < count_; ++i) {
      cost += samples_[i].cost;
      units += samples_[i].units;
    }
    const double measured = cost / units;
    return count_ < kTrusted ? std::min(prior, measured) : measured;
  }
  bool measured() const { return count_ > 0; }
  // Forgets the runs (what they measured changed).
  void reset() {
    next_ = 0;
    count_ = 0;
  }

  // Enough that one slow run moves the estimate little, few enough that it
  // follows a change of workload within a few queries.
  static constexpr std::size_t kSamples = 16;
  static constexpr std::size_t kTrusted = 2;

 private:
  struct Sample {
    double cost;
    double units;
  };
  std::array<Sample, kSamples> samples_{};
  std::size_t next_ = 0;
  std::size_t count_ = 0;
};

}  // namespace simhash
