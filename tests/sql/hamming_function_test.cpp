// SPDX-License-Identifier: MIT
// hamming / simhash_hamming, simhash_hex and simhash_version through SQL:
// results against a reference bit loop, NULL handling, and every error message.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <random>
#include <string>

#include "bound_query.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

// Reference: count differing bits one at a time.
int reference_distance(std::uint64_t a, std::uint64_t b) {
  int differing = 0;
  for (int bit = 0; bit < 64; ++bit) {
    differing += static_cast<int>(((a >> bit) & 1U) != ((b >> bit) & 1U));
  }
  return differing;
}

int reference_distance(const std::string& a, const std::string& b) {
  int differing = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      differing += static_cast<int>(((static_cast<unsigned char>(a[i]) >> bit) & 1U) !=
                                    ((static_cast<unsigned char>(b[i]) >> bit) & 1U));
    }
  }
  return differing;
}

TEST(Hamming, IntegersMatchTheReferenceOnRandomPairs) {
  TestDatabase db;
  std::mt19937_64 random(20261121);
  for (int i = 0; i < 2000; ++i) {
    std::uint64_t a = random();
    // Mix in near pairs: a few flipped bits, as fingerprints of near-duplicates.
    std::uint64_t b = i % 2 == 0 ? random()
                                 : a ^ (std::uint64_t{1} << (random() % 64)) ^
                                       (std::uint64_t{1} << (random() % 64));
    for (const char* name : {"hamming", "simhash_hamming"}) {
      const auto distance =
          bound_integer(db.handle(), std::string("SELECT ") + name + "(?, ?)",
                        {static_cast<std::int64_t>(a), static_cast<std::int64_t>(b)});
      ASSERT_EQ(distance, reference_distance(a, b)) << name << " " << a << " " << b;
    }
  }
}

TEST(Hamming, ExtremeIntegers) {
  TestDatabase db;
  EXPECT_EQ(db.integer("SELECT hamming(0, -1)"), 64);
  EXPECT_EQ(db.integer("SELECT hamming(-9223372036854775808, 9223372036854775807)"), 64);
  EXPECT_EQ(db.integer("SELECT hamming(-9223372036854775808, 0)"), 1);
  EXPECT_EQ(db.integer("SELECT hamming(12345, 12345)"), 0);
  EXPECT_EQ(db.integer("SELECT hamming(1, 7)"), 2);
}

TEST(Hamming, BlobsMatchTheReferenceOnRandomPairs) {
  TestDatabase db;
  std::mt19937_64 random(7);
  for (int i = 0; i < 500; ++i) {
    const std::size_t size = random() % 70;
    std::string a(size, '\0');
    std::string b(size, '\0');
    for (std::size_t j = 0; j < size; ++j) {
      a[j] = static_cast<char>(random());
      b[j] = i % 3 == 0 ? a[j] : static_cast<char>(random());
    }
    const auto distance = bound_integer(db.handle(), "SELECT hamming(?, ?)", {Blob{a}, Blob{b}});
    ASSERT_EQ(distance, reference_distance(a, b)) << "size " << size;
  }
  EXPECT_EQ(db.integer("SELECT hamming(x'', x'')"), 0);
  EXPECT_EQ(db.integer("SELECT hamming(zeroblob(0), x'')"), 0);
  EXPECT_EQ(db.integer("SELECT hamming(x'ff00', x'0f01')"), 5);
}

TEST(Hamming, NullIfEitherIsNullWhateverTheOther) {
  TestDatabase db;
  for (const char* name : {"hamming", "simhash_hamming"}) {
    for (const char* other : {"NULL", "1", "1.5", "'text'", "x'00'"}) {
      const std::string call = std::string(name) + "(NULL, " + other + ")";
      EXPECT_EQ(db.cell("SELECT " + call), std::nullopt) << call;
      const std::string swapped = std::string(name) + "(" + other + ", NULL)";
      EXPECT_EQ(db.cell("SELECT " + swapped), std::nullopt) << swapped;
    }
  }
}

TEST(Hamming, ErrorsNameBothTypes) {
  TestDatabase db;
  const std::string expected = ": expected two INTEGERs or two BLOBs of equal length, got ";
  EXPECT_EQ(db.error("SELECT hamming('5', 5)"), "hamming" + expected + "TEXT and INTEGER");
  EXPECT_EQ(db.error("SELECT hamming('5', '5')"), "hamming" + expected + "TEXT and TEXT");
  EXPECT_EQ(db.error("SELECT hamming(1.0, 1)"), "hamming" + expected + "REAL and INTEGER");
  EXPECT_EQ(db.error("SELECT hamming(1, x'01')"), "hamming" + expected + "INTEGER and BLOB");
  EXPECT_EQ(db.error("SELECT hamming(x'01', 1)"), "hamming" + expected + "BLOB and INTEGER");
  EXPECT_EQ(db.error("SELECT hamming(x'010203', x'01020304')"),
            "hamming" + expected + "BLOBs of 3 and 4 bytes");
  EXPECT_EQ(db.error("SELECT hamming(x'', x'00')"),
            "hamming" + expected + "BLOBs of 0 and 1 bytes");
  EXPECT_EQ(db.error("SELECT simhash_hamming('5', 5)"),
            "simhash_hamming" + expected + "TEXT and INTEGER");
  EXPECT_EQ(db.error("SELECT simhash_hamming(x'00', x'')"),
            "simhash_hamming" + expected + "BLOBs of 1 and 0 bytes");
  EXPECT_NE(db.error("SELECT hamming(1)").find("wrong number of arguments"), std::string::npos);
}

TEST(SimhashHex, SixteenLowercaseDigitsOfTheUnsignedValue) {
  TestDatabase db;
  std::mt19937_64 random(99);
  for (int i = 0; i < 200; ++i) {
    const std::uint64_t value = random() >> (random() % 64);
    char expected[17];
    std::snprintf(expected, sizeof expected, "%016" PRIx64, value);
    const auto result = run_bound(db.handle(), "SELECT simhash_hex(?) = ?",
                                  {static_cast<std::int64_t>(value), std::string(expected)});
    ASSERT_EQ(result.rc, SQLITE_OK) << result.error;
    ASSERT_EQ(result.values.at(0), 1) << expected;
  }
  EXPECT_EQ(db.cell("SELECT simhash_hex(0)"), "0000000000000000");
  EXPECT_EQ(db.cell("SELECT simhash_hex(-1)"), "ffffffffffffffff");
  EXPECT_EQ(db.cell("SELECT simhash_hex(-9223372036854775808)"), "8000000000000000");
  EXPECT_EQ(db.cell("SELECT simhash_hex(255)"), "00000000000000ff");
  EXPECT_EQ(db.cell("SELECT typeof(simhash_hex(1))"), "text");
}

TEST(SimhashHex, NullAndErrors) {
  TestDatabase db;
  EXPECT_EQ(db.cell("SELECT simhash_hex(NULL)"), std::nullopt);
  EXPECT_EQ(db.error("SELECT simhash_hex('ff')"), "simhash_hex: expected an INTEGER, got TEXT");
  EXPECT_EQ(db.error("SELECT simhash_hex(1.0)"), "simhash_hex: expected an INTEGER, got REAL");
  EXPECT_EQ(db.error("SELECT simhash_hex(x'00')"), "simhash_hex: expected an INTEGER, got BLOB");
}

TEST(SimhashVersion, IsTheProjectVersion) {
  TestDatabase db;
  EXPECT_EQ(db.cell("SELECT simhash_version()"), std::string(SIMHASH_VERSION));
  EXPECT_EQ(db.cell("SELECT simhash_version() GLOB '[0-9]*.[0-9]*.[0-9]*'"), "1");
}

}  // namespace
}  // namespace simhash::testing
