// SPDX-License-Identifier: MIT
// The entry point refuses an SQLite older than the minimum the README states,
// naming both versions, before it touches the connection. The test hands a
// separate copy of the module (its own globals) an API table that reports
// SQLite 3.39.4 and has nothing else but the calls the refusal makes.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sqlite3ext.h>  // for the API table's type; its macros are not wanted here
#undef sqlite3_mprintf
#undef sqlite3_free

#include <cstdio>
#include <filesystem>
#include <string>

namespace simhash::testing {
namespace {

int old_version_number() { return 3039004; }
const char* old_version() { return "3.39.4"; }

TEST(ExtensionLoad, RefusesSqliteOlderThanTheMinimum) {
  const std::filesystem::path copy = std::filesystem::temp_directory_path() /
                                     ("simhash_version_test_" + std::to_string(::getpid()) + ".so");
  std::filesystem::copy_file(SIMHASH_EXTENSION_PATH, copy,
                             std::filesystem::copy_options::overwrite_existing);
  void* module = dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(module, nullptr) << dlerror();
  using Init = int (*)(sqlite3*, char**, const sqlite3_api_routines*);
  auto init = reinterpret_cast<Init>(dlsym(module, "sqlite3_simhash_init"));
  ASSERT_NE(init, nullptr);
  sqlite3_api_routines api{};
  api.libversion_number = old_version_number;
  api.libversion = old_version;
  api.mprintf = sqlite3_mprintf;
  char* message = nullptr;
  EXPECT_EQ(init(nullptr, &message, &api), SQLITE_ERROR);
  ASSERT_NE(message, nullptr);
  EXPECT_EQ(std::string(message),
            "simhash: needs SQLite 3.40.0 or newer, but this is SQLite 3.39.4");
  sqlite3_free(message);
  dlclose(module);
  std::filesystem::remove(copy);
}

}  // namespace
}  // namespace simhash::testing
