// SPDX-License-Identifier: MIT
// simhash_verified_pairs(query [, threshold [, options [, threads]]]) and
// simhash_verified_pairs_between(new_query, kept_query [, threshold
// [, options [, threads]]]): eponymous-only table-valued functions that
// return every pair of rows whose texts are at `threshold` or more (set
// Jaccard under `options`, the number simhash_jaccard gives), with none
// missed: the exact join of src/batch/similar_pairs.h, no radius. The
// queries are SQL text returning (id, text), as simhash_dedup's (and, like
// it, SQLITE_VTAB_DIRECTONLY: a view or trigger cannot run SQL on a reader).
// Columns: a, b (one table: a < b; between: a is the new row, b the kept
// one), distance (of the two fingerprints; NULL where a text has none, no
// word, as simhash() is NULL for it) and similarity, ordered by (a, b); then
// the hidden arguments. Ids must be distinct within each query.
#include <array>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "batch/similar_pairs.h"
#include "ext/batch/text_query.h"
#include "ext/common/function_arguments.h"
#include "ext/common/nesting_guard.h"
#include "ext/common/progress_report.h"
#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"
#include "ext/common/virtual_table.h"
#include "ext/functions/extractor_cache.h"
#include "ext/registration.h"

namespace simhash::sql {
namespace {

enum Column { kA, kB, kDistance, kSimilarity, kFirstArgument };

// What tells the two functions apart: how many queries they read.
struct PairsFunction {
  const char* name;
  int query_count;  // 1: the pairs of one table; 2: new rows against kept ones
  const char* schema;
  const char* usage;
};

constexpr PairsFunction kOneTable{
    "simhash_verified_pairs", 1,
    "CREATE TABLE x(a INTEGER, b INTEGER, distance INTEGER, similarity REAL, "
    "query HIDDEN, threshold HIDDEN, options HIDDEN, threads HIDDEN)",
    "simhash_verified_pairs(query [, threshold [, options [, threads]]]) needs SQL text "
    "returning (id, text), e.g. SELECT * FROM simhash_verified_pairs('SELECT id, body FROM docs')"};
constexpr PairsFunction kBetween{
    "simhash_verified_pairs_between", 2,
    "CREATE TABLE x(a INTEGER, b INTEGER, distance INTEGER, similarity REAL, "
    "new_query HIDDEN, kept_query HIDDEN, threshold HIDDEN, options HIDDEN, threads HIDDEN)",
    "simhash_verified_pairs_between(new_query, kept_query [, threshold [, options [, threads]]]) "
    "needs two SQL texts returning (id, text), e.g. SELECT * FROM "
    "simhash_verified_pairs_between('SELECT id, body FROM incoming', 'SELECT id, body FROM docs')"};
constexpr int kMaxArguments = 5;

struct PairsTable : sqlite3_vtab {
  sqlite3* db = nullptr;
  const PairsFunction* function = nullptr;
};

struct PairsCursor : sqlite3_vtab_cursor {
  std::array<std::string, 2> queries;
  double threshold = kDefaultThreshold;
  std::string options = kDefaultVerification;
  unsigned threads = 1;
  MemoryCharge pairs_charge;  // pairs, against the heap limit (memory_budget.h)
  std::vector<SimilarPair> pairs;
  // Ids of rows whose text has no fingerprint (no word under simhash()'s
  // defaults): [0] of the new rows' query, [1] of the (kept rows') query.
  std::array<std::unordered_set<std::int64_t>, 2> without_fingerprint;
  std::size_t position = 0;

  // Whether both of the pair's rows have a fingerprint, so a distance.
  bool has_distance(const SimilarPair& pair, bool between) const {
    return !without_fingerprint[between ? 0 : 1].contains(pair.a) &&
           !without_fingerprint[1].contains(pair.b);
  }
};

PairsTable* table_of(sqlite3_vtab* vtab) { return sql::table_of<PairsTable>(vtab); }
PairsCursor* cursor_of(sqlite3_vtab_cursor* cursor) { return sql::cursor_of<PairsCursor>(cursor); }
int argument_count(const PairsFunction& function) { return function.query_count + 3; }

int x_connect(sqlite3* db, void* aux, int /*argc*/, const char* const* /*argv*/, sqlite3_vtab** out,
              char** error) {
  return guard(error, [&] {
    const auto* function = static_cast<const PairsFunction*>(aux);
    int rc = sqlite3_declare_vtab(db, function->schema);
    if (rc == SQLITE_OK) {
      rc = sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
    }
    if (rc != SQLITE_OK) {
      throw SqliteError(rc, sqlite3_errmsg(db));
    }
    auto table = std::make_unique<PairsTable>();
    table->db = db;
    table->function = function;
    return hand_over(std::move(table), out);
  });
}

int x_disconnect(sqlite3_vtab* vtab) {
  free_error(vtab);
  take_back<PairsTable>(vtab);
  return SQLITE_OK;
}

int x_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  return guard(vtab, [&]() -> int {
    const PairsFunction& function = *table_of(vtab)->function;
    std::array<int, kMaxArguments> constraint_of{};
    const std::span<int> arguments(constraint_of.data(),
                                   static_cast<std::size_t>(argument_count(function)));
    if (const int rc = plan_arguments(info, kFirstArgument, arguments); rc != SQLITE_OK) {
      return rc;
    }
    bool queries_given = true;
    for (int query = 0; query < function.query_count; ++query) {
      queries_given = queries_given && arguments[static_cast<std::size_t>(query)] >= 0;
    }
    // Without the queries xFilter reports the error; make that plan unattractive.
    info->estimatedCost = queries_given ? 1e6 : 1e12;
    info->estimatedRows = 100000;
    info->idxStr = sqlite3_mprintf(
        "%s: every pair at the threshold (an exact set-similarity join), each verified",
        function.query_count == 1 ? "pairs of the query's rows" : "new rows against kept rows");
    info->needToFreeIdxStr = 1;
    return info->idxStr != nullptr ? SQLITE_OK : SQLITE_NOMEM;
  });
}

int x_open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out) {
  return guard(vtab, [&] { return hand_over(std::make_unique<PairsCursor>(), out); });
}

int x_close(sqlite3_vtab_cursor* cursor) {
  take_back<PairsCursor>(cursor);
  return SQLITE_OK;
}

int x_filter(sqlite3_vtab_cursor* base, int idx_num, const char* /*idx_str*/, int argc,
             sqlite3_value** argv) {
  PairsCursor* cursor = cursor_of(base);
  const PairsTable* table = table_of(base->pVtab);
  const PairsFunction& function = *table->function;
  sqlite3* db = table->db;
  return guard(base->pVtab, function.name, [&]() -> int {
    cursor->pairs.clear();
    cursor->without_fingerprint = {};
    cursor->position = 0;
    std::array<sqlite3_value*, kMaxArguments> values{};
    const std::span<sqlite3_value*> arguments(values.data(),
                                              static_cast<std::size_t>(argument_count(function)));
    place_arguments(idx_num, argc, argv, arguments);
    for (int query = 0; query < function.query_count; ++query) {
      sqlite3_value* value = arguments[static_cast<std::size_t>(query)];
      if (value == nullptr) {
        throw SqliteError(SQLITE_ERROR, function.usage);
      }
      if (sqlite3_value_type(value) == SQLITE_NULL) {
        return SQLITE_OK;  // no query, no rows (as for any "= NULL")
      }
      if (sqlite3_value_type(value) != SQLITE_TEXT) {
        throw SqliteError(SQLITE_ERROR,
                          std::string(function.name) + ": the " +
                              (query == 0 && function.query_count == 2 ? "new rows' query"
                               : query == 1                            ? "kept rows' query"
                                                                       : "query") +
                              " must be TEXT, got " + type_name(value));
      }
      cursor->queries[static_cast<std::size_t>(query)] = *text_of(value);
    }
    const std::size_t first = static_cast<std::size_t>(function.query_count);
    cursor->threshold = arguments[first] != nullptr
                            ? read_threshold(arguments[first], function.name)
                            : kDefaultThreshold;
    cursor->options = kDefaultVerification;
    if (sqlite3_value* options = arguments[first + 1];
        options != nullptr && sqlite3_value_type(options) != SQLITE_NULL) {
      cursor->options = options_text_of(options, function.name);
    }
    cursor->threads = read_thread_count(arguments[first + 2], function.name);
    const SimhashOptions verification =
        make_extractor(cursor->options, function.name)->extractor.options();
    if (verification.weight != WeightScheme::binary) {
      throw SqliteError(SQLITE_ERROR, std::string(function.name) +
                                          ": the join serves set Jaccard, weight=binary, with "
                                          "any unit and n; the options ask for " +
                                          to_string(verification) + ": add weight=binary");
    }

    const NestingGuard nesting(function.name);
    RowFeatureBuilder builder(SimhashOptions{}, verification, cursor->threads);
    SimilarPairs finder;
    // simhash_progress(1): lines on stderr; each query's rows counted first.
    ProgressReport progress(db, function.name);
    finder.set_progress(progress.hook());
    std::uint64_t rows_read = 0;
    const auto read = [&](int query, bool kept) {
      const std::string argument = function.query_count == 1 ? "the query"
                                   : kept                    ? "the kept rows' query"
                                                             : "the new rows' query";
      const Statement statement =
          prepare_text_query(db, cursor->queries[static_cast<std::size_t>(query)], function.name,
                             argument, function.usage);
      read_text_rows(
          db, statement.get(), builder, function.name, argument,
          [&](std::int64_t id, const RowFeatures& row) {
            // A text with no fingerprint (no word) still joins, with
            // a placeholder fingerprint; its distances are NULL.
            if (!row.fingerprint) {
              cursor->without_fingerprint[kept ? 1 : 0].insert(id);
            }
            if (kept) {
              finder.add(id, row.fingerprint.value_or(0), row.features);
            } else {
              finder.add_new(id, row.fingerprint.value_or(0), row.features);
            }
            ++rows_read;
          },
          progress.hook(), progress.on() ? count_query_rows(db, statement.get()).value_or(0) : 0);
    };
    const CheckPoint check = [db] { throw_if_interrupted(db); };
    if (function.query_count == 1) {
      read(0, true);
      cursor->pairs = finder.pairs(cursor->threshold, check, nullptr, cursor->threads);
    } else {
      read(1, true);
      read(0, false);
      cursor->pairs = finder.pairs_between(cursor->threshold, check, nullptr, cursor->threads);
    }
    cursor->pairs_charge.set(cursor->pairs.capacity() * sizeof(SimilarPair));
    progress.finish(grouped_digits(rows_read) + " rows compared; " +
                    grouped_digits(cursor->pairs.size()) + " pairs at the threshold");
    return SQLITE_OK;
  });
}

int x_next(sqlite3_vtab_cursor* base) {
  ++cursor_of(base)->position;
  return SQLITE_OK;
}

int x_eof(sqlite3_vtab_cursor* base) {
  const PairsCursor* cursor = cursor_of(base);
  return cursor->position >= cursor->pairs.size() ? 1 : 0;
}

int x_column(sqlite3_vtab_cursor* base, sqlite3_context* context, int column) {
  const PairsCursor* cursor = cursor_of(base);
  const int query_count = table_of(base->pVtab)->function->query_count;
  if (column >= kFirstArgument) {
    const int argument = column - kFirstArgument;
    if (argument < query_count) {
      const std::string& query = cursor->queries[static_cast<std::size_t>(argument)];
      sqlite3_result_text(context, query.c_str(), static_cast<int>(query.size()), SQLITE_TRANSIENT);
    } else if (argument == query_count) {
      sqlite3_result_double(context, cursor->threshold);
    } else if (argument == query_count + 1) {
      sqlite3_result_text(context, cursor->options.c_str(),
                          static_cast<int>(cursor->options.size()), SQLITE_TRANSIENT);
    } else {
      sqlite3_result_int(context, static_cast<int>(cursor->threads));
    }
    return SQLITE_OK;
  }
  const SimilarPair& pair = cursor->pairs[cursor->position];
  switch (column) {
    case kA:
      sqlite3_result_int64(context, pair.a);
      break;
    case kB:
      sqlite3_result_int64(context, pair.b);
      break;
    case kDistance:
      if (cursor->has_distance(pair, query_count == 2)) {
        sqlite3_result_int(context, pair.distance);
      }
      break;
    case kSimilarity:
      sqlite3_result_double(context, pair.similarity);
      break;
    default:
      break;
  }
  return SQLITE_OK;
}

int x_rowid(sqlite3_vtab_cursor* base, sqlite3_int64* rowid) {
  *rowid = static_cast<sqlite3_int64>(cursor_of(base)->position);
  return SQLITE_OK;
}

sqlite3_module make_module() {
  sqlite3_module module{};
  module.iVersion = 0;
  module.xCreate = nullptr;  // eponymous only: no CREATE VIRTUAL TABLE
  module.xConnect = x_connect;
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

const sqlite3_module pairs_module = make_module();

}  // namespace

int register_verified_pairs_tables(sqlite3* db, char** error) {
  for (const PairsFunction* function : {&kOneTable, &kBetween}) {
    // SQLite hands aux back to xConnect, which only reads it.
    if (const int rc = register_module(db, function->name, &pairs_module, error,
                                       const_cast<PairsFunction*>(function));
        rc != SQLITE_OK) {
      return rc;
    }
  }
  return SQLITE_OK;
}

}  // namespace simhash::sql
