// SPDX-License-Identifier: MIT
// Out-of-memory injection: a representative workload
// (create, insert from simhash(), a transaction of inserts, updates and
// deletes, MATCH and nearest queries, simhash_pairs, simhash_clusters,
// simhash_jaccard, rebuild, integrity-check) runs once per allocation point
// N, with the Nth allocation failing, whether SQLite asks for it
// (SQLITE_CONFIG_MALLOC) or C++ does (a replaced operator new). Each run must
// end in success or a clean SQLITE_NOMEM (never a crash, a leak under ASan or
// another error); afterwards, with allocation working again, the database
// passes PRAGMA integrity_check and the index's own check, and the index
// holds exactly the rows of a plain mirror table written in the same
// transactions (nothing committed lost, nothing uncommitted kept).
//
// SIMHASH_OOM_STRIDE=k tries every kth allocation point (by default every
// 11th, every 97th under the sanitizers);
// SIMHASH_OOM_STRIDE=1 tries them all.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "allocation_hooks.h"
#include "fault_workload.h"

namespace simhash::testing {
namespace {

using allocation::allocations;
using allocation::armed;
using allocation::fail_at;
using allocation::failed;
using allocation::should_fail;

sqlite3_mem_methods sqlite_default_methods;

void* sqlite_malloc(int size) {
  return should_fail() ? nullptr : sqlite_default_methods.xMalloc(size);
}
void* sqlite_realloc(void* p, int size) {
  return should_fail() ? nullptr : sqlite_default_methods.xRealloc(p, size);
}

// Installs the failing SQLite allocator once, before SQLite initializes.
class OomEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    sqlite3_shutdown();
    ASSERT_EQ(sqlite3_config(SQLITE_CONFIG_GETMALLOC, &sqlite_default_methods), SQLITE_OK);
    sqlite3_mem_methods methods = sqlite_default_methods;
    methods.xMalloc = sqlite_malloc;
    methods.xRealloc = sqlite_realloc;
    ASSERT_EQ(sqlite3_config(SQLITE_CONFIG_MALLOC, &methods), SQLITE_OK);
    ASSERT_EQ(sqlite3_initialize(), SQLITE_OK);
  }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new OomEnvironment);

// Runs the workload with allocation `n` failing (0: none). Returns the
// number of allocations the run made.
long run_once(long n, const std::string& path) {
  remove_database(path);
  sqlite3* db = open_with_extension(path);
  const std::vector<std::string> statements = fault_workload();
  int rc = SQLITE_OK;
  char* message = nullptr;
  allocations = 0;
  failed = false;
  fail_at = n;
  armed = true;
  const std::size_t failed_statement = run_statements(db, statements, rc, message);
  armed = false;
  const long made = allocations.load();
  const std::string context =
      "allocation " + std::to_string(n) + take_failure(statements, failed_statement, rc, message);
  if (failed_statement < statements.size()) {
    EXPECT_EQ(rc, SQLITE_NOMEM) << context;
    EXPECT_TRUE(failed.load()) << "an error with no failed allocation: " << context;
  }
  // Allocation works again: the database is sound and the two tables agree.
  roll_back_and_close(db);
  expect_sound_database(path, context);
  remove_database(path);
  return made;
}

TEST(OutOfMemory, EveryAllocationPointFailsCleanly) {
  const std::string path = ::testing::TempDir() + "simhash_oom_" + std::to_string(getpid()) + ".db";
  // The first run also fills what a process builds once (ICU's data, the
  // batch plans EXPLAIN describes): every later run, the ones that fail an
  // allocation, makes only the second run's allocations, so that is the
  // range worth failing.
  run_once(0, path);
  const long total = run_once(0, path);
  ASSERT_GT(total, 1000) << "the allocator is not in the path";
  const char* stride_text = std::getenv("SIMHASH_OOM_STRIDE");
  const long stride =
      stride_text != nullptr ? std::max(1L, std::atol(stride_text)) : (sanitized() ? 97 : 11);
  long tried = 0;
  for (long n = 1; n <= total; n += stride) {
    run_once(n, path);
    ++tried;
    if (::testing::Test::HasFailure()) {
      break;  // the first failing point says enough
    }
  }
  std::printf("allocation points: %ld in the workload, %ld tried (every %ld)\n", total, tried,
              stride);
  RecordProperty("allocation_points", static_cast<int>(total));
  RecordProperty("tried", static_cast<int>(tried));
}

}  // namespace
}  // namespace simhash::testing
