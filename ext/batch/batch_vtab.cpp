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
#include "ext/common/nesting_guard.h"
#include "ext/common/radius_argument.h"
#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"
#include "ext/common/table_function.h"
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

// One batch function: its TableFunction and its kind.
struct BatchFunction {
  TableFunction function;
  BatchKind kind;
};

const BatchFunction& batch_function_of(const TableFunctionTable& table);

bool finds_pairs(BatchKind kind) {
  return kind == BatchKind::kPairs || kind == BatchKind::kPairsBetween;
}

// One row of simhash_clusters or simhash_components.
struct ClusterRow {
  std::int64_t id;
  std::int64_t cluster;
  std::optional<std::int64_t> distance;  // to the representative
  std::optional<double> similarity;      // to the representative (pairs tables only)
};

int plan(TableFunctionTable& table, sqlite3_index_info* info,
         std::span<const int> argument_constraint) {
  const BatchKind kind = batch_function_of(table).kind;
  const int index_constraint = argument_constraint[0];
  const int radius_constraint = argument_constraint.back();
  // Without an index name xFilter reports the error; make that plan unattractive.
  info->estimatedCost = index_constraint >= 0 ? 1e6 : 1e12;
  info->estimatedRows = finds_pairs(kind) ? 1000 : 100000;

  // Clusters come out in id order, so ORDER BY id needs no sort.
  if (!finds_pairs(kind) && info->nOrderBy == 1 && info->aOrderBy[0].iColumn == kClustersColumnId &&
      info->aOrderBy[0].desc == 0) {
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
  return set_plan_text(
      info, "%sbatch search, %s, exact%s", grouping, search.c_str(),
      kind == BatchKind::kClusters ? "; or over the rows of a table of pairs" : "");
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

std::string usage_of(const char* name, BatchKind kind) {
  const std::string function = name;
  if (kind == BatchKind::kPairsBetween) {
    return function + "(index_a, index_b [, radius]) needs the names of two simhash_index " +
           "tables, e.g. SELECT * FROM " + function + "('new', 'old')";
  }
  return function + "(index [, radius]) needs the name of a simhash_index, e.g. SELECT * FROM " +
         function + "('near')";
}

// simhash_pairs hands out the finder's batches; the others compute their
// rows whole in filter(), in id order.
class BatchCursor : public TableFunctionCursor {
 public:
  void filter(std::span<sqlite3_value* const> arguments) override;
  bool eof() const override { return eof_; }
  void next() override;
  void column(sqlite3_context* context, int column) const override;
  sqlite3_int64 rowid() const override { return row_; }

 private:
  // The arguments as given (NULL ones excepted), for the hidden columns.
  std::string index_argument_;
  std::string other_index_argument_;  // simhash_pairs_between's index_b
  std::optional<int> radius_;         // none for a table of pairs
  std::int64_t row_ = 0;
  bool eof_ = true;
  // simhash_pairs: the finder hands out batches.
  std::unique_ptr<PairFinder> finder_;
  std::vector<NearPair> pairs_;
  // simhash_clusters and simhash_components: computed whole in xFilter, in
  // id order.
  MemoryCharge clusters_charge_;  // clusters, against the heap limit (memory_budget.h)
  std::vector<ClusterRow> clusters_;
  std::size_t position_ = 0;
};

void BatchCursor::filter(std::span<sqlite3_value* const> arguments) {
  const BatchFunction& batch = batch_function_of(table());
  const BatchKind kind = batch.kind;
  const char* function = batch.function.name;
  sqlite3* db = this->db();
  finder_.reset();
  pairs_.clear();
  clusters_.clear();
  radius_.reset();
  index_argument_.clear();
  other_index_argument_.clear();
  position_ = 0;
  row_ = 0;
  eof_ = true;
  // It reads the index, or a table of pairs that may be a view calling
  // this function again, through SQL.
  const NestingGuard nesting(function);
  const bool between = kind == BatchKind::kPairsBetween;
  if (arguments[0] == nullptr || (between && arguments[1] == nullptr)) {
    throw BatchError(usage_of(function, kind));
  }
  const std::optional<std::string> index_name =
      index_name_from(arguments[0], function, between ? "index_a" : "the index");
  const std::optional<std::string> other_index_name =
      between ? index_name_from(arguments[1], function, "index_b") : std::nullopt;
  if (!index_name || (between && !other_index_name)) {
    return;
  }
  index_argument_ = *index_name;
  other_index_argument_ = other_index_name.value_or("");
  // Left out (or 'default'): the index's k.
  const RadiusArgument radius_argument = read_radius_or_default(arguments.back(), function);
  if (!radius_argument.left_out && !radius_argument.radius) {
    return;  // radius = NULL: no rows
  }
  const std::optional<int> radius = radius_argument.radius;
  if (kind == BatchKind::kClusters) {
    clusters_ = group_source(db, index_argument_, radius, radius_);
    clusters_charge_.set(clusters_.capacity() * sizeof(ClusterRow));
    eof_ = clusters_.empty();
    return;
  }
  const ResolvedIndex index = resolve_index(db, index_argument_, function);
  const CheckPoint check = stop_when_interrupted(db);
  if (between) {
    const ResolvedIndex other = resolve_index(db, other_index_argument_, function);
    radius_ = radius.value_or(std::min(index.k, other.k));
    finder_ = std::make_unique<PairFinder>(read_fingerprints(db, index, function),
                                           read_fingerprints(db, other, function), *radius_, check);
    eof_ = !finder_->next(pairs_);
    return;
  }
  radius_ = radius.value_or(index.k);
  std::vector<IdFingerprint> records = read_fingerprints(db, index, function);
  if (kind == BatchKind::kPairs) {
    finder_ = std::make_unique<PairFinder>(std::move(records), *radius_, check);
    eof_ = !finder_->next(pairs_);
  } else {
    const std::vector<IdCluster> clusters = find_clusters(std::move(records), *radius_, check);
    reserve_charged(clusters_, clusters.size(), clusters_charge_);
    for (const IdCluster& row : clusters) {
      clusters_.push_back({row.id, row.cluster, std::nullopt, std::nullopt});
    }
    eof_ = clusters_.empty();
  }
}

void BatchCursor::next() {
  ++row_;
  ++position_;
  if (finder_) {
    if (position_ == pairs_.size()) {
      position_ = 0;
      eof_ = !finder_->next(pairs_);
    }
  } else {
    eof_ = position_ >= clusters_.size();
  }
}

void BatchCursor::column(sqlite3_context* context, int column) const {
  const BatchFunction& batch = batch_function_of(table());
  const BatchKind kind = batch.kind;
  const int first_argument = batch.function.first_argument;
  if (column == first_argument) {
    sqlite3_result_text(context, index_argument_.c_str(), static_cast<int>(index_argument_.size()),
                        SQLITE_TRANSIENT);
  } else if (kind == BatchKind::kPairsBetween && column == first_argument + 1) {
    sqlite3_result_text(context, other_index_argument_.c_str(),
                        static_cast<int>(other_index_argument_.size()), SQLITE_TRANSIENT);
  } else if (column == first_argument + batch.function.argument_count - 1) {
    if (radius_) {
      sqlite3_result_int(context, *radius_);
    }
  } else if (finds_pairs(kind)) {
    const NearPair& pair = pairs_[position_];
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
    const ClusterRow& row = clusters_[position_];
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
}

std::unique_ptr<TableFunctionCursor> open_cursor() { return std::make_unique<BatchCursor>(); }

// Each: name, schema, first argument column, argument count (the index or
// two, then the radius); they read indexes, not SQL text: no vtab config.
const std::array<BatchFunction, 4> kBatchFunctions{{
    {{"simhash_pairs",
      "CREATE TABLE x(a INTEGER, b INTEGER, distance INTEGER, \"index\" HIDDEN, radius HIDDEN)", 3,
      2, 0, plan, open_cursor},
     BatchKind::kPairs},
    {{"simhash_pairs_between",
      "CREATE TABLE x(a INTEGER, b INTEGER, distance INTEGER, index_a HIDDEN, index_b HIDDEN, "
      "radius HIDDEN)",
      3, 3, 0, plan, open_cursor},
     BatchKind::kPairsBetween},
    {{"simhash_clusters",
      "CREATE TABLE x(id INTEGER, cluster INTEGER, distance INTEGER, similarity REAL, "
      "\"index\" HIDDEN, radius HIDDEN)",
      4, 2, 0, plan, open_cursor},
     BatchKind::kClusters},
    {{"simhash_components",
      "CREATE TABLE x(id INTEGER, cluster INTEGER, \"index\" HIDDEN, radius HIDDEN)", 2, 2, 0, plan,
      open_cursor},
     BatchKind::kComponents},
}};

const BatchFunction& batch_function_of(const TableFunctionTable& table) {
  for (const BatchFunction& batch : kBatchFunctions) {
    if (&batch.function == table.function) {
      return batch;
    }
  }
  return kBatchFunctions[0];  // unreachable: every table is one of them
}

}  // namespace

int register_batch_tables(sqlite3* db, char** error) {
  for (const BatchFunction& batch : kBatchFunctions) {
    if (const int rc = register_table_function(db, batch.function, error); rc != SQLITE_OK) {
      return rc;
    }
  }
  return SQLITE_OK;
}

}  // namespace simhash::sql
