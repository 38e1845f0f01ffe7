// SPDX-License-Identifier: MIT
// simhash_index's reads (IndexStorage, index_storage.h): the lookup of one
// row, the probe within k, the multi-probe search above it, the scans of the
// data table; all see the pending changes without merging them.
#include "ext/index/index_storage.h"

#include <algorithm>
#include <limits>
#include <span>
#include <type_traits>
#include <utility>

#include "ext/common/radius_argument.h"
#include "ext/index/index_shadow_tables.h"
#include "ext/index/index_storage_internal.h"
#include "fingerprint/hamming.h"
#include "index/nearest_scan.h"
#include "util/thread_clock.h"

namespace simhash::sql {

namespace {

// Calls visit(row_id, data, size) for one bucket read; false if the visit
// asks the reading to stop. A visit may return bool (false stops) or nothing
// (it reads every bucket), so the reads take either kind of visitor.
template <typename Visit>
bool visit_bucket(Visit& visit, std::int64_t row_id, const unsigned char* data, std::size_t size) {
  if constexpr (std::is_same_v<decltype(visit(row_id, data, size)), bool>) {
    return visit(row_id, data, size);
  } else {
    visit(row_id, data, size);
    return true;
  }
}

}  // namespace

std::optional<StoredFingerprint> IndexStorage::lookup(std::int64_t id) {
  sqlite3_stmt* statement = cached(select_data_, kSelectDataRow);
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
      sql += table_sql(kProbeBucketPart);
      sql += std::to_string(part);
    }
    return sql;
  });
}

template <typename Saving>
bool IndexStorage::codes_serve(unsigned version, Saving saving) {
  if (codes_version_ != version) {
    drop_packed_codes();  // stale: their memory is not kept
    const std::optional<std::int64_t> rows = stored_row_count();
    if (rows && code_load_rule_.loads_next(version, saving(*rows), code_load_cost(*rows))) {
      const double start = thread_cpu_nanoseconds();
      codes_loaded_ = load_packed_codes(*rows);
      if (codes_loaded_ && codes_.size() > 0) {
        code_load_row_cost_.record(thread_cpu_nanoseconds() - start,
                                   static_cast<double>(codes_.size()));
      }
      codes_fresh_ = codes_loaded_;
      codes_version_ = version;
    } else if (rows) {
      code_load_rule_.count_scan(version, saving(*rows));
    }
  }
  return codes_version_ == version && codes_loaded_;
}

void IndexStorage::search(std::uint64_t query, int radius, std::vector<IndexHit>& out) {
  if (radius <= plan_.k()) {
    probe(query, radius, out);
    return;
  }
  // Every row is an answer at kMaxRadius; without a row count, no plan.
  const std::optional<std::int64_t> rows = radius < kMaxRadius ? planning_rows() : std::nullopt;
  if (!rows) {
    scan(query, radius, out);
    return;
  }
  const MultiProbePlan plan(plan_, layout_, radius);
  if (!search_cached_codes(query, plan, *rows, out)) {
    search_above_k(query, plan, *rows, out);
  }
}

bool IndexStorage::search_cached_codes(std::uint64_t query, const MultiProbePlan& plan,
                                       std::int64_t rows, std::vector<IndexHit>& out) {
  const std::optional<unsigned> version = codes_version_now();
  if (!version || static_cast<std::uint64_t>(rows) > kMaxCachedCodes) {
    return false;
  }
  // What search_above_k would run instead, priced as the choice of the n
  // nearest prices it.
  const double instead = plan.cheaper_than_scan(rows)
                             ? search_price(plan, rows)
                             : MultiProbePlan::kScanCostPerRow * static_cast<double>(rows);
  const double saving = instead - cached_scan_price(rows);
  if (saving <= 0) {
    // The loop is passed over: now and then it runs anyway, to be timed.
    if (codes_version_ != version || !codes_loaded_ || !loop_retrial_due(instead, rows)) {
      return false;
    }
  } else if (!codes_serve(*version, [&](std::int64_t) { return saving; })) {
    return false;
  }
  const std::size_t first = out.size();
  const double start = cached_loop_start();
  codes_.within(plan_, query, plan.radius(), out);
  time_cached_loop(start);
  pending_.apply_to(query, plan.radius(), out, first);
  return true;
}

double IndexStorage::cached_loop_start() const {
  return codes_.size() < kTimedLoopRows ? 0 : thread_cpu_nanoseconds();
}

void IndexStorage::time_cached_loop(double start) {
  // The first loop after a load pays for the load's fresh memory, not what
  // the later loops cost.
  if (std::exchange(codes_fresh_, false) || codes_.size() < kTimedLoopRows) {
    return;
  }
  const double elapsed = thread_cpu_nanoseconds() - start;
  const auto rows = static_cast<double>(codes_.size());
  if (rows > 2 * cached_rows_timed_ || 2 * rows < cached_rows_timed_) {
    cached_row_cost_.reset();  // timed over a table of another size
  }
  cached_rows_timed_ = rows;
  cached_row_cost_.record(elapsed, rows);
}

double IndexStorage::search_price(const MultiProbePlan& plan, std::int64_t rows) const {
  return plan.search_cost(rows) * search_cost_ratio_.estimate(1);
}

double IndexStorage::cached_scan_price(std::int64_t rows) const {
  const auto n = static_cast<double>(rows);
  const bool comparable =
      cached_row_cost_.measured() && n <= 2 * cached_rows_timed_ && 2 * n >= cached_rows_timed_;
  const double unmeasured = MultiProbePlan::unmeasured_cached_row_cost();
  return n * (comparable ? cached_row_cost_.estimate(unmeasured) : unmeasured);
}

bool IndexStorage::loop_retrial_due(double instead, std::int64_t rows) {
  if (cached_scan_price(rows) > kLoopRetrialReach * instead ||
      ++loops_passed_over_ < kLoopRetrialPeriod) {
    return false;
  }
  loops_passed_over_ = 0;
  return true;
}

std::optional<std::int64_t> IndexStorage::planning_rows() {
  const std::optional<std::int64_t> rows = stored_row_count();
  if (!rows) {
    return std::nullopt;
  }
  return *rows + static_cast<std::int64_t>(pending_.size());
}

void IndexStorage::search_above_k(std::uint64_t query, const MultiProbePlan& plan,
                                  std::int64_t rows, std::vector<IndexHit>& out) {
  if (!plan.cheaper_than_scan(rows)) {
    scan(query, plan.radius(), out);
    return;
  }
  const std::size_t first = out.size();
  const double model = plan.search_cost(rows);
  const bool timed = model >= kTimedSearchCost;
  const double start = timed ? thread_cpu_nanoseconds() : 0;
  // The parts follow the bucket bits: a reload makes them anew.
  std::optional<MultiProbePlan> reloaded;
  bool first_try = true;
  with_current_layout(out, [&] {
    if (!first_try) {
      reloaded.emplace(plan_, layout_, plan.radius());
    }
    first_try = false;
    return multi_probe_with_layout(query, reloaded ? *reloaded : plan, out);
  });
  pending_.apply_to(query, plan.radius(), out, first);
  if (timed) {
    search_cost_ratio_.record(thread_cpu_nanoseconds() - start, model);
  }
}

bool IndexStorage::pass_reads_cached_codes(std::optional<unsigned> version, std::int64_t rows) {
  // The cached codes serve this query's scan if they are current, or will
  // be loaded by it (its cost is then paid once for the queries after it).
  if (!version || static_cast<std::uint64_t>(rows) > kMaxCachedCodes) {
    return false;
  }
  return codes_version_ == version
             ? codes_loaded_
             : code_load_rule_.loads_next(*version, packed_scan_cost(rows), code_load_cost(rows));
}

bool IndexStorage::multi_probe_beats_packed_scan(const MultiProbePlan& plan, std::int64_t rows) {
  const std::optional<unsigned> version = codes_version_now();
  if (pass_reads_cached_codes(version, rows)) {
    return search_price(plan, rows) < cached_scan_price(rows);
  }
  if (!plan.cheaper_than_packed_scan(rows, copy0_buckets(rows))) {
    return false;
  }
  // The search runs without the codes: what it costs above their loop
  // counts towards loading them (a query far from every row at 10M
  // searches at every radius and would never scan).
  if (version && codes_version_ != version) {
    const double saved = search_price(plan, rows) - cached_scan_price(rows);
    if (saved > 0) {
      code_load_rule_.count_scan(*version, saved);
    }
  }
  return true;
}

bool IndexStorage::growth_beats_cached_scan(std::int64_t rows, int first_radius) {
  const std::optional<unsigned> version = codes_version_now();
  if (!pass_reads_cached_codes(version, rows)) {
    return true;
  }
  const double growth = growth_cost_[static_cast<std::size_t>(first_radius)].estimate(0);
  if (growth >= cached_scan_price(rows)) {
    return false;
  }
  // The loop is passed over: now and then it runs anyway, to be timed.
  return !(codes_version_ == version && codes_loaded_ && loop_retrial_due(growth, rows));
}

void IndexStorage::time_growth(double start, int first_radius) {
  growth_cost_[static_cast<std::size_t>(first_radius)].record(thread_cpu_nanoseconds() - start, 1);
}

double IndexStorage::nearest_pass_cost(std::int64_t rows) {
  return pass_reads_cached_codes(codes_version_now(), rows) ? cached_scan_price(rows)
                                                            : packed_scan_cost(rows);
}

std::int64_t IndexStorage::copy0_buckets(std::int64_t rows) const {
  // Uniform rows fill every bucket of copy 0 once there are more rows than buckets.
  const int bits = layout_.bucket_bits(0);
  return bits >= 62 ? rows : std::min(rows, std::int64_t{1} << bits);
}

double IndexStorage::packed_scan_cost(std::int64_t rows) const {
  return MultiProbePlan::packed_scan_cost(rows, copy0_buckets(rows));
}

double IndexStorage::code_load_cost(std::int64_t rows) const {
  return code_load_row_cost_.estimate(MultiProbePlan::kCodeLoadCost) * static_cast<double>(rows);
}

int IndexStorage::nearest_growth_start(std::size_t count, std::optional<std::int64_t> rows) const {
  const int next = plan_.k() + 1;
  if (!rows) {
    return next;
  }
  return std::max(next, MultiProbePlan::expected_radius(*rows, static_cast<double>(count)));
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
// they are the format-2 default, so a bucket row then comes first. Every
// later row is a bucket.
IndexStorage::BucketRow IndexStorage::classify_bucket_row(sqlite3_stmt* statement,
                                                          std::int64_t row_id, bool& bits_checked) {
  if (bits_checked) {
    return BucketRow::kBucket;
  }
  bits_checked = true;
  const std::optional<int> stored =
      row_id == -1 ? bucket_bits_in_probe_row(statement) : BucketLayout::kDefaultBucketBits;
  if (stored != layout_.bits()) {
    return BucketRow::kOtherLayout;
  }
  return row_id == -1 ? BucketRow::kBucketBits : BucketRow::kBucket;
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
      const BucketRow row = classify_bucket_row(statement, row_id, bits_checked);
      if (row == BucketRow::kOtherLayout) {
        return false;
      }
      if (row == BucketRow::kBucketBits) {
        continue;
      }
      while (next_part < first + static_cast<std::size_t>(parts) && row_ids[next_part] != row_id) {
        ++next_part;
      }
      if (next_part == first + static_cast<std::size_t>(parts)) {
        throw_malformed(row_id);
      }
      ++next_part;
      const auto* data = static_cast<const unsigned char*>(sqlite3_column_blob(statement, 1));
      const auto size = static_cast<std::size_t>(sqlite3_column_bytes(statement, 1));
      if (!visit_bucket(visit, row_id, data, size)) {
        return true;  // the bits were checked with the first row read
      }
    }
    if (!bits_checked && layout_.bits() != BucketLayout::kDefaultBucketBits) {
      return false;
    }
  }
  return true;
}

template <typename Visit>
bool IndexStorage::read_probed_buckets(std::span<const std::int64_t> row_ids, Visit visit) {
  const int bits = layout_.bits();
  const bool cached = cached_buckets_serve(row_ids.size());
  if (layout_.bits() != bits) {
    return false;  // the load read other bits: `row_ids` are not those of the buckets now
  }
  if (!cached) {
    std::size_t stored = 0;
    std::size_t bytes = 0;
    bool stopped = false;
    const bool current = read_buckets(
        row_ids, [&](std::int64_t row_id, const unsigned char* data, std::size_t size) {
          ++stored;
          bytes += size;
          stopped = !visit_bucket(visit, row_id, data, size);
          return !stopped;
        });
    if (current && !stopped) {
      probed_slots_.record(static_cast<double>(row_ids.size()), stored, bytes);
    }
    return current;
  }
  for (const std::int64_t row_id : row_ids) {
    const std::span<const unsigned char> blob = cached_buckets_.bucket(row_id);
    if (blob.empty()) {
      continue;  // no row stored: an empty bucket
    }
    if (!visit_bucket(visit, row_id, blob.data(), blob.size())) {
      return true;
    }
  }
  return true;
}

bool IndexStorage::cached_buckets_serve(std::size_t buckets) {
  const std::optional<unsigned> version = codes_version_now();
  if (!version) {
    return false;
  }
  if (cached_buckets_version_ != version) {
    drop_cached_buckets();  // stale: their memory is not kept
    double saving = BucketCache::kSavedReadCost * static_cast<double>(buckets);
    double load = BucketCache::load_cost(layout_, plan_.table_count(), probed_slots_.stored(),
                                         probed_slots_.bytes());
    if (load_buckets_after_) {
      saving = 1;
      load = static_cast<double>(*load_buckets_after_);
    } else if (BucketCache::expected_bytes(layout_, plan_.table_count(), probed_slots_.bytes()) >
               static_cast<double>(kMaxCachedBucketBytes)) {
      return false;  // too many to keep: not worth counting towards a load
    }
    if (!bucket_load_rule_.loads_next(*version, saving, load)) {
      bucket_load_rule_.count_scan(*version, saving);
      return false;
    }
    cached_buckets_loaded_ = load_cached_buckets();
    cached_buckets_version_ = version;
  }
  return cached_buckets_loaded_ && cached_buckets_.bits() == layout_.bits();
}

bool IndexStorage::load_cached_buckets() {
  std::vector<IndexHit> unused;
  try {
    bool kept = true;
    with_current_layout(unused, [&] {
      const double expected =
          BucketCache::expected_bytes(layout_, plan_.table_count(), probed_slots_.bytes());
      kept = cached_buckets_.reset(layout_, plan_.table_count(), kMaxCachedBucketBytes,
                                   static_cast<std::size_t>(expected));
      return !kept ||
             read_copies(layout_.first_row_id(plan_.table_count()),
                         [&](std::int64_t row_id, const unsigned char* data, std::size_t size) {
                           kept = cached_buckets_.add(row_id, data, size);
                           return kept;
                         });
    });
    if (kept) {
      cached_buckets_.finish();
      return true;
    }
  } catch (const MemoryLimitExceeded&) {
  } catch (...) {
    cached_buckets_.clear();
    throw;
  }
  cached_buckets_.clear();
  return false;
}

void IndexStorage::drop_cached_buckets() {
  cached_buckets_.clear();
  cached_buckets_version_.reset();
  cached_buckets_loaded_ = false;
}

bool IndexStorage::probe_with_layout(std::uint64_t query, int radius, std::vector<IndexHit>& out) {
  bucket_probe_.probe_rows(query, row_ids_);
  return read_probed_buckets(
      row_ids_, [&](std::int64_t row_id, const unsigned char* data, std::size_t size) {
        if (!bucket_probe_.probe_bucket(query, radius, row_id, data, size, out)) {
          throw_malformed(row_id);
        }
      });
}

void IndexStorage::probe_nearest(std::uint64_t query, std::size_t count,
                                 std::vector<IndexHit>& out) {
  const int k = plan_.k();
  if (count == 0) {
    probe(query, k, out);
    return;
  }
  // The pending changes, applied at the end, drop at most one counted row
  // per delete (a stored row gone or moved) and add rows only where every
  // row within k is found: the reading proves `count` rows once it counts
  // that many more.
  const std::size_t most = std::numeric_limits<std::size_t>::max();
  const std::size_t wanted = count > most - pending_.deletes() ? most : count + pending_.deletes();
  const std::size_t first = out.size();
  with_current_layout(out, [&] {
    bucket_probe_.probe_rows(query, row_ids_);
    // Tables read so far whose prefixes are pairwise disjoint (greedily, in
    // table order), and the rows found within the radius they prove.
    std::uint64_t taken = 0;
    int disjoint = 0;
    int next_table = 0;
    std::size_t proven = 0;
    std::size_t counted = first;
    return read_probed_buckets(
        row_ids_, [&](std::int64_t row_id, const unsigned char* data, std::size_t size) {
          if (!bucket_probe_.probe_bucket(query, k, row_id, data, size, out)) {
            throw_malformed(row_id);
          }
          // Every table up to this one has been read (an absent bucket is empty).
          const int radius_before = disjoint - 1;
          for (const int table = layout_.table_of(row_id); next_table <= table; ++next_table) {
            const std::uint64_t mask = plan_.prefix_mask(next_table);
            if ((mask & taken) == 0) {
              taken |= mask;
              ++disjoint;
            }
          }
          const int radius = std::min(disjoint - 1, k);
          if (radius != radius_before) {
            counted = first;  // the rows found before count again at the new radius
            proven = 0;
          }
          for (; counted < out.size(); ++counted) {
            proven += out[counted].distance <= radius ? 1 : 0;
          }
          return proven < wanted;
        });
  });
  pending_.apply_to(query, k, out, first);
}

bool IndexStorage::multi_probe_with_layout(std::uint64_t query, const MultiProbePlan& plan,
                                           std::vector<IndexHit>& out) {
  bucket_probe_.multi_probe_rows(query, plan, row_ids_);
  std::size_t buckets_read = 0;
  return read_buckets(
      row_ids_, [&](std::int64_t row_id, const unsigned char* data, std::size_t size) {
        if (++buckets_read % kBucketsBetweenInterruptChecks == 0) {
          throw_if_interrupted(db_);
        }
        if (!bucket_probe_.multi_probe_bucket(query, plan, row_id, data, size, out)) {
          throw_malformed(row_id);
        }
      });
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

template <typename Visit>
bool IndexStorage::read_copies(std::int64_t end, Visit visit) {
  sqlite3_stmt* statement = scan_buckets_.get_with(db_, [&] {
    return table_sql(kSelectBucketBitsRow) + " UNION ALL " + table_sql(kSelectFirstCopyBuckets);
  });
  ResetOnExit reset(statement);
  sqlite3_bind_int64(statement, 1, end);
  bool bits_checked = false;
  std::size_t buckets_read = 0;
  while (step_row(statement)) {
    const std::int64_t row_id = sqlite3_column_int64(statement, 0);
    const BucketRow row = classify_bucket_row(statement, row_id, bits_checked);
    if (row == BucketRow::kOtherLayout) {
      return false;
    }
    if (row == BucketRow::kBucketBits) {
      continue;
    }
    if (++buckets_read % kBucketsBetweenInterruptChecks == 0) {
      throw_if_interrupted(db_);
    }
    const auto* data = static_cast<const unsigned char*>(sqlite3_column_blob(statement, 1));
    const auto size = static_cast<std::size_t>(sqlite3_column_bytes(statement, 1));
    if (!visit_bucket(visit, row_id, data, size)) {
      return true;  // the bits were checked with the first row read
    }
  }
  return bits_checked || layout_.bits() == BucketLayout::kDefaultBucketBits;
}

std::optional<unsigned> IndexStorage::codes_version_now() {
  if (buckets_written_) {
    return std::nullopt;
  }
  unsigned version = 0;
  if (sqlite3_file_control(db_, schema_.c_str(), SQLITE_FCNTL_DATA_VERSION, &version) !=
      SQLITE_OK) {
    return std::nullopt;
  }
  return version;
}

void IndexStorage::drop_packed_codes() {
  codes_.clear();
  codes_version_.reset();
  codes_loaded_ = false;
}

bool IndexStorage::load_packed_codes(std::int64_t rows) {
  // The vector's charge may refuse, and the rows may be too many: then the
  // buckets are scanned as if there were no cache.
  std::vector<IndexHit> unused;
  try {
    bool too_many = false;
    // The stored count is the copy's rows (a merge stores it with the
    // buckets; the pending changes are not in either); a count that
    // disagrees only costs a copy of the arrays.
    if (rows > 0 && static_cast<std::uint64_t>(rows) <= kMaxCachedCodes) {
      codes_.reserve(static_cast<std::size_t>(rows));
    }
    with_current_layout(unused, [&] {
      codes_.reset(0);
      too_many = false;
      return read_copies(layout_.first_row_id(1),
                         [&](std::int64_t row_id, const unsigned char* data, std::size_t size) {
                           if (too_many) {
                             return;
                           }
                           if (!codes_.add_bucket(layout_, row_id, data, size)) {
                             throw_malformed(row_id);
                           }
                           too_many = codes_.size() > kMaxCachedCodes;
                         });
    });
    if (!too_many) {
      return true;
    }
  } catch (const MemoryLimitExceeded&) {
  } catch (...) {
    codes_.clear();  // a malformed bucket: the error goes to the caller
    throw;
  }
  codes_.clear();
  return false;
}

void IndexStorage::packed_nearest(std::uint64_t query, std::size_t count, int bound,
                                  std::vector<IndexHit>& out) {
  out.clear();
  if (count == 0) {
    return;
  }
  if (pending_.size() > packed_scan_limit_) {
    scan_nearest(query, count, out);
    if (bound < kMaxRadius) {
      out.erase(std::find_if(out.begin(), out.end(),
                             [&](const IndexHit& hit) { return hit.distance > bound; }),
                out.end());
    }
    return;
  }
  const std::optional<unsigned> version = codes_version_now();
  if (version && codes_serve(*version, [&](std::int64_t rows) { return packed_scan_cost(rows); })) {
    const PendingNearest changes(pending_, query, count, bound);
    const double start = cached_loop_start();
    codes_.nearest(plan_, query, changes.capacity(), bound, out);
    time_cached_loop(start);
    changes.finish(out, 0);
    return;
  }
  // Copy 0's buckets, after the stored bucket bits (as a probe reads them,
  // in the same statement, so they agree).
  with_current_layout(out, [&] {
    NearestScan scan(plan_, layout_, 0, query, count, bound, pending_);
    const bool current =
        read_copies(layout_.first_row_id(1),
                    [&](std::int64_t row_id, const unsigned char* data, std::size_t size) {
                      if (!scan.add_bucket(row_id, data, size)) {
                        throw_malformed(row_id);
                      }
                    });
    if (current) {
      scan.finish(out);
    }
    return current;
  });
}

Statement IndexStorage::select_all_rows() const { return prepare_table_sql(kSelectAllRows); }

}  // namespace simhash::sql
