// SPDX-License-Identifier: MIT
// Groups records by fingerprint with one full-width radix sort of the
// fingerprints; the sort is stable, so each group lists its ids ascending.
#include "batch/fingerprint_groups.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "util/radix_sort.h"

namespace simhash {

FingerprintGroups::FingerprintGroups(std::vector<IdFingerprint> records)
    : charge_(records.size() * kWorkingBytesPerRecord), records_(std::move(records)) {
  if (records_.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error("batch search: more than 2^32 - 1 rows");
  }
  const auto by_id = [](const IdFingerprint& x, const IdFingerprint& y) { return x.id < y.id; };
  // An index hands its rows over in rowid order already; sort only if not.
  if (!std::is_sorted(records_.begin(), records_.end(), by_id)) {
    std::sort(records_.begin(), records_.end(), by_id);
  }
  const auto repeated = std::adjacent_find(
      records_.begin(), records_.end(),
      [](const IdFingerprint& x, const IdFingerprint& y) { return x.id == y.id; });
  if (repeated != records_.end()) {
    throw std::invalid_argument("batch search: id " + std::to_string(repeated->id) +
                                " appears twice");
  }

  const std::size_t count = records_.size();
  std::vector<std::uint64_t> keys(count);
  members_.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    keys[i] = records_[i].fp;
  }
  std::iota(members_.begin(), members_.end(), std::uint32_t{0});
  RadixSorter().sort_by_mask(keys, members_, ~std::uint64_t{0});

  // The distinct keys are compacted in place and become fingerprints_: at
  // 10M rows a fresh array would cost 80 MB of new pages and a copy.
  group_start_.reserve(count + 1);  // pages never written are never touched
  std::size_t distinct = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (i == 0 || keys[i] != keys[i - 1]) {
      keys[distinct++] = keys[i];
      group_start_.push_back(static_cast<std::uint32_t>(i));
    }
  }
  group_start_.push_back(static_cast<std::uint32_t>(count));
  keys.resize(distinct);
  if (distinct < count / 2) {
    keys.shrink_to_fit();  // many repeated fingerprints: give the rest back
  }
  fingerprints_ = std::move(keys);
}

}  // namespace simhash
