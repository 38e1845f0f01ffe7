// SPDX-License-Identifier: MIT
// The engine tests' bucket store (index/bucket_store.h): blobs in a map, and
// the model they are checked against, the blobs an index of given rows
// holds, each bucket encoded from scratch; with the rows those tests share
// (random rows, the brute-force answer within a radius; their plan is
// plan_case.h's make_plan).
#pragma once

#include <bit>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "index/bucket_codec.h"
#include "index/bucket_store.h"
#include "index/pending_changes.h"
#include "index/permutation_plan.h"

namespace simhash::testing {

// Thrown by MemoryBucketStore::malformed.
struct MalformedBucket : std::runtime_error {
  explicit MalformedBucket(std::int64_t row_id)
      : std::runtime_error(std::string("bucket ") + std::to_string(row_id) + " is malformed") {}
};

class MemoryBucketStore final : public BucketStore {
 public:
  bool read(std::int64_t row_id, int rest_bytes, std::vector<BucketEntry>& out) override {
    const auto found = blobs.find(row_id);
    if (found == blobs.end()) {
      return false;
    }
    decode_stored_bucket(*this, row_id, found->second, rest_bytes, out);
    return true;
  }
  std::optional<std::int64_t> read_highest_below(std::int64_t below, std::int64_t down_to,
                                                 int rest_bytes,
                                                 std::vector<BucketEntry>& out) override {
    auto found = blobs.lower_bound(below);
    if (found == blobs.begin() || std::prev(found)->first < down_to) {
      return std::nullopt;
    }
    --found;
    decode_stored_bucket(*this, found->first, found->second, rest_bytes, out);
    return found->first;
  }
  void write(std::int64_t row_id, std::string_view blob) override {
    blobs[row_id] = std::string(blob);
  }
  void erase(std::int64_t row_id) override {
    if (blobs.erase(row_id) != 1) {
      throw std::logic_error(std::string("erase of an absent bucket ") + std::to_string(row_id));
    }
  }
  [[noreturn]] void malformed(std::int64_t row_id) override { throw MalformedBucket(row_id); }

  std::map<std::int64_t, std::string> blobs;
};

// Rows 1..count with uniformly random fingerprints.
inline std::map<std::int64_t, std::uint64_t> random_rows(std::int64_t count,
                                                         std::mt19937_64& random) {
  std::map<std::int64_t, std::uint64_t> rows;
  for (std::int64_t id = 1; id <= count; ++id) {
    rows[id] = random();
  }
  return rows;
}

// Every row within `radius` of `query`, in id order.
inline std::vector<IndexHit> rows_within(const std::map<std::int64_t, std::uint64_t>& rows,
                                         std::uint64_t query, int radius) {
  std::vector<IndexHit> hits;
  for (const auto& [id, fp] : rows) {
    const int distance = std::popcount(fp ^ query);
    if (distance <= radius) {
      hits.push_back(IndexHit{id, static_cast<std::int64_t>(fp), distance});
    }
  }
  return hits;
}

// The blobs of every copy of `rows` (by id) under `layout`, by bucket row id.
inline std::map<std::int64_t, std::string> encode_index(
    const PermutationPlan& plan, const BucketLayout& layout,
    const std::map<std::int64_t, std::uint64_t>& rows) {
  std::map<std::int64_t, std::string> blobs;
  for (int table = 0; table < plan.table_count(); ++table) {
    std::map<std::uint64_t, std::vector<BucketEntry>> buckets;
    for (const auto& [id, fp] : rows) {  // id order, as a bucket wants
      const std::uint64_t key = plan.permute(table, fp);
      buckets[layout.bucket_of(table, key)].push_back(BucketEntry{id, layout.rest_of(table, key)});
    }
    for (const auto& [bucket, entries] : buckets) {
      encode_bucket(entries, layout.rest_bytes(table), blobs[layout.row_id(table, bucket)]);
    }
  }
  return blobs;
}

}  // namespace simhash::testing
