// SPDX-License-Identifier: MIT
// Packed buckets: the on-disk form of one (table, prefix bucket) of a
// simhash_index, specified byte by byte in docs/format.md ("Packed
// buckets"). A bucket holds the entries whose permuted key starts with the
// bucket's top bits; each entry is a row id plus the remaining low bits of
// the key (its "rest"). Entries are sorted by id (signed order); the rests
// come first, big-endian, so a probe scans them without decoding an id, then
// the Rice parameter, the first id (zigzag varint) and the Rice-coded gaps.
// An empty bucket encodes as an empty string (and has no row on disk).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "index/code_scan.h"
#include "index/permutation_plan.h"

namespace simhash {

struct BucketEntry {
  std::int64_t id;
  std::uint64_t rest;  // the key bits below the bucket bits
  bool operator==(const BucketEntry&) const = default;
};

// How a plan's permuted keys map onto buckets. The index has one number, its
// bucket bits B: a table's bucket is the top bucket_bits(table) = min(the
// table's prefix bits, B) bits of the key, and the row that stores it has the
// id (table << B) | bucket. B starts at kDefaultBucketBits (the fixed value of
// storage format 2) and grows with the rows (bits_for_rows), so a bucket holds
// about kMaxAverageEntries / 2 to kMaxAverageEntries entries at any size
// (once the rows have passed kMaxAverageEntries << 16).
// Raising B maps every row id r of a table to ids >= r, in the same order (the
// growth in index/bucket_merge.cpp relies on it).
class BucketLayout {
 public:
  static constexpr int kDefaultBucketBits = 16;
  // At least one bit, so every table's rest has fewer than 64 bits.
  static constexpr int kMinBucketBits = 1;
  // 2^32 buckets a table is far beyond any index on one machine; the table
  // number (< 2^10) stays clear of the sign bit.
  static constexpr int kMaxBucketBits = 32;
  // B grows when the rows exceed this many per bucket of a table. A bucket
  // of 256 to 512 entries (about 8 bytes each) still fits in one 4 KB page;
  // past a page a probe reads overflow pages, while smaller buckets only add
  // rows and bytes and answer no faster (bench/BENCH.md, "Scale: 100 million
  // rows and bucket growth").
  static constexpr std::int64_t kMaxAverageEntries = 256;

  // bucket_bits within kMinBucketBits..kMaxBucketBits.
  BucketLayout(const PermutationPlan& plan, int bucket_bits);

  // B, the index's bucket bits: the cap of every table's and the row id shift.
  int bits() const { return bits_; }
  int bucket_bits(int table) const { return bucket_bits_[table]; }
  int rest_bits(int table) const { return 64 - bucket_bits_[table]; }
  int rest_bytes(int table) const { return (rest_bits(table) + 7) / 8; }
  std::uint64_t bucket_of(int table, std::uint64_t key) const { return key >> rest_bits(table); }
  std::uint64_t rest_of(int table, std::uint64_t key) const {
    return key & ((std::uint64_t{1} << rest_bits(table)) - 1);
  }
  // A key is its bucket in the top bits, its rest below: key_part(bucket)
  // once per bucket, then with_rest for each entry (a loop over a bucket's
  // entries), or key_of for one.
  std::uint64_t key_part(int table, std::uint64_t bucket) const {
    return bucket << rest_bits(table);
  }
  static std::uint64_t with_rest(std::uint64_t part, std::uint64_t rest) { return part | rest; }
  std::uint64_t key_of(int table, std::uint64_t bucket, std::uint64_t rest) const {
    return with_rest(key_part(table, bucket), rest);
  }
  std::int64_t row_id(int table, std::uint64_t bucket) const {
    return (static_cast<std::int64_t>(table) << bits_) | static_cast<std::int64_t>(bucket);
  }
  // The row ids of a table's buckets are [first_row_id(table), first_row_id(table + 1)).
  std::int64_t first_row_id(int table) const { return row_id(table, 0); }
  int table_of(std::int64_t row_id) const { return static_cast<int>(row_id >> bits_); }

  // The B an index of `rows` rows should have: this one's, raised while the
  // rows exceed kMaxAverageEntries per bucket and some table's prefix still
  // has bits to give (up to kMaxBucketBits). Never lower than bits().
  int bits_for_rows(std::int64_t rows) const;

 private:
  int bits_;
  int useful_bits_;  // the largest prefix of any table, within kMaxBucketBits
  std::vector<int> bucket_bits_;
};

// Appends the encoding of `entries` (sorted by id, ids distinct) to `out`.
void encode_bucket(std::span<const BucketEntry> entries, int rest_bytes, std::string& out);

// An entry of a bucket close to a query: its position and its distance.
struct CloseEntry {
  std::uint32_t index;
  int distance;
};

// A parsed, non-owning view of one encoded bucket.
class BucketView {
 public:
  // False if the header is malformed or the blob is too short for the count
  // of entries and the Rice parameter it states; the id section is checked
  // as it is read.
  bool parse(const unsigned char* data, std::size_t size, int rest_bytes);

  std::size_t count() const { return count_; }
  std::uint64_t rest(std::size_t index) const;
  // Appends, in index order, the entries whose rest XOR query_rest has no bit
  // inside prefix_mask and at most `radius` bits in all. `kernel` must run
  // here (code_scan.h); only kAvx512 has a vector loop for the rests (the
  // others run the portable one). Tests name each.
  void find_close(std::uint64_t query_rest, std::uint64_t prefix_mask, int radius,
                  std::vector<CloseEntry>& out, ScanKernel kernel = best_scan_kernel()) const;

 private:
  friend class BucketIdReader;
  const unsigned char* rests_ = nullptr;
  const unsigned char* ids_ = nullptr;  // the Rice parameter byte
  const unsigned char* end_ = nullptr;
  std::size_t count_ = 0;
  int rest_bytes_ = 0;
};

// Reads a bucket's ids in order (the id section only). The Rice codes are
// read by bit position, one 8-byte load per code where 8 bytes remain (a
// code of the usual sizes fits in one): decoding ids is most of what a probe
// into a crowded bucket and a load of the packed codes cost (perf).
class BucketIdReader {
 public:
  explicit BucketIdReader(const BucketView& view);
  // The next id; false if the section is malformed or all ids were read.
  bool next(std::int64_t& id);
  // After all ids were read: true if exactly the section's bytes were used.
  bool at_clean_end() const;
  // Steps over the ids not yet read without forming them (a probe checks
  // the rest of a bucket it reported a row from); then at_clean_end().
  bool skip_to_clean_end();

 private:
  // The Rice byte and the first id (a zigzag varint); false if malformed.
  bool start();
  // The length of the unary quotient (one bits) at position_ and its zero;
  // false if the section ends first.
  bool read_unary(std::uint64_t& value);
  // `bits` (<= 63) bits at position_; false if the section ends first.
  bool read_bits(int bits, std::uint64_t& value);

  const unsigned char* data_;  // the Rice byte; once started, the codes' first byte
  const unsigned char* end_;
  std::uint64_t position_ = 0;  // bits of the codes read
  std::uint64_t total_ = 0;     // bits the codes' bytes hold
  int rice_ = 0;
  std::size_t remaining_;
  std::int64_t previous_ = 0;
  bool started_ = false;
  bool failed_ = false;
};

// Decodes a whole bucket; false if it is malformed (or ids are not increasing).
bool decode_bucket(const unsigned char* data, std::size_t size, int rest_bytes,
                   std::vector<BucketEntry>& out);

}  // namespace simhash
