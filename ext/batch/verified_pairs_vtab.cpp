// SPDX-License-Identifier: MIT
// simhash_verified_pairs(query [, threshold [, options [, threads
// [, memory]]]]) and simhash_verified_pairs_between(new_query, kept_query
// [, threshold [, options [, threads [, memory]]]]]): eponymous-only
// table-valued functions that return every pair of rows whose texts are at
// `threshold` or more (set Jaccard under `options`, the number
// simhash_jaccard gives), with none missed: the exact join of
// src/batch/similar_pairs.h, no radius. The queries are SQL text returning
// (id, text), as simhash_dedup's (and, like it, SQLITE_VTAB_DIRECTONLY: a
// view or trigger cannot run SQL on a reader). Columns: a, b (one table:
// a < b; between: a is the new row, b the kept one), distance (of the two
// fingerprints; NULL where a text has none, no word, as simhash() is NULL
// for it) and similarity, ordered by (a, b); then the hidden arguments. Ids
// must be distinct within each query. With a memory budget (the argument,
// or SQLite's soft heap limit: memory_argument.h) the join runs in parts
// that fit it (batch/partitioned_pairs.h) and the pairs, the same in the
// same order, are read from disk as the cursor steps; without one they are
// computed whole in xFilter.
#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "batch/partitioned_pairs.h"
#include "batch/similar_pairs.h"
#include "ext/batch/memory_argument.h"
#include "ext/batch/text_query.h"
#include "ext/common/nesting_guard.h"
#include "ext/common/progress_report.h"
#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"
#include "ext/common/table_function.h"
#include "ext/common/threshold_argument.h"
#include "ext/functions/extractor_cache.h"
#include "ext/registration.h"
#include "util/charged_id_set.h"

namespace simhash::sql {
namespace {

enum Column { kA, kB, kDistance, kSimilarity, kFirstArgument };

// What tells the two functions apart: how many queries they read.
struct PairsFunction {
  TableFunction function;
  int query_count;  // 1: the pairs of one table; 2: new rows against kept ones
  const char* usage;
};

const PairsFunction& pairs_function_of(const TableFunctionTable& table);

int plan(TableFunctionTable& table, sqlite3_index_info* info, std::span<const int> arguments) {
  const PairsFunction& function = pairs_function_of(table);
  bool queries_given = true;
  for (int query = 0; query < function.query_count; ++query) {
    queries_given = queries_given && arguments[static_cast<std::size_t>(query)] >= 0;
  }
  // Without the queries xFilter reports the error; make that plan unattractive.
  info->estimatedCost = queries_given ? 1e6 : 1e12;
  info->estimatedRows = 100000;
  return set_plan_text(
      info, "%s: every pair at the threshold (an exact set-similarity join), each verified",
      function.query_count == 1 ? "pairs of the query's rows" : "new rows against kept rows");
}

class PairsCursor : public TableFunctionCursor {
 public:
  void filter(std::span<sqlite3_value* const> arguments) override;
  bool eof() const override { return current_ == nullptr; }
  void next() override;
  void column(sqlite3_context* context, int column) const override;
  sqlite3_int64 rowid() const override { return rowid_; }

 private:
  // Whether both of the pair's rows have a fingerprint, so a distance.
  bool has_distance(const SimilarPair& pair, bool between) const {
    return !without_fingerprint_[between ? 0 : 1].contains(pair.a) &&
           !without_fingerprint_[1].contains(pair.b);
  }
  // The arguments after the queries, read as simhash_dedup reads them;
  // returns the verification options and the memory budget.
  std::pair<SimhashOptions, std::optional<std::uint64_t>> read_arguments(
      std::span<sqlite3_value* const> arguments, const PairsFunction& function);
  // Runs the queries (the kept rows' first), handing each row with
  // features to on_row(id, row, kept); returns the rows read.
  std::uint64_t read_queries(
      const PairsFunction& function, const SimhashOptions& verification, ProgressReport& progress,
      const std::function<void(std::int64_t id, const RowFeatures& row, bool kept)>& on_row);

  std::array<std::string, 2> queries_;
  double threshold_ = kDefaultThreshold;
  std::string options_ = kDefaultVerification;
  unsigned threads_ = 1;
  std::optional<std::int64_t> memory_;  // the memory argument, when given
  // The pairs computed whole (no budget), or read from the join in parts.
  std::vector<SimilarPair> rows_;
  MemoryCharge pairs_charge_;  // rows_, against the heap limit (memory_budget.h)
  std::size_t position_ = 0;
  std::unique_ptr<PartitionedPairs> partitioned_;
  const SimilarPair* current_ = nullptr;
  sqlite3_int64 rowid_ = 0;
  // Ids of rows whose text has no fingerprint (no word under simhash()'s
  // defaults): [0] of the new rows' query, [1] of the (kept rows') query.
  std::array<ChargedIdSet, 2> without_fingerprint_;
};

std::pair<SimhashOptions, std::optional<std::uint64_t>> PairsCursor::read_arguments(
    std::span<sqlite3_value* const> arguments, const PairsFunction& function) {
  const char* name = function.function.name;
  const auto first = static_cast<std::size_t>(function.query_count);
  threshold_ =
      arguments[first] != nullptr ? read_threshold(arguments[first], name) : kDefaultThreshold;
  options_ = kDefaultVerification;
  if (sqlite3_value* options = arguments[first + 1];
      options != nullptr && sqlite3_value_type(options) != SQLITE_NULL) {
    options_ = options_text_of(options, name);
  }
  threads_ = read_thread_count(arguments[first + 2], name);
  const SimhashOptions verification = make_extractor(options_, name)->extractor.options();
  if (verification.weight != WeightScheme::binary) {
    throw SqliteError(SQLITE_ERROR, std::string(name) +
                                        ": the join serves set Jaccard, weight=binary, with "
                                        "any unit and n; the options ask for " +
                                        to_string(verification) + ": add weight=binary");
  }
  sqlite3_value* memory = arguments[first + 3];
  memory_.reset();
  if (memory != nullptr && sqlite3_value_type(memory) != SQLITE_NULL) {
    memory_ = integral_value(memory);
  }
  return {verification, read_memory_budget(memory, name)};
}

std::uint64_t PairsCursor::read_queries(
    const PairsFunction& function, const SimhashOptions& verification, ProgressReport& progress,
    const std::function<void(std::int64_t id, const RowFeatures& row, bool kept)>& on_row) {
  const char* name = function.function.name;
  sqlite3* db = this->db();
  std::uint64_t rows_read = 0;
  // The tokenizers and their threads only while the queries are read.
  RowFeatureBuilder builder(SimhashOptions{}, verification, threads_);
  const auto read = [&](int query, bool kept) {
    const std::string argument = function.query_count == 1 ? "the query"
                                 : kept                    ? "the kept rows' query"
                                                           : "the new rows' query";
    const Statement statement = prepare_text_query(db, queries_[static_cast<std::size_t>(query)],
                                                   name, argument, function.usage);
    read_text_rows(
        db, statement.get(), builder, name, argument,
        [&](std::int64_t id, const RowFeatures& row) {
          // A text with no fingerprint (no word) still joins, with a
          // placeholder fingerprint; its distances are NULL.
          if (!row.fingerprint) {
            without_fingerprint_[kept ? 1 : 0].insert(id);
          }
          on_row(id, row, kept);
          ++rows_read;
        },
        progress.hook());
  };
  if (function.query_count == 1) {
    read(0, true);
  } else {
    read(1, true);
    read(0, false);
  }
  return rows_read;
}

void PairsCursor::filter(std::span<sqlite3_value* const> arguments) {
  const PairsFunction& function = pairs_function_of(table());
  const char* name = function.function.name;
  sqlite3* db = this->db();
  rows_.clear();
  pairs_charge_.release();
  partitioned_.reset();
  current_ = nullptr;
  position_ = 0;
  rowid_ = 0;
  for (ChargedIdSet& ids : without_fingerprint_) {
    ids.clear();
  }
  for (int query = 0; query < function.query_count; ++query) {
    sqlite3_value* value = arguments[static_cast<std::size_t>(query)];
    if (value == nullptr) {
      throw SqliteError(SQLITE_ERROR, function.usage);
    }
    if (sqlite3_value_type(value) == SQLITE_NULL) {
      return;  // no query, no rows (as for any "= NULL")
    }
    if (sqlite3_value_type(value) != SQLITE_TEXT) {
      throw SqliteError(SQLITE_ERROR,
                        std::string(name) + ": the " +
                            (query == 0 && function.query_count == 2 ? "new rows' query"
                             : query == 1                            ? "kept rows' query"
                                                                     : "query") +
                            " must be TEXT, got " + type_name(value));
    }
    queries_[static_cast<std::size_t>(query)] = *text_of(value);
  }
  const auto [verification, budget] = read_arguments(arguments, function);

  const NestingGuard nesting(name);
  // simhash_progress(1): lines on stderr; each query's rows counted first
  // where that is cheap (read_text_rows).
  ProgressReport progress(db, name);
  const CheckPoint check = [db] { throw_if_interrupted(db); };
  const bool between = function.query_count == 2;
  std::uint64_t rows_read = 0;
  std::uint64_t pair_count = 0;
  if (budget) {
    // Within the budget: the features spilled to a file, the join in
    // parts, the pairs read back as the cursor steps.
    auto partitioned = std::make_unique<PartitionedPairs>();
    partitioned->set_progress(progress.hook());
    rows_read = read_queries(function, verification, progress,
                             [&](std::int64_t id, const RowFeatures& row, bool kept) {
                               if (kept) {
                                 partitioned->add(id, row.fingerprint.value_or(0), row.view());
                               } else {
                                 partitioned->add_new(id, row.fingerprint.value_or(0), row.view());
                               }
                             });
    pair_count = partitioned->run(between, threshold_, *budget, check, threads_);
    partitioned_ = std::move(partitioned);
    current_ = partitioned_->next();
  } else {
    SimilarPairs finder;
    finder.set_progress(progress.hook());
    rows_read = read_queries(function, verification, progress,
                             [&](std::int64_t id, const RowFeatures& row, bool kept) {
                               if (kept) {
                                 finder.add(id, row.fingerprint.value_or(0), row.features);
                               } else {
                                 finder.add_new(id, row.fingerprint.value_or(0), row.features);
                               }
                             });
    rows_ = between ? finder.pairs_between(threshold_, check, nullptr, threads_)
                    : finder.pairs(threshold_, check, nullptr, threads_);
    pairs_charge_.set(rows_.capacity() * sizeof(SimilarPair));
    pair_count = rows_.size();
    current_ = rows_.empty() ? nullptr : rows_.data();
  }
  progress.finish(grouped_digits(rows_read) + " rows compared; " + grouped_digits(pair_count) +
                  " pairs at the threshold");
}

void PairsCursor::next() {
  ++rowid_;
  if (partitioned_) {
    current_ = partitioned_->next();
    if (current_ == nullptr) {
      partitioned_.reset();  // its files and buffers, once read
    }
    return;
  }
  current_ = ++position_ < rows_.size() ? &rows_[position_] : nullptr;
}

void PairsCursor::column(sqlite3_context* context, int column) const {
  const int query_count = pairs_function_of(table()).query_count;
  if (column >= kFirstArgument) {
    const int argument = column - kFirstArgument;
    if (argument < query_count) {
      const std::string& query = queries_[static_cast<std::size_t>(argument)];
      sqlite3_result_text(context, query.c_str(), static_cast<int>(query.size()), SQLITE_TRANSIENT);
    } else if (argument == query_count) {
      sqlite3_result_double(context, threshold_);
    } else if (argument == query_count + 1) {
      sqlite3_result_text(context, options_.c_str(), static_cast<int>(options_.size()),
                          SQLITE_TRANSIENT);
    } else if (argument == query_count + 2) {
      sqlite3_result_int(context, static_cast<int>(threads_));
    } else if (memory_) {
      sqlite3_result_int64(context, *memory_);
    }
    return;
  }
  const SimilarPair& pair = *current_;
  switch (column) {
    case kA:
      sqlite3_result_int64(context, pair.a);
      break;
    case kB:
      sqlite3_result_int64(context, pair.b);
      break;
    case kDistance:
      if (has_distance(pair, query_count == 2)) {
        sqlite3_result_int(context, pair.distance);
      }
      break;
    case kSimilarity:
      sqlite3_result_double(context, pair.similarity);
      break;
    default:
      break;
  }
}

std::unique_ptr<TableFunctionCursor> open_cursor() { return std::make_unique<PairsCursor>(); }

// Both run SQL text: DIRECTONLY (the header comment says why).
const PairsFunction kOneTable{
    {"simhash_verified_pairs",
     "CREATE TABLE x(a INTEGER, b INTEGER, distance INTEGER, similarity REAL, "
     "query HIDDEN, threshold HIDDEN, options HIDDEN, threads HIDDEN, memory HIDDEN)",
     kFirstArgument, 5, SQLITE_VTAB_DIRECTONLY, plan, open_cursor},
    1,
    "simhash_verified_pairs(query [, threshold [, options [, threads [, memory]]]]) needs SQL "
    "text returning (id, text), e.g. SELECT * FROM simhash_verified_pairs('SELECT id, body FROM "
    "docs')"};
const PairsFunction kBetween{
    {"simhash_verified_pairs_between",
     "CREATE TABLE x(a INTEGER, b INTEGER, distance INTEGER, similarity REAL, "
     "new_query HIDDEN, kept_query HIDDEN, threshold HIDDEN, options HIDDEN, threads HIDDEN, "
     "memory HIDDEN)",
     kFirstArgument, 6, SQLITE_VTAB_DIRECTONLY, plan, open_cursor},
    2,
    "simhash_verified_pairs_between(new_query, kept_query [, threshold [, options [, threads [, "
    "memory]]]]) needs two SQL texts returning (id, text), e.g. SELECT * FROM "
    "simhash_verified_pairs_between('SELECT id, body FROM incoming', 'SELECT id, body FROM docs')"};

// Which of the two functions a table serves.
const PairsFunction& pairs_function_of(const TableFunctionTable& table) {
  return table.function == &kOneTable.function ? kOneTable : kBetween;
}

}  // namespace

int register_verified_pairs_tables(sqlite3* db, char** error) {
  for (const PairsFunction* function : {&kOneTable, &kBetween}) {
    if (const int rc = register_table_function(db, function->function, error); rc != SQLITE_OK) {
      return rc;
    }
  }
  return SQLITE_OK;
}

}  // namespace simhash::sql
