// SPDX-License-Identifier: MIT
// simhash_dedup(query [, threshold [, radius [, options [, threads [, memory]]]]]): an
// eponymous-only table-valued function that dedups the rows of a query in
// one statement. `query` is SQL text returning (id, text) (text_query.h);
// rows are visited in its order and the first row of each group is the one
// kept, so its ORDER BY is the keep policy. Each text is read once: its
// fingerprint (simhash()'s defaults, as the README's index holds) and its
// feature vector under `options` (default 'n=3 weight=binary symbols=strict', the recipe's
// verification, also for NULL; '' means simhash_jaccard's own defaults, as
// it does there) are built once, on `threads` threads (default: every
// core). The engine (src/batch/verified_dedup.h) then finds the candidates:
// with the radius NULL, or left out for word shingles with binary weights,
// every pair that can reach the threshold (an exact set-similarity join;
// weight=binary only), texts without a fingerprint included (no word, as
// emoji under character options; their distance is NULL); with a radius, or left out for other
// options (kDedupFallbackRadius), the pairs within that many bits (for word shingles with binary
// weights, the join's pairs within them). It verifies each with the number simhash_jaccard(a, b,
// options) gives, keeps those at `threshold` or more (default 0.8) and groups them by the leader
// rule in visit order. Columns: id, cluster (the id kept), distance and similarity to that row, for
// every row of a group of two or more, in visit order; then the hidden arguments. With a memory
// budget (the argument, or SQLite's soft heap limit: memory_argument.h) the exact join
// runs in parts that fit it (batch/partitioned_dedup.h), with the same rows. Because it runs
// SQL text it is SQLITE_VTAB_DIRECTONLY: views and triggers cannot call it, so a schema cannot make
// it run SQL on a user who merely reads that schema.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "batch/dedup_candidates.h"
#include "batch/partitioned_dedup.h"
#include "batch/verified_dedup.h"
#include "ext/batch/memory_argument.h"
#include "ext/batch/text_query.h"
#include "ext/common/nesting_guard.h"
#include "ext/common/progress_report.h"
#include "ext/common/radius_argument.h"
#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"
#include "ext/common/table_function.h"
#include "ext/common/threshold_argument.h"
#include "ext/functions/extractor_cache.h"
#include "ext/registration.h"
#include "fingerprint/simhash_options.h"
#include "util/charged_id_set.h"

namespace simhash::sql {
namespace {

constexpr const char* kName = "simhash_dedup";
enum Column {
  kId,
  kCluster,
  kDistance,
  kSimilarity,
  kQuery,
  kThreshold,
  kRadius,
  kOptions,
  kThreads,
  kMemory,
};
constexpr int kArgumentCount = 6;  // the hidden columns kQuery..kMemory

std::string usage() {
  return std::string(kName) +
         "(query [, threshold [, radius [, options [, threads [, memory]]]]]) needs SQL text "
         "returning "
         "(id, text), "
         "e.g. SELECT * FROM simhash_dedup('SELECT id, body FROM docs ORDER BY id')";
}

// The radius argument as dedup_candidates.h reads it: left out (or
// 'default'), NULL or bits. Throws SqliteError for a bad one.
DedupRadius given_radius(sqlite3_value* value) {
  const RadiusArgument radius = read_radius_or_default(value, kName);
  if (radius.left_out) {
    return DedupRadius::left_out();
  }
  return radius.radius ? DedupRadius::of(*radius.radius) : DedupRadius::null();
}

// The path of a call whose radius and options are constants; nullopt when
// one is known only at run time or is not valid (xFilter reports that).
std::optional<std::string> planned_path(sqlite3_index_info* info, int radius_constraint,
                                        int options_constraint) {
  sqlite3_value* value = nullptr;
  std::string_view options_text = kDefaultVerification;
  if (options_constraint >= 0) {
    if (sqlite3_vtab_rhs_value(info, options_constraint, &value) != SQLITE_OK) {
      return std::nullopt;
    }
    if (sqlite3_value_type(value) == SQLITE_TEXT) {
      options_text = *text_of(value);
    } else if (sqlite3_value_type(value) != SQLITE_NULL) {
      return std::nullopt;
    }
  }
  std::string error;
  const std::optional<SimhashOptions> verification = parse_options(options_text, error);
  value = nullptr;
  if (!verification || (radius_constraint >= 0 &&
                        sqlite3_vtab_rhs_value(info, radius_constraint, &value) != SQLITE_OK)) {
    return std::nullopt;
  }
  try {
    const DedupRadius radius = given_radius(value);
    const std::optional<DedupCandidates> chosen =
        choose_dedup_candidates(*verification, radius, error);
    if (!chosen) {
      return std::nullopt;
    }
    return describe_dedup_candidates(*chosen, radius.given == DedupRadius::Given::kLeftOut);
  } catch (const SqliteError&) {
    return std::nullopt;
  }
}

int plan(TableFunctionTable& /*table*/, sqlite3_index_info* info,
         std::span<const int> argument_constraint) {
  // Without a query xFilter reports the error; make that plan unattractive.
  info->estimatedCost = argument_constraint[0] >= 0 ? 1e6 : 1e12;
  info->estimatedRows = 100000;
  // What EXPLAIN QUERY PLAN shows: the path the call takes, when its
  // radius and options are constants (planned_path above).
  const std::string candidates = planned_path(info, argument_constraint[kRadius - kQuery],
                                              argument_constraint[kOptions - kQuery])
                                     .value_or(describe_dedup_candidates_at_run_time());
  return set_plan_text(
      info, "dedup of the query's rows in its order: %s, each verified exactly, leader groups",
      candidates.c_str());
}

class DedupCursor : public RowsCursor<DedupRow> {
 public:
  void filter(std::span<sqlite3_value* const> arguments) override;
  void column(sqlite3_context* context, int column) const override;

 private:
  std::size_t read_and_join(sqlite3* db, sqlite3_stmt* statement,
                            const SimhashOptions& verification, const DedupCandidates& candidates,
                            ProgressReport& progress, const CheckPoint& check);
  bool has_distance(const DedupRow& row) const {
    return without_fingerprint_.empty() ||
           (!without_fingerprint_.contains(row.id) && !without_fingerprint_.contains(row.kept));
  }

  // The arguments as used, for the hidden columns.
  std::string query_;
  double threshold_ = kDefaultThreshold;
  std::optional<int> radius_;  // none: the threshold join
  std::string options_;
  unsigned threads_ = 1;
  std::optional<std::int64_t> memory_;  // the memory argument, when given
  MemoryCharge rows_charge_;            // rows, against the heap limit (memory_budget.h)
  // Rows whose text has no fingerprint (no word under simhash()'s defaults),
  // kept with radius NULL: their distance is NULL.
  ChargedIdSet without_fingerprint_;
};

void DedupCursor::filter(std::span<sqlite3_value* const> arguments) {
  sqlite3* db = this->db();
  clear_rows();
  without_fingerprint_.clear();
  if (arguments[0] == nullptr) {
    throw SqliteError(SQLITE_ERROR, usage());
  }
  const int query_type = sqlite3_value_type(arguments[0]);
  if (query_type == SQLITE_NULL) {
    return;  // no query, no rows (as for any "= NULL")
  }
  if (query_type != SQLITE_TEXT) {
    throw SqliteError(SQLITE_ERROR, std::string(kName) + ": the query must be TEXT, got " +
                                        type_name(arguments[0]));
  }
  query_ = *text_of(arguments[0]);
  threshold_ = arguments[1] != nullptr ? read_threshold(arguments[1], kName) : kDefaultThreshold;
  options_ = kDefaultVerification;
  if (arguments[3] != nullptr && sqlite3_value_type(arguments[3]) != SQLITE_NULL) {
    options_ = options_text_of(arguments[3], kName);
  }
  threads_ = read_thread_count(arguments[4], kName);
  // Parsed before the query runs, so a typo costs nothing.
  const SimhashOptions verification = make_extractor(options_, kName)->extractor.options();
  std::string refusal;
  const std::optional<DedupCandidates> candidates =
      choose_dedup_candidates(verification, given_radius(arguments[2]), refusal);
  if (!candidates) {
    throw SqliteError(SQLITE_ERROR, std::string(kName) + ": " + refusal);
  }
  radius_ = candidates->radius;
  memory_.reset();
  if (arguments[5] != nullptr && sqlite3_value_type(arguments[5]) != SQLITE_NULL) {
    memory_ = integral_value(arguments[5]);
  }
  const std::optional<std::uint64_t> budget = read_memory_budget(arguments[5], kName);
  const NestingGuard nesting(kName);
  const Statement statement = prepare_text_query(db, query_, kName, "the query", usage());
  // simhash_progress(1): lines on stderr (read_text_rows counts the rows
  // first for a total only where that is cheap).
  ProgressReport progress(db, kName);
  const CheckPoint check = [db] { throw_if_interrupted(db); };
  std::size_t row_count = 0;
  if (budget && candidates->path == DedupPath::kThresholdJoin) {
    // Within the budget: the features spilled to a file, the join in parts.
    PartitionedDedup dedup;
    dedup.set_progress(progress.hook());
    {
      RowFeatureBuilder builder(SimhashOptions{}, verification, threads_);
      read_text_rows(
          db, statement.get(), builder, kName, "the query",
          [&](std::int64_t id, const RowFeatures& row) {
            // Rows without a fingerprint as in read_and_join below.
            if (row.fingerprint) {
              dedup.add(id, *row.fingerprint, row.view(), row.key.hash);
            } else if (!radius_) {
              dedup.add(id, 0, row.view(), row.key.hash);
              without_fingerprint_.insert(id);
            }
          },
          progress.hook());
    }
    row_count = dedup.row_count();
    rows_ = dedup.groups(threshold_, *budget, check, radius_, threads_);
  } else {
    row_count = read_and_join(db, statement.get(), verification, *candidates, progress, check);
  }
  rows_charge_.set(rows_.capacity() * sizeof(DedupRow));
  if (progress.on()) {
    const auto groups = static_cast<std::uint64_t>(std::count_if(
        rows_.begin(), rows_.end(), [](const DedupRow& row) { return row.id == row.kept; }));
    progress.finish(grouped_digits(row_count) + " rows compared; " + grouped_digits(rows_.size()) +
                    " rows in " + grouped_digits(groups) + (groups == 1 ? " group" : " groups") +
                    " of two or more, " + grouped_digits(rows_.size() - groups) + " to remove");
  }
}

// The in-memory path: every row's features held, the join or the radius
// search of verified_dedup.h; returns the rows read.
std::size_t DedupCursor::read_and_join(sqlite3* db, sqlite3_stmt* statement,
                                       const SimhashOptions& verification,
                                       const DedupCandidates& candidates, ProgressReport& progress,
                                       const CheckPoint& check) {
  VerifiedDedup dedup;
  dedup.set_progress(progress.hook());
  // The tokenizers and their threads only while the query is read.
  std::optional<RowFeatureBuilder> builder(std::in_place, SimhashOptions{}, verification, threads_);
  read_text_rows(
      db, statement, *builder, kName, "the query",
      [&](std::int64_t id, const RowFeatures& row) {
        if (row.fingerprint) {
          dedup.add(id, *row.fingerprint, row.view(), row.key, row.laid_out_block());
        } else if (!radius_) {
          // No radius: every pair at the threshold, so this row too; its
          // fingerprint is a placeholder, its distances NULL.
          dedup.add(id, 0, row.view(), row.key, row.laid_out_block());
          without_fingerprint_.insert(id);
        }
        // Within a radius a row without a fingerprint has no candidates,
        // as in the recipe's index.
      },
      progress.hook(),
      // Where the threads would wait for the caller, they lay their rows'
      // features out in blocks the new rows point into: the thread adding
      // the rows copies none of those.
      [&](std::vector<FeatureBlock> blocks) { dedup.adopt(std::move(blocks)); });
  builder.reset();
  // The join and the grouping need neither the lookup of identical rows nor
  // the arrays' spare room: about 40 bytes a distinct row and 12 a row.
  dedup.finish_adding();
  rows_ = candidates.path == DedupPath::kThresholdJoin
              ? dedup.groups_by_threshold_join(threshold_, check, nullptr, radius_, threads_)
              : dedup.groups_within_radius(threshold_, *radius_, check, nullptr, threads_);
  return dedup.row_count();
}

void DedupCursor::column(sqlite3_context* context, int column) const {
  switch (column) {
    case kQuery:
      sqlite3_result_text(context, query_.c_str(), static_cast<int>(query_.size()),
                          SQLITE_TRANSIENT);
      return;
    case kThreshold:
      sqlite3_result_double(context, threshold_);
      return;
    case kRadius:
      if (radius_) {
        sqlite3_result_int(context, *radius_);
      }
      return;
    case kOptions:
      sqlite3_result_text(context, options_.c_str(), static_cast<int>(options_.size()),
                          SQLITE_TRANSIENT);
      return;
    case kThreads:
      sqlite3_result_int(context, static_cast<int>(threads_));
      return;
    case kMemory:
      if (memory_) {
        sqlite3_result_int64(context, *memory_);
      }
      return;
    default:
      break;
  }
  const DedupRow& row = this->row();
  switch (column) {
    case kId:
      sqlite3_result_int64(context, row.id);
      break;
    case kCluster:
      sqlite3_result_int64(context, row.kept);
      break;
    case kDistance:
      if (has_distance(row)) {
        sqlite3_result_int(context, row.distance);
      }
      break;
    case kSimilarity:
      sqlite3_result_double(context, row.similarity);
      break;
    default:
      break;
  }
}

// Because it runs SQL text it is DIRECTONLY (the header comment says why).
const TableFunction kDedup{
    kName,
    "CREATE TABLE x(id INTEGER, cluster INTEGER, distance INTEGER, similarity REAL, "
    "query HIDDEN, threshold HIDDEN, radius HIDDEN, options HIDDEN, threads HIDDEN, memory HIDDEN)",
    kQuery,
    kArgumentCount,
    SQLITE_VTAB_DIRECTONLY,
    plan,
    []() -> std::unique_ptr<TableFunctionCursor> { return std::make_unique<DedupCursor>(); },
};

}  // namespace

int register_dedup_table(sqlite3* db, char** error) {
  return register_table_function(db, kDedup, error);
}

}  // namespace simhash::sql
