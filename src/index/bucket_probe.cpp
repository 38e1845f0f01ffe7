// SPDX-License-Identifier: MIT
// The filtering of probed buckets (bucket_probe.h): the rests scanned with
// the prefix and radius rules, each row reported by one copy or part only,
// and ids decoded only in buckets that report a row.
#include "index/bucket_probe.h"

#include <algorithm>
#include <bit>
#include <optional>
#include <span>

namespace simhash {

BucketProbe::BucketProbe(const PermutationPlan& plan, const BucketLayout& layout)
    : plan_(plan), layout_(layout) {}

void BucketProbe::probe_rows(std::uint64_t query, std::vector<std::int64_t>& row_ids) {
  const int tables = plan_.table_count();
  keys_.resize(static_cast<std::size_t>(tables));
  row_ids.resize(static_cast<std::size_t>(tables));
  for (int table = 0; table < tables; ++table) {
    keys_[table] = plan_.permute(table, query);
    row_ids[table] = layout_.row_id(table, layout_.bucket_of(table, keys_[table]));
  }
}

bool BucketProbe::probe_bucket(std::uint64_t query, int radius, std::int64_t row_id,
                               const unsigned char* data, std::size_t size,
                               std::vector<IndexHit>& out) {
  const int table = layout_.table_of(row_id);
  const std::uint64_t key = keys_[table];
  const std::uint64_t bucket = layout_.bucket_of(table, key);
  // Prefix bits below the bucket bits: an entry must match the query there too.
  const int extra_prefix_bits = plan_.prefix_bits(table) - layout_.bucket_bits(table);
  const std::uint64_t prefix_mask = extra_prefix_bits == 0
                                        ? 0
                                        : ((std::uint64_t{1} << extra_prefix_bits) - 1)
                                              << (layout_.rest_bits(table) - extra_prefix_bits);
  BucketView view;
  if (!view.parse(data, size, layout_.rest_bytes(table))) {
    return false;
  }
  close_.clear();
  view.find_close(layout_.rest_of(table, key), prefix_mask, radius, close_);
  return report_close_entries(
      view,
      [&](const CloseEntry& close) -> std::optional<IndexHit> {
        const std::uint64_t fp =
            plan_.unpermute(table, layout_.key_of(table, bucket, view.rest(close.index)));
        if (plan_.first_shared_table(fp, query) != table) {
          return std::nullopt;  // reported by an earlier table
        }
        return IndexHit{0, static_cast<std::int64_t>(fp), close.distance};
      },
      out);
}

void BucketProbe::multi_probe_rows(std::uint64_t query, const MultiProbePlan& plan,
                                   std::vector<std::int64_t>& row_ids) {
  // The buckets to read, in row id order (which is part order, as the parts
  // are taken in table order); a table's part, for the rows read.
  const std::span<const ProbePart> parts = plan.parts();
  row_ids.clear();
  keys_.assign(static_cast<std::size_t>(plan_.table_count()), 0);
  part_of_table_.assign(static_cast<std::size_t>(plan_.table_count()), -1);
  for (std::size_t index = 0; index < parts.size(); ++index) {
    const int table = parts[index].table;
    part_of_table_[table] = static_cast<int>(index);
    keys_[table] = plan_.permute(table, query);
    const std::size_t begin = row_ids.size();
    MultiProbePlan::for_each_bucket(
        parts[index], layout_.bucket_of(table, keys_[table]),
        [&](std::uint64_t bucket) { row_ids.push_back(layout_.row_id(table, bucket)); });
    std::sort(row_ids.begin() + static_cast<std::ptrdiff_t>(begin), row_ids.end());
  }
}

bool BucketProbe::multi_probe_bucket(std::uint64_t query, const MultiProbePlan& plan,
                                     std::int64_t row_id, const unsigned char* data,
                                     std::size_t size, std::vector<IndexHit>& out) {
  const int table = layout_.table_of(row_id);
  const int part = part_of_table_[table];
  const std::uint64_t bucket = static_cast<std::uint64_t>(row_id - layout_.first_row_id(table));
  const std::uint64_t key = keys_[table];
  const int bucket_distance = std::popcount(bucket ^ layout_.bucket_of(table, key));
  BucketView view;
  if (!view.parse(data, size, layout_.rest_bytes(table))) {
    return false;
  }
  close_.clear();
  view.find_close(layout_.rest_of(table, key), 0, plan.radius() - bucket_distance, close_);
  return report_close_entries(
      view,
      [&](const CloseEntry& close) -> std::optional<IndexHit> {
        const std::uint64_t fp =
            plan_.unpermute(table, layout_.key_of(table, bucket, view.rest(close.index)));
        if (plan.reporting_part(fp ^ query) != part) {
          return std::nullopt;  // another part reports it
        }
        return IndexHit{0, static_cast<std::int64_t>(fp), close.distance + bucket_distance};
      },
      out);
}

template <typename MakeHit>
bool BucketProbe::report_close_entries(const BucketView& view, MakeHit make_hit,
                                       std::vector<IndexHit>& out) {
  // The fingerprint comes from the rest; ids are decoded only in a bucket
  // that reports a hit, to its end (checked).
  BucketIdReader ids(view);
  std::size_t next_index = 0;
  std::int64_t id = 0;
  for (const CloseEntry& close : close_) {
    std::optional<IndexHit> hit = make_hit(close);
    if (!hit) {
      continue;
    }
    while (next_index <= close.index) {
      if (!ids.next(id)) {
        return false;
      }
      ++next_index;
    }
    hit->id = id;
    out.push_back(*hit);
  }
  // A bucket that reported a row is read to its end: a damaged id section
  // (a changed gap, a lost or an extra byte) then mostly no longer ends
  // exactly where the blob does, and is an error rather than a wrong id.
  // Buckets without a hit report nothing their ids could make wrong, and
  // are not decoded (most buckets a probe reads: the cost stays small).
  return next_index == 0 || ids.skip_to_clean_end();
}

}  // namespace simhash
