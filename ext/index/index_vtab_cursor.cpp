// SPDX-License-Identifier: MIT
// simhash_index's cursors: xFilter runs the plan xBestIndex chose
// (index_vtab_plan.cpp) — a scan, a rowid, a search within a radius, the n
// nearest, a command — and xNext, xEof, xColumn, xRowid walk its rows.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ext/common/radius_argument.h"
#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"
#include "ext/common/virtual_table.h"
#include "ext/index/index_storage.h"
#include "ext/index/index_vtab_internal.h"
#include "util/thread_clock.h"

namespace simhash::sql::index_vtab {

int x_open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** cursor) {
  return guard(vtab, [&] { return hand_over(std::make_unique<IndexCursor>(), cursor); });
}

int x_close(sqlite3_vtab_cursor* cursor) {
  take_back<IndexCursor>(cursor);
  return SQLITE_OK;
}

namespace {

void step_scan(IndexCursor* cursor, sqlite3* db) {
  const int rc = sqlite3_step(cursor->scan.get());
  cursor->scan_valid = rc == SQLITE_ROW;
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    throw SqliteError(rc, sqlite3_errmsg(db));
  }
}

// The `wanted` rows nearest to the query within `bound` bits (kMaxRadius:
// at any distance), ties by rowid. Searching within a radius r finds every
// row within r; once those are at least `wanted`, or r is the bound, the
// first `wanted` of them are the answer (any nearer row is within r too).
// So the radius grows from k (Multi-Index Hashing's kNN), up to the bound,
// while a search is cheaper than scanning the packed buckets of one copy;
// past that, one pass over them keeps the nearest. Where that pass reads
// the cached codes, the growth above k starts only while the growths timed
// before cost less than the pass (IndexStorage::growth_beats_cached_scan):
// each search is priced alone, yet one that falls short is paid on top of
// the pass after it. Any sequence of radii ending in that pass is exact:
// the choice of radii is only about cost.
void find_nearest(IndexStorage& storage, std::uint64_t query, std::uint64_t wanted, int bound,
                  IndexCursor& cursor) {
  const std::size_t count = wanted > SIZE_MAX ? SIZE_MAX : static_cast<std::size_t>(wanted);
  const int first = std::min(storage.plan().k(), bound);
  // Read once for every radius: a read merges nothing, so it cannot change.
  const std::optional<std::int64_t> rows = storage.planning_rows();
  // Where uniform rows would hold `count`: past radius k the growth goes
  // there (the radii below would most likely fall short, and each search
  // starts afresh)...
  const int uniform = storage.nearest_growth_start(count, rows);
  // ...unless the rows a radius found say the data is denser around the
  // query (near duplicates): then to the radius at which that density would
  // hold `count` (MultiProbePlan::radius_holding), never past `uniform`, so
  // that a query far from every cluster grows as before (one radius at a
  // time past `uniform`). One row found says nothing of density (a query
  // near a stored row finds that row in uniform data too), so one is
  // discounted; but such a query, a stored row in a sparse region of
  // clustered data, often has its n nearest a few bits past k: it grows one
  // radius at a time while those searches cost at most a share of the jump
  // (MultiProbePlan::kNearestStepShare), each priced as the growth's cost
  // check prices it, and jumps when they would cost more.
  double stepped = 0;  // the steps' price so far
  bool stepping = false;
  // Each plan is made once, for the price and the search: the jump's, and
  // the next step's, which the price makes for the loop. Under the layout
  // they were made for (a read may reload it).
  struct MadePlan {
    std::optional<MultiProbePlan> plan;
    int layout_bits = 0;
  };
  MadePlan jump;
  MadePlan step;
  const auto plan_at = [&](MadePlan& made, int radius) -> const MultiProbePlan& {
    if (!made.plan || made.plan->radius() != radius ||
        made.layout_bits != storage.layout().bits()) {
      made.plan.emplace(storage.plan(), storage.layout(), radius);
      made.layout_bits = storage.layout().bits();
    }
    return *made.plan;
  };
  const auto step_affordable = [&](int next) {
    if (!rows || next >= uniform || first != storage.plan().k()) {
      return false;
    }
    const double budget = MultiProbePlan::kNearestStepShare *
                          std::min(storage.search_price(plan_at(jump, uniform), *rows),
                                   storage.nearest_pass_cost(*rows));
    const double price = storage.search_price(plan_at(step, next), *rows);
    if (stepped + price > budget) {
      return false;
    }
    stepped += price;
    return true;
  };
  const auto next_radius = [&](int radius, std::size_t found) {
    int next = radius == first ? uniform : radius + 1;
    if (found > 1 && radius < uniform) {
      next = std::min(uniform, MultiProbePlan::radius_holding(static_cast<double>(found - 1),
                                                              radius, static_cast<double>(count)));
    } else if (found == 1 && (radius == first || stepping)) {
      stepping = step_affordable(radius + 1);
      next = stepping ? radius + 1 : uniform;
    }
    return std::min(bound, std::max(radius + 1, next));
  };
  // When and at which radius the first search above k began (the growth's
  // time, to its answer, is kept by that radius).
  std::optional<double> growth_start;
  int growth_radius = 0;
  for (int radius = first; radius <= bound; radius = next_radius(radius, cursor.hits.size())) {
    cursor.hits.clear();
    if (radius == first && first == storage.plan().k()) {
      // Stops early once the copies read hold `count` rows (near duplicates).
      storage.probe_nearest(query, count, cursor.hits);
    } else if (radius == first) {
      storage.probe(query, radius, cursor.hits);  // first < k
    } else {
      if (!rows || radius >= kMaxRadius) {
        break;
      }
      const MultiProbePlan& plan = plan_at(radius == uniform ? jump : step, radius);
      if (!growth_start) {
        if (!storage.growth_beats_cached_scan(*rows, radius)) {
          break;
        }
        growth_start = thread_cpu_nanoseconds();
        growth_radius = radius;
      }
      if (!storage.multi_probe_beats_packed_scan(plan, *rows)) {
        break;
      }
      storage.search_above_k(query, plan, *rows, cursor.hits);
    }
    cursor.radius = radius;
    if (cursor.hits.size() >= count || radius == bound) {
      cursor.hits_charge.set(cursor.hits.capacity() * sizeof(IndexHit));
      std::sort(cursor.hits.begin(), cursor.hits.end(), nearer);
      if (cursor.hits.size() > count) {
        cursor.hits.resize(count);
      }
      if (growth_start) {
        storage.time_growth(*growth_start, growth_radius);
      }
      return;
    }
  }
  cursor.radius = bound;
  storage.packed_nearest(query, count, bound, cursor.hits);
  cursor.hits_charge.set(cursor.hits.capacity() * sizeof(IndexHit));
  if (growth_start) {
    storage.time_growth(*growth_start, growth_radius);
  }
}

// The count of `nearest = value`: an integer >= 0 (an integral REAL such as
// 5.0 too, as a radius reads it; sql_values.h's integral_value).
std::int64_t nearest_count(sqlite3_value* value, const std::string& name) {
  const std::optional<std::int64_t> count = integral_value(value);
  if (!count || *count < 0) {
    throw SqliteError(SQLITE_MISMATCH,
                      "simhash_index " + name +
                          ": nearest must be a count of rows, an integer of 0 or more, got " +
                          shown(value));
  }
  return *count;
}

}  // namespace

int x_filter(sqlite3_vtab_cursor* base, int idx_num, const char* idx_str, int argc,
             sqlite3_value** argv) {
  IndexCursor* cursor = cursor_of(base);
  IndexTable* table = table_of(base->pVtab);
  return guard(base->pVtab, "simhash_index", [&] {
    const InsideIndex inside(*table);
    IndexStorage& storage = table->usable_storage();
    cursor->hits.clear();
    cursor->position = 0;
    // A scan statement stays with the cursor for the next xFilter (a scan on
    // the inner side of a join filters once per outer row); reset, it holds
    // nothing open.
    sqlite3_reset(cursor->scan.get());
    cursor->scan_mode = false;
    cursor->scan_valid = false;
    cursor->has_query = false;
    cursor->fp_is_null = false;
    cursor->nearest_asked.reset();
    const std::string_view codes = idx_str == nullptr ? std::string_view("-")
                                                      : std::string_view(idx_str).substr(
                                                            0, std::string_view(idx_str).find(' '));
    const int plan = idx_num & kPlanMask;
    if (plan == kPlanScan || argc == 0) {
      cursor->scan_mode = true;
      if (!cursor->scan) {
        cursor->scan = storage.select_all_rows();
      }
      step_scan(cursor, table->db);
      return SQLITE_OK;
    }
    if (plan == kPlanCommand) {
      // Only the check can run in a query; it returns no rows when the
      // index is consistent and fails naming the problem otherwise. NULL
      // equals nothing, as for any "= NULL".
      if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
        return SQLITE_OK;
      }
      if (const std::string command = text_argument(argv[0]); command != "integrity-check") {
        throw SqliteError(SQLITE_ERROR, "simhash_index " + storage.name() + ": '" + command +
                                            "' is not a command a query can run (only "
                                            "'integrity-check'; 'rebuild' is an INSERT)");
      }
      check_integrity(storage);
      return SQLITE_OK;
    }
    if (plan == kPlanRowid) {
      sqlite3_value* value = argv[0];
      const int type = sqlite3_value_numeric_type(value);
      // A REAL equals a rowid only when it is a whole number in int64's
      // range: SQLite saturates the conversion, and 2^63 must not find the
      // row 2^63 - 1.
      constexpr double kTwoTo63 = 9223372036854775808.0;
      const double real = type == SQLITE_FLOAT ? sqlite3_value_double(value) : 0;
      if (type == SQLITE_INTEGER || (type == SQLITE_FLOAT && real >= -kTwoTo63 && real < kTwoTo63 &&
                                     std::floor(real) == real)) {
        const std::int64_t id = sqlite3_value_int64(value);
        if (const std::optional<StoredFingerprint> row = storage.lookup(id)) {
          cursor->hits.push_back(IndexHit{id, row->value_or(0), -1});
          cursor->fp_is_null = !row->has_value();
        }
      }
      return SQLITE_OK;
    }
    // MATCH: argv follows the codes (q, then radius constraints, or LIMIT
    // and OFFSET).
    sqlite3_value* query = argv[0];
    if (sqlite3_value_type(query) == SQLITE_NULL) {
      return SQLITE_OK;
    }
    if (sqlite3_value_type(query) != SQLITE_INTEGER) {
      throw SqliteError(SQLITE_ERROR, "simhash_index " + storage.name() +
                                          ": the query fingerprint must be an INTEGER, got " +
                                          described(query));
    }
    std::optional<int> radius;
    std::optional<std::int64_t> nearest;  // rows wanted: `nearest`, or LIMIT + OFFSET
    for (std::size_t i = 1; i < codes.size() && static_cast<int>(i) < argc; ++i) {
      if (codes[i] == kArgNearest) {
        if (sqlite3_value_type(argv[i]) == SQLITE_NULL) {
          return SQLITE_OK;  // nearest = NULL matches nothing
        }
        nearest = nearest_count(argv[i], storage.name());
        cursor->nearest_asked = nearest;
        continue;
      }
      // SQLite passes LIMIT and OFFSET as integers, LIMIT first; a negative
      // LIMIT means none, and then the plain search (within k) applies.
      const std::int64_t number = sqlite3_value_int64(argv[i]);
      if (codes[i] == kArgLimit) {
        nearest = number >= 0 ? std::optional<std::int64_t>(number) : std::nullopt;
        continue;
      }
      if (codes[i] == kArgOffset) {
        if (nearest && number > 0) {
          nearest = *nearest > INT64_MAX - number ? INT64_MAX : *nearest + number;
        }
        continue;
      }
      const std::optional<int> asked = radius_from(codes[i], argv[i], storage.name());
      if (!asked) {
        return SQLITE_OK;  // a NULL bound matches nothing
      }
      radius = std::min(radius.value_or(kMaxRadius), *asked);
    }
    cursor->has_query = true;
    cursor->query = sqlite3_value_int64(query);
    cursor->radius = radius.value_or(storage.plan().k());
    const auto query_bits = static_cast<std::uint64_t>(cursor->query);
    if (nearest) {  // the n nearest, within the bound if there is one
      find_nearest(storage, query_bits, static_cast<std::uint64_t>(*nearest),
                   radius.value_or(kMaxRadius), *cursor);
      if (radius) {
        cursor->radius = *radius;  // the column shows the bound asked for
      }
      return SQLITE_OK;
    }
    storage.search(query_bits, cursor->radius, cursor->hits);
    cursor->hits_charge.set(cursor->hits.capacity() * sizeof(IndexHit));
    if (idx_num & kSortedByDistance) {
      std::sort(cursor->hits.begin(), cursor->hits.end(), nearer);
    } else {
      std::sort(cursor->hits.begin(), cursor->hits.end(),
                [](const IndexHit& a, const IndexHit& b) { return a.id < b.id; });
    }
    return SQLITE_OK;
  });
}

int x_next(sqlite3_vtab_cursor* base) {
  IndexCursor* cursor = cursor_of(base);
  return guard(base->pVtab, "simhash_index", [&] {
    if (cursor->scan_mode) {
      const InsideIndex inside(*table_of(base->pVtab));
      step_scan(cursor, table_of(base->pVtab)->db);
    } else {
      ++cursor->position;
    }
    return SQLITE_OK;
  });
}

int x_eof(sqlite3_vtab_cursor* base) {
  const IndexCursor* cursor = cursor_of(base);
  return cursor->scan_mode ? !cursor->scan_valid : cursor->position >= cursor->hits.size();
}

int x_column(sqlite3_vtab_cursor* base, sqlite3_context* context, int column) {
  const IndexCursor* cursor = cursor_of(base);
  // An UPDATE reads the columns it does not set with this flag; leaving the
  // computed ones without a value lets xUpdate tell them from written ones.
  if (column != kColumnFp && sqlite3_vtab_nochange(context)) {
    return SQLITE_OK;
  }
  std::int64_t fp = 0;
  bool fp_is_null = false;
  int distance = -1;
  if (cursor->scan_mode) {
    fp = sqlite3_column_int64(cursor->scan.get(), 1);
    fp_is_null = sqlite3_column_type(cursor->scan.get(), 1) == SQLITE_NULL;
  } else {
    fp = cursor->hits[cursor->position].fp;
    fp_is_null = cursor->fp_is_null;
    distance = cursor->hits[cursor->position].distance;
  }
  switch (column) {
    case kColumnFp:
      if (!fp_is_null) {
        sqlite3_result_int64(context, fp);
      }
      break;
    case kColumnDistance:
      if (distance >= 0) {
        sqlite3_result_int(context, distance);
      }
      break;
    case kColumnQuery:
      if (cursor->has_query) {
        sqlite3_result_int64(context, cursor->query);
      }
      break;
    case kColumnRadius:
      if (cursor->has_query) {
        sqlite3_result_int(context, cursor->radius);
      }
      break;
    case kColumnNearest:
      if (cursor->nearest_asked) {
        sqlite3_result_int64(context, *cursor->nearest_asked);
      }
      break;
    default:
      break;  // the command column reads as NULL
  }
  return SQLITE_OK;
}

int x_rowid(sqlite3_vtab_cursor* base, sqlite3_int64* rowid) {
  const IndexCursor* cursor = cursor_of(base);
  *rowid = cursor->scan_mode ? sqlite3_column_int64(cursor->scan.get(), 0)
                             : cursor->hits[cursor->position].id;
  return SQLITE_OK;
}

}  // namespace simhash::sql::index_vtab
