// SPDX-License-Identifier: MIT
// Round trips of the packed-bucket encoding, the probe scan against brute
// force, and rejection of malformed input.
#include "index/bucket_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace simhash {
namespace {

std::vector<BucketEntry> random_entries(std::mt19937_64& random, int count, int rest_bits) {
  std::set<std::int64_t> ids;
  while (static_cast<int>(ids.size()) < count) {
    const auto id = static_cast<std::int64_t>(random());
    ids.insert(random() % 2 ? id : id % 1000);
  }
  std::vector<BucketEntry> entries;
  const std::uint64_t mask =
      rest_bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << rest_bits) - 1;
  for (std::int64_t id : ids) {
    entries.push_back({id, random() & mask});
  }
  return entries;
}

TEST(BucketCodec, RoundTrips) {
  std::mt19937_64 random(5);
  for (int rest_bits : {48, 52, 55, 63}) {
    const int rest_bytes = (rest_bits + 7) / 8;
    for (int count : {0, 1, 2, 10, 300}) {
      const auto entries = random_entries(random, count, rest_bits);
      std::string encoded;
      encode_bucket(entries, rest_bytes, encoded);
      std::vector<BucketEntry> decoded;
      ASSERT_TRUE(decode_bucket(reinterpret_cast<const unsigned char*>(encoded.data()),
                                encoded.size(), rest_bytes, decoded));
      EXPECT_EQ(decoded, entries);
    }
  }
}

// The layout pinned byte for byte (bucket_codec.h), worked out by hand from
// the format, not copied from the encoder: databases written today must read
// forever, so a change here is a format change, never a refactoring.
std::string hex(const std::string& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (const char byte : bytes) {
    text.push_back(kDigits[static_cast<unsigned char>(byte) >> 4]);
    text.push_back(kDigits[static_cast<unsigned char>(byte) & 15]);
  }
  return text;
}

TEST(BucketCodec, GoldenBytes) {
  struct Golden {
    std::vector<BucketEntry> entries;
    int rest_bytes;
    const char* bytes;
  };
  const Golden goldens[] = {
      // count 3; three 6-byte big-endian rests; Rice parameter 1 (gaps 2
      // and 5 code as 1 and 4: 0|1 and 110|0, 6 bits in all, fewer than
      // with 0 or 2); zigzag(5) = 10; the codes packed from bit 0: 0x0e.
      {{{5, 0xab}, {7, 0x123456789abc}, {12, 0xffffffffffff}},
       6,
       "03"
       "0000000000ab"
       "123456789abc"
       "ffffffffffff"
       "01"
       "0a"
       "0e"},
      // count 2; 2-byte rests; Rice parameter 19 (ties with 20 go to the
      // smaller); zigzag(-3) = 5; gap 1000003 codes 1000002 as quotient 1
      // (bits 1, 0) then the low 19 bits 475714: 0x1d0909 from bit 0.
      {{{-3, 0x0102}, {1000000, 0xffff}},
       2,
       "02"
       "0102"
       "ffff"
       "13"
       "05"
       "09091d"},
      // One entry: no gaps, Rice parameter 0; a negative first id.
      {{{-1, 0x7fffffffffffffff}},
       8,
       "01"
       "7fffffffffffffff"
       "00"
       "01"},
  };
  for (const Golden& golden : goldens) {
    std::string encoded;
    encode_bucket(golden.entries, golden.rest_bytes, encoded);
    EXPECT_EQ(hex(encoded), golden.bytes);
    std::vector<BucketEntry> decoded;
    ASSERT_TRUE(decode_bucket(reinterpret_cast<const unsigned char*>(encoded.data()),
                              encoded.size(), golden.rest_bytes, decoded));
    EXPECT_EQ(decoded, golden.entries);
  }
}

TEST(BucketCodec, ExtremeIds) {
  const std::vector<BucketEntry> entries = {{std::numeric_limits<std::int64_t>::min(), 1},
                                            {-1, 2},
                                            {0, 3},
                                            {std::numeric_limits<std::int64_t>::max(), 4}};
  std::string encoded;
  encode_bucket(entries, 6, encoded);
  std::vector<BucketEntry> decoded;
  ASSERT_TRUE(decode_bucket(reinterpret_cast<const unsigned char*>(encoded.data()), encoded.size(),
                            6, decoded));
  EXPECT_EQ(decoded, entries);
}

bool decodes(const std::string& encoded, int rest_bytes, std::vector<BucketEntry>& decoded) {
  decoded.clear();
  return decode_bucket(reinterpret_cast<const unsigned char*>(encoded.data()), encoded.size(),
                       rest_bytes, decoded);
}

TEST(BucketCodec, DenseAndSparseIdsRoundTrip) {
  std::mt19937_64 random(17);
  for (std::uint64_t max_gap : {1ull, 2ull, 100ull, 1ull << 17, 1ull << 40}) {
    std::vector<BucketEntry> entries;
    std::int64_t id = -static_cast<std::int64_t>(random() % 1000);
    for (int i = 0; i < 500; ++i) {
      entries.push_back({id, random() & 0xffffffffffff});
      id += 1 + static_cast<std::int64_t>(random() % max_gap);
    }
    std::string encoded;
    encode_bucket(entries, 6, encoded);
    std::vector<BucketEntry> decoded;
    ASSERT_TRUE(decodes(encoded, 6, decoded)) << max_gap;
    EXPECT_EQ(decoded, entries);
    // Rice-coded gaps cost about log2(mean gap) + 2 bits, well under a varint.
    const double gap_bits = static_cast<double>(encoded.size() - 6 * entries.size()) * 8 / 500;
    EXPECT_LE(gap_bits, std::log2(static_cast<double>(max_gap)) + 3) << max_gap;
  }
}

TEST(BucketCodec, RejectsTruncatedPaddedAndOverflowingInput) {
  std::mt19937_64 random(23);
  const auto entries = random_entries(random, 40, 48);
  std::string encoded;
  encode_bucket(entries, 6, encoded);
  std::vector<BucketEntry> decoded;
  ASSERT_TRUE(decodes(encoded, 6, decoded));
  for (std::size_t size = 1; size < encoded.size(); ++size) {
    EXPECT_FALSE(decodes(encoded.substr(0, size), 6, decoded)) << size;
  }
  EXPECT_FALSE(decodes(encoded + std::string(1, '\0'), 6, decoded));
  // Two entries: count 2, two 6-byte rests, Rice parameter 0, the first id,
  // then one unary 0 (a gap of 1) in the low bit of the last byte.
  std::string crafted = {2};
  crafted += std::string(12, '\x01');
  crafted += '\0';
  crafted += '\x0a';  // zigzag(5)
  crafted += '\0';
  ASSERT_TRUE(decodes(crafted, 6, decoded));
  EXPECT_EQ(decoded, (std::vector<BucketEntry>{{5, 0x010101010101}, {6, 0x010101010101}}));
  std::string padded = crafted;
  padded.back() = '\x80';  // a set bit in the padding
  EXPECT_FALSE(decodes(padded, 6, decoded));
  std::string bad_rice = crafted;
  bad_rice[13] = 64;
  EXPECT_FALSE(decodes(bad_rice, 6, decoded));
  // A first id of INT64_MAX leaves no room for a second one.
  const auto with_first_id = [&](std::int64_t first) {
    std::string out = crafted.substr(0, 14);
    for (std::uint64_t value = static_cast<std::uint64_t>(first) << 1;; value >>= 7) {
      out.push_back(static_cast<char>(value < 0x80 ? value : (value & 0x7f) | 0x80));
      if (value < 0x80) {
        break;
      }
    }
    return out + std::string(1, '\0');
  };
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  ASSERT_TRUE(decodes(with_first_id(max - 1), 6, decoded));
  EXPECT_EQ(decoded[1].id, max);
  EXPECT_FALSE(decodes(with_first_id(max), 6, decoded));
  EXPECT_FALSE(decodes(std::string(1, '\0'), 6, decoded));  // a count of zero
}

// skip_to_clean_end, which a probe runs on a bucket it reports a row from,
// accepts every sound bucket after any number of ids read, refuses every
// change of length, and otherwise says what decoding every id says, but
// for the id range checks it leaves out.
TEST(BucketCodec, SkippingToTheEndAgreesWithDecoding) {
  std::mt19937_64 random(31);
  int damaged = 0;
  int only_decoding_refused = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int count = 1 + static_cast<int>(random() % 300);
    std::string blob;
    encode_bucket(random_entries(random, count, 48), 6, blob);
    const int kind = trial % 4;
    const std::size_t ids_at = blob.size() - 2 - random() % 2;  // in the id section
    if (kind == 1) {
      blob[ids_at] = static_cast<char>(blob[ids_at] ^ (1 + random() % 255));
    } else if (kind == 2) {
      blob.pop_back();
    } else if (kind == 3) {
      blob.push_back(static_cast<char>(random()));
    }
    BucketView view;
    if (!view.parse(reinterpret_cast<const unsigned char*>(blob.data()), blob.size(), 6)) {
      EXPECT_NE(kind, 0);
      continue;
    }
    BucketIdReader decoding(view);
    std::int64_t id = 0;
    bool decoded = true;
    for (std::size_t index = 0; index < view.count() && decoded; ++index) {
      decoded = decoding.next(id);
    }
    decoded = decoded && decoding.at_clean_end();
    BucketIdReader skipping(view);
    const std::size_t read_first = random() % (view.count() + 1);
    bool skipped = true;
    for (std::size_t index = 0; index < read_first && skipped; ++index) {
      skipped = skipping.next(id);
    }
    skipped = skipped && skipping.skip_to_clean_end();
    if (kind == 0) {
      EXPECT_TRUE(decoded && skipped) << trial;
      continue;
    }
    ++damaged;
    if (kind >= 2) {
      EXPECT_FALSE(skipped) << trial;
    }
    if (decoded) {
      EXPECT_TRUE(skipped) << trial;
    } else if (skipped) {
      ++only_decoding_refused;
    }
  }
  EXPECT_LE(only_decoding_refused, damaged / 50) << damaged;
}

// The id section read one bit at a time, as docs/format.md states it: the
// reference BucketIdReader's word-at-a-time reading must agree with. Sets
// `ids` to the ids read before the first failure; true if all `count` were
// read and the section ends with them (fewer than 8 zero bits left).
bool reference_ids(const unsigned char* section, std::size_t size, std::size_t count,
                   std::vector<std::int64_t>& ids) {
  ids.clear();
  if (size == 0 || section[0] > 63) {
    return false;
  }
  const int rice = section[0];
  std::size_t at = 1;
  std::uint64_t raw = 0;
  for (int shift = 0;; shift += 7) {
    if (at == size || shift >= 64) {
      return false;
    }
    raw |= static_cast<std::uint64_t>(section[at] & 0x7f) << shift;
    if ((section[at++] & 0x80) == 0) {
      break;
    }
  }
  std::int64_t id = static_cast<std::int64_t>(raw >> 1) ^ -static_cast<std::int64_t>(raw & 1);
  ids.push_back(id);
  const std::uint64_t total = (size - at) * 8;
  std::uint64_t position = 0;
  const auto bit = [&](std::uint64_t p) { return (section[at + p / 8] >> (p % 8)) & 1; };
  while (ids.size() < count) {
    std::uint64_t quotient = 0;
    while (position < total && bit(position) == 1) {
      ++quotient;
      ++position;
    }
    if (position == total || total - position - 1 < static_cast<std::uint64_t>(rice)) {
      return false;
    }
    ++position;  // the unary code's zero
    std::uint64_t low = 0;
    for (int b = 0; b < rice; ++b, ++position) {
      low |= static_cast<std::uint64_t>(bit(position)) << b;
    }
    if (quotient > (~std::uint64_t{0} >> rice)) {
      return false;
    }
    const std::uint64_t value = (quotient << rice) | low;
    if (value >= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) -
                     static_cast<std::uint64_t>(id)) {
      return false;
    }
    id = static_cast<std::int64_t>(static_cast<std::uint64_t>(id) + value + 1);
    ids.push_back(id);
  }
  for (; position < total; ++position) {
    if (bit(position) != 0 || total - position >= 8) {
      return false;
    }
  }
  return true;
}

// BucketIdReader reads the Rice codes a word at a time: on sound and damaged
// id sections (random bytes, runs of ones longer than a word, Rice
// parameters up to 63, sections of every length near 8 bytes) it reads the
// ids the bit-by-bit reference reads, fails where it fails, and finds the
// same clean end.
TEST(BucketCodec, IdReaderAgreesWithABitByBitReference) {
  std::mt19937_64 random(2037);
  int sound = 0;
  int refused = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::size_t count = 1 + random() % (trial % 3 == 0 ? 4 : 60);
    std::string section;
    if (trial % 2 == 0) {
      // A sound section: gaps of one scale, so that every Rice parameter comes up.
      const int scale = static_cast<int>(random() % 64);
      std::vector<BucketEntry> entries;
      std::int64_t id = static_cast<std::int64_t>(random() >> (random() % 64));
      for (std::size_t i = 0; i < count; ++i) {
        entries.push_back({id, 0});
        const std::uint64_t gap = 1 + ((random() >> 1) >> (63 - scale));
        // The room above id, in unsigned arithmetic (id may be negative).
        const std::uint64_t room =
            static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) -
            static_cast<std::uint64_t>(id);
        if (gap >= room) {
          break;
        }
        id = static_cast<std::int64_t>(static_cast<std::uint64_t>(id) + gap);
      }
      std::string blob;
      encode_bucket(entries, 1, blob);
      BucketView view;
      ASSERT_TRUE(view.parse(reinterpret_cast<const unsigned char*>(blob.data()), blob.size(), 1));
      count = entries.size();  // < 128: a one-byte count, then one-byte rests
      section = blob.substr(1 + count);
      if (trial % 4 == 2 && !section.empty()) {  // one byte changed, kept, cut or added
        const std::size_t at = random() % section.size();
        const int change = static_cast<int>(random() % 3);
        if (change == 0) {
          section[at] = static_cast<char>(section[at] ^ (1 << (random() % 8)));
        } else if (change == 1) {
          section.pop_back();
        } else {
          section.push_back(static_cast<char>(random() % 2 ? 0 : random()));
        }
      }
    } else {
      // Random bytes after a Rice byte: long runs of ones where bytes are 0xff.
      section.push_back(static_cast<char>(random() % 70));
      const std::size_t bytes = random() % 24;
      for (std::size_t i = 0; i < bytes; ++i) {
        const unsigned kind = random() % 4;
        section.push_back(static_cast<char>(kind == 0 ? 0xff : kind == 1 ? 0 : random()));
      }
    }
    // The view: `count` one-byte rests, then the section.
    std::string blob(1, static_cast<char>(count));
    blob.append(count, '\0');
    blob += section;
    BucketView view;
    if (!view.parse(reinterpret_cast<const unsigned char*>(blob.data()), blob.size(), 1)) {
      continue;  // the header's size check refused it first
    }
    std::vector<std::int64_t> expected;
    const bool clean = reference_ids(reinterpret_cast<const unsigned char*>(section.data()),
                                     section.size(), count, expected);
    BucketIdReader reader(view);
    std::vector<std::int64_t> read;
    std::int64_t id = 0;
    while (read.size() < count && reader.next(id)) {
      read.push_back(id);
    }
    ASSERT_EQ(read, expected) << trial;
    ASSERT_EQ(read.size() == count && reader.at_clean_end(), clean) << trial;
    BucketIdReader skipper(view);
    if (skipper.next(id)) {
      // Skipping checks lengths only, not the id range: it may accept more.
      const bool skipped = skipper.skip_to_clean_end();
      if (clean) {
        ASSERT_TRUE(skipped) << trial;
      }
    }
    sound += clean;
    refused += !clean;
  }
  // Both kinds came up often enough for the comparison to mean something.
  EXPECT_GT(sound, 3000);
  EXPECT_GT(refused, 3000);
}

TEST(BucketCodec, FindCloseMatchesBruteForce) {
  std::mt19937_64 random(31);
  for (int rest_bits : {48, 55, 60}) {
    const int rest_bytes = (rest_bits + 7) / 8;
    for (int count : {1, 7, 300}) {
      auto entries = random_entries(random, count, rest_bits);
      const std::uint64_t query = random() & ((std::uint64_t{1} << rest_bits) - 1);
      // Plant some entries near the query.
      for (BucketEntry& entry : entries) {
        if (random() % 3 == 0) {
          entry.rest = query ^ (std::uint64_t{1} << (random() % rest_bits)) ^
                       (std::uint64_t{1} << (random() % rest_bits));
        }
      }
      std::string encoded;
      encode_bucket(entries, rest_bytes, encoded);
      BucketView view;
      ASSERT_TRUE(view.parse(reinterpret_cast<const unsigned char*>(encoded.data()), encoded.size(),
                             rest_bytes));
      ASSERT_EQ(view.count(), entries.size());
      for (const std::uint64_t prefix_mask :
           {std::uint64_t{0}, std::uint64_t{0xff} << (rest_bits - 8)}) {
        for (int radius : {0, 2, 5}) {
          std::vector<CloseEntry> found;
          view.find_close(query, prefix_mask, radius, found);
          std::vector<CloseEntry> expected;
          for (std::size_t i = 0; i < entries.size(); ++i) {
            const std::uint64_t difference = entries[i].rest ^ query;
            if ((difference & prefix_mask) == 0 && std::popcount(difference) <= radius) {
              expected.push_back({static_cast<std::uint32_t>(i), std::popcount(difference)});
            }
          }
          ASSERT_EQ(found.size(), expected.size());
          for (std::size_t i = 0; i < found.size(); ++i) {
            EXPECT_EQ(found[i].index, expected[i].index);
            EXPECT_EQ(found[i].distance, expected[i].distance);
            EXPECT_EQ(view.rest(found[i].index), entries[found[i].index].rest);
          }
        }
      }
      // Ids read in order match, and stop at the end.
      BucketIdReader ids(view);
      std::int64_t id = 0;
      for (const BucketEntry& entry : entries) {
        ASSERT_TRUE(ids.next(id));
        EXPECT_EQ(id, entry.id);
      }
      EXPECT_FALSE(ids.next(id));
      EXPECT_TRUE(ids.at_clean_end());
    }
  }
}

TEST(BucketLayout, SplitsAndJoinsKeys) {
  std::string error;
  for (auto [k, blocks] : {std::pair{3, 4}, {6, 7}, {0, 1}, {16, 17}}) {
    const auto plan = PermutationPlan::create(k, blocks, error);
    ASSERT_TRUE(plan) << error;
    const BucketLayout layout(*plan, BucketLayout::kDefaultBucketBits);
    std::mt19937_64 random(9);
    for (int table = 0; table < plan->table_count(); ++table) {
      EXPECT_LE(layout.bucket_bits(table), plan->prefix_bits(table));
      EXPECT_LE(layout.bucket_bits(table), BucketLayout::kMaxBucketBits);
      const std::uint64_t key = random();
      const std::uint64_t bucket = layout.bucket_of(table, key);
      EXPECT_LT(bucket, std::uint64_t{1} << BucketLayout::kMaxBucketBits);
      EXPECT_EQ(layout.key_of(table, bucket, layout.rest_of(table, key)), key);
      EXPECT_LE(layout.rest_bits(table), 8 * layout.rest_bytes(table));
    }
  }
}

// The growth rule (bucket_codec.h): at most kMaxAverageEntries rows per
// bucket, never fewer bits than now, never more than a table's prefix can give.
TEST(BucketLayout, BitsFollowTheRowsWithinThePrefix) {
  std::string error;
  const auto plan = PermutationPlan::create(1, 4, error);  // 48 prefix bits
  ASSERT_TRUE(plan) << error;
  const BucketLayout layout(*plan, BucketLayout::kDefaultBucketBits);
  EXPECT_EQ(layout.bits_for_rows(0), 16);
  EXPECT_EQ(layout.bits_for_rows(std::int64_t{256} << 16), 16);
  EXPECT_EQ(layout.bits_for_rows((std::int64_t{256} << 16) + 1), 17);
  EXPECT_EQ(layout.bits_for_rows(10'000'000), 16);
  EXPECT_EQ(layout.bits_for_rows(100'000'000), 19);
  EXPECT_EQ(layout.bits_for_rows(std::int64_t{1} << 62), BucketLayout::kMaxBucketBits);
  EXPECT_EQ(BucketLayout(*plan, 20).bits_for_rows(0), 20);
  EXPECT_EQ(BucketLayout(*plan, 2).bits_for_rows(5000), 5);
  // k=3, blocks=4 (the default): every prefix is 16 bits, so the bucket is
  // already the whole prefix and more bits would change nothing.
  const auto default_plan = PermutationPlan::create(3, 4, error);
  ASSERT_TRUE(default_plan) << error;
  EXPECT_EQ(BucketLayout(*default_plan, 16).bits_for_rows(100'000'000), 16);
  EXPECT_EQ(BucketLayout(*default_plan, 2).bits_for_rows(100'000'000), 16);
  // k=3, blocks=5: prefixes of 25 and 26 bits.
  const auto five = PermutationPlan::create(3, 5, error);
  ASSERT_TRUE(five) << error;
  EXPECT_EQ(BucketLayout(*five, 16).bits_for_rows(100'000'000), 19);
  EXPECT_EQ(BucketLayout(*five, 16).bits_for_rows(std::int64_t{1} << 40), 26);
}

// The growth rewrites buckets from the highest row id down; that is safe
// because raising the bits maps every row id to ids at least as high, in the
// same order, across tables too.
TEST(BucketLayout, RaisingTheBitsKeepsRowIdsInOrderAndNeverLower) {
  std::string error;
  for (auto [k, blocks] : {std::pair{3, 4}, {6, 8}, {1, 4}}) {
    const auto plan = PermutationPlan::create(k, blocks, error);
    ASSERT_TRUE(plan) << error;
    std::mt19937_64 random(31);
    for (auto [from, to] : {std::pair{1, 2}, {3, 9}, {16, 17}, {16, 32}}) {
      const BucketLayout before(*plan, from);
      const BucketLayout after(*plan, to);
      std::vector<std::pair<std::int64_t, std::int64_t>> ids;  // (before, after)
      for (int i = 0; i < 2000; ++i) {
        const int table = static_cast<int>(random() % plan->table_count());
        const std::uint64_t key = random();
        ids.emplace_back(before.row_id(table, before.bucket_of(table, key)),
                         after.row_id(table, after.bucket_of(table, key)));
        EXPECT_EQ(before.table_of(ids.back().first), table);
        EXPECT_EQ(after.table_of(ids.back().second), table);
      }
      std::sort(ids.begin(), ids.end());
      for (std::size_t i = 0; i < ids.size(); ++i) {
        EXPECT_GE(ids[i].second, ids[i].first);
        if (i > 0 && ids[i].first > ids[i - 1].first) {
          EXPECT_GT(ids[i].second, ids[i - 1].second) << from << " -> " << to;
        }
      }
    }
  }
}

}  // namespace
}  // namespace simhash
