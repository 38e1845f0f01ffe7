// SPDX-License-Identifier: MIT
// NearestScan (nearest_scan.h): the heap over one copy's packed buckets and
// the pending changes applied to its answer.
#include "index/nearest_scan.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <optional>

namespace simhash {

PendingNearest::PendingNearest(const PendingChanges& pending, std::uint64_t query,
                               std::size_t count, int bound)
    : query_(query), count_(count), bound_(std::clamp(bound, 0, 64)) {
  // Stable by id, so the last change of each id is the last of its run.
  std::vector<std::pair<std::int64_t, std::size_t>> order;
  order.reserve(pending.size());
  for (std::size_t i = 0; i < pending.size(); ++i) {
    order.emplace_back(pending.id(i), i);
  }
  std::sort(order.begin(), order.end());
  // A row the buckets hold is deleted before any insert of its id (an
  // update, a REPLACE): its id's first change is a delete. A new id's first
  // change is an insert, and no stored entry of it can take a place.
  std::size_t stored = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || order[i - 1].first != order[i].first) {
      stored += pending.is_insert(order[i].second) ? 0 : 1;
    }
    if (i + 1 < order.size() && order[i + 1].first == order[i].first) {
      continue;
    }
    const std::size_t change = order[i].second;
    changed_.emplace_back(order[i].first, pending.is_insert(change)
                                              ? std::optional(pending.fp(change))
                                              : std::nullopt);
  }
  const std::size_t most = std::numeric_limits<std::size_t>::max();
  capacity_ = count_ == 0 ? 0 : count_ > most - stored ? most : count_ + stored;
}

bool PendingNearest::touches(std::int64_t id) const {
  const auto at =
      std::lower_bound(changed_.begin(), changed_.end(), id,
                       [](const auto& change, std::int64_t value) { return change.first < value; });
  return at != changed_.end() && at->first == id;
}

void PendingNearest::finish(std::vector<IndexHit>& hits, std::size_t first) const {
  const auto begin = hits.begin() + static_cast<std::ptrdiff_t>(first);
  hits.erase(
      std::remove_if(begin, hits.end(), [&](const IndexHit& hit) { return touches(hit.id); }),
      hits.end());
  if (count_ > 0) {
    for (const auto& [id, fp] : changed_) {
      if (!fp) {
        continue;
      }
      const int distance = std::popcount(*fp ^ query_);
      if (distance <= bound_) {
        hits.push_back(IndexHit{id, static_cast<std::int64_t>(*fp), distance});
      }
    }
  }
  std::sort(hits.begin() + static_cast<std::ptrdiff_t>(first), hits.end(), nearer);
  if (hits.size() - first > count_) {
    hits.resize(first + count_);
  }
}

NearestScan::NearestScan(const PermutationPlan& plan, const BucketLayout& layout, int table,
                         std::uint64_t query, std::size_t count, int bound,
                         const PendingChanges& pending)
    : plan_(plan),
      layout_(layout),
      table_(table),
      query_key_(plan.permute(table, query)),
      bound_(std::clamp(bound, 0, 64)),
      pending_(pending, query, count, bound),
      capacity_(pending_.capacity()) {}

void NearestScan::offer(const IndexHit& hit) {
  if (!full()) {
    heap_.push_back(hit);
    std::push_heap(heap_.begin(), heap_.end(), nearer);
  } else if (nearer(hit, heap_.front())) {
    std::pop_heap(heap_.begin(), heap_.end(), nearer);
    heap_.back() = hit;
    std::push_heap(heap_.begin(), heap_.end(), nearer);
  }
}

bool NearestScan::add_bucket(std::int64_t row_id, const unsigned char* data, std::size_t size) {
  if (capacity_ == 0) {
    return true;
  }
  const auto bucket = static_cast<std::uint64_t>(row_id - layout_.first_row_id(table_));
  const int bucket_distance = std::popcount(bucket ^ layout_.bucket_of(table_, query_key_));
  // Entries at the distance of the farthest row kept may still enter it by
  // a smaller id; farther ones cannot.
  const int limit = full() ? std::min(bound_, heap_.front().distance) : bound_;
  if (bucket_distance > limit) {
    return true;
  }
  BucketView view;
  if (!view.parse(data, size, layout_.rest_bytes(table_))) {
    return false;
  }
  close_.clear();
  view.find_close(layout_.rest_of(table_, query_key_), 0, limit - bucket_distance, close_, kernel_);
  BucketIdReader ids(view);
  std::size_t next_index = 0;
  std::int64_t id = 0;
  for (const CloseEntry& close : close_) {
    const int distance = close.distance + bucket_distance;
    if (full() && distance > heap_.front().distance) {
      continue;  // the heap has filled or tightened within this bucket
    }
    while (next_index <= close.index) {
      if (!ids.next(id)) {
        return false;
      }
      ++next_index;
    }
    offer(IndexHit{
        id, static_cast<std::int64_t>(layout_.key_of(table_, bucket, view.rest(close.index))),
        distance});
  }
  // A bucket whose ids were read is read to its end, as a probe does: a
  // damaged id section then mostly fails rather than gives a wrong id.
  return next_index == 0 || ids.skip_to_clean_end();
}

void NearestScan::finish(std::vector<IndexHit>& out) {
  out.clear();
  for (IndexHit hit : heap_) {
    hit.fp = static_cast<std::int64_t>(plan_.unpermute(table_, static_cast<std::uint64_t>(hit.fp)));
    out.push_back(hit);
  }
  pending_.finish(out, 0);
  heap_.clear();
}

}  // namespace simhash
