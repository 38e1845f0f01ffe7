// SPDX-License-Identifier: MIT
// BucketCache (bucket_cache.h): the filling, in row id order.
#include "index/bucket_cache.h"

#include <algorithm>
#include <utility>

namespace simhash {

bool BucketCache::reset(const BucketLayout& layout, int tables, std::size_t max_bytes,
                        std::size_t expected_blob_bytes) {
  clear();
  std::vector<std::size_t> first_slot(static_cast<std::size_t>(tables) + 1);
  std::size_t slots = 0;
  for (int table = 0; table < tables; ++table) {
    first_slot[static_cast<std::size_t>(table)] = slots;
    slots += std::size_t{1} << layout.bucket_bits(table);
  }
  first_slot[static_cast<std::size_t>(tables)] = slots;
  const std::size_t starts_bytes = (slots + 1) * sizeof(std::uint32_t);
  if (starts_bytes > max_bytes) {
    return false;
  }
  charge_.grow_to(starts_bytes);
  bits_ = layout.bits();
  first_slot_ = std::move(first_slot);
  max_blob_bytes_ = std::min<std::size_t>(max_bytes - starts_bytes, UINT32_MAX);
  starts_.assign(slots + 1, 0);
  // A sixteenth more, so that an estimate a little short does not double
  // the blobs' memory for their last bytes.
  reserve_blobs(std::min(max_blob_bytes_, expected_blob_bytes + expected_blob_bytes / 16));
  return true;
}

void BucketCache::reserve_blobs(std::size_t capacity) {
  if (capacity <= blobs_.capacity()) {
    return;
  }
  // Both buffers are held while the blobs move: both are charged until then.
  const std::size_t starts_bytes = starts_.size() * sizeof(std::uint32_t);
  charge_.grow_to(starts_bytes + blobs_.capacity() + capacity);
  blobs_.reserve(capacity);
  charge_.set(starts_bytes + capacity);
}

bool BucketCache::add(std::int64_t row_id, const unsigned char* data, std::size_t size) {
  if (row_id < 0 || (row_id >> bits_) >= static_cast<std::int64_t>(first_slot_.size()) - 1) {
    return true;  // below copy 0 or past the last copy
  }
  const std::int64_t table = row_id >> bits_;
  const auto bucket = static_cast<std::size_t>(row_id - (table << bits_));
  const std::size_t first = first_slot_[static_cast<std::size_t>(table)];
  if (bucket >= first_slot_[static_cast<std::size_t>(table) + 1] - first) {
    return true;  // above the copy's buckets
  }
  const std::size_t slot = first + bucket;
  if (slot < filled_) {
    return true;  // not ascending: a rowid table returns none such
  }
  const std::size_t end = blobs_.size() + size;
  if (end > max_blob_bytes_) {
    return false;
  }
  if (end > blobs_.capacity()) {
    reserve_blobs(std::min(max_blob_bytes_, std::max(end, 2 * blobs_.capacity())));
  }
  // The slots up to this one start where the blobs end: those skipped are empty.
  std::fill(starts_.begin() + static_cast<std::ptrdiff_t>(filled_),
            starts_.begin() + static_cast<std::ptrdiff_t>(slot) + 1,
            static_cast<std::uint32_t>(blobs_.size()));
  filled_ = slot + 1;
  blobs_.insert(blobs_.end(), data, data + size);
  return true;
}

void BucketCache::finish() {
  std::fill(starts_.begin() + static_cast<std::ptrdiff_t>(filled_), starts_.end(),
            static_cast<std::uint32_t>(blobs_.size()));
  filled_ = starts_.size();
}

namespace {

double slots_of(const BucketLayout& layout, int tables) {
  double slots = 0;
  for (int table = 0; table < tables; ++table) {
    slots += static_cast<double>(std::uint64_t{1} << layout.bucket_bits(table));
  }
  return slots;
}

}  // namespace

double BucketCache::load_cost(const BucketLayout& layout, int tables, double stored,
                              double slot_bytes) {
  return slots_of(layout, tables) *
         (kLoadSlotCost + kLoadBucketCost * stored + kLoadByteCost * slot_bytes);
}

double BucketCache::expected_bytes(const BucketLayout& layout, int tables, double slot_bytes) {
  return slots_of(layout, tables) * slot_bytes;
}

void BucketCache::clear() {
  first_slot_ = {};
  starts_ = {};
  blobs_ = {};
  filled_ = 0;
  max_blob_bytes_ = 0;
  charge_.release();
}

}  // namespace simhash
