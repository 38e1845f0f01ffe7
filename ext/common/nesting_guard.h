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
// connections the levels use.
#pragma once

#include <string>
#include <string_view>

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
    if (depth() >= kMaxNesting) {
      throw SqliteError(SQLITE_ERROR,
                        std::string(who) + ": nested too deeply (" + std::to_string(kMaxNesting) +
                            " calls of the batch functions run one inside another's query: a "
                            "query or view that calls " +
                            std::string(who) + " again?)");
    }
    ++depth();
  }
  ~NestingGuard() { --depth(); }
  NestingGuard(const NestingGuard&) = delete;
  NestingGuard& operator=(const NestingGuard&) = delete;

 private:
  static int& depth() {
    thread_local int levels = 0;
    return levels;
  }
};

}  // namespace simhash::sql
