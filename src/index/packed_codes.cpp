// SPDX-License-Identifier: MIT
// PackedCodes (packed_codes.h): decoding one copy's buckets into arrays, and
// the popcount loop with a bounded heap over them.
#include "index/packed_codes.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "util/cpu_dispatch.h"

namespace simhash {

void PackedCodes::reset(int table) {
  table_ = table;
  ids_.clear();
  keys_.clear();
}

void PackedCodes::clear() {
  ids_ = {};
  keys_ = {};
  charge_.release();
}

void PackedCodes::reserve(std::size_t rows) {
  if (rows <= ids_.capacity()) {
    return;
  }
  // Both arrays grow together: charged as one (16 bytes a row), the old
  // buffers included while they are copied.
  constexpr std::size_t kRowBytes = sizeof(std::int64_t) + sizeof(std::uint64_t);
  charge_.grow_to((rows + ids_.capacity()) * kRowBytes);
  ids_.reserve(rows);
  keys_.reserve(rows);
  charge_.set(rows * kRowBytes);
}

bool PackedCodes::add_bucket(const BucketLayout& layout, std::int64_t row_id,
                             const unsigned char* data, std::size_t size) {
  BucketView view;
  if (!view.parse(data, size, layout.rest_bytes(table_))) {
    return false;
  }
  const std::size_t total = ids_.size() + view.count();
  if (total > ids_.capacity()) {
    reserve(std::max(total, 2 * ids_.capacity()));
  }
  const auto bucket = static_cast<std::uint64_t>(row_id - layout.first_row_id(table_));
  BucketIdReader ids(view);
  for (std::size_t index = 0; index < view.count(); ++index) {
    std::int64_t id = 0;
    if (!ids.next(id)) {
      return false;
    }
    ids_.push_back(id);
    keys_.push_back(layout.key_of(table_, bucket, view.rest(index)));
  }
  return ids.at_clean_end();
}

namespace {

// The loop itself, apart so that it gets the POPCNT variant. A max-heap of
// (distance, position) by (distance, id): its front is the farthest kept.
// Only a row at most as far as the front is compared further, so the loop
// is a popcount and a compare for nearly every row.
SIMHASH_POPCNT_CLONES void nearest_positions(const std::uint64_t* keys, const std::int64_t* ids,
                                             std::size_t size, std::uint64_t query,
                                             std::size_t count, int bound,
                                             std::vector<std::pair<int, std::size_t>>& heap) {
  const auto farther = [ids](const std::pair<int, std::size_t>& a,
                             const std::pair<int, std::size_t>& b) {
    return a.first != b.first ? a.first < b.first : ids[a.second] < ids[b.second];
  };
  heap.clear();
  int limit = bound;  // rows farther than this cannot enter
  for (std::size_t i = 0; i < size; ++i) {
    const int distance = std::popcount(keys[i] ^ query);
    if (distance > limit) {
      continue;
    }
    if (heap.size() < count) {
      heap.emplace_back(distance, i);
      std::push_heap(heap.begin(), heap.end(), farther);
      if (heap.size() == count) {
        limit = heap.front().first;
      }
      continue;
    }
    // At the front's distance only a smaller id enters.
    if (distance == heap.front().first && ids[i] > ids[heap.front().second]) {
      continue;
    }
    std::pop_heap(heap.begin(), heap.end(), farther);
    heap.back() = {distance, i};
    std::push_heap(heap.begin(), heap.end(), farther);
    limit = heap.front().first;
  }
}

}  // namespace

void PackedCodes::nearest(const PermutationPlan& plan, std::uint64_t query, std::size_t count,
                          int bound, std::vector<IndexHit>& out) const {
  count = std::min(count, ids_.size());
  if (count == 0) {
    return;
  }
  std::vector<std::pair<int, std::size_t>> heap;
  heap.reserve(count);
  nearest_positions(keys_.data(), ids_.data(), ids_.size(), plan.permute(table_, query), count,
                    std::clamp(bound, 0, 64), heap);
  const std::size_t first = out.size();
  for (const auto& [distance, position] : heap) {
    out.push_back(IndexHit{ids_[position],
                           static_cast<std::int64_t>(plan.unpermute(table_, keys_[position])),
                           distance});
  }
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), nearer);
}

}  // namespace simhash
