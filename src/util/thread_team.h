// SPDX-License-Identifier: MIT
// Threads kept for the length of one job that runs many short loops (the
// threshold join's blocks, the reader's batches, the radius path's
// windows): each loop wakes the team's threads instead of starting new
// ones, as parallel_for does for the one loop it runs. At 323K rows the join
// runs 135 blocks of three loops each; on a 16-core machine (a gVisor
// sandbox) waking a team instead of starting threads took its join at 16
// threads from 0.46-0.58 s (two runs) to 0.42 s (bench/BENCH.md,
// "Threads").
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "util/check_point.h"

namespace simhash {

class ThreadTeam {
 public:
  using Body = std::function<void(unsigned worker, std::size_t begin, std::size_t end)>;
  using Finish = std::function<void(unsigned worker, bool caller_busy)>;

  // `threads` counts the caller's: a team of 1 starts no thread. `check`
  // (check_point.h), when given, is the caller's: see check_point().
  explicit ThreadTeam(unsigned threads, CheckPoint check = {});
  ~ThreadTeam();  // stops and joins the team's threads
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  unsigned size() const { return static_cast<unsigned>(helpers_.size()) + 1; }

  // The check point of `worker`'s work in this team's loops, to call
  // between bounded pieces of a long range (a verifier's, pair_verifier.h).
  // Only the caller's thread may call the team's check, so worker 0's calls
  // it. Once any worker's work has thrown in the current loop (that check,
  // on an interrupt; a memory limit), every worker's check point throws
  // too: each leaves its range at its next check, not at the range's end.
  // And the caller's thread, its own ranges done, calls the team's check
  // every kWaitBetweenChecks while it waits for the others, so that a stop
  // asked for then reaches them as soon.
  const CheckPoint& check_point(unsigned worker) const {
    return worker == 0 ? caller_check_ : helper_check_;
  }
  // A check is a small statement in the SQL glue, and the caller's thread
  // has nothing else to do while it waits.
  static constexpr std::chrono::milliseconds kWaitBetweenChecks{2};

  // parallel_for's loop (parallel_for.h says what body, meanwhile and finish
  // are given) on this team, worker 0 the caller's thread. Returns once
  // every worker is done; the first exception thrown is rethrown here, and
  // the team can run the next loop.
  // aside() is a second job that cannot wait for the loop, run by worker 1
  // before it takes a range, beside the caller's meanwhile() (in a team of
  // one, by the caller, before meanwhile()): the reader hands the last
  // batch over on it while the caller reads the next, so that neither
  // holds up the other on many cores. An exception from it stops the loop
  // as one from body does.
  void for_each_range(std::size_t count, std::size_t grain, const Body& body,
                      const std::function<void()>& meanwhile = {}, const Finish& finish = {},
                      const std::function<void()>& aside = {});

 private:
  struct Loop;
  void work(Loop& loop, unsigned worker);
  // Records the exception being handled as the loop's (unless one is
  // already) and stops the loop.
  void fail(Loop& loop);
  // Waits for the helpers to finish the loop, calling the team's check
  // meanwhile.
  void wait_for_helpers(Loop& loop);
  void serve(unsigned worker);

  std::mutex mutex_;
  std::condition_variable wake_;  // a loop to run, or stop
  std::condition_variable done_;  // the last helper finished its part
  Loop* loop_ = nullptr;
  std::uint64_t generation_ = 0;  // loops handed out so far
  unsigned running_ = 0;          // helpers still in the current loop
  bool stopping_ = false;
  CheckPoint check_;
  std::atomic<bool> failed_{false};  // a worker's work threw in the current loop
  CheckPoint caller_check_;
  CheckPoint helper_check_;
  std::vector<std::jthread> helpers_;  // last: started once the rest exists
};

}  // namespace simhash
