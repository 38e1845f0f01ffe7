// SPDX-License-Identifier: MIT
// simhash_index's xBestIndex: the plan's choice and its encoding in idxNum
// and idxStr (index_vtab_internal.h), which xFilter (index_vtab_cursor.cpp)
// reads, and the plan as EXPLAIN QUERY PLAN shows it.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ext/common/radius_argument.h"
#include "ext/common/sqlite_support.h"
#include "ext/index/index_storage.h"
#include "ext/index/index_vtab_internal.h"
#include "index/multi_probe.h"
#include "index/permutation_plan.h"

namespace simhash::sql::index_vtab {

// The radius a constraint's value asks for (radius_argument.h): `radius` is
// an argument, the others bound the distance.
std::optional<int> radius_from(char code, sqlite3_value* value, const std::string& name) {
  const RadiusValue kind = code == kArgRadius  ? RadiusValue::kArgument
                           : code == kArgBelow ? RadiusValue::kBelow
                                               : RadiusValue::kAtMost;
  return read_radius(value, kind, "simhash_index", name);
}

namespace {

// The code of a constraint that bounds the search radius, or 0.
char radius_code(const sqlite3_index_info::sqlite3_index_constraint& constraint) {
  if (constraint.iColumn == kColumnDistance) {
    switch (constraint.op) {
      case SQLITE_INDEX_CONSTRAINT_LE:
        return kArgAtMost;
      case SQLITE_INDEX_CONSTRAINT_LT:
        return kArgBelow;
      case SQLITE_INDEX_CONSTRAINT_EQ:
        return kArgEqual;
      default:
        return 0;
    }
  }
  return constraint.iColumn == kColumnRadius && constraint.op == SQLITE_INDEX_CONSTRAINT_EQ
             ? kArgRadius
             : 0;
}

// The rows the planner's estimates assume (xBestIndex reads no table).
constexpr std::int64_t kPlannerRows = 1000000;

// "4 permuted copies": the plan's copies of the fingerprints (SQL tables
// they are not; ARCHITECTURE.md, "Words"), as EXPLAIN QUERY PLAN counts them.
std::string permuted_copies(std::size_t count) {
  std::string text = std::to_string(count);
  text += count == 1 ? " permuted copy" : " permuted copies";
  return text;
}

// What a search at a radius above k does, for EXPLAIN QUERY PLAN: the
// multi-probe's bucket reads and the row count from which they beat a scan
// (the choice is made again when the query runs, with the rows then stored).
std::string above_k_description(const IndexStorage& storage, int radius) {
  std::string above = "radius ";  // appends: GCC 12 warns on "literal" + std::string
  above += std::to_string(radius);
  above += " > k=";
  above += std::to_string(storage.plan().k());
  const MultiProbePlan probe(storage.plan(), storage.layout(), radius);
  const std::int64_t rows = probe.rows_where_cheaper();
  if (radius >= kMaxRadius || rows < 0) {
    return "scan (" + above + ")";
  }
  std::string thresholds;
  for (const ProbePart& part : probe.parts()) {
    if (!thresholds.empty()) {
      thresholds += ',';
    }
    thresholds += std::to_string(part.threshold);
  }
  std::string description = "multi-probe (";
  description += above;
  description += ": ";
  description += std::to_string(static_cast<std::int64_t>(probe.bucket_reads()));
  description += " buckets of ";
  description += permuted_copies(probe.parts().size());
  description += " within ";
  description += thresholds;
  description += " bits; a scan below ";
  description += std::to_string(rows);
  description += " rows)";
  return description;
}

// The n nearest at any distance, as EXPLAIN QUERY PLAN shows them (the
// same for `nearest = n`, near(:q, 64, n) and ORDER BY distance LIMIT n).
std::string nearest_description(int k) {
  std::string description =
      "nearest (index, k=";  // appends: GCC 12 warns on "literal" + std::string
  description += std::to_string(k);
  description +=
      ", the radius grown while a multi-probe beats a scan of the packed codes; then that scan)";
  return description;
}

// The constraints x_best_index uses, by what they ask (-1: none).
struct IndexConstraints {
  int match = -1;
  bool match_unusable = false;
  bool bound_unusable = false;  // a radius or count not known yet
  int rowid_eq = -1;
  int command_eq = -1;
  int limit = -1;
  int offset = -1;
  int nearest_eq = -1;
  std::vector<std::pair<int, char>> radius;  // constraint and its radius code
};

IndexConstraints sort_constraints(const sqlite3_index_info* info) {
  IndexConstraints found;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& constraint = info->aConstraint[i];
    const bool is_match =
        (constraint.iColumn == kColumnFp && constraint.op == SQLITE_INDEX_CONSTRAINT_MATCH) ||
        (constraint.iColumn == kColumnQuery && constraint.op == SQLITE_INDEX_CONSTRAINT_EQ);
    if (is_match) {
      if (!constraint.usable) {
        found.match_unusable = true;
      } else if (found.match < 0) {
        found.match = i;
      }
      continue;
    }
    if (constraint.iColumn == kColumnNearest && constraint.op == SQLITE_INDEX_CONSTRAINT_EQ) {
      if (!constraint.usable) {
        found.bound_unusable = true;
      } else if (found.nearest_eq < 0) {
        found.nearest_eq = i;
      }
      continue;
    }
    const char code = radius_code(constraint);
    if (code != 0 && !constraint.usable) {
      found.bound_unusable = true;
    } else if (code != 0) {
      found.radius.emplace_back(i, code);
    } else if (constraint.usable && constraint.iColumn == -1 &&
               constraint.op == SQLITE_INDEX_CONSTRAINT_EQ && found.rowid_eq < 0) {
      found.rowid_eq = i;
    } else if (constraint.usable && constraint.iColumn == kColumnCommand &&
               constraint.op == SQLITE_INDEX_CONSTRAINT_EQ && found.command_eq < 0) {
      found.command_eq = i;
    } else if (constraint.usable && constraint.op == SQLITE_INDEX_CONSTRAINT_LIMIT) {
      found.limit = i;
    } else if (constraint.usable && constraint.op == SQLITE_INDEX_CONSTRAINT_OFFSET) {
      found.offset = i;
    }
  }
  return found;
}

// The arguments of a search and the text EXPLAIN QUERY PLAN shows for it.
struct PlanText {
  int argument = 0;  // the last argvIndex given
  std::string codes;
  std::string description;
  // The radius is above k and below 64: each query chooses between the
  // plan named and the loop over the connection's cached codes
  // (IndexStorage::search_cached_codes), by what each has cost it.
  bool cached_codes_may_answer = false;
};

// What such a search adds to its plan: the choice is made when the query
// runs, with the codes, the rows and the costs measured then.
constexpr const char* kCachedCodesChoice = ", or a loop over the cached codes, chosen per query";

// The radius constraints as arguments. A constant radius is known now, so
// the plan text can say whether the search scans. Returns whether the
// radius is unbounded (none, or 64 bits and up: no bound on the distance).
bool plan_radius(sqlite3_index_info* info, const IndexTable& table, const IndexStorage& storage,
                 const IndexConstraints& found, bool& distance_equal, PlanText& text) {
  const PermutationPlan& plan = storage.plan();
  std::optional<int> known_radius;
  bool all_known = true;
  for (auto [index, code] : found.radius) {
    info->aConstraintUsage[index].argvIndex = ++text.argument;
    // `=` stays for SQLite to check: the search returns every row within
    // the radius, and an IN list runs one search per value.
    info->aConstraintUsage[index].omit = code == kArgEqual ? 0 : 1;
    distance_equal = distance_equal || code == kArgEqual;
    text.codes += code;
    sqlite3_value* value = nullptr;
    std::optional<int> radius;
    if (sqlite3_vtab_rhs_value(info, index, &value) == SQLITE_OK && value != nullptr) {
      try {
        radius = radius_from(code, value, table.name);
      } catch (const SqliteError&) {
        radius.reset();  // reported by xFilter
      }
    }
    if (!radius) {
      all_known = false;
    } else {
      known_radius = std::min(known_radius.value_or(kMaxRadius), *radius);
    }
  }
  const std::string tables = permuted_copies(static_cast<std::size_t>(plan.table_count()));
  const std::string k = std::to_string(plan.k());
  if (found.radius.empty() || (all_known && known_radius && *known_radius <= plan.k())) {
    text.description = "index (" + tables + ", k=" + k + ")";
  } else if (all_known && known_radius) {
    text.description = above_k_description(storage, *known_radius);
    text.cached_codes_may_answer = *known_radius < kMaxRadius;
  } else {
    text.description = "index (" + tables + ", k=" + k + "; above k a multi-probe or a scan" +
                       kCachedCodesChoice + ")";
  }
  return found.radius.empty() || (all_known && known_radius && *known_radius >= kMaxRadius);
}

// The plan of a MATCH: the query, the radius, the n nearest or LIMIT and
// OFFSET, the order consumed, the cost.
void plan_search(sqlite3_index_info* info, const IndexTable& table, const IndexStorage& storage,
                 const IndexConstraints& found, PlanText& text) {
  const PermutationPlan& plan = storage.plan();
  info->aConstraintUsage[found.match].argvIndex = ++text.argument;
  info->aConstraintUsage[found.match].omit = 1;
  text.codes += kArgQuery;
  bool distance_equal = false;
  const bool unbounded = plan_radius(info, table, storage, found, distance_equal, text);
  if (text.cached_codes_may_answer && found.nearest_eq < 0) {
    text.description += kCachedCodesChoice;
  }
  // One search per IN value would return each value's rows sorted, but
  // not the whole answer: leave ORDER BY to SQLite then.
  bool sorted = false;
  if (!distance_equal && info->nOrderBy >= 1 && info->aOrderBy[0].iColumn == kColumnDistance &&
      !info->aOrderBy[0].desc) {
    sorted = info->nOrderBy == 1 ||
             (info->nOrderBy == 2 && info->aOrderBy[1].iColumn == -1 && !info->aOrderBy[1].desc);
  }
  if (sorted) {
    info->orderByConsumed = 1;
    text.description += ", sorted by distance";
  }
  // A bound the distance cannot exceed is no bound: the n nearest then take
  // the same path as with none (xFilter reads the bound as kMaxRadius and
  // agrees).
  if (found.nearest_eq >= 0) {
    info->aConstraintUsage[found.nearest_eq].argvIndex = ++text.argument;
    info->aConstraintUsage[found.nearest_eq].omit = 1;
    text.codes += kArgNearest;
    text.description = (unbounded ? nearest_description(plan.k())
                                  : "nearest within the bound (" + text.description +
                                        "; the radius grown to it while a multi-probe beats a "
                                        "scan of the packed codes)") +
                       (sorted ? ", sorted by distance" : "");
  }
  // LIMIT and OFFSET stay for SQLite to apply: the plan only needs to
  // produce the first LIMIT + OFFSET rows in order.
  if (sorted && unbounded && found.nearest_eq < 0 && found.limit >= 0) {
    info->aConstraintUsage[found.limit].argvIndex = ++text.argument;
    text.codes += kArgLimit;
    if (found.offset >= 0) {
      info->aConstraintUsage[found.offset].argvIndex = ++text.argument;
      text.codes += kArgOffset;
    }
    text.description = nearest_description(plan.k()) + ", sorted by distance";
  }
  info->idxNum = kPlanMatch | (sorted ? kSortedByDistance : 0);
  info->estimatedCost = 20.0 * plan.table_count();
  if (found.nearest_eq >= 0 ||
      (text.codes.back() == kArgLimit || text.codes.back() == kArgOffset)) {
    // The n nearest cost at most the scan of the packed codes of one
    // copy, priced for the rows the full scan's estimate assumes, in
    // units of that estimate (one row read through SQLite).
    const std::int64_t rows = kPlannerRows;
    const int bits = storage.layout().bucket_bits(0);
    const std::int64_t buckets = std::min(rows, std::int64_t{1} << bits);
    info->estimatedCost +=
        MultiProbePlan::packed_scan_cost(rows, buckets) / MultiProbePlan::kScanCostPerRow;
  }
  info->estimatedRows = 10;
}

// A plan of one argument: a command or a rowid lookup.
void plan_one_argument(sqlite3_index_info* info, int constraint, char code,
                       std::string_view description, PlanText& text) {
  info->aConstraintUsage[constraint].argvIndex = 1;
  info->aConstraintUsage[constraint].omit = 1;
  text.codes.push_back(code);
  text.description = description;
}

}  // namespace

// The four plans, their encoding (index_vtab_internal.h: idxNum's plan bits
// and idxStr's argument codes, which xFilter reads in order) and the costs
// SQLite compares, in units of one row read through SQLite:
//
//   plan     used when                               idxNum         cost          rows
//   match    a usable `fp MATCH ?` or `query = ?`    2 (+4 sorted)  20 x copies   10
//            (the n nearest: + the scan of one copy's packed codes,
//            MultiProbePlan::packed_scan_cost for kPlannerRows rows)
//   command  `X = 'integrity-check'` (reads only)    3              1             1
//   rowid    `rowid = ?` (each value of IN (...))    1              10            1, unique
//   scan     otherwise                               0              kPlannerRows  kPlannerRows
//            (1e15 when a MATCH exists but its operand is unusable here:
//            priced out, so a join runs the match plan per outer row)
//
// idxStr is "<codes> <description>": the codes as above, the description
// what EXPLAIN QUERY PLAN shows.
int x_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  IndexTable* table = table_of(vtab);
  return guard(vtab, [&] {
    const IndexStorage& storage = table->usable_storage();
    const IndexConstraints found = sort_constraints(info);
    // A search whose radius or count comes from a value SQLite cannot give
    // yet (a column of a table later in the join) would run at radius k and
    // miss rows: refuse it, so that SQLite picks a join order that supplies it.
    if (found.match >= 0 && found.bound_unusable) {
      return SQLITE_CONSTRAINT;
    }
    PlanText text;
    if (found.match >= 0) {
      plan_search(info, *table, storage, found, text);
    } else if (found.command_eq >= 0) {
      plan_one_argument(info, found.command_eq, kArgCommand, "command", text);
      info->idxNum = kPlanCommand;
      info->estimatedCost = 1;
      info->estimatedRows = 1;
    } else if (found.rowid_eq >= 0) {
      plan_one_argument(info, found.rowid_eq, kArgRowid, "rowid lookup", text);
      info->idxNum = kPlanRowid;
      info->estimatedCost = 10;
      info->estimatedRows = 1;
      info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
    } else {
      text.codes.push_back(kNoArguments);
      text.description = "full scan";
      info->idxNum = kPlanScan;
      // Without its MATCH operand the plan cannot run: make it a last resort.
      info->estimatedCost = found.match_unusable ? 1e15 : static_cast<double>(kPlannerRows);
      info->estimatedRows = kPlannerRows;
    }
    info->idxStr = sqlite3_mprintf("%s %s", text.codes.c_str(), text.description.c_str());
    if (info->idxStr == nullptr) {
      return SQLITE_NOMEM;
    }
    info->needToFreeIdxStr = 1;
    return SQLITE_OK;
  });
}

}  // namespace simhash::sql::index_vtab
