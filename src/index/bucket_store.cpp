// SPDX-License-Identifier: MIT
// The bucket store's helpers shared by the merge and the glue's rebuild: one
// bucket decoded from, or encoded into, a store (bucket_store.h).
#include "index/bucket_store.h"

namespace simhash {

void decode_stored_bucket(BucketStore& store, std::int64_t row_id, std::string_view blob,
                          int rest_bytes, std::vector<BucketEntry>& out) {
  if (!decode_bucket(reinterpret_cast<const unsigned char*>(blob.data()), blob.size(), rest_bytes,
                     out)) {
    store.malformed(row_id);
  }
}

void write_stored_bucket(BucketStore& store, std::int64_t row_id,
                         std::span<const BucketEntry> entries, int rest_bytes, bool existed,
                         std::string& buffer) {
  if (entries.empty()) {
    if (existed) {
      store.erase(row_id);
    }
    return;
  }
  buffer.clear();
  encode_bucket(entries, rest_bytes, buffer);
  store.write(row_id, buffer);
}

}  // namespace simhash
