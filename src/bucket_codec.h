// Packed buckets: the on-disk form of one (table, prefix bucket) of a
// simhash_index. A bucket holds the entries whose permuted key starts with the
// bucket's top bits; each entry is a row id plus the remaining low bits of the
// key. Entries are sorted by id (signed order): the first id is a zigzag
// varint, every later one a varint of the gap to its predecessor, and each id
// is followed by the remaining key bits as `rest_bytes` big-endian bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "permutation_plan.h"

namespace simhash {

struct BucketEntry {
  std::int64_t id;
  std::uint64_t rest;  // the key bits below the bucket bits
  bool operator==(const BucketEntry&) const = default;
};

// How a plan's permuted keys map onto buckets: a bucket is the top
// bucket_bits(table) bits of the key (the table's prefix, capped at
// kMaxBucketBits so a bucket stays a useful size), and the row that stores it
// has the id (table << kMaxBucketBits) | bucket.
class BucketLayout {
 public:
  static constexpr int kMaxBucketBits = 16;

  explicit BucketLayout(const PermutationPlan& plan);

  int bucket_bits(int table) const { return bucket_bits_[table]; }
  int rest_bits(int table) const { return 64 - bucket_bits_[table]; }
  int rest_bytes(int table) const { return (rest_bits(table) + 7) / 8; }
  std::uint64_t bucket_of(int table, std::uint64_t key) const { return key >> rest_bits(table); }
  std::uint64_t rest_of(int table, std::uint64_t key) const {
    return key & ((std::uint64_t{1} << rest_bits(table)) - 1);
  }
  std::uint64_t key_of(int table, std::uint64_t bucket, std::uint64_t rest) const {
    return (bucket << rest_bits(table)) | rest;
  }
  std::int64_t row_id(int table, std::uint64_t bucket) const {
    return (static_cast<std::int64_t>(table) << kMaxBucketBits) | static_cast<std::int64_t>(bucket);
  }
  // The row ids of a table's buckets are [first_row_id, first_row_id + 2^16).
  std::int64_t first_row_id(int table) const { return row_id(table, 0); }

 private:
  std::vector<int> bucket_bits_;
};

// Appends the encoding of `entries` (sorted by id, ids distinct) to `out`.
void encode_bucket(std::span<const BucketEntry> entries, int rest_bytes, std::string& out);

// Reads a bucket's entries in order. valid() turns false at the end, and
// error() tells whether the end came from a malformed encoding.
class BucketReader {
 public:
  BucketReader(const unsigned char* data, std::size_t size, int rest_bytes)
      : data_(data), end_(data + size), rest_bytes_(rest_bytes) {
    advance();
  }
  bool valid() const { return valid_; }
  bool error() const { return error_; }
  const BucketEntry& entry() const { return entry_; }
  void next() { advance(); }

 private:
  void advance();

  const unsigned char* data_;
  const unsigned char* end_;
  int rest_bytes_;
  bool first_ = true;
  bool valid_ = false;
  bool error_ = false;
  BucketEntry entry_{0, 0};
};

// Decodes a whole bucket; false if it is malformed (or ids are not increasing).
bool decode_bucket(const unsigned char* data, std::size_t size, int rest_bytes,
                   std::vector<BucketEntry>& out);

}  // namespace simhash
