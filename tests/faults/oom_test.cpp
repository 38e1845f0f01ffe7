// Out-of-memory injection (issue 11, "OOM"): a representative workload
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

#include "sqlite_simhash.h"

namespace {

// While armed, allocations are counted and the fail_at-th fails (0: none).
std::atomic<bool> armed{false};
std::atomic<long> fail_at{0};
std::atomic<long> allocations{0};
std::atomic<bool> failed{false};

bool should_fail() {
  if (!armed.load(std::memory_order_relaxed)) {
    return false;
  }
  const long count = allocations.fetch_add(1, std::memory_order_relaxed) + 1;
  if (count == fail_at.load(std::memory_order_relaxed)) {
    failed = true;
    return true;
  }
  return false;
}

void* allocate(std::size_t size, std::size_t alignment) {
  if (should_fail()) {
    return nullptr;
  }
  if (alignment <= alignof(std::max_align_t)) {
    return std::malloc(size == 0 ? 1 : size);
  }
  const std::size_t rounded = (size + alignment - 1) / alignment * alignment;
  return std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
}

}  // namespace

void* operator new(std::size_t size) {
  if (void* p = allocate(size, 0)) {
    return p;
  }
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new(std::size_t size, std::align_val_t alignment) {
  if (void* p = allocate(size, static_cast<std::size_t>(alignment))) {
    return p;
  }
  throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return operator new(size, alignment);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return allocate(size, 0); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return allocate(size, 0); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace {

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
    ASSERT_EQ(sqlite3_auto_extension(reinterpret_cast<void (*)()>(sqlite3_simhash_init)),
              SQLITE_OK);
  }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new OomEnvironment);

bool sanitized() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

std::string query_text(sqlite3* db, const char* sql) {
  sqlite3_stmt* statement = nullptr;
  std::string text;
  if (sqlite3_prepare_v2(db, sql, -1, &statement, nullptr) != SQLITE_OK) {
    return std::string("prepare failed: ") + sqlite3_errmsg(db);
  }
  while (sqlite3_step(statement) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(statement); ++i) {
      const auto* cell = reinterpret_cast<const char*>(sqlite3_column_text(statement, i));
      text += cell != nullptr ? cell : "NULL";
      text += i + 1 < sqlite3_column_count(statement) ? "|" : "\n";
    }
  }
  sqlite3_finalize(statement);
  return text;
}

// The workload, one statement per entry; writes to `near` and `mirror` go
// in one transaction so that the two agree whatever fails.
std::vector<std::string> workload() {
  std::vector<std::string> statements = {
      "CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)",
      "CREATE TABLE mirror(id INTEGER PRIMARY KEY, fp INTEGER)",
      "CREATE VIRTUAL TABLE near USING simhash_index(k=3)",
  };
  const char* bodies[] = {
      "the quick brown fox jumps over the lazy dog",
      "the quick brown fox jumped over the lazy dog",
      "a completely different sentence about databases",
      "Größe und Straße: Unicode text with ümlauts",
      "the quick brown fox jumps over the lazy dog again",
      "near duplicate detection with simhash fingerprints",
      "near duplicate detection with simhash fingerprint",
      "日本語のテキストもあります",
  };
  for (int i = 0; i < 8; ++i) {
    statements.push_back("INSERT INTO docs VALUES (" + std::to_string(i + 1) + ", '" + bodies[i] +
                         "')");
  }
  statements.insert(
      statements.end(),
      {
          "BEGIN",
          "INSERT INTO near(rowid, fp) SELECT id, simhash(body) FROM docs",
          "INSERT INTO mirror SELECT id, simhash(body) FROM docs",
          "COMMIT",
          "BEGIN",
          "INSERT INTO near(rowid, fp) SELECT id + 100, simhash(body, 'n=2') FROM docs",
          "INSERT INTO mirror SELECT id + 100, simhash(body, 'n=2') FROM docs",
          "UPDATE near SET fp = fp / 2 WHERE rowid % 3 = 0",
          "UPDATE mirror SET fp = fp / 2 WHERE id % 3 = 0",
          "DELETE FROM near WHERE rowid % 4 = 0",
          "DELETE FROM mirror WHERE id % 4 = 0",
          "SELECT rowid, distance FROM near WHERE fp MATCH (SELECT simhash(body) FROM docs)",
          "COMMIT",
          "SELECT rowid, distance FROM near(simhash('quick fox')) ORDER BY distance LIMIT 3",
          "SELECT count(*) FROM simhash_pairs('near', 3)",
          "SELECT count(*) FROM simhash_clusters('near', 10)",
          "SELECT simhash_jaccard(a.body, b.body, 'n=3') FROM docs a, docs b WHERE a.id < b.id",
          "SELECT count(*) FROM simhash_features((SELECT body FROM docs WHERE id = 4))",
          "INSERT INTO near(near) VALUES('rebuild')",
          "INSERT INTO near(near) VALUES('integrity-check')",
          "SELECT * FROM near WHERE near = 'integrity-check'",
      });
  return statements;
}

// Runs the workload with allocation `n` failing (0: none). Returns the
// number of allocations the run made.
long run_once(long n, const std::string& path) {
  std::remove(path.c_str());
  std::remove((path + "-journal").c_str());
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const std::vector<std::string> statements = workload();
  // Nothing in this loop allocates through C++ but the code under test.
  std::size_t failed_statement = statements.size();
  int failed_rc = SQLITE_OK;
  char* message = nullptr;
  allocations = 0;
  failed = false;
  fail_at = n;
  armed = true;
  for (std::size_t i = 0; i < statements.size(); ++i) {
    const int rc = sqlite3_exec(db, statements[i].c_str(), nullptr, nullptr, &message);
    if (rc != SQLITE_OK) {
      failed_statement = i;
      failed_rc = rc;
      break;
    }
  }
  armed = false;
  const long made = allocations.load();
  std::string failure;
  if (failed_statement < statements.size()) {
    failure = statements[failed_statement] + ": " + std::to_string(failed_rc) + " " +
              (message != nullptr ? message : "");
    EXPECT_EQ(failed_rc, SQLITE_NOMEM) << "allocation " << n << ": " << failure;
    EXPECT_TRUE(failed.load()) << "allocation " << n
                               << ": an error with no failed allocation: " << failure;
  }
  sqlite3_free(message);
  // Allocation works again: the database is sound and the two tables agree.
  if (sqlite3_get_autocommit(db) == 0) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  sqlite3_close(db);
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(query_text(db, "PRAGMA integrity_check"), "ok\n")
      << "allocation " << n << " " << failure;
  const std::string has_index =
      query_text(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'near'");
  if (has_index == "1\n") {
    EXPECT_EQ(query_text(db, "SELECT count(*) FROM near WHERE near = 'integrity-check'"), "0\n")
        << "allocation " << n << " " << failure;
    if (query_text(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'mirror'") == "1\n") {
      EXPECT_EQ(query_text(db, "SELECT rowid, fp FROM near ORDER BY rowid"),
                query_text(db, "SELECT id, fp FROM mirror ORDER BY id"))
          << "allocation " << n << " " << failure;
    }
  }
  sqlite3_close(db);
  std::remove(path.c_str());
  return made;
}

TEST(OutOfMemory, EveryAllocationPointFailsCleanly) {
  const std::string path = ::testing::TempDir() + "simhash_oom_" + std::to_string(getpid()) + ".db";
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
