// SPDX-License-Identifier: MIT
// Where the index's packed buckets live, as the bucket algorithms
// (bucket_merge.h) see it: blobs keyed by bucket row id. The SQL glue
// implements it over the X_buckets shadow table; the engine tests over a map.
// The engine decides what to write; the store only reads and writes rows.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "index/bucket_codec.h"

namespace simhash {

class BucketStore {
 public:
  virtual ~BucketStore() = default;

  // Reads go straight from the stored blob to its entries (a store over SQL
  // decodes the column in place, without a copy of the blob): each
  // implementation calls decode_stored_bucket below.
  //
  // Bucket row `row_id` decoded into `out` (appended), its rests of
  // `rest_bytes` bytes; false if there is no such row (an empty bucket).
  virtual bool read(std::int64_t row_id, int rest_bytes, std::vector<BucketEntry>& out) = 0;
  // The stored row with the highest id in [down_to, below), decoded into
  // `out` (appended); its id, or none if there is none.
  virtual std::optional<std::int64_t> read_highest_below(std::int64_t below, std::int64_t down_to,
                                                         int rest_bytes,
                                                         std::vector<BucketEntry>& out) = 0;
  // Stores `blob` as row `row_id`, replacing the row there if any.
  virtual void write(std::int64_t row_id, std::string_view blob) = 0;
  // Deletes row `row_id` (it exists).
  virtual void erase(std::int64_t row_id) = 0;
  // Called when the stored blob of `row_id` does not decode; does not return
  // (the glue throws SQLite's corruption error naming the row).
  [[noreturn]] virtual void malformed(std::int64_t row_id) = 0;
};

// Decodes the blob of row `row_id` into `out` (appended); store.malformed()
// if it does not decode.
void decode_stored_bucket(BucketStore& store, std::int64_t row_id, std::string_view blob,
                          int rest_bytes, std::vector<BucketEntry>& out);

// Writes `entries` (id order) as row `row_id`, encoded through `buffer`; an
// empty bucket has no row, so it deletes the row when one `existed`.
void write_stored_bucket(BucketStore& store, std::int64_t row_id,
                         std::span<const BucketEntry> entries, int rest_bytes, bool existed,
                         std::string& buffer);

}  // namespace simhash
