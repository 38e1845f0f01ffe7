// SPDX-License-Identifier: MIT
// Workers take the next range from a shared counter, so a thread that gets
// short texts takes more of them. Between loops the helpers wait on a
// condition variable; the caller waits for the last of them, so nothing of
// one loop (its ranges, its body) is touched after for_each_range returns.
#include "util/thread_team.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <utility>

namespace simhash {
namespace {

// What a check point throws once another worker's work has thrown: that
// exception is the loop's, and this one is dropped.
struct StoppedByAnother {};

}  // namespace

struct ThreadTeam::Loop {
  Loop(std::size_t count_in, std::size_t grain_in, const Body& body_in,
       const std::function<void()>& meanwhile_in, const Finish& finish_in,
       const std::function<void()>& aside_in, unsigned aside_worker_in)
      : count(count_in),
        grain(std::max<std::size_t>(grain_in, 1)),
        ranges((count + grain - 1) / grain),
        body(body_in),
        meanwhile(meanwhile_in),
        finish(finish_in),
        aside(aside_in),
        aside_worker(aside_worker_in),
        caller_busy(static_cast<bool>(meanwhile_in)) {}

  std::size_t count;
  std::size_t grain;
  std::size_t ranges;
  const Body& body;
  const std::function<void()>& meanwhile;
  const Finish& finish;
  const std::function<void()>& aside;
  unsigned aside_worker;  // 1, or 0 in a team of one
  std::atomic<std::size_t> next{0};
  std::atomic<bool> caller_busy;
  std::mutex error_mutex;
  std::exception_ptr first_error;
};

ThreadTeam::ThreadTeam(unsigned threads, CheckPoint check)
    : check_(std::move(check)),
      caller_check_([this] {
        if (check_) {
          check_();
        }
        helper_check_();
      }),
      helper_check_([this] {
        if (failed_.load(std::memory_order_relaxed)) {
          throw StoppedByAnother{};
        }
      }) {
  const unsigned helpers = std::max(threads, 1U) - 1;
  helpers_.reserve(helpers);
  for (unsigned worker = 1; worker <= helpers; ++worker) {
    helpers_.emplace_back([this, worker] { serve(worker); });
  }
}

ThreadTeam::~ThreadTeam() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  helpers_.clear();  // joins them
}

void ThreadTeam::serve(unsigned worker) {
  std::uint64_t served = 0;
  for (;;) {
    Loop* loop = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != served; });
      if (stopping_) {
        return;
      }
      served = generation_;
      loop = loop_;
    }
    work(*loop, worker);
    bool last = false;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      last = --running_ == 0;
    }
    if (last) {
      done_.notify_one();
    }
  }
}

void ThreadTeam::work(Loop& loop, unsigned worker) {
  try {
    if (worker == loop.aside_worker && loop.aside) {
      loop.aside();
    }
    if (worker == 0 && loop.meanwhile) {
      loop.meanwhile();
      loop.caller_busy = false;
    }
    for (std::size_t range = loop.next++; range < loop.ranges && !failed_; range = loop.next++) {
      const std::size_t begin = range * loop.grain;
      loop.body(worker, begin, std::min(loop.count, begin + loop.grain));
    }
    if (loop.finish && !failed_) {
      loop.finish(worker, worker != 0 && loop.caller_busy);
    }
  } catch (const StoppedByAnother&) {
    // The loop's exception is the other worker's.
  } catch (...) {
    fail(loop);
  }
}

void ThreadTeam::fail(Loop& loop) {
  const std::lock_guard<std::mutex> lock(loop.error_mutex);
  if (!loop.first_error) {
    loop.first_error = std::current_exception();
  }
  failed_ = true;
}

void ThreadTeam::wait_for_helpers(Loop& loop) {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto done = [&] { return running_ == 0; };
  if (!check_) {
    done_.wait(lock, done);
  } else {
    while (!done_.wait_for(lock, kWaitBetweenChecks, done)) {
      if (failed_) {
        continue;  // the helpers are stopping already
      }
      lock.unlock();
      try {
        check_();
      } catch (...) {
        fail(loop);
      }
      lock.lock();
    }
  }
  loop_ = nullptr;
}

void ThreadTeam::for_each_range(std::size_t count, std::size_t grain, const Body& body,
                                const std::function<void()>& meanwhile, const Finish& finish,
                                const std::function<void()>& aside) {
  Loop loop(count, grain, body, meanwhile, finish, aside, helpers_.empty() ? 0 : 1);
  if (!helpers_.empty()) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      loop_ = &loop;
      running_ = static_cast<unsigned>(helpers_.size());
      ++generation_;
    }
    wake_.notify_all();
  }
  work(loop, 0);
  if (!helpers_.empty()) {
    wait_for_helpers(loop);
  }
  failed_ = false;  // every worker is done with the loop
  if (loop.first_error) {
    std::rethrow_exception(loop.first_error);
  }
}

}  // namespace simhash
