// SPDX-License-Identifier: MIT
// Workers take the next range from a shared counter, so a thread that gets
// short texts takes more of them.
#include "util/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace simhash {

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
  grain = std::max<std::size_t>(grain, 1);
  const std::size_t ranges = (count + grain - 1) / grain;
  threads =
      static_cast<unsigned>(std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(ranges, 1)));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::atomic<bool> caller_busy{static_cast<bool>(meanwhile)};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  const auto work = [&](unsigned worker) {
    try {
      if (worker == 0 && meanwhile) {
        meanwhile();
        caller_busy = false;
      }
      for (std::size_t range = next++; range < ranges && !failed; range = next++) {
        const std::size_t begin = range * grain;
        body(worker, begin, std::min(count, begin + grain));
      }
      if (finish && !failed) {
        finish(worker, worker != 0 && caller_busy);
      }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!first_error) {
        first_error = std::current_exception();
      }
      failed = true;
    }
  };
  {
    std::vector<std::jthread> helpers;
    helpers.reserve(threads - 1);
    for (unsigned worker = 1; worker < threads; ++worker) {
      helpers.emplace_back(work, worker);
    }
    work(0);
  }  // joined here
  if (first_error) {
    std::rethrow_exception(first_error);
  }
}

unsigned hardware_threads() { return std::max(1U, std::thread::hardware_concurrency()); }

}  // namespace simhash
