// SPDX-License-Identifier: MIT
// The posting blob codec (similar/posting_blob.h): bytes pinned by hand (the
// same on every machine), damaged blobs named, and encode, decode, merge and
// split against a model (a std::set of entries) with fixed seeds: random
// adds and removes, colliding keys, huge runs of one key, and empty results.
#include "similar/posting_blob.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace simhash {
namespace {

std::string hex(const std::string& bytes) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    out += kHex[byte >> 4U];
    out += kHex[byte & 0xFU];
  }
  return out;
}

std::span<const unsigned char> as_bytes(const std::string& bytes) {
  return {reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()};
}

std::string from_hex(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i + 1 < text.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(text.substr(i, 2), nullptr, 16)));
  }
  return out;
}

TEST(PostingBlob, KeyIsTheTop32BitsAndThePositionSortsByKeyThenSize) {
  EXPECT_EQ(posting_key(0x0123456789ABCDEFULL), 0x01234567U);
  EXPECT_EQ(posting_key(0xFFFFFFFF00000000ULL), 0xFFFFFFFFU);
  EXPECT_EQ(posting_position(1, 5), (std::int64_t{1} << 31) + 5);
  EXPECT_EQ(posting_position(0xFFFFFFFFU, INT64_MAX), INT64_MAX);
  EXPECT_EQ(posting_position(2, std::int64_t{1} << 40), posting_position(2, kLargestPositionSize));
  EXPECT_LT(posting_position(2, std::int64_t{1} << 40), posting_position(3, 0));
}

TEST(PostingBlob, BytesArePinned) {
  // Key 1: one posting (size 3, id 5). Key 300: three postings, (4, 7),
  // (4, 8) (the same size: id delta less one, 0) and (6, -2) (size delta 2,
  // id zigzag 3).
  const std::vector<PostingEntry> entries = {{1, 3, 5}, {300, 4, 7}, {300, 4, 8}, {300, 6, -2}};
  std::string bytes;
  encode_postings(entries, bytes);
  // 02: key 1, one posting; 03 0a: size 3, id zigzag 10.
  // d704: (299 * 2 + 1) = 599; 01: count 3 - 2; 04 0e: size 4, id 14;
  // 00 00: same size, id + 1; 02 03: size + 2, id -2.
  EXPECT_EQ(hex(bytes),
            "02030ad704"
            "01040e"
            "0000"
            "0203");
  EXPECT_EQ(encoded_postings_size(entries), bytes.size());
  std::vector<PostingEntry> decoded;
  EXPECT_EQ(decode_postings(as_bytes(bytes), decoded), "");
  EXPECT_EQ(decoded, entries);
  // The extremes: the largest key, size and the smallest and largest ids.
  const std::vector<PostingEntry> extremes = {{0xFFFFFFFFU, INT64_MAX, INT64_MIN},
                                              {0xFFFFFFFFU, INT64_MAX, INT64_MAX}};
  bytes.clear();
  encode_postings(extremes, bytes);
  EXPECT_EQ(hex(bytes),
            "ffffffff1f"
            "00"
            "ffffffffffffffff7f"
            "ffffffffffffffffff01"
            "00"
            "feffffffffffffffff01");
  EXPECT_EQ(decode_postings(as_bytes(bytes), decoded), "");
  EXPECT_EQ(decoded, extremes);
}

TEST(PostingBlob, DamagedBlobsAreNamed) {
  std::vector<PostingEntry> out;
  EXPECT_EQ(decode_postings(as_bytes(""), out), "it holds no posting");
  EXPECT_EQ(decode_postings(as_bytes(from_hex("0203")), out), "a number is cut off or too long");
  EXPECT_EQ(decode_postings(as_bytes(from_hex("0203ff")), out), "a number is cut off or too long");
  EXPECT_EQ(decode_postings(as_bytes(from_hex("02ffffffffffffffffff7f00")), out),
            "a number is cut off or too long");
  // A second group of key delta 0.
  EXPECT_EQ(decode_postings(as_bytes(from_hex("0203"
                                              "0a"
                                              "000302")),
                            out),
            "its keys are not ascending");
  EXPECT_EQ(decode_postings(as_bytes(from_hex("feffffff3f030a")), out), "a key is beyond 32 bits");
  // Two postings of one size whose id goes back past the wrap.
  EXPECT_EQ(decode_postings(as_bytes(from_hex("0300"
                                              "0301"
                                              "00ffffffffffffffffff01")),
                            out),
            "its postings are not ascending");
  EXPECT_EQ(decode_postings(as_bytes(from_hex("03ff7f0301")), out),
            "a key's count of postings is more than the bytes hold");
  EXPECT_EQ(decode_postings(as_bytes(from_hex("02ffffffffffffffff800102")), out),
            "a size is out of range");
}

// Random entries of few keys (many collide) or many.
PostingEntry random_entry(std::mt19937_64& random, std::uint32_t keys, std::int64_t ids) {
  return {static_cast<std::uint32_t>(random() % keys), static_cast<std::int64_t>(random() % 50),
          static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(ids)) - ids / 4};
}

TEST(PostingBlob, MergeAndSplitFollowAModel) {
  for (const std::uint64_t seed : {1U, 2U, 3U, 4U, 5U, 6U}) {
    std::mt19937_64 random(seed);
    const std::uint32_t keys = seed % 2 == 0 ? 3 : 0xFFFFFFFFU;
    const std::int64_t ids = seed % 3 == 0 ? 40 : 1'000'000'000'000LL;
    std::set<PostingEntry> model;
    std::vector<PostingEntry> stored;
    std::vector<PostingEntry> merged;
    for (int round = 0; round < 300; ++round) {
      // A batch as the flush makes one: sorted, each entry once.
      std::set<PostingEntry> touched;
      std::vector<PostingChange> changes;
      const int count = static_cast<int>(random() % 40);
      for (int i = 0; i < count; ++i) {
        PostingEntry entry = random_entry(random, keys, ids);
        if (!model.empty() && random() % 2 == 0) {
          auto it = model.lower_bound(entry);
          entry = it == model.end() ? *model.begin() : *it;
        }
        if (touched.insert(entry).second) {
          changes.push_back({entry, random() % 3 != 0});
        }
      }
      std::sort(changes.begin(), changes.end(),
                [](const PostingChange& a, const PostingChange& b) { return a.entry < b.entry; });
      for (const PostingChange& change : changes) {
        if (change.insert) {
          model.insert(change.entry);
        } else {
          model.erase(change.entry);
        }
      }
      merge_postings(stored, changes, merged);
      ASSERT_EQ(merged, std::vector<PostingEntry>(model.begin(), model.end())) << seed;
      // Applied twice, the batch changes nothing more.
      std::vector<PostingEntry> again;
      merge_postings(merged, changes, again);
      ASSERT_EQ(again, merged);
      stored = merged;
      if (stored.empty()) {
        continue;
      }
      // Cut, encoded and decoded piece by piece, the run comes back whole.
      const std::size_t bound = round % 2 == 0 ? 64 : 900;
      const bool between_positions = round % 4 < 2;
      const std::vector<std::size_t> ends = split_postings(stored, bound, between_positions);
      std::vector<PostingEntry> back;
      std::size_t begin = 0;
      for (const std::size_t end : ends) {
        ASSERT_LT(begin, end);
        const std::span<const PostingEntry> piece(stored.data() + begin, end - begin);
        std::string bytes;
        encode_postings(piece, bytes);
        ASSERT_EQ(bytes.size(), encoded_postings_size(piece));
        // Over the bound only one position alone, where cuts fall between
        // positions.
        const bool one_position = posting_position(piece.front()) == posting_position(piece.back());
        if (!(between_positions && one_position)) {
          ASSERT_LE(bytes.size(), ends.size() > 1 ? bound / 8 * 7 : bound);
        }
        if (between_positions && end < stored.size()) {
          ASSERT_LT(posting_position(stored[end - 1]), posting_position(stored[end]));
        }
        std::vector<PostingEntry> decoded;
        ASSERT_EQ(decode_postings(as_bytes(bytes), decoded), "");
        back.insert(back.end(), decoded.begin(), decoded.end());
        begin = end;
      }
      ASSERT_EQ(back, stored);
    }
  }
}

TEST(PostingBlob, AHugeRunOfOneKeyIsCutInPieces) {
  // 100,000 rows that hold one key, of 7 sizes: a piece a size where cuts
  // fall between positions; else no piece over the bound, none empty.
  std::vector<PostingEntry> entries;
  for (std::int64_t id = 1; id <= 100000; ++id) {
    entries.push_back({42, 1 + id % 7, id});
  }
  std::sort(entries.begin(), entries.end());
  // Between positions: a cut at each of the 7 sizes at most.
  const std::vector<std::size_t> by_size = split_postings(entries, 900, true);
  EXPECT_EQ(by_size.size(), 7U);
  for (std::size_t i = 0; i + 1 < by_size.size(); ++i) {
    EXPECT_NE(entries[by_size[i] - 1].size, entries[by_size[i]].size);
  }
  const std::vector<std::size_t> ends = split_postings(entries, 900, false);
  EXPECT_GT(ends.size(), 100U);
  std::size_t begin = 0;
  for (const std::size_t end : ends) {
    const std::span<const PostingEntry> piece(entries.data() + begin, end - begin);
    EXPECT_LE(encoded_postings_size(piece), 900U / 8 * 7);
    if (end != entries.size()) {
      EXPECT_GT(encoded_postings_size(piece), 900U / 2);
    }
    begin = end;
  }
  EXPECT_EQ(begin, entries.size());
}

}  // namespace
}  // namespace simhash
