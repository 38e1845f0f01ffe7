// SPDX-License-Identifier: MIT
// The table-valued functions, eponymous-only virtual tables whose xFilter
// reads the named source in the caller's transaction:
//   simhash_pairs(index [, radius])      -> a, b, distance (src/batch/pair_finder.h)
//   simhash_pairs_between(index_a, index_b [, radius]) -> a, b, distance:
//       every (row of index_a, row of index_b) pair, the same finder
//   simhash_clusters(index [, radius])   -> id, cluster, distance, similarity:
//       the leader grouping of src/batch/leader_groups.h over the index at a
//       radius, or over the rows of a table of pairs (pair_table_reader.h)
//   simhash_components(index [, radius]) -> id, cluster: single link, the
//       connected components (src/batch/near_duplicate_clusters.h)
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "batch/leader_groups.h"
#include "batch/near_duplicate_clusters.h"
#include "batch/pair_finder.h"
#include "ext/batch/batch_index_reader.h"
#include "ext/batch/pair_table_reader.h"
#include "ext/common/function_arguments.h"
#include "ext/common/nesting_guard.h"
#include "ext/common/radius_argument.h"
#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"
#include "ext/common/virtual_table.h"
#include "ext/registration.h"

namespace simhash::sql {
namespace {

// The engine's CheckPoint for this connection: stops a long search with
// SQLITE_INTERRUPT once the statement is interrupted.
CheckPoint stop_when_interrupted(sqlite3* db) {
  return [db] { throw_if_interrupted(db); };
}

enum class BatchKind { kPairs, kPairsBetween, kClusters, kComponents };

// Columns: the result columns, then the hidden arguments: the index (for
// simhash_pairs_between, two), then the radius.
constexpr int kPairsColumnA = 0;
constexpr int kPairsColumnB = 1;
constexpr int kPairsColumnDistance = 2;
constexpr int kClustersColumnId = 0;  // simhash_components has the first two only
constexpr int kClustersColumnCluster = 1;
constexpr int kClustersColumnDistance = 2;
constexpr int kClustersColumnSimilarity = 3;

const char* schema_of(BatchKind kind) {
  switch (kind) {
    case BatchKind::kPairs:
      return "CREATE TABLE x(a INTEGER, b INTEGER, distance INTEGER, \"index\" HIDDEN, radius "
             "HIDDEN)";
    case BatchKind::kPairsBetween:
      return "CREATE TABLE x(a INTEGER, b INTEGER, distance INTEGER, index_a HIDDEN, index_b "
             "HIDDEN, radius HIDDEN)";
    case BatchKind::kClusters:
      return "CREATE TABLE x(id INTEGER, cluster INTEGER, distance INTEGER, similarity REAL, "
             "\"index\" HIDDEN, radius HIDDEN)";
    case BatchKind::kComponents:
      return "CREATE TABLE x(id INTEGER, cluster INTEGER, \"index\" HIDDEN, radius HIDDEN)";
  }
  return nullptr;
}
bool finds_pairs(BatchKind kind) {
  return kind == BatchKind::kPairs || kind == BatchKind::kPairsBetween;
}
// The argument columns are the last ones: this many, from this one.
int argument_count(BatchKind kind) { return kind == BatchKind::kPairsBetween ? 3 : 2; }
int first_argument_column(BatchKind kind) {
  return finds_pairs(kind) ? 3 : kind == BatchKind::kClusters ? 4 : 2;
}
int radius_column(BatchKind kind) { return first_argument_column(kind) + argument_count(kind) - 1; }
const char* function_name(BatchKind kind) {
  switch (kind) {
    case BatchKind::kPairs:
      return "simhash_pairs";
    case BatchKind::kPairsBetween:
      return "simhash_pairs_between";
    case BatchKind::kClusters:
      return "simhash_clusters";
    case BatchKind::kComponents:
      return "simhash_components";
  }
  return "";
}

// One row of simhash_clusters or simhash_components.
struct ClusterRow {
  std::int64_t id;
  std::int64_t cluster;
  std::optional<std::int64_t> distance;  // to the representative
  std::optional<double> similarity;      // to the representative (pairs tables only)
};

// idxNum: bit i set when argument i (column first_argument_column + i) is
// given; xFilter receives the given ones in column order.
constexpr int kMaxArguments = 3;

struct BatchTable : sqlite3_vtab {
  sqlite3* db = nullptr;
  BatchKind kind = BatchKind::kPairs;
};

struct BatchCursor : sqlite3_vtab_cursor {
  // The arguments as given (NULL ones excepted), for the hidden columns.
  std::string index_argument;
  std::string other_index_argument;  // simhash_pairs_between's index_b
  std::optional<int> radius;         // none for a table of pairs
  std::int64_t row = 0;
  bool eof = true;
  // simhash_pairs: the finder hands out batches.
  std::unique_ptr<PairFinder> finder;
  std::vector<NearPair> pairs;
  // simhash_clusters and simhash_components: computed whole in xFilter, in
  // id order.
  MemoryCharge clusters_charge;  // clusters, against the heap limit (memory_budget.h)
  std::vector<ClusterRow> clusters;
  std::size_t position = 0;
};

BatchTable* table_of(sqlite3_vtab* vtab) { return sql::table_of<BatchTable>(vtab); }
BatchCursor* cursor_of(sqlite3_vtab_cursor* cursor) { return sql::cursor_of<BatchCursor>(cursor); }

template <BatchKind kind>
int x_connect(sqlite3* db, void* /*aux*/, int /*argc*/, const char* const* /*argv*/,
              sqlite3_vtab** out, char** error) {
  return guard(error, [&] {
    const int rc = sqlite3_declare_vtab(db, schema_of(kind));
    if (rc != SQLITE_OK) {
      throw SqliteError(rc, sqlite3_errmsg(db));
    }
    auto table = std::make_unique<BatchTable>();
    table->db = db;
    table->kind = kind;
    return hand_over(std::move(table), out);
  });
}

int x_disconnect(sqlite3_vtab* vtab) {
  free_error(vtab);
  take_back<BatchTable>(vtab);
  return SQLITE_OK;
}

int x_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  return guard(vtab, [&]() -> int {
    const BatchKind kind = table_of(vtab)->kind;
    const int first_argument = first_argument_column(kind);
    std::array<int, kMaxArguments> argument_constraint{};
    if (const int rc = plan_arguments(
            info, first_argument,
            std::span(argument_constraint).first(static_cast<std::size_t>(argument_count(kind))));
        rc != SQLITE_OK) {
      return rc;  // an argument not known yet: ask for another join order
    }
    const int index_constraint = argument_constraint[0];
    const int radius_constraint = argument_constraint[argument_count(kind) - 1];
    // Without an index name xFilter reports the error; make that plan unattractive.
    info->estimatedCost = index_constraint >= 0 ? 1e6 : 1e12;
    info->estimatedRows = finds_pairs(kind) ? 1000 : 100000;

    // Clusters come out in id order, so ORDER BY id needs no sort.
    if (!finds_pairs(kind) && info->nOrderBy == 1 &&
        info->aOrderBy[0].iColumn == kClustersColumnId && info->aOrderBy[0].desc == 0) {
      info->orderByConsumed = 1;
    }

    // What EXPLAIN QUERY PLAN shows: for a constant radius, the plan the
    // cost model picks as the rows grow (the rows themselves are known only
    // when the search runs).
    std::string search =
        kind == BatchKind::kPairsBetween ? "the smaller k of the two indexes" : "k of the index";
    search = "radius " + search + ": block-permutation tables or every pair, by the rows";
    sqlite3_value* value = nullptr;
    if (radius_constraint >= 0 &&
        sqlite3_vtab_rhs_value(info, radius_constraint, &value) == SQLITE_OK &&
        sqlite3_value_type(value) == SQLITE_INTEGER && sqlite3_value_int64(value) >= 0) {
      const int radius = static_cast<int>(std::min<sqlite3_int64>(sqlite3_value_int64(value), 64));
      search = "radius " + std::to_string(radius) + ": " + BatchPlan::describe_by_size(radius);
    } else if (radius_constraint >= 0) {
      search = "radius given at run time: block-permutation tables or every pair, by the rows";
    }
    const char* grouping = kind == BatchKind::kClusters       ? "leader grouping over "
                           : kind == BatchKind::kComponents   ? "single link over "
                           : kind == BatchKind::kPairsBetween ? "two-index "
                                                              : "";
    info->idxStr = sqlite3_mprintf(
        "%sbatch search, %s, exact%s", grouping, search.c_str(),
        kind == BatchKind::kClusters ? "; or over the rows of a table of pairs" : "");
    info->needToFreeIdxStr = 1;
    return info->idxStr != nullptr ? SQLITE_OK : SQLITE_NOMEM;
  });
}

int x_open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out) {
  return guard(vtab, [&] { return hand_over(std::make_unique<BatchCursor>(), out); });
}

int x_close(sqlite3_vtab_cursor* cursor) {
  take_back<BatchCursor>(cursor);
  return SQLITE_OK;
}

// simhash_clusters: the leader grouping of a simhash_index at `radius` (its
// k when none is given), or of the rows of a table of pairs (no radius).
// Sets `used_radius` to the radius grouped at (none for pairs).
std::vector<ClusterRow> group_source(sqlite3* db, const std::string& requested,
                                     std::optional<int> radius, std::optional<int>& used_radius) {
  constexpr const char* function = "simhash_clusters";
  const std::optional<SchemaObject> source = find_object(db, requested, function);
  if (!source) {
    throw BatchError(std::string(function) + ": no simhash_index or table of pairs named " +
                     quoted(requested));
  }
  std::vector<ClusterRow> rows;
  MemoryCharge rows_charge;  // until the cursor charges them
  if (source->kind == SchemaObject::Kind::kSimhashIndex) {
    const ResolvedIndex index = open_index(db, *source, function);
    used_radius = radius.value_or(index.k);
    const std::vector<FingerprintLeader> leaders = find_leader_groups(
        read_fingerprints(db, index, function), *used_radius, stop_when_interrupted(db));
    reserve_charged(rows, leaders.size(), rows_charge);
    for (const FingerprintLeader& row : leaders) {
      rows.push_back({row.id, row.leader, row.distance, std::nullopt});
    }
    return rows;
  }
  if (radius) {
    throw BatchError(std::string(function) + ": " + quoted(requested) +
                     " is a table of pairs, not a simhash_index: a radius applies only to an "
                     "index (choose the pairs in the table or a view instead)");
  }
  used_radius.reset();
  const PairTable table = read_pair_table(db, *source, function);
  const std::vector<PairLeader> leaders = group_ranked_pairs(table.pairs);
  reserve_charged(rows, leaders.size(), rows_charge);
  for (const PairLeader& row : leaders) {
    ClusterRow& added =
        rows.emplace_back(ClusterRow{row.id, row.leader, std::nullopt, std::nullopt});
    if (row.pair != PairLeader::kNoPair) {
      if (!table.distance.empty()) {
        added.distance = table.distance[row.pair];
      }
      if (!table.similarity.empty()) {
        added.similarity = table.similarity[row.pair];
      }
    } else {
      added.distance = table.distance.empty() ? std::nullopt : std::optional<std::int64_t>(0);
      added.similarity = table.similarity.empty() ? std::nullopt : std::optional<double>(1.0);
    }
  }
  return rows;
}

// An index argument: its name, or nullopt for NULL (which names no index,
// so no rows, as for any "= NULL").
std::optional<std::string> index_name_from(sqlite3_value* value, const char* function,
                                           const char* argument) {
  if (sqlite3_value_type(value) == SQLITE_NULL) {
    return std::nullopt;
  }
  if (sqlite3_value_type(value) != SQLITE_TEXT) {
    throw BatchError(std::string(function) + ": " + argument +
                     " must be named by a TEXT value, got " + type_name(value));
  }
  return std::string(reinterpret_cast<const char*>(sqlite3_value_text(value)));
}

std::string usage_of(BatchKind kind) {
  const std::string function = function_name(kind);
  if (kind == BatchKind::kPairsBetween) {
    return function + "(index_a, index_b [, radius]) needs the names of two simhash_index " +
           "tables, e.g. SELECT * FROM " + function + "('new', 'old')";
  }
  return function + "(index [, radius]) needs the name of a simhash_index, e.g. SELECT * FROM " +
         function + "('near')";
}

int x_filter(sqlite3_vtab_cursor* base, int idx_num, const char* /*idx_str*/, int argc,
             sqlite3_value** argv) {
  BatchCursor* cursor = cursor_of(base);
  BatchTable* table = table_of(base->pVtab);
  return guard(base->pVtab, function_name(table->kind), [&]() -> int {
    const BatchKind kind = table->kind;
    const char* function = function_name(kind);
    cursor->finder.reset();
    cursor->pairs.clear();
    cursor->clusters.clear();
    cursor->radius.reset();
    cursor->index_argument.clear();
    cursor->other_index_argument.clear();
    cursor->position = 0;
    cursor->row = 0;
    cursor->eof = true;
    // It reads the index, or a table of pairs that may be a view calling
    // this function again, through SQL.
    const NestingGuard nesting(function);
    // The arguments by position; nullptr where not given.
    std::array<sqlite3_value*, kMaxArguments> arguments{};
    place_arguments(idx_num, argc, argv,
                    std::span(arguments).first(static_cast<std::size_t>(argument_count(kind))));
    const bool between = kind == BatchKind::kPairsBetween;
    if (arguments[0] == nullptr || (between && arguments[1] == nullptr)) {
      throw BatchError(usage_of(kind));
    }
    const std::optional<std::string> index_name =
        index_name_from(arguments[0], function, between ? "index_a" : "the index");
    const std::optional<std::string> other_index_name =
        between ? index_name_from(arguments[1], function, "index_b") : std::nullopt;
    if (!index_name || (between && !other_index_name)) {
      return SQLITE_OK;
    }
    cursor->index_argument = *index_name;
    cursor->other_index_argument = other_index_name.value_or("");
    // Left out (or 'default'): the index's k.
    const RadiusArgument radius_argument =
        read_radius_or_default(arguments[argument_count(kind) - 1], function);
    if (!radius_argument.left_out && !radius_argument.radius) {
      return SQLITE_OK;  // radius = NULL: no rows
    }
    const std::optional<int> radius = radius_argument.radius;
    if (kind == BatchKind::kClusters) {
      cursor->clusters = group_source(table->db, cursor->index_argument, radius, cursor->radius);
      cursor->clusters_charge.set(cursor->clusters.capacity() * sizeof(ClusterRow));
      cursor->eof = cursor->clusters.empty();
      return SQLITE_OK;
    }
    const ResolvedIndex index = resolve_index(table->db, cursor->index_argument, function);
    const CheckPoint check = stop_when_interrupted(table->db);
    if (between) {
      const ResolvedIndex other = resolve_index(table->db, cursor->other_index_argument, function);
      cursor->radius = radius.value_or(std::min(index.k, other.k));
      cursor->finder = std::make_unique<PairFinder>(read_fingerprints(table->db, index, function),
                                                    read_fingerprints(table->db, other, function),
                                                    *cursor->radius, check);
      cursor->eof = !cursor->finder->next(cursor->pairs);
      return SQLITE_OK;
    }
    cursor->radius = radius.value_or(index.k);
    std::vector<IdFingerprint> records = read_fingerprints(table->db, index, function);
    if (kind == BatchKind::kPairs) {
      cursor->finder = std::make_unique<PairFinder>(std::move(records), *cursor->radius, check);
      cursor->eof = !cursor->finder->next(cursor->pairs);
    } else {
      const std::vector<IdCluster> clusters =
          find_clusters(std::move(records), *cursor->radius, check);
      reserve_charged(cursor->clusters, clusters.size(), cursor->clusters_charge);
      for (const IdCluster& row : clusters) {
        cursor->clusters.push_back({row.id, row.cluster, std::nullopt, std::nullopt});
      }
      cursor->eof = cursor->clusters.empty();
    }
    return SQLITE_OK;
  });
}

int x_next(sqlite3_vtab_cursor* base) {
  BatchCursor* cursor = cursor_of(base);
  return guard(base->pVtab, [&]() -> int {
    ++cursor->row;
    ++cursor->position;
    if (cursor->finder) {
      if (cursor->position == cursor->pairs.size()) {
        cursor->position = 0;
        cursor->eof = !cursor->finder->next(cursor->pairs);
      }
    } else {
      cursor->eof = cursor->position >= cursor->clusters.size();
    }
    return SQLITE_OK;
  });
}

int x_eof(sqlite3_vtab_cursor* cursor) { return cursor_of(cursor)->eof ? 1 : 0; }

int x_column(sqlite3_vtab_cursor* base, sqlite3_context* context, int column) {
  const BatchCursor* cursor = cursor_of(base);
  const BatchKind kind = table_of(base->pVtab)->kind;
  if (column == first_argument_column(kind)) {
    sqlite3_result_text(context, cursor->index_argument.c_str(),
                        static_cast<int>(cursor->index_argument.size()), SQLITE_TRANSIENT);
  } else if (kind == BatchKind::kPairsBetween && column == first_argument_column(kind) + 1) {
    sqlite3_result_text(context, cursor->other_index_argument.c_str(),
                        static_cast<int>(cursor->other_index_argument.size()), SQLITE_TRANSIENT);
  } else if (column == radius_column(kind)) {
    if (cursor->radius) {
      sqlite3_result_int(context, *cursor->radius);
    }
  } else if (finds_pairs(kind)) {
    const NearPair& pair = cursor->pairs[cursor->position];
    switch (column) {
      case kPairsColumnA:
        sqlite3_result_int64(context, pair.a);
        break;
      case kPairsColumnB:
        sqlite3_result_int64(context, pair.b);
        break;
      case kPairsColumnDistance:
        sqlite3_result_int(context, pair.distance);
        break;
      default:
        break;
    }
  } else {
    const ClusterRow& row = cursor->clusters[cursor->position];
    switch (column) {
      case kClustersColumnId:
        sqlite3_result_int64(context, row.id);
        break;
      case kClustersColumnCluster:
        sqlite3_result_int64(context, row.cluster);
        break;
      case kClustersColumnDistance:
        if (row.distance) {
          sqlite3_result_int64(context, *row.distance);
        }
        break;
      case kClustersColumnSimilarity:
        if (row.similarity) {
          sqlite3_result_double(context, *row.similarity);
        }
        break;
      default:
        break;
    }
  }
  return SQLITE_OK;
}

int x_rowid(sqlite3_vtab_cursor* cursor, sqlite3_int64* rowid) {
  *rowid = cursor_of(cursor)->row;
  return SQLITE_OK;
}

template <BatchKind kind>
sqlite3_module make_module() {
  sqlite3_module module{};
  module.iVersion = 0;
  module.xCreate = nullptr;  // eponymous only: no CREATE VIRTUAL TABLE
  module.xConnect = x_connect<kind>;
  module.xBestIndex = x_best_index;
  module.xDisconnect = x_disconnect;
  module.xDestroy = x_disconnect;
  module.xOpen = x_open;
  module.xClose = x_close;
  module.xFilter = x_filter;
  module.xNext = x_next;
  module.xEof = x_eof;
  module.xColumn = x_column;
  module.xRowid = x_rowid;
  return module;
}

const sqlite3_module pairs_module = make_module<BatchKind::kPairs>();
const sqlite3_module pairs_between_module = make_module<BatchKind::kPairsBetween>();
const sqlite3_module clusters_module = make_module<BatchKind::kClusters>();
const sqlite3_module components_module = make_module<BatchKind::kComponents>();

}  // namespace

int register_batch_tables(sqlite3* db, char** error) {
  for (const auto& [name, module] : {std::pair{"simhash_pairs", &pairs_module},
                                     std::pair{"simhash_pairs_between", &pairs_between_module},
                                     std::pair{"simhash_clusters", &clusters_module},
                                     std::pair{"simhash_components", &components_module}}) {
    if (const int rc = register_module(db, name, module, error); rc != SQLITE_OK) {
      return rc;
    }
  }
  return SQLITE_OK;
}

}  // namespace simhash::sql
