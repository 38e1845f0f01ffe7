// SPDX-License-Identifier: MIT
// simhash_progress() and the per-connection switch it sets (see
// progress_report.h). SQLite 3.40, the oldest this module runs on, has no
// per-connection client data, so the switch lives in a map from the
// connection, whose entry the function's destructor (called when the
// connection closes) removes: a new connection at the same address starts
// off.
#include "ext/common/progress_report.h"

#include <cstdio>
#include <memory>
#include <mutex>
#include <unordered_map>

#if defined(_WIN32)
#include <io.h>
#else
#include <unistd.h>
#endif

#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"
#include "ext/registration.h"

namespace simhash::sql {
namespace {

constexpr const char* kFunction = "simhash_progress";

struct Switches {
  std::mutex mutex;
  std::unordered_map<sqlite3*, bool> on;
};

// Made when the module is first loaded (register_progress_function), as
// index_registry.cpp's registry is, so it outlives the connections using it.
Switches& switches() {
  static Switches instance;
  return instance;
}

// simhash_progress([on]): sets the switch when given 0 or 1; returns the
// setting before.
void simhash_progress(sqlite3_context* context, int argc, sqlite3_value** argv) {
  guard(context, [&] {
    sqlite3* db = sqlite3_context_db_handle(context);
    std::optional<bool> wanted;
    if (argc == 1) {
      const std::optional<std::int64_t> value = integral_value(argv[0]);
      if (!value || (*value != 0 && *value != 1)) {
        throw SqliteError(SQLITE_ERROR, std::string(kFunction) +
                                            ": the switch must be 1 (on) or 0 (off), got " +
                                            shown(argv[0]));
      }
      wanted = *value == 1;
    }
    Switches& all = switches();
    const std::lock_guard lock(all.mutex);
    bool& on = all.on[db];
    const bool before = on;
    if (wanted) {
      on = *wanted;
    }
    sqlite3_result_int(context, before ? 1 : 0);
  });
}

// On a terminal each line replaces the one before it (carriage return, then
// erase to the end of the line) and only the final line ends one; into a
// file or a pipe every line is a line of its own.
bool stderr_is_terminal() {
#if defined(_WIN32)
  return _isatty(_fileno(stderr)) != 0;
#else
  return isatty(fileno(stderr)) != 0;
#endif
}

// The functions' user data: the connection, whose switch goes with it.
void forget_connection(void* db) {
  Switches& all = switches();
  const std::lock_guard lock(all.mutex);
  all.on.erase(static_cast<sqlite3*>(db));
}

}  // namespace

bool progress_switched_on(sqlite3* db) {
  Switches& all = switches();
  const std::lock_guard lock(all.mutex);
  const auto found = all.on.find(db);
  return found != all.on.end() && found->second;
}

ProgressReport::ProgressReport(sqlite3* db, std::string_view function) {
  if (progress_switched_on(db)) {
    lines_.emplace(std::string(function));
    start_ = std::chrono::steady_clock::now();
    in_place_ = stderr_is_terminal();
  }
}

double ProgressReport::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressReport::step(const ProgressStep& step) {
  if (!lines_) {
    return;
  }
  if (const std::optional<std::string> line = lines_->step(step, seconds())) {
    std::fprintf(stderr, in_place_ ? "\r%s\x1b[K" : "%s\n", line->c_str());
    std::fflush(stderr);
  }
}

ProgressHook ProgressReport::hook() {
  if (!lines_) {
    return {};
  }
  return [this](const ProgressStep& reported) { step(reported); };
}

void ProgressReport::finish(std::string_view totals) {
  if (lines_) {
    std::fprintf(stderr, in_place_ ? "\r%s\x1b[K\n" : "%s\n",
                 lines_->finish(totals, seconds()).c_str());
    std::fflush(stderr);
  }
}

// Not deterministic (it sets what later calls do) and not innocuous (it
// writes to stderr, sets state): SQLITE_DIRECTONLY keeps it out of views,
// triggers and schemas.
int register_progress_function(sqlite3* db, char** /*error*/) {
  constexpr int kFlags = SQLITE_UTF8 | SQLITE_DIRECTONLY;
  switches();
  int rc = sqlite3_create_function_v2(db, kFunction, 0, kFlags, nullptr, simhash_progress, nullptr,
                                      nullptr, nullptr);
  if (rc == SQLITE_OK) {
    // The destructor runs when the connection closes (or the function is
    // replaced): the switch is forgotten with it.
    rc = sqlite3_create_function_v2(db, kFunction, 1, kFlags, db, simhash_progress, nullptr,
                                    nullptr, forget_connection);
  }
  return rc;
}

}  // namespace simhash::sql
