// SPDX-License-Identifier: MIT
// libFuzzer target: the bucket decoder, which reads blobs from a shadow table
// a user (or a damaged file) can change. The first byte picks the width of
// the rest section (1 to 8 bytes); the rest is the blob. Decoding must fail
// cleanly or give entries that encode and decode back to themselves; the
// probe's view and id reader must never read outside the blob.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "index/bucket_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const int rest_bytes = 1 + data[0] % 8;
  // A copy of exactly the blob's bytes, so ASan catches any read past it.
  const std::vector<unsigned char> blob(data + 1, data + size);
  std::vector<simhash::BucketEntry> entries;
  const bool decoded = simhash::decode_bucket(blob.data(), blob.size(), rest_bytes, entries);
  if (decoded) {
    std::string encoded;
    simhash::encode_bucket(entries, rest_bytes, encoded);
    std::vector<simhash::BucketEntry> again;
    if (!simhash::decode_bucket(reinterpret_cast<const unsigned char*>(encoded.data()),
                                encoded.size(), rest_bytes, again) ||
        again.size() != entries.size()) {
      std::abort();
    }
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (again[i].id != entries[i].id || again[i].rest != entries[i].rest) {
        std::abort();
      }
    }
  }
  simhash::BucketView view;
  if (!view.parse(blob.data(), blob.size(), rest_bytes)) {
    return 0;
  }
  std::vector<simhash::CloseEntry> close;
  const std::uint64_t query = blob.size() >= 8 ? blob[0] * 0x0101010101010101ULL : 0;
  view.find_close(query, 0, 64, close);  // every entry
  simhash::BucketIdReader ids(view);
  std::int64_t id = 0;
  std::size_t read = 0;
  while (read < view.count() && ids.next(id)) {
    ++read;
  }
  if (decoded && (read != view.count() || !ids.at_clean_end())) {
    std::abort();  // a bucket decode_bucket accepts reads whole through the view
  }
  return 0;
}
