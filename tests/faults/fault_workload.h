// SPDX-License-Identifier: MIT
// What the fault-injection tests share: the workload they break (every kind
// of call the extension serves, with writes to the index mirrored in a plain
// table in the same transactions), running it without allocating, and the
// checks of the database a broken run leaves behind.
#pragma once

#include <sqlite3.h>

#include <cstddef>
#include <string>
#include <vector>

namespace simhash::testing {

// True under AddressSanitizer (slow: the tests try fewer fault points).
bool sanitized();

// Opens `path` through `vfs` (nullptr: the default) with the extension
// registered on the connection; records a test failure if it cannot.
sqlite3* open_with_extension(const std::string& path, const char* vfs = nullptr);

// The database file and its journals removed.
void remove_database(const std::string& path);

// Every row of `sql`, cells joined by '|' and rows ended by '\n'.
std::string query_text(sqlite3* db, const char* sql);

// The statements of the workload, in order.
std::vector<std::string> fault_workload();

// Runs `statements` until one fails; returns its index (statements.size()
// when all succeed), its result code in `rc` and SQLite's message in
// `message` (to free with sqlite3_free). Allocates nothing itself.
std::size_t run_statements(sqlite3* db, const std::vector<std::string>& statements, int& rc,
                           char*& message);

// ": <statement>: <code> <message>" for the statement run_statements
// stopped at ("" when every one succeeded); frees `message`.
std::string take_failure(const std::vector<std::string>& statements, std::size_t failed_statement,
                         int rc, char* message);

// Rolls back a transaction the failure left open, and closes `db`.
void roll_back_and_close(sqlite3* db);

// Reopens `path` (default VFS, faults off) after a broken run and expects
// PRAGMA integrity_check to say ok, the index's check to pass and the index
// to hold exactly the mirror's rows. `context` names the run in failures.
void expect_sound_database(const std::string& path, const std::string& context);

}  // namespace simhash::testing
