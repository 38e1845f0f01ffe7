// SPDX-License-Identifier: MIT
// I/O faults: a VFS shim over the default one fails
// the Nth read, write, sync or truncate of the workload once (with
// SQLITE_IOERR_READ, _WRITE, _FSYNC or _TRUNCATE), for every N, in rollback
// and WAL journal modes. Each run must end in success or an SQLITE_IOERR
// (SQLITE_FULL and SQLITE_CORRUPT would be wrong answers here, as would a
// crash or a hang); afterwards, reopened without faults, the database passes
// PRAGMA integrity_check and the index's own check, and the index holds
// exactly the mirror table's rows: no committed row lost, no uncommitted row
// kept. The shim's sync does not reach the disk (the test is about the
// error paths, not durability), so a run takes milliseconds.
//
// Every I/O operation is tried (about 300 runs, under a second);
// SIMHASH_IO_STRIDE=k tries every kth instead.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "fault_workload.h"

namespace simhash::testing {
namespace {

// While armed, I/O operations are counted and the fail_at-th fails. In
// power-loss mode the power goes at that operation: it and every later one
// fail, and what was written since each file's last sync is then dropped.
bool armed = false;
bool power_loss_mode = false;
long fail_at = 0;
long operations = 0;
bool failed = false;
bool powered_off = false;

bool should_fail() {
  if (!armed) {
    return false;
  }
  if (powered_off) {
    return true;
  }
  if (++operations == fail_at) {
    failed = true;
    powered_off = power_loss_mode;
    return true;
  }
  return false;
}

// Power-loss mode: each named file's content as of its last sync (or its
// opening), which is what survives the loss of power.
std::map<std::string, std::string> synced_content;

// The shim's file: its methods table, then the real file (of the size the
// real VFS asks for) right after.
struct FaultyFile {
  sqlite3_file base;
  const char* name;  // valid until xClose; nullptr for temporary files
  sqlite3_file* real() { return reinterpret_cast<sqlite3_file*>(this + 1); }
};

sqlite3_vfs* real_vfs = nullptr;

FaultyFile* faulty(sqlite3_file* file) { return reinterpret_cast<FaultyFile*>(file); }
const sqlite3_io_methods& real_methods(sqlite3_file* file) {
  return *faulty(file)->real()->pMethods;
}

int faulty_close(sqlite3_file* file) { return real_methods(file).xClose(faulty(file)->real()); }
int faulty_read(sqlite3_file* file, void* buffer, int amount, sqlite3_int64 offset) {
  if (should_fail()) {
    return SQLITE_IOERR_READ;
  }
  return real_methods(file).xRead(faulty(file)->real(), buffer, amount, offset);
}
int faulty_write(sqlite3_file* file, const void* buffer, int amount, sqlite3_int64 offset) {
  if (should_fail()) {
    return SQLITE_IOERR_WRITE;
  }
  return real_methods(file).xWrite(faulty(file)->real(), buffer, amount, offset);
}
int faulty_truncate(sqlite3_file* file, sqlite3_int64 size) {
  if (should_fail()) {
    return SQLITE_IOERR_TRUNCATE;
  }
  return real_methods(file).xTruncate(faulty(file)->real(), size);
}
// The file's whole content, read through the real file.
std::string content_of(sqlite3_file* real) {
  sqlite3_int64 size = 0;
  std::string content;
  if (real->pMethods != nullptr && real->pMethods->xFileSize(real, &size) == SQLITE_OK &&
      size > 0) {
    content.resize(static_cast<std::size_t>(size));
    if (real->pMethods->xRead(real, content.data(), static_cast<int>(size), 0) != SQLITE_OK) {
      content.clear();
    }
  }
  return content;
}

int faulty_sync(sqlite3_file* file, int) {
  if (should_fail()) {
    return SQLITE_IOERR_FSYNC;
  }
  if (power_loss_mode && faulty(file)->name != nullptr) {
    synced_content[faulty(file)->name] = content_of(faulty(file)->real());
  }
  return SQLITE_OK;  // not to the disk: the test is about error paths
}
int faulty_file_size(sqlite3_file* file, sqlite3_int64* size) {
  return real_methods(file).xFileSize(faulty(file)->real(), size);
}
int faulty_lock(sqlite3_file* file, int level) {
  return real_methods(file).xLock(faulty(file)->real(), level);
}
int faulty_unlock(sqlite3_file* file, int level) {
  return real_methods(file).xUnlock(faulty(file)->real(), level);
}
int faulty_check_reserved_lock(sqlite3_file* file, int* out) {
  return real_methods(file).xCheckReservedLock(faulty(file)->real(), out);
}
int faulty_file_control(sqlite3_file* file, int op, void* arg) {
  return real_methods(file).xFileControl(faulty(file)->real(), op, arg);
}
int faulty_sector_size(sqlite3_file* file) {
  return real_methods(file).xSectorSize(faulty(file)->real());
}
int faulty_device_characteristics(sqlite3_file* file) {
  return real_methods(file).xDeviceCharacteristics(faulty(file)->real());
}
int faulty_shm_map(sqlite3_file* file, int page, int size, int extend, void volatile** out) {
  return real_methods(file).xShmMap(faulty(file)->real(), page, size, extend, out);
}
int faulty_shm_lock(sqlite3_file* file, int offset, int n, int flags) {
  return real_methods(file).xShmLock(faulty(file)->real(), offset, n, flags);
}
void faulty_shm_barrier(sqlite3_file* file) {
  real_methods(file).xShmBarrier(faulty(file)->real());
}
int faulty_shm_unmap(sqlite3_file* file, int delete_flag) {
  return real_methods(file).xShmUnmap(faulty(file)->real(), delete_flag);
}

// Version 2: the WAL index in shared memory, no memory-mapped reads (so
// every page read goes through xRead).
const sqlite3_io_methods kFaultyMethods = {
    2,
    faulty_close,
    faulty_read,
    faulty_write,
    faulty_truncate,
    faulty_sync,
    faulty_file_size,
    faulty_lock,
    faulty_unlock,
    faulty_check_reserved_lock,
    faulty_file_control,
    faulty_sector_size,
    faulty_device_characteristics,
    faulty_shm_map,
    faulty_shm_lock,
    faulty_shm_barrier,
    faulty_shm_unmap,
    nullptr,
    nullptr,
};

int faulty_open(sqlite3_vfs*, const char* name, sqlite3_file* file, int flags, int* out_flags) {
  FaultyFile* shim = faulty(file);
  shim->base.pMethods = nullptr;
  shim->name = name;
  const int rc = real_vfs->xOpen(real_vfs, name, shim->real(), flags, out_flags);
  if (shim->real()->pMethods != nullptr) {
    shim->base.pMethods = &kFaultyMethods;  // xClose must run even if the open failed
  }
  if (rc == SQLITE_OK && power_loss_mode && name != nullptr && synced_content.count(name) == 0) {
    synced_content[name] = content_of(shim->real());
  }
  return rc;
}
int faulty_delete(sqlite3_vfs*, const char* name, int sync_dir) {
  if (armed && powered_off) {
    return SQLITE_IOERR_DELETE;
  }
  synced_content.erase(name);  // a delete is taken as durable
  return real_vfs->xDelete(real_vfs, name, sync_dir);
}
int faulty_access(sqlite3_vfs*, const char* name, int flags, int* out) {
  return real_vfs->xAccess(real_vfs, name, flags, out);
}
int faulty_full_pathname(sqlite3_vfs*, const char* name, int size, char* out) {
  return real_vfs->xFullPathname(real_vfs, name, size, out);
}
int faulty_randomness(sqlite3_vfs*, int size, char* out) {
  return real_vfs->xRandomness(real_vfs, size, out);
}
int faulty_sleep(sqlite3_vfs*, int micros) { return real_vfs->xSleep(real_vfs, micros); }
int faulty_current_time(sqlite3_vfs*, double* out) { return real_vfs->xCurrentTime(real_vfs, out); }
int faulty_get_last_error(sqlite3_vfs*, int size, char* out) {
  return real_vfs->xGetLastError(real_vfs, size, out);
}
int faulty_current_time_int64(sqlite3_vfs*, sqlite3_int64* out) {
  return real_vfs->xCurrentTimeInt64(real_vfs, out);
}

sqlite3_vfs faulty_vfs;

void register_faulty_vfs() {
  if (real_vfs != nullptr) {
    return;
  }
  real_vfs = sqlite3_vfs_find(nullptr);
  faulty_vfs = sqlite3_vfs{};
  faulty_vfs.iVersion = 2;
  faulty_vfs.szOsFile = static_cast<int>(sizeof(FaultyFile)) + real_vfs->szOsFile;
  faulty_vfs.mxPathname = real_vfs->mxPathname;
  faulty_vfs.zName = "simhash_faulty";
  faulty_vfs.xOpen = faulty_open;
  faulty_vfs.xDelete = faulty_delete;
  faulty_vfs.xAccess = faulty_access;
  faulty_vfs.xFullPathname = faulty_full_pathname;
  faulty_vfs.xRandomness = faulty_randomness;
  faulty_vfs.xSleep = faulty_sleep;
  faulty_vfs.xCurrentTime = faulty_current_time;
  faulty_vfs.xGetLastError = faulty_get_last_error;
  faulty_vfs.xCurrentTimeInt64 = faulty_current_time_int64;
  ASSERT_EQ(sqlite3_vfs_register(&faulty_vfs, 0), SQLITE_OK);
}

// Runs the workload with I/O operation `n` failing (0: none); returns the
// number of operations the run made.
long run_once(long n, const std::string& path, bool wal) {
  remove_database(path);
  sqlite3* db = open_with_extension(path, "simhash_faulty");
  if (wal) {
    EXPECT_EQ(query_text(db, "PRAGMA journal_mode=WAL"), "wal\n");
  }
  const std::vector<std::string> statements = fault_workload();
  int rc = SQLITE_OK;
  char* message = nullptr;
  operations = 0;
  failed = false;
  fail_at = n;
  armed = true;
  const std::size_t failed_statement = run_statements(db, statements, rc, message);
  armed = false;
  const long made = operations;
  const std::string context = std::string(wal ? "WAL" : "rollback journal") + ", I/O operation " +
                              std::to_string(n) +
                              take_failure(statements, failed_statement, rc, message);
  if (failed_statement < statements.size()) {
    EXPECT_EQ(rc & 0xff, SQLITE_IOERR) << context;
    EXPECT_TRUE(failed) << "an error with no failed operation: " << context;
  }
  roll_back_and_close(db);
  expect_sound_database(path, context);
  remove_database(path);
  return made;
}

TEST(IoFaults, EveryReadWriteSyncAndTruncateFailsCleanly) {
  register_faulty_vfs();
  const std::string path = ::testing::TempDir() + "simhash_io_" + std::to_string(getpid()) + ".db";
  const char* stride_text = std::getenv("SIMHASH_IO_STRIDE");
  const long stride = stride_text != nullptr ? std::max(1L, std::atol(stride_text)) : 1;
  for (const bool wal : {false, true}) {
    const long total = run_once(0, path, wal);
    ASSERT_GT(total, 50) << "the shim is not in the path";
    long tried = 0;
    for (long n = 1; n <= total && !::testing::Test::HasFailure(); n += stride) {
      run_once(n, path, wal);
      ++tried;
    }
    std::printf("%s: %ld I/O operations in the workload, %ld tried (every %ld)\n",
                wal ? "WAL" : "rollback journal", total, tried, stride);
    RecordProperty(wal ? "wal_operations" : "journal_operations", static_cast<int>(total));
  }
}

// The mirror's rows after each statement of a run without faults, as a
// power loss right after it must leave them: a statement inside a
// transaction leaves the state of the last commit.
std::vector<std::string> durable_states(const std::string& path, bool wal) {
  remove_database(path);
  sqlite3* db = open_with_extension(path, "simhash_faulty");
  if (wal) {
    query_text(db, "PRAGMA journal_mode=WAL");
  }
  const char* kMirror = "SELECT id, fp FROM mirror ORDER BY id";
  std::vector<std::string> states;
  std::string durable = query_text(db, kMirror);
  for (const std::string& sql : fault_workload()) {
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sql;
    if (sqlite3_get_autocommit(db) != 0) {
      durable = query_text(db, kMirror);
    }
    states.push_back(durable);
  }
  sqlite3_close(db);
  remove_database(path);
  return states;
}

// Runs the workload until the power goes at I/O operation `n`, puts back
// what was synced, and checks the database: sound, the index equal to the
// mirror, and the mirror as the last acknowledged commit left it (or, when
// the failing statement ended a transaction whose commit was already
// durable, as it left it).
void lose_power_at(long n, const std::string& path, bool wal,
                   const std::vector<std::string>& states) {
  remove_database(path);
  synced_content.clear();
  power_loss_mode = true;
  sqlite3* db = open_with_extension(path, "simhash_faulty");
  if (wal) {
    EXPECT_EQ(query_text(db, "PRAGMA journal_mode=WAL"), "wal\n");
  }
  const std::vector<std::string> statements = fault_workload();
  int rc = SQLITE_OK;
  char* message = nullptr;
  operations = 0;
  failed = false;
  powered_off = false;
  fail_at = n;
  armed = true;
  const std::size_t failed_statement = run_statements(db, statements, rc, message);
  sqlite3_close_v2(db);  // with the power off: nothing more reaches the files
  armed = false;
  power_loss_mode = false;
  powered_off = false;
  const std::string context = std::string(wal ? "WAL" : "rollback journal") +
                              ", power lost at I/O operation " + std::to_string(n) +
                              take_failure(statements, failed_statement, rc, message);
  for (const auto& [name, content] : synced_content) {
    std::ofstream(name, std::ios::binary | std::ios::trunc) << content;
  }
  expect_sound_database(path, context);
  if (failed_statement < statements.size()) {
    sqlite3* reopened = open_with_extension(path);
    const std::string mirror = query_text(reopened, "SELECT id, fp FROM mirror ORDER BY id");
    sqlite3_close(reopened);
    const std::string before = failed_statement == 0
                                   ? std::string("prepare failed: no such table: mirror")
                                   : states[failed_statement - 1];
    EXPECT_TRUE(mirror == before || mirror == states[failed_statement])
        << context << ": the mirror holds\n"
        << mirror << "expected the last commit's\n"
        << before;
  }
  remove_database(path);
}

TEST(IoFaults, PowerLossKeepsEveryAcknowledgedCommit) {
  register_faulty_vfs();
  const std::string path =
      ::testing::TempDir() + "simhash_power_" + std::to_string(getpid()) + ".db";
  for (const bool wal : {false, true}) {
    const std::vector<std::string> states = durable_states(path, wal);
    const long total = run_once(0, path, wal);
    for (long n = 1; n <= total && !::testing::Test::HasFailure(); ++n) {
      lose_power_at(n, path, wal, states);
    }
    std::printf("%s: power lost at each of %ld I/O operations\n", wal ? "WAL" : "rollback journal",
                total);
  }
}

}  // namespace
}  // namespace simhash::testing
