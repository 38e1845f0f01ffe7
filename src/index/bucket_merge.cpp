// SPDX-License-Identifier: MIT
// The merge of the pending changes into the packed buckets (bucket_merge.h):
// the changes grouped by bucket, applied to each changed bucket, and the
// growth of the bucket bits, which splits every bucket of every permuted copy.
#include "index/bucket_merge.h"

#include <algorithm>
#include <optional>

namespace simhash {

std::span<std::uint32_t> ChangedBuckets::changes(std::size_t group) {
  const std::size_t end = group + 1 < starts.size() ? starts[group + 1] : order.size();
  return std::span<std::uint32_t>(order).subspan(starts[group], end - starts[group]);
}

BucketMerge::BucketMerge(const PermutationPlan& plan, const BucketLayout& layout,
                         const PendingChanges& pending, BucketStore& store,
                         BucketMergeScratch& scratch, CheckPoint check)
    : plan_(plan),
      layout_(layout),
      pending_(pending),
      store_(store),
      scratch_(scratch),
      check_(std::move(check)) {}

std::uint64_t BucketMerge::bucket_of_change(int table, std::uint32_t change) const {
  return layout_.bucket_of(table, plan_.permute(table, pending_.fp(change)));
}

ChangedBuckets BucketMerge::changes_by_bucket(int table) const {
  // A stable counting sort when there are many changes and not too many
  // buckets, a comparison sort otherwise (a commit of one row should not
  // clear a table of 2^16 counters, nor a merge allocate 2^32 of them). Keys
  // are recomputed rather than stored, to keep memory at 4 bytes per change.
  const std::size_t change_count = pending_.size();
  const auto bucket_of = [&](std::uint32_t change) { return bucket_of_change(table, change); };
  // 64-bit: a table may have 2^32 buckets, more than a 32-bit size_t holds.
  const std::uint64_t bucket_count = std::uint64_t{1} << layout_.bucket_bits(table);
  ChangedBuckets changed;
  std::vector<std::uint32_t>& order = changed.order;
  order.resize(change_count);
  if (change_count * 16 < bucket_count || bucket_count > kMaxCountingSortBuckets) {
    for (std::size_t change = 0; change < change_count; ++change) {
      order[change] = static_cast<std::uint32_t>(change);
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return bucket_of(a) < bucket_of(b); });
    for (std::size_t begin = 0; begin < change_count;) {
      const std::uint64_t bucket = bucket_of(order[begin]);
      changed.starts.push_back(static_cast<std::uint32_t>(begin));
      while (begin < change_count && bucket_of(order[begin]) == bucket) {
        ++begin;
      }
    }
  } else {
    std::vector<std::uint32_t> next(static_cast<std::size_t>(bucket_count) + 1, 0);
    for (std::size_t change = 0; change < change_count; ++change) {
      ++next[bucket_of(static_cast<std::uint32_t>(change)) + 1];
    }
    for (std::size_t bucket = 0; bucket < static_cast<std::size_t>(bucket_count); ++bucket) {
      if (next[bucket + 1] != 0) {
        changed.starts.push_back(next[bucket]);
      }
      next[bucket + 1] += next[bucket];
    }
    for (std::size_t change = 0; change < change_count; ++change) {
      const auto index = static_cast<std::uint32_t>(change);
      order[next[bucket_of(index)]++] = index;
    }
  }
  return changed;
}

void BucketMerge::apply_changes(int table, const std::vector<BucketEntry>& stored,
                                std::span<std::uint32_t> changes,
                                std::vector<BucketEntry>& out) const {
  // The changes by (id, order), which is usually already the case; sorted
  // here, just before they are read, while they are in the CPU's cache.
  const auto by_id = [&](std::uint32_t a, std::uint32_t b) {
    return pending_.id(a) != pending_.id(b) ? pending_.id(a) < pending_.id(b) : a < b;
  };
  if (!std::is_sorted(changes.begin(), changes.end(), by_id)) {
    std::sort(changes.begin(), changes.end(), by_id);
  }
  // Merges two id-sorted lists; for an id with changes, the last change wins.
  out.clear();
  std::size_t old_index = 0;
  for (auto change = changes.begin(); old_index < stored.size() || change != changes.end();) {
    if (change == changes.end() ||
        (old_index < stored.size() && stored[old_index].id < pending_.id(*change))) {
      out.push_back(stored[old_index++]);
      continue;
    }
    const std::int64_t id = pending_.id(*change);
    auto last = change;
    while (last + 1 != changes.end() && pending_.id(*(last + 1)) == id) {
      ++last;
    }
    if (old_index < stored.size() && stored[old_index].id == id) {
      ++old_index;
    }
    if (pending_.is_insert(*last)) {
      out.push_back(
          BucketEntry{id, layout_.rest_of(table, plan_.permute(table, pending_.fp(*last)))});
    }
    change = last + 1;
  }
}

void BucketMerge::merge() {
  for (int table = 0; table < plan_.table_count(); ++table) {
    merge_table(table);
  }
}

void BucketMerge::merge_and_split(const BucketLayout& grown) {
  // From the last table down, so no row is overwritten before it is visited
  // (merge_and_split_table).
  for (int table = plan_.table_count() - 1; table >= 0; --table) {
    merge_and_split_table(table, grown);
  }
}

void BucketMerge::merge_table(int table) {
  const int rest_bytes = layout_.rest_bytes(table);
  std::vector<BucketEntry> stored;
  std::vector<BucketEntry> changed;
  ChangedBuckets changes = changes_by_bucket(table);
  for (std::size_t group = 0; group < changes.starts.size(); ++group) {
    const std::span<std::uint32_t> bucket_changes = changes.changes(group);
    const std::int64_t row_id =
        layout_.row_id(table, bucket_of_change(table, bucket_changes.front()));
    stored.clear();
    const bool existed = store_.read(row_id, rest_bytes, stored);
    apply_changes(table, stored, bucket_changes, changed);
    write_stored_bucket(store_, row_id, changed, rest_bytes, existed, scratch_.encoded);
  }
}

void BucketMerge::merge_and_split_table(int table, const BucketLayout& grown) {
  // Every row id r moves to ids >= r in the grown layout, in order
  // (bucket_codec.h), and the parts of one old bucket to ids no other old
  // bucket's parts take. So visiting the old buckets from the highest id
  // down, the stored ones and the ones that only have changes alike, never
  // overwrites a row not yet visited. Each stored row is found by a fresh
  // lookup: the store is never read while it is written.
  const int rest_bytes = layout_.rest_bytes(table);
  std::vector<BucketEntry> stored;
  std::vector<BucketEntry> changed;
  std::int64_t below = layout_.first_row_id(table + 1);  // every row from here up is visited
  std::size_t visited = 0;
  // Splits the stored rows with ids in (down_to, below), which have no
  // changes, from the highest down, one lookup each; a stored row at down_to
  // itself is deleted and left decoded in `stored` for the caller (true).
  const auto split_rows_down_to = [&](std::int64_t down_to) {
    while (true) {
      stored.clear();
      const std::optional<std::int64_t> row_id =
          store_.read_highest_below(below, down_to, rest_bytes, stored);
      if (!row_id) {
        break;
      }
      check_after_every(visited++, kBucketsBetweenChecks, check_);
      store_.erase(*row_id);
      if (*row_id == down_to) {
        return true;
      }
      split_bucket(table, static_cast<std::uint64_t>(*row_id - layout_.first_row_id(table)), stored,
                   grown);
      below = *row_id;
    }
    stored.clear();
    return false;
  };
  ChangedBuckets changes = changes_by_bucket(table);
  for (std::size_t group = changes.starts.size(); group-- > 0;) {
    const std::span<std::uint32_t> bucket_changes = changes.changes(group);
    const std::uint64_t bucket = bucket_of_change(table, bucket_changes.front());
    const std::int64_t row_id = layout_.row_id(table, bucket);
    split_rows_down_to(row_id);  // `stored` is then this bucket's entries, if any
    apply_changes(table, stored, bucket_changes, changed);
    split_bucket(table, bucket, changed, grown);
    below = row_id;
  }
  if (split_rows_down_to(layout_.first_row_id(table))) {
    split_bucket(table, 0, stored, grown);
  }
}

void BucketMerge::split_bucket(int table, std::uint64_t bucket,
                               const std::vector<BucketEntry>& entries, const BucketLayout& grown) {
  // The entries re-keyed under the grown layout; a stable sort by bucket
  // keeps each new bucket in id order.
  scratch_.split.clear();
  for (const BucketEntry& entry : entries) {
    const std::uint64_t key = layout_.key_of(table, bucket, entry.rest);
    scratch_.split.emplace_back(grown.bucket_of(table, key),
                                BucketEntry{entry.id, grown.rest_of(table, key)});
  }
  std::stable_sort(scratch_.split.begin(), scratch_.split.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<BucketEntry> part;
  for (std::size_t begin = 0; begin < scratch_.split.size();) {
    part.clear();
    std::size_t end = begin;
    while (end < scratch_.split.size() &&
           scratch_.split[end].first == scratch_.split[begin].first) {
      part.push_back(scratch_.split[end++].second);
    }
    write_stored_bucket(store_, grown.row_id(table, scratch_.split[begin].first), part,
                        grown.rest_bytes(table), false, scratch_.encoded);
    begin = end;
  }
}

}  // namespace simhash
