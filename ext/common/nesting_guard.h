// SPDX-License-Identifier: MIT
// The nesting cap of the functions that run SQL while they run (the batch
// table-valued functions read a query, a table of pairs or an index through
// the caller's connection): a query given to simhash_dedup that calls
// simhash_dedup again, or a view over simhash_clusters('<that view>'), would
// otherwise recurse until the stack overflows and the process dies. SQLite
// cannot see this recursion (each level is a new statement), so each call
// holds a NestingGuard while it runs SQL and the one too deep is refused.
//
// The depth is counted per thread, not per connection: the recursion is
// synchronous (every level runs on the thread that stepped the outer
// statement) and it is that thread's stack that overflows, whichever
// connections the levels use. The counts are kept in a map by thread id,
// not in a thread_local: a thread_local in a module that SQLite dlopens is
// dynamic TLS, which LeakSanitizer (GCC 12's) cannot walk (its tracer
// crashes on the DTV entry at exit, failing every sanitizer test).
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "ext/common/sqlite_support.h"

namespace simhash::sql {

// Levels of these functions one inside another's query. Real uses nest two
// or three (simhash_dedup over a query that reads simhash_clusters of a
// view over simhash_pairs); each level takes a few KiB of stack (SQLite's
// statement, the vtab's frames: 8 levels fit in 64 KiB in a Release
// build), so 8 stays far below any thread's stack.
inline constexpr int kMaxNesting = 8;

class NestingGuard {
 public:
  // Throws SqliteError naming `who` when kMaxNesting levels already run.
  explicit NestingGuard(std::string_view who) {
    const std::lock_guard<std::mutex> lock(mutex());
    if (depth() >= kMaxNesting) {
      throw SqliteError(SQLITE_ERROR,
                        std::string(who) + ": nested too deeply (" + std::to_string(kMaxNesting) +
                            " calls of the batch functions run one inside another's query: a "
                            "query or view that calls " +
                            std::string(who) + " again?)");
    }
    ++depth();
  }
  ~NestingGuard() {
    const std::lock_guard<std::mutex> lock(mutex());
    if (--levels()[std::this_thread::get_id()] == 0) {
      levels().erase(std::this_thread::get_id());
    }
  }
  NestingGuard(const NestingGuard&) = delete;
  NestingGuard& operator=(const NestingGuard&) = delete;

 private:
  // The calling thread's count; with mutex() held.
  static int& depth() { return levels()[std::this_thread::get_id()]; }
  static std::unordered_map<std::thread::id, int>& levels() {
    static std::unordered_map<std::thread::id, int> by_thread;
    return by_thread;
  }
  static std::mutex& mutex() {
    static std::mutex guard;
    return guard;
  }
};

}  // namespace simhash::sql
