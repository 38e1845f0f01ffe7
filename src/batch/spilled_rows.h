// SPDX-License-Identifier: MIT
// The rows a join within a memory budget holds while it runs
// (partitioned_dedup.h, partitioned_pairs.h): a few numbers a row in memory
// (id, fingerprint, the size and file offset of its features) and the
// features themselves in a temporary file (spill_file.h), read back a row
// at a time. One owner for the checks a row passes on its way in, for the
// reading back and for the rewrite of the file in the order the parts read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "batch/spill_file.h"
#include "fingerprint/feature_similarity.h"
#include "util/check_point.h"
#include "util/chunked_array.h"

namespace simhash {

class SpilledRows {
 public:
  // The errors' messages, the caller's words: a row without features, and
  // one row or feature too many.
  struct Messages {
    const char* no_features;
    const char* too_many;
  };
  explicit SpilledRows(Messages messages) : messages_(messages) {}

  // Appends a row: `features` non-empty, every weight 1 (the threshold
  // join's sets). Throws std::invalid_argument otherwise, and
  // std::length_error past 2^32 - 2 rows or features of one row.
  void add(std::int64_t id, std::uint64_t fingerprint, FeatureView features);

  std::size_t size() const { return ids_.size(); }
  std::int64_t id(std::size_t position) const { return ids_[position]; }
  std::uint64_t fingerprint(std::size_t position) const { return fingerprints_[position]; }
  // The row's features (until forget_features()).
  std::uint32_t size_of(std::size_t position) const { return sizes_[position]; }
  const ChunkedArray<std::uint32_t>& sizes() const { return sizes_; }

  // Reads the features of the row at `position` into `features` (weights 1).
  void read(std::size_t position, FeatureVector& features);
  // The features written again in `order` (positions), so that a caller
  // reading rows in that order reads the file front to back (once, where
  // it would seek at each row); `check` between pieces.
  void lay_out_in_order(const std::vector<std::uint32_t>& order, const CheckPoint& check);
  // The sizes and offsets given up: the features are read no more.
  void forget_features();

 private:
  Messages messages_;
  SpillFile features_{"the rows' spill file"};
  // Each charged as it grows (chunked_array.h).
  ChunkedArray<std::int64_t> ids_;
  ChunkedArray<std::uint64_t> fingerprints_;
  ChunkedArray<std::uint64_t> offsets_;
  ChunkedArray<std::uint32_t> sizes_;
};

}  // namespace simhash
