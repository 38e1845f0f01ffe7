// SPDX-License-Identifier: MIT
// simhash_index's reads (IndexStorage, index_storage.h): the lookup of one
// row, the probe within k, the multi-probe search above it, the scans of the
// data table; all see the pending changes without merging them.
#include "ext/index/index_storage.h"

#include <algorithm>
#include <bit>
#include <span>

#include "ext/common/radius_argument.h"
#include "ext/index/index_shadow_tables.h"
#include "ext/index/index_storage_internal.h"
#include "fingerprint/hamming.h"
#include "index/nearest_scan.h"

namespace simhash::sql {

using index_storage_internal::ResetOnExit;

std::optional<StoredFingerprint> IndexStorage::lookup(std::int64_t id) {
  sqlite3_stmt* statement = cached(select_data_, "SELECT fp FROM \"%w\".\"%w_data\" WHERE id = ?1");
  ResetOnExit reset(statement);
  sqlite3_bind_int64(statement, 1, id);
  if (!step_row(statement)) {
    return std::nullopt;
  }
  if (sqlite3_column_type(statement, 0) == SQLITE_NULL) {
    return StoredFingerprint();
  }
  return StoredFingerprint(sqlite3_column_int64(statement, 0));
}

sqlite3_stmt* IndexStorage::probe_statement(int parts) {
  CachedStatement& statement = probe_by_parts_[static_cast<std::size_t>(parts - 1)];
  return statement.get_with(db_, [&] {
    std::string sql = table_sql(kSelectBucketBitsRow);
    for (int part = 1; part <= parts; ++part) {
      sql += " UNION ALL ";
      sql += table_sql("SELECT id, entries FROM \"%w\".\"%w_buckets\" WHERE id = ?");
      sql += std::to_string(part);
    }
    return sql;
  });
}

void IndexStorage::search(std::uint64_t query, int radius, std::vector<IndexHit>& out) {
  if (radius <= plan_.k()) {
    probe(query, radius, out);
  } else if (multi_probe_pays(radius)) {
    const std::size_t first = out.size();
    // The parts follow the bucket bits, so a reload makes them anew.
    with_current_layout(out, [&] {
      return multi_probe_with_layout(query, MultiProbePlan(plan_, layout_, radius), out);
    });
    pending_.apply_to(query, radius, out, first);
  } else {
    scan(query, radius, out);
  }
}

bool IndexStorage::multi_probe_pays(int radius) {
  if (radius <= plan_.k() || radius >= kMaxRadius) {
    return false;  // the plain probe, or every row is an answer
  }
  const std::optional<std::int64_t> rows = stored_row_count();
  return rows && MultiProbePlan(plan_, layout_, radius)
                     .cheaper_than_scan(*rows + static_cast<std::int64_t>(pending_.size()));
}

bool IndexStorage::multi_probe_beats_packed_scan(int radius) {
  if (radius <= plan_.k() || radius >= kMaxRadius) {
    return false;
  }
  const std::optional<std::int64_t> rows = stored_row_count();
  if (!rows) {
    return false;
  }
  const std::int64_t all = *rows + static_cast<std::int64_t>(pending_.size());
  // Uniform rows fill every bucket of copy 0 once there are more rows than buckets.
  const int bits = layout_.bucket_bits(0);
  const std::int64_t buckets = bits >= 62 ? all : std::min(all, std::int64_t{1} << bits);
  return MultiProbePlan(plan_, layout_, radius).cheaper_than_packed_scan(all, buckets);
}

int IndexStorage::nearest_growth_start(std::size_t count) {
  const std::optional<std::int64_t> rows = stored_row_count();
  const int next = plan_.k() + 1;
  if (!rows) {
    return next;
  }
  return std::max(
      next, MultiProbePlan::expected_radius(*rows + static_cast<std::int64_t>(pending_.size()),
                                            static_cast<double>(count)));
}

void IndexStorage::probe(std::uint64_t query, int radius, std::vector<IndexHit>& out) {
  const std::size_t first = out.size();
  with_current_layout(out, [&] { return probe_with_layout(query, radius, out); });
  pending_.apply_to(query, radius, out, first);
}

template <typename Read>
void IndexStorage::with_current_layout(std::vector<IndexHit>& out, Read read) {
  const std::size_t first = out.size();
  if (read()) {
    return;
  }
  out.resize(first);
  reload_layout();  // from the same snapshot: the second try agrees with it
  if (!read()) {
    throw SqliteError(SQLITE_CORRUPT_VTAB,
                      "simhash_index " + name_ + ": the stored bucket bits changed during a query");
  }
}

// A bucket read's first row: the stored bucket bits (row -1), absent when
// they are the format-2 default, so a bucket row then comes first.
IndexStorage::FirstRow IndexStorage::read_first_row(sqlite3_stmt* statement, std::int64_t row_id) {
  const std::optional<int> stored =
      row_id == -1 ? bucket_bits_in_probe_row(statement) : BucketLayout::kDefaultBucketBits;
  if (stored != layout_.bits()) {
    return FirstRow::kOtherLayout;
  }
  return row_id == -1 ? FirstRow::kBucketBits : FirstRow::kBucket;
}

template <typename Visit>
bool IndexStorage::read_buckets(std::span<const std::int64_t> row_ids, Visit visit) {
  for (std::size_t first = 0; first < row_ids.size(); first += kProbeChunk) {
    const int parts = static_cast<int>(std::min<std::size_t>(kProbeChunk, row_ids.size() - first));
    sqlite3_stmt* statement = probe_statement(parts);
    ResetOnExit reset(statement);
    for (int part = 0; part < parts; ++part) {
      sqlite3_bind_int64(statement, part + 1, row_ids[first + static_cast<std::size_t>(part)]);
    }
    // Rows come in part order, the bucket bits first (none if they are the
    // default); a part whose bucket is empty has no row.
    bool bits_checked = false;
    std::size_t next_part = first;
    while (step_row(statement)) {
      const std::int64_t row_id = sqlite3_column_int64(statement, 0);
      if (!bits_checked) {
        bits_checked = true;
        const FirstRow first_row = read_first_row(statement, row_id);
        if (first_row == FirstRow::kOtherLayout) {
          return false;
        }
        if (first_row == FirstRow::kBucketBits) {
          continue;
        }
      }
      while (next_part < first + static_cast<std::size_t>(parts) && row_ids[next_part] != row_id) {
        ++next_part;
      }
      if (next_part == first + static_cast<std::size_t>(parts)) {
        throw_malformed(row_id);
      }
      ++next_part;
      visit(row_id, static_cast<const unsigned char*>(sqlite3_column_blob(statement, 1)),
            static_cast<std::size_t>(sqlite3_column_bytes(statement, 1)));
    }
    if (!bits_checked && layout_.bits() != BucketLayout::kDefaultBucketBits) {
      return false;
    }
  }
  return true;
}

bool IndexStorage::probe_with_layout(std::uint64_t query, int radius, std::vector<IndexHit>& out) {
  const int tables = plan_.table_count();
  keys_.resize(static_cast<std::size_t>(tables));
  row_ids_.resize(static_cast<std::size_t>(tables));
  for (int table = 0; table < tables; ++table) {
    keys_[table] = plan_.permute(table, query);
    row_ids_[table] = layout_.row_id(table, layout_.bucket_of(table, keys_[table]));
  }
  return read_buckets(row_ids_,
                      [&](std::int64_t row_id, const unsigned char* data, std::size_t size) {
                        const int table = layout_.table_of(row_id);
                        probe_bucket(table, query, keys_[table], data, size, radius, out);
                      });
}

bool IndexStorage::multi_probe_with_layout(std::uint64_t query, const MultiProbePlan& plan,
                                           std::vector<IndexHit>& out) {
  // The buckets to read, in row id order (which is part order, as the parts
  // are taken in table order); a table's part, for the rows read.
  const std::span<const ProbePart> parts = plan.parts();
  row_ids_.clear();
  keys_.assign(static_cast<std::size_t>(plan_.table_count()), 0);
  part_of_table_.assign(static_cast<std::size_t>(plan_.table_count()), -1);
  for (std::size_t index = 0; index < parts.size(); ++index) {
    const int table = parts[index].table;
    part_of_table_[table] = static_cast<int>(index);
    keys_[table] = plan_.permute(table, query);
    const std::size_t begin = row_ids_.size();
    MultiProbePlan::for_each_bucket(
        parts[index], layout_.bucket_of(table, keys_[table]),
        [&](std::uint64_t bucket) { row_ids_.push_back(layout_.row_id(table, bucket)); });
    std::sort(row_ids_.begin() + static_cast<std::ptrdiff_t>(begin), row_ids_.end());
  }
  std::size_t buckets_read = 0;
  return read_buckets(row_ids_, [&](std::int64_t row_id, const unsigned char* data,
                                    std::size_t size) {
    if (++buckets_read % kBucketsBetweenInterruptChecks == 0) {
      throw_if_interrupted(db_);
    }
    const int table = layout_.table_of(row_id);
    const int part = part_of_table_[table];
    const std::uint64_t bucket = static_cast<std::uint64_t>(row_id - layout_.first_row_id(table));
    const std::uint64_t key = keys_[table];
    const int bucket_distance = std::popcount(bucket ^ layout_.bucket_of(table, key));
    BucketView view;
    if (!view.parse(data, size, layout_.rest_bytes(table))) {
      throw_malformed(row_id);
    }
    close_entries_.clear();
    view.find_close(layout_.rest_of(table, key), 0, plan.radius() - bucket_distance,
                    close_entries_);
    report_close_entries(
        view, row_id,
        [&](const CloseEntry& close) -> std::optional<IndexHit> {
          const std::uint64_t fp =
              plan_.unpermute(table, layout_.key_of(table, bucket, view.rest(close.index)));
          if (plan.reporting_part(fp ^ query) != part) {
            return std::nullopt;  // another part reports it
          }
          return IndexHit{0, static_cast<std::int64_t>(fp), close.distance + bucket_distance};
        },
        out);
  });
}

template <typename MakeHit>
void IndexStorage::report_close_entries(const BucketView& view, std::int64_t row_id,
                                        MakeHit make_hit, std::vector<IndexHit>& out) {
  // The fingerprint comes from the rest; ids are decoded only in a bucket
  // that reports a hit, to its end (checked).
  BucketIdReader ids(view);
  std::size_t next_index = 0;
  std::int64_t id = 0;
  for (const CloseEntry& close : close_entries_) {
    std::optional<IndexHit> hit = make_hit(close);
    if (!hit) {
      continue;
    }
    while (next_index <= close.index) {
      if (!ids.next(id)) {
        throw_malformed(row_id);
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
  if (next_index == 0) {
    return;
  }
  if (!ids.skip_to_clean_end()) {
    throw_malformed(row_id);
  }
}

void IndexStorage::probe_bucket(int table, std::uint64_t query, std::uint64_t key,
                                const unsigned char* data, std::size_t size, int radius,
                                std::vector<IndexHit>& out) {
  const std::uint64_t bucket = layout_.bucket_of(table, key);
  const std::int64_t row_id = layout_.row_id(table, bucket);
  // Prefix bits below the bucket bits: an entry must match the query there too.
  const int extra_prefix_bits = plan_.prefix_bits(table) - layout_.bucket_bits(table);
  const std::uint64_t prefix_mask = extra_prefix_bits == 0
                                        ? 0
                                        : ((std::uint64_t{1} << extra_prefix_bits) - 1)
                                              << (layout_.rest_bits(table) - extra_prefix_bits);
  BucketView view;
  if (!view.parse(data, size, layout_.rest_bytes(table))) {
    throw_malformed(row_id);
  }
  close_entries_.clear();
  view.find_close(layout_.rest_of(table, key), prefix_mask, radius, close_entries_);
  report_close_entries(
      view, row_id,
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

void IndexStorage::scan(std::uint64_t query, int radius, std::vector<IndexHit>& out) {
  sqlite3_stmt* statement = cached(scan_data_, kSelectFingerprintRows);
  ResetOnExit reset(statement);
  while (step_row(statement)) {
    const std::int64_t fp = sqlite3_column_int64(statement, 1);
    const int distance = hamming_distance(static_cast<std::uint64_t>(fp), query);
    if (distance <= radius) {
      out.push_back(IndexHit{sqlite3_column_int64(statement, 0), fp, distance});
    }
  }
}

void IndexStorage::scan_nearest(std::uint64_t query, std::size_t count,
                                std::vector<IndexHit>& out) {
  out.clear();
  if (count == 0) {
    return;
  }
  // A max-heap by nearer(): its front is the farthest row kept.
  sqlite3_stmt* statement = cached(scan_data_, kSelectFingerprintRows);
  ResetOnExit reset(statement);
  while (step_row(statement)) {
    const std::int64_t fp = sqlite3_column_int64(statement, 1);
    const IndexHit hit{sqlite3_column_int64(statement, 0), fp,
                       hamming_distance(static_cast<std::uint64_t>(fp), query)};
    if (out.size() < count) {
      out.push_back(hit);
      std::push_heap(out.begin(), out.end(), nearer);
    } else if (nearer(hit, out.front())) {
      std::pop_heap(out.begin(), out.end(), nearer);
      out.back() = hit;
      std::push_heap(out.begin(), out.end(), nearer);
    }
  }
  std::sort_heap(out.begin(), out.end(), nearer);
}

void IndexStorage::packed_nearest(std::uint64_t query, std::size_t count, int bound,
                                  std::vector<IndexHit>& out) {
  out.clear();
  if (count == 0) {
    return;
  }
  if (pending_.size() > kMaxPendingForPackedScan) {
    scan_nearest(query, count, out);
    if (bound < kMaxRadius) {
      out.erase(std::find_if(out.begin(), out.end(),
                             [&](const IndexHit& hit) { return hit.distance > bound; }),
                out.end());
    }
    return;
  }
  // Copy 0's buckets, after the stored bucket bits (as a probe reads them,
  // in the same statement, so they agree).
  sqlite3_stmt* statement = scan_buckets_.get_with(db_, [&] {
    return table_sql(kSelectBucketBitsRow) + " UNION ALL " +
           table_sql("SELECT id, entries FROM \"%w\".\"%w_buckets\" WHERE id >= 0 AND id < ?1");
  });
  with_current_layout(out, [&] {
    ResetOnExit reset(statement);
    sqlite3_bind_int64(statement, 1, layout_.first_row_id(1));
    NearestScan scan(plan_, layout_, 0, query, count, bound, pending_);
    bool bits_checked = false;
    std::size_t buckets_read = 0;
    while (step_row(statement)) {
      const std::int64_t row_id = sqlite3_column_int64(statement, 0);
      if (!bits_checked) {
        bits_checked = true;
        const FirstRow first_row = read_first_row(statement, row_id);
        if (first_row == FirstRow::kOtherLayout) {
          return false;
        }
        if (first_row == FirstRow::kBucketBits) {
          continue;
        }
      }
      if (++buckets_read % kBucketsBetweenInterruptChecks == 0) {
        throw_if_interrupted(db_);
      }
      if (!scan.add_bucket(row_id,
                           static_cast<const unsigned char*>(sqlite3_column_blob(statement, 1)),
                           static_cast<std::size_t>(sqlite3_column_bytes(statement, 1)))) {
        throw_malformed(row_id);
      }
    }
    if (!bits_checked && layout_.bits() != BucketLayout::kDefaultBucketBits) {
      return false;
    }
    scan.finish(out);
    return true;
  });
}

Statement IndexStorage::select_all_rows() const { return prepare_table_sql(kSelectAllRows); }

}  // namespace simhash::sql
