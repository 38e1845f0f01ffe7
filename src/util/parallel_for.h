// SPDX-License-Identifier: MIT
// A loop spread over threads, for the batch work that may use the machine's
// cores (simhash_dedup's tokenizing and its join's probes). The caller gives each index its own
// result slot, so results never depend on the thread count. Each call
// starts its threads and joins them: a job of many short loops keeps a
// ThreadTeam (thread_team.h), which runs the same loop on threads it keeps.
#pragma once

#include <cstddef>
#include <functional>

#include "util/check_point.h"

namespace simhash {

// Calls body(worker, begin, end) for consecutive ranges covering [0, count),
// at most `grain` indexes each, on `threads` threads including the caller's
// (worker is 0..threads-1, for per-thread state such as an ICU tokenizer).
// The first exception a body throws stops the handing out of ranges and is
// rethrown here after every thread has finished.
void parallel_for(
    std::size_t count, std::size_t grain, unsigned threads,
    const std::function<void(unsigned worker, std::size_t begin, std::size_t end)>& body);

// The same, but the caller's thread first runs meanwhile() (work only it may
// do, such as stepping the SQLite statement for the next batch) while the
// other threads start on the loop, then joins them as worker 0. An
// exception from meanwhile() stops the loop as one from body does.
void parallel_for(
    std::size_t count, std::size_t grain, unsigned threads,
    const std::function<void(unsigned worker, std::size_t begin, std::size_t end)>& body,
    const std::function<void()>& meanwhile);

// The same, and each thread, once no range is left for it, runs
// finish(worker, caller_busy) before the join: work on what that thread did
// (laying out its results), which so overlaps the other threads' last
// ranges instead of waiting behind a barrier of its own. `caller_busy`: the
// caller's thread was still in meanwhile() when this thread's ranges ran
// out, so the loop waits for the caller, not for this thread, and work done
// now costs no wall time (always false for worker 0). Not run once a body
// has thrown.
void parallel_for(
    std::size_t count, std::size_t grain, unsigned threads,
    const std::function<void(unsigned worker, std::size_t begin, std::size_t end)>& body,
    const std::function<void()>& meanwhile,
    const std::function<void(unsigned worker, bool caller_busy)>& finish);

// The same loop on a team made with `check` (thread_team.h): body gets its
// worker's check point, to call between bounded pieces of its range, so
// that once `check` (or any worker's work) has thrown every worker stops
// at its next piece.
void parallel_for(std::size_t count, std::size_t grain, unsigned threads, const CheckPoint& check,
                  const std::function<void(unsigned worker, std::size_t begin, std::size_t end,
                                           const CheckPoint& worker_check)>& body);

// The threads the machine can run at once (at least 1).
unsigned hardware_threads();

}  // namespace simhash
