// SPDX-License-Identifier: MIT
// What the files of IndexStorage (index_storage*.cpp) share and no other
// file needs: the buckets table as the engine's bucket store. Include it from
// those files only; the class is in index_storage.h.
#pragma once

#include "ext/common/cached_statement.h"
#include "ext/common/sqlite_api.h"
#include "ext/common/sqlite_support.h"
#include "ext/index/index_storage.h"
#include "index/bucket_store.h"

namespace simhash::sql {

// Every call runs one cached statement of the index and resets it before
// returning, so no statement reads the table while the merge writes it; a
// read decodes the column in place (no copy of the blob).
class IndexStorage::SqlBucketStore final : public BucketStore {
 public:
  explicit SqlBucketStore(IndexStorage& storage) : storage_(storage) {}
  bool read(std::int64_t row_id, int rest_bytes, std::vector<BucketEntry>& out) override;
  std::optional<std::int64_t> read_highest_below(std::int64_t below, std::int64_t down_to,
                                                 int rest_bytes,
                                                 std::vector<BucketEntry>& out) override;
  void write(std::int64_t row_id, std::string_view blob) override;
  void erase(std::int64_t row_id) override;
  [[noreturn]] void malformed(std::int64_t row_id) override { storage_.throw_malformed(row_id); }

 private:
  IndexStorage& storage_;
};

}  // namespace simhash::sql
