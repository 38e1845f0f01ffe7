// A database file is the same on every architecture (issue 12): the same
// writes give the same bytes, and a file written on one machine answers
// exactly on another. The test writes a file with a fixed-seed workload (two
// indexes, k=3 and k=6, random inserts, updates and deletes) and checks it
// against brute force. With SIMHASH_PORTABLE_DB=<path> it also compares with
// the file at that path: the first run (CI's native build) leaves its file
// there; a run on another architecture (the cross builds under qemu) then
// checks that file's integrity and answers, and that its own file has the
// same bytes.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include "index_test_support.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

struct PortableContent {
  Model near;  // k=3
  Model wide;  // k=6
};

// The fixed workload: the same rows and the same statements on every machine
// (std::mt19937_64 is specified bit for bit).
PortableContent write_portable_database(const std::string& path) {
  TestDatabase db(path);
  db.exec("PRAGMA page_size = 4096");
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec("CREATE VIRTUAL TABLE wide USING simhash_index(k=6)");
  std::mt19937_64 random(20261123);
  PortableContent content;
  for (auto [table, model] : {std::pair{"near", &content.near}, std::pair{"wide", &content.wide}}) {
    db.exec("BEGIN");
    Prepared insert(db.handle(),
                    std::string("INSERT INTO ") + table + "(rowid, fp) VALUES (?1, ?2)");
    std::int64_t id = 1;
    for (const std::uint64_t fp : make_fingerprints(3000, random)) {
      sqlite3_bind_int64(insert.get(), 1, id);
      sqlite3_bind_int64(insert.get(), 2, static_cast<sqlite3_int64>(fp));
      EXPECT_EQ(sqlite3_step(insert.get()), SQLITE_DONE);
      sqlite3_reset(insert.get());
      (*model)[id++] = fp;
    }
    db.exec("COMMIT");
    mutate(db.handle(), table, *model, 600, random);
  }
  return content;
}

void expect_answers(const std::string& path, const PortableContent& content) {
  TestDatabase db(path);
  std::mt19937_64 random(7);
  verify_against_model(db.handle(), "near", content.near, 3, random);
  verify_against_model(db.handle(), "wide", content.wide, 6, random, 4);
}

std::string bytes_of(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

TEST(PortableFile, SameBytesAndAnswersOnEveryMachine) {
  TempDatabaseFile written("portable_file");
  const PortableContent content = write_portable_database(written.path());
  expect_answers(written.path(), content);
  const char* shared = std::getenv("SIMHASH_PORTABLE_DB");
  if (shared == nullptr) {
    return;
  }
  if (!std::filesystem::exists(shared)) {
    std::filesystem::copy_file(written.path(), shared);
    std::printf("wrote %s for the other architectures\n", shared);
    return;
  }
  // A file from another machine: the same bytes as ours, and exact answers.
  const std::string theirs = bytes_of(shared);
  ASSERT_GT(theirs.size(), 100000U);
  EXPECT_TRUE(theirs == bytes_of(written.path()))
      << shared << " (" << theirs.size() << " bytes) differs from the file written here";
  expect_answers(shared, content);
}

}  // namespace
}  // namespace simhash::testing
