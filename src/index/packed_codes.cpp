// SPDX-License-Identifier: MIT
// PackedCodes (packed_codes.h): decoding one copy's buckets into arrays, and
// the scans over them (code_scan.h).
#include "index/packed_codes.h"

#include <algorithm>
#include <utility>

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
  // Written in place, not pushed back one by one (the load is priced per
  // row: MultiProbePlan::kCodeLoadCost); a malformed bucket leaves nothing.
  const std::size_t first = ids_.size();
  ids_.resize(total);
  keys_.resize(total);
  std::int64_t* ids = ids_.data() + first;
  std::uint64_t* keys = keys_.data() + first;
  const std::uint64_t key_part = layout.key_part(table_, bucket);
  BucketIdReader reader(view);
  bool sound = true;
  for (std::size_t index = 0; index < view.count() && sound; ++index) {
    sound = reader.next(ids[index]);
    keys[index] = BucketLayout::with_rest(key_part, view.rest(index));
  }
  if (!sound || !reader.at_clean_end()) {
    ids_.resize(first);
    keys_.resize(first);
    return false;
  }
  return true;
}

void PackedCodes::nearest(const PermutationPlan& plan, std::uint64_t query, std::size_t count,
                          int bound, std::vector<IndexHit>& out) const {
  count = std::min(count, ids_.size());
  if (count == 0) {
    return;
  }
  std::vector<std::pair<int, std::size_t>> heap;
  heap.reserve(count);
  scan_nearest(kernel_, keys_, ids_.data(), plan.permute(table_, query), count,
               std::clamp(bound, 0, 64), heap);
  const std::size_t first = out.size();
  for (const auto& [distance, position] : heap) {
    out.push_back(IndexHit{ids_[position],
                           static_cast<std::int64_t>(plan.unpermute(table_, keys_[position])),
                           distance});
  }
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), nearer);
}

void PackedCodes::within(const PermutationPlan& plan, std::uint64_t query, int radius,
                         std::vector<IndexHit>& out) const {
  if (radius < 0) {
    return;
  }
  std::vector<std::pair<std::size_t, int>> found;
  scan_within(kernel_, keys_, plan.permute(table_, query), std::min(radius, 64), found);
  out.reserve(out.size() + found.size());
  for (const auto& [position, distance] : found) {
    out.push_back(IndexHit{ids_[position],
                           static_cast<std::int64_t>(plan.unpermute(table_, keys_[position])),
                           distance});
  }
}

}  // namespace simhash
