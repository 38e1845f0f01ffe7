// SPDX-License-Identifier: MIT
// LogCapture: the messages SQLite's error log (sqlite3_log,
// SQLITE_CONFIG_LOG) receives with one result code while it is alive, for
// the tests of what the extension only logs.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

namespace simhash::testing {

// SQLite takes a log callback only while it is shut down, so a capture
// restarts it around the connections it watches: open none before it, and
// close them before it ends (no other connection is open between tests).
class LogCapture {
 public:
  LogCapture(std::vector<std::string>* into, int code) {
    target() = {into, code};
    sqlite3_shutdown();
    EXPECT_EQ(sqlite3_config(SQLITE_CONFIG_LOG, record, nullptr), SQLITE_OK);
    sqlite3_initialize();
  }
  ~LogCapture() {
    sqlite3_shutdown();
    sqlite3_config(SQLITE_CONFIG_LOG, nullptr, nullptr);
    sqlite3_initialize();
    target() = {};
  }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

 private:
  struct Target {
    std::vector<std::string>* messages = nullptr;
    int code = 0;
  };
  // The callback has no state of its own but this (SQLite's log is global).
  static Target& target() {
    static Target current;
    return current;
  }
  static void record(void* /*unused*/, int code, const char* message) {
    if (target().messages != nullptr && code == target().code) {
      target().messages->push_back(message);
    }
  }
};

}  // namespace simhash::testing
