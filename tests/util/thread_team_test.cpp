// SPDX-License-Identifier: MIT
// ThreadTeam: the same threads serve every loop, each loop covers every
// index once, aside() runs beside meanwhile() on another thread (before it
// on the caller's in a team of one), and an exception ends one loop, not
// the team. (The loop's
// own contract, meanwhile and finish, is parallel_for's, tested with it in
// tests/batch/row_features_test.cpp: parallel_for runs on a team.)
#include "util/thread_team.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <thread>
#include <vector>

namespace simhash {
namespace {

// Loops on one team that each make every worker take one range (each range
// waits, bounded, until all have started): a thread kept by the team counts
// every loop it served; a thread started for one loop would count one.
TEST(ThreadTeam, TheSameThreadsServeEveryLoop) {
  constexpr int kLoops = 40;
  for (const unsigned threads : {1U, 2U, 4U}) {
    ThreadTeam team(threads);
    ASSERT_EQ(team.size(), threads);
    std::vector<int> served_by_worker(threads, 0);
    for (int loop = 0; loop < kLoops; ++loop) {
      std::atomic<unsigned> started{0};
      team.for_each_range(threads, 1, [&](unsigned worker, std::size_t, std::size_t) {
        thread_local int served = 0;
        ++started;
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (started < threads && std::chrono::steady_clock::now() < give_up) {
          std::this_thread::yield();
        }
        ASSERT_EQ(started, threads) << "a worker never came";
        served_by_worker[worker] = ++served;
      });
    }
    for (unsigned worker = 0; worker < threads; ++worker) {
      EXPECT_GE(served_by_worker[worker], kLoops) << threads << " threads, worker " << worker;
    }
  }
}

TEST(ThreadTeam, EachLoopCoversEveryIndexOnce) {
  ThreadTeam team(5);
  for (const std::size_t count : {0U, 1U, 3U, 1000U, 4097U}) {
    for (const std::size_t grain : {1U, 7U, 5000U}) {
      std::vector<int> seen(count, 0);
      team.for_each_range(count, grain, [&](unsigned worker, std::size_t begin, std::size_t end) {
        EXPECT_LT(worker, 5U);
        EXPECT_LE(end - begin, grain);
        for (std::size_t i = begin; i < end; ++i) {
          ++seen[i];
        }
      });
      EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<std::ptrdiff_t>(count))
          << count << " indexes, grain " << grain;
    }
  }
}

// aside() and meanwhile() run at once on two threads: each waits, bounded,
// until the other has started. In a team of one the caller runs aside()
// first. Each runs once a loop, before its thread takes a range.
TEST(ThreadTeam, AsideRunsBesideMeanwhileOnAnotherThread) {
  for (const unsigned threads : {1U, 2U, 4U}) {
    ThreadTeam team(threads);
    for (int loop = 0; loop < 20; ++loop) {
      std::atomic<bool> aside_started{false};
      std::atomic<bool> meanwhile_started{false};
      std::atomic<int> asides{0};
      std::atomic<int> meanwhiles{0};
      std::thread::id aside_thread;
      std::thread::id meanwhile_thread;
      bool meanwhile_saw_aside_done = false;
      const auto wait_for = [](const std::atomic<bool>& other) {
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (!other && std::chrono::steady_clock::now() < give_up) {
          std::this_thread::yield();
        }
        return other.load();
      };
      std::atomic<std::size_t> covered{0};
      team.for_each_range(
          50, 2,
          [&](unsigned worker, std::size_t begin, std::size_t end) {
            if (worker == 0) {
              EXPECT_EQ(meanwhiles, 1) << "the caller took a range before meanwhile";
            }
            if (worker == (threads > 1 ? 1U : 0U)) {
              EXPECT_EQ(asides, 1) << "worker " << worker << " took a range before aside";
            }
            covered += end - begin;
          },
          [&] {
            ++meanwhiles;
            meanwhile_thread = std::this_thread::get_id();
            meanwhile_started = true;
            meanwhile_saw_aside_done = asides == 1;
            if (threads > 1) {
              EXPECT_TRUE(wait_for(aside_started)) << "aside never ran beside meanwhile";
            }
          },
          {},
          [&] {
            ++asides;
            aside_thread = std::this_thread::get_id();
            aside_started = true;
            if (threads > 1) {
              EXPECT_TRUE(wait_for(meanwhile_started)) << "meanwhile never ran beside aside";
            }
          });
      EXPECT_EQ(asides, 1);
      EXPECT_EQ(meanwhiles, 1);
      EXPECT_EQ(covered, 50U);
      EXPECT_EQ(meanwhile_thread, std::this_thread::get_id());
      if (threads == 1) {
        EXPECT_EQ(aside_thread, std::this_thread::get_id());
        EXPECT_TRUE(meanwhile_saw_aside_done) << "in a team of one, aside runs first";
      } else {
        EXPECT_NE(aside_thread, std::this_thread::get_id());
      }
    }
  }
}

// The first error is rethrown; the loops after it run in full.
TEST(ThreadTeam, AnErrorEndsItsLoopNotTheTeam) {
  for (const unsigned threads : {1U, 3U}) {
    ThreadTeam team(threads);
    for (int round = 0; round < 3; ++round) {
      EXPECT_THROW(team.for_each_range(100, 3,
                                       [](unsigned, std::size_t begin, std::size_t) {
                                         if (begin >= 30) {
                                           throw std::runtime_error("stop");
                                         }
                                       }),
                   std::runtime_error);
      EXPECT_THROW(team.for_each_range(
                       10, 1, [](unsigned, std::size_t, std::size_t) {},
                       [] { throw std::logic_error("meanwhile"); }),
                   std::logic_error);
      EXPECT_THROW(team.for_each_range(
                       10, 1, [](unsigned, std::size_t, std::size_t) {}, [] {}, {},
                       [] { throw std::domain_error("aside"); }),
                   std::domain_error);
      std::atomic<std::size_t> covered{0};
      team.for_each_range(
          100, 3, [&](unsigned, std::size_t begin, std::size_t end) { covered += end - begin; });
      EXPECT_EQ(covered, 100U);
    }
  }
}

// Waits, bounded, until `flag` is set; whether it was.
bool wait_for(const std::atomic<bool>& flag) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!flag && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::yield();
  }
  return flag.load();
}

// Calls `check` until it throws, or for 20 s: a range that ends only when
// stopped.
void check_until_stopped(const CheckPoint& check) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < give_up) {
    check();
    std::this_thread::yield();
  }
  ADD_FAILURE() << "a worker's check point never stopped it";
}

// A worker in a range that ends only when stopped leaves it at its next
// check once another worker's work has thrown: the team's check, called by
// the caller's thread while it waits, its own range done; or a helper's
// error, which stops the caller's thread too. The loop rethrows that
// error, and the next loop runs in full.
TEST(ThreadTeam, CheckPointsStopEveryWorkerOnceOneThrew) {
  std::atomic<bool> interrupted{false};
  ThreadTeam team(2, [&] {
    if (interrupted) {
      throw std::runtime_error("interrupted");
    }
  });
  std::atomic<bool> helper_started{false};
  EXPECT_THROW(team.for_each_range(2, 1,
                                   [&](unsigned worker, std::size_t, std::size_t) {
                                     if (worker == 0) {
                                       EXPECT_TRUE(wait_for(helper_started));
                                       interrupted = true;
                                       return;
                                     }
                                     helper_started = true;
                                     check_until_stopped(team.check_point(worker));
                                   }),
               std::runtime_error);
  interrupted = false;
  std::atomic<bool> caller_started{false};
  EXPECT_THROW(team.for_each_range(2, 1,
                                   [&](unsigned worker, std::size_t, std::size_t) {
                                     if (worker == 0) {
                                       caller_started = true;
                                       check_until_stopped(team.check_point(worker));
                                       return;
                                     }
                                     EXPECT_TRUE(wait_for(caller_started));
                                     throw std::logic_error("a helper's error");
                                   }),
               std::logic_error);
  std::atomic<std::size_t> covered{0};
  team.for_each_range(100, 3, [&](unsigned worker, std::size_t begin, std::size_t end) {
    team.check_point(worker)();
    covered += end - begin;
  });
  EXPECT_EQ(covered, 100U);
}

}  // namespace
}  // namespace simhash
