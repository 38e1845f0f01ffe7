// SPDX-License-Identifier: MIT
// simhash_dedup(query [, threshold [, radius [, options [, threads]]]]): an
// eponymous-only table-valued function that dedups the rows of a query in
// one statement. `query` is SQL text returning (id, text) (text_query.h);
// rows are visited in its order and the first row of each group is the one
// kept, so its ORDER BY is the keep policy. Each text is read once: its
// fingerprint (simhash()'s defaults, as the README's index holds) and its
// feature vector under `options` (default 'n=3 weight=binary symbols=keep', the recipe's
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
// every row of a group of two or more, in visit order; then the hidden arguments. Because it runs
// SQL text it is SQLITE_VTAB_DIRECTONLY: views and triggers cannot call it, so a schema cannot make
// it run SQL on a user who merely reads that schema.
#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "batch/dedup_candidates.h"
#include "batch/verified_dedup.h"
#include "ext/batch/text_query.h"
#include "ext/common/function_arguments.h"
#include "ext/common/nesting_guard.h"
#include "ext/common/progress_report.h"
#include "ext/common/radius_argument.h"
#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"
#include "ext/common/virtual_table.h"
#include "ext/functions/extractor_cache.h"
#include "ext/registration.h"
#include "fingerprint/simhash_options.h"

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
};
constexpr int kArgumentCount = 5;  // the hidden columns kQuery..kThreads

struct DedupTable : sqlite3_vtab {
  sqlite3* db = nullptr;
};

struct DedupCursor : sqlite3_vtab_cursor {
  // The arguments as used, for the hidden columns.
  std::string query;
  double threshold = kDefaultThreshold;
  std::optional<int> radius;  // none: the threshold join
  std::string options;
  unsigned threads = 1;
  MemoryCharge rows_charge;  // rows, against the heap limit (memory_budget.h)
  std::vector<DedupRow> rows;
  // Rows whose text has no fingerprint (no word under simhash()'s defaults),
  // kept with radius NULL: their distance is NULL.
  std::unordered_set<std::int64_t> without_fingerprint;
  std::size_t position = 0;

  bool has_distance(const DedupRow& row) const {
    return without_fingerprint.empty() ||
           (!without_fingerprint.contains(row.id) && !without_fingerprint.contains(row.kept));
  }
};

DedupTable* table_of(sqlite3_vtab* vtab) { return sql::table_of<DedupTable>(vtab); }
DedupCursor* cursor_of(sqlite3_vtab_cursor* cursor) { return sql::cursor_of<DedupCursor>(cursor); }

std::string usage() {
  return std::string(kName) +
         "(query [, threshold [, radius [, options [, threads]]]]) needs SQL text returning "
         "(id, text), "
         "e.g. SELECT * FROM simhash_dedup('SELECT id, body FROM docs ORDER BY id')";
}

int x_connect(sqlite3* db, void* /*aux*/, int /*argc*/, const char* const* /*argv*/,
              sqlite3_vtab** out, char** error) {
  return guard(error, [&] {
    int rc = sqlite3_declare_vtab(
        db,
        "CREATE TABLE x(id INTEGER, cluster INTEGER, distance INTEGER, similarity REAL, "
        "query HIDDEN, threshold HIDDEN, radius HIDDEN, options HIDDEN, threads HIDDEN)");
    if (rc == SQLITE_OK) {
      rc = sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
    }
    if (rc != SQLITE_OK) {
      throw SqliteError(rc, sqlite3_errmsg(db));
    }
    auto table = std::make_unique<DedupTable>();
    table->db = db;
    return hand_over(std::move(table), out);
  });
}

int x_disconnect(sqlite3_vtab* vtab) {
  free_error(vtab);
  take_back<DedupTable>(vtab);
  return SQLITE_OK;
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

// The arguments as function_arguments.h plans them: a left-out argument and
// a NULL one differ here (radius NULL is not the default radius).
int x_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  return guard(vtab, [&]() -> int {
    std::array<int, kArgumentCount> argument_constraint{};
    if (const int rc = plan_arguments(info, kQuery, argument_constraint); rc != SQLITE_OK) {
      return rc;  // an argument not known yet: ask for another join order
    }
    // Without a query xFilter reports the error; make that plan unattractive.
    info->estimatedCost = argument_constraint[0] >= 0 ? 1e6 : 1e12;
    info->estimatedRows = 100000;

    // What EXPLAIN QUERY PLAN shows: the path the call takes, when its
    // radius and options are constants (planned_path above).
    const std::string candidates = planned_path(info, argument_constraint[kRadius - kQuery],
                                                argument_constraint[kOptions - kQuery])
                                       .value_or(describe_dedup_candidates_at_run_time());
    info->idxStr = sqlite3_mprintf(
        "dedup of the query's rows in its order: %s, each verified exactly, leader groups",
        candidates.c_str());
    info->needToFreeIdxStr = 1;
    return info->idxStr != nullptr ? SQLITE_OK : SQLITE_NOMEM;
  });
}

int x_open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out) {
  return guard(vtab, [&] { return hand_over(std::make_unique<DedupCursor>(), out); });
}

int x_close(sqlite3_vtab_cursor* cursor) {
  take_back<DedupCursor>(cursor);
  return SQLITE_OK;
}

int x_filter(sqlite3_vtab_cursor* base, int idx_num, const char* /*idx_str*/, int argc,
             sqlite3_value** argv) {
  DedupCursor* cursor = cursor_of(base);
  sqlite3* db = table_of(base->pVtab)->db;
  return guard(base->pVtab, kName, [&]() -> int {
    cursor->rows.clear();
    cursor->without_fingerprint.clear();
    cursor->position = 0;
    std::array<sqlite3_value*, kArgumentCount> arguments{};
    place_arguments(idx_num, argc, argv, arguments);
    if (arguments[0] == nullptr) {
      throw SqliteError(SQLITE_ERROR, usage());
    }
    const int query_type = sqlite3_value_type(arguments[0]);
    if (query_type == SQLITE_NULL) {
      return SQLITE_OK;  // no query, no rows (as for any "= NULL")
    }
    if (query_type != SQLITE_TEXT) {
      throw SqliteError(SQLITE_ERROR, std::string(kName) + ": the query must be TEXT, got " +
                                          type_name(arguments[0]));
    }
    cursor->query = *text_of(arguments[0]);
    cursor->threshold =
        arguments[1] != nullptr ? read_threshold(arguments[1], kName) : kDefaultThreshold;
    cursor->options = kDefaultVerification;
    if (arguments[3] != nullptr && sqlite3_value_type(arguments[3]) != SQLITE_NULL) {
      cursor->options = options_text_of(arguments[3], kName);
    }
    cursor->threads = read_thread_count(arguments[4], kName);
    // Parsed before the query runs, so a typo costs nothing.
    const SimhashOptions verification = make_extractor(cursor->options, kName)->extractor.options();
    std::string refusal;
    const std::optional<DedupCandidates> candidates =
        choose_dedup_candidates(verification, given_radius(arguments[2]), refusal);
    if (!candidates) {
      throw SqliteError(SQLITE_ERROR, std::string(kName) + ": " + refusal);
    }
    cursor->radius = candidates->radius;
    const NestingGuard nesting(kName);
    const Statement statement = prepare_text_query(db, cursor->query, kName, "the query", usage());
    // simhash_progress(1): lines on stderr; the rows counted first for a total.
    ProgressReport progress(db, kName);
    const std::uint64_t total_rows =
        progress.on() ? count_query_rows(db, statement.get()).value_or(0) : 0;
    RowFeatureBuilder builder(SimhashOptions{}, verification, cursor->threads);
    VerifiedDedup dedup;
    dedup.set_progress(progress.hook());
    read_text_rows(
        db, statement.get(), builder, kName, "the query",
        [&](std::int64_t id, const RowFeatures& row) {
          if (row.fingerprint) {
            dedup.add(id, *row.fingerprint, row.features);
          } else if (!cursor->radius) {
            // No radius: every pair at the threshold, so this row
            // too; its fingerprint is a placeholder, its distances
            // NULL.
            dedup.add(id, 0, row.features);
            cursor->without_fingerprint.insert(id);
          }
          // Within a radius a row without a fingerprint has no
          // candidates, as in the recipe's index.
        },
        progress.hook(), total_rows);
    const CheckPoint check = [db] { throw_if_interrupted(db); };
    cursor->rows = candidates->path == DedupPath::kThresholdJoin
                       ? dedup.groups_by_threshold_join(cursor->threshold, check, nullptr,
                                                        cursor->radius, cursor->threads)
                       : dedup.groups_within_radius(cursor->threshold, *cursor->radius, check);
    cursor->rows_charge.set(cursor->rows.capacity() * sizeof(DedupRow));
    if (progress.on()) {
      const auto groups = static_cast<std::uint64_t>(
          std::count_if(cursor->rows.begin(), cursor->rows.end(),
                        [](const DedupRow& row) { return row.id == row.kept; }));
      progress.finish(grouped_digits(dedup.row_count()) + " rows compared; " +
                      grouped_digits(cursor->rows.size()) + " rows in " + grouped_digits(groups) +
                      (groups == 1 ? " group" : " groups") + " of two or more, " +
                      grouped_digits(cursor->rows.size() - groups) + " to remove");
    }
    return SQLITE_OK;
  });
}

int x_next(sqlite3_vtab_cursor* base) {
  ++cursor_of(base)->position;
  return SQLITE_OK;
}

int x_eof(sqlite3_vtab_cursor* base) {
  const DedupCursor* cursor = cursor_of(base);
  return cursor->position >= cursor->rows.size() ? 1 : 0;
}

int x_column(sqlite3_vtab_cursor* base, sqlite3_context* context, int column) {
  const DedupCursor* cursor = cursor_of(base);
  switch (column) {
    case kQuery:
      sqlite3_result_text(context, cursor->query.c_str(), static_cast<int>(cursor->query.size()),
                          SQLITE_TRANSIENT);
      return SQLITE_OK;
    case kThreshold:
      sqlite3_result_double(context, cursor->threshold);
      return SQLITE_OK;
    case kRadius:
      if (cursor->radius) {
        sqlite3_result_int(context, *cursor->radius);
      }
      return SQLITE_OK;
    case kOptions:
      sqlite3_result_text(context, cursor->options.c_str(),
                          static_cast<int>(cursor->options.size()), SQLITE_TRANSIENT);
      return SQLITE_OK;
    case kThreads:
      sqlite3_result_int(context, static_cast<int>(cursor->threads));
      return SQLITE_OK;
    default:
      break;
  }
  const DedupRow& row = cursor->rows[cursor->position];
  switch (column) {
    case kId:
      sqlite3_result_int64(context, row.id);
      break;
    case kCluster:
      sqlite3_result_int64(context, row.kept);
      break;
    case kDistance:
      if (cursor->has_distance(row)) {
        sqlite3_result_int(context, row.distance);
      }
      break;
    case kSimilarity:
      sqlite3_result_double(context, row.similarity);
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

const sqlite3_module dedup_module = make_module();

}  // namespace

int register_dedup_table(sqlite3* db, char** error) {
  return register_module(db, kName, &dedup_module, error);
}

}  // namespace simhash::sql
