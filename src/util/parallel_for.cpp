// SPDX-License-Identifier: MIT
// A loop on a team of its own: started for it, joined when it ends.
#include "util/parallel_for.h"

#include <algorithm>
#include <thread>

#include "util/thread_team.h"

namespace simhash {
namespace {

// No thread started for want of a range.
unsigned threads_for(std::size_t count, std::size_t grain, unsigned threads) {
  grain = std::max<std::size_t>(grain, 1);
  const std::size_t ranges = (count + grain - 1) / grain;
  return static_cast<unsigned>(
      std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(ranges, 1)));
}

}  // namespace

void parallel_for(
    std::size_t count, std::size_t grain, unsigned threads,
    const std::function<void(unsigned worker, std::size_t begin, std::size_t end)>& body) {
  parallel_for(count, grain, threads, body, {});
}

void parallel_for(
    std::size_t count, std::size_t grain, unsigned threads,
    const std::function<void(unsigned worker, std::size_t begin, std::size_t end)>& body,
    const std::function<void()>& meanwhile) {
  parallel_for(count, grain, threads, body, meanwhile, {});
}

void parallel_for(
    std::size_t count, std::size_t grain, unsigned threads,
    const std::function<void(unsigned worker, std::size_t begin, std::size_t end)>& body,
    const std::function<void()>& meanwhile,
    const std::function<void(unsigned worker, bool caller_busy)>& finish) {
  ThreadTeam team(threads_for(count, grain, threads));
  team.for_each_range(count, grain, body, meanwhile, finish);
}

void parallel_for(std::size_t count, std::size_t grain, unsigned threads, const CheckPoint& check,
                  const std::function<void(unsigned worker, std::size_t begin, std::size_t end,
                                           const CheckPoint& worker_check)>& body) {
  ThreadTeam team(threads_for(count, grain, threads), check);
  team.for_each_range(count, grain, [&](unsigned worker, std::size_t begin, std::size_t end) {
    body(worker, begin, end, team.check_point(worker));
  });
}

unsigned hardware_threads() { return std::max(1U, std::thread::hardware_concurrency()); }

}  // namespace simhash
