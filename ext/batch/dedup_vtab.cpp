// simhash_dedup(query [, threshold [, radius [, options]]]): an eponymous-only
// table-valued function that dedups the rows of a query in one statement.
// `query` is SQL text returning (id, text); rows are visited in its order and
// the first row of each group is the one kept, so its ORDER BY is the keep
// policy. Each text is read once: its fingerprint (simhash()'s defaults, as
// the README's index holds) and its feature vector under `options` (default
// 'n=3 weight=binary', the recipe's verification, also for NULL; '' means
// simhash_jaccard's own defaults, as it does there) are built once, and the
// engine (src/batch/verified_dedup.h) finds the candidates within `radius`
// bits (default kDefaultRadius) or, for radius NULL, every pair that can
// reach the threshold (an exact set-similarity join; weight=binary only),
// verifies each with the number simhash_jaccard(a, b, options) gives, keeps
// those at `threshold` or more (default 0.8) and groups them by the leader
// rule in visit order.
// Columns: id, cluster (the id kept), distance and similarity to that row,
// for every row of a group of two or more, in visit order; then the hidden
// arguments. Because it runs SQL text it is SQLITE_VTAB_DIRECTONLY: views
// and triggers cannot call it, so a schema cannot make it run SQL on a user
// who merely reads that schema.
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "batch/verified_dedup.h"
#include "ext/common/function_arguments.h"
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
// The README recipe's radius: on real text it finds most pairs at Jaccard
// 0.8; radius NULL finds all of them (issue 27 measured 4.8% missed at 10
// bits on Debian's descriptions), and may become the default once measured.
constexpr int kDefaultRadius = 10;
constexpr double kDefaultThreshold = 0.8;
constexpr const char* kDefaultOptions = "n=3 weight=binary";
// Rows of text read between two interrupt checks of the feature building.
constexpr int kRowsBetweenChecks = 256;

enum Column {
  kId,
  kCluster,
  kDistance,
  kSimilarity,
  kQuery,
  kThreshold,
  kRadius,
  kOptions,
};
constexpr int kArgumentCount = 4;  // the hidden columns kQuery..kOptions

struct DedupTable : sqlite3_vtab {
  sqlite3* db = nullptr;
};

struct DedupCursor : sqlite3_vtab_cursor {
  // The arguments as used, for the hidden columns.
  std::string query;
  double threshold = kDefaultThreshold;
  std::optional<int> radius = kDefaultRadius;  // none: the threshold join
  std::string options;
  std::vector<DedupRow> rows;
  std::size_t position = 0;
};

DedupTable* table_of(sqlite3_vtab* vtab) { return sql::table_of<DedupTable>(vtab); }
DedupCursor* cursor_of(sqlite3_vtab_cursor* cursor) { return sql::cursor_of<DedupCursor>(cursor); }

std::string usage() {
  return std::string(kName) +
         "(query [, threshold [, radius [, options]]]) needs SQL text returning (id, text), "
         "e.g. SELECT * FROM simhash_dedup('SELECT id, body FROM docs ORDER BY id')";
}

int x_connect(sqlite3* db, void* /*aux*/, int /*argc*/, const char* const* /*argv*/,
              sqlite3_vtab** out, char** error) {
  return guard(error, [&] {
    int rc = sqlite3_declare_vtab(
        db,
        "CREATE TABLE x(id INTEGER, cluster INTEGER, distance INTEGER, similarity REAL, "
        "query HIDDEN, threshold HIDDEN, radius HIDDEN, options HIDDEN)");
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

    // What EXPLAIN QUERY PLAN shows: the candidates, when the radius is known.
    std::string candidates =
        "candidates within " + std::to_string(kDefaultRadius) + " bits (the default radius)";
    sqlite3_value* radius = nullptr;
    if (const int i = argument_constraint[kRadius - kQuery]; i >= 0) {
      candidates = "candidates within the radius given at run time";
      if (sqlite3_vtab_rhs_value(info, i, &radius) == SQLITE_OK) {
        if (sqlite3_value_type(radius) == SQLITE_NULL) {
          candidates = "every pair at the threshold (radius NULL: a set-similarity join)";
        } else if (sqlite3_value_type(radius) == SQLITE_INTEGER) {
          candidates = "candidates within " + std::to_string(sqlite3_value_int64(radius)) + " bits";
        }
      }
    }
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

double read_threshold(sqlite3_value* value) {
  const int type = sqlite3_value_type(value);
  const double threshold = sqlite3_value_double(value);
  if (type != SQLITE_INTEGER && type != SQLITE_FLOAT) {
    throw SqliteError(
        SQLITE_ERROR,
        std::string(kName) + ": the threshold must be a number in (0, 1], got " + type_name(value));
  }
  if (!(threshold > 0 && threshold <= 1)) {
    throw SqliteError(SQLITE_ERROR, std::string(kName) + ": the threshold must be in (0, 1], got " +
                                        format_sql("%!.15g", threshold));
  }
  return threshold;
}

// Prepares the user's query: one statement that only reads and returns two
// columns. Anything else is refused with a message naming the argument.
Statement prepare_query(sqlite3* db, const std::string& query) {
  const std::string prefix = std::string(kName) + ": the query ";
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  int rc = sqlite3_prepare_v2(db, query.c_str(), static_cast<int>(query.size()), &raw, &tail);
  Statement statement(raw);
  if (rc != SQLITE_OK) {
    throw SqliteError(rc, prefix + "does not prepare: " + sqlite3_errmsg(db));
  }
  if (!statement) {
    throw SqliteError(SQLITE_ERROR, prefix + "is empty; " + usage());
  }
  // What follows the first statement must be nothing but spaces, semicolons
  // or comments: preparing it gives no statement then.
  sqlite3_stmt* rest_raw = nullptr;
  rc = sqlite3_prepare_v2(db, tail, -1, &rest_raw, nullptr);
  const Statement rest(rest_raw);
  if (rc != SQLITE_OK || rest) {
    throw SqliteError(SQLITE_ERROR, prefix + "must be one statement");
  }
  // A dedup reads; a query that writes (DELETE ... RETURNING) would change
  // the rows while they are being grouped, and surprise whoever wrote it.
  if (sqlite3_stmt_readonly(statement.get()) == 0) {
    throw SqliteError(SQLITE_ERROR, prefix + "must only read (a SELECT)");
  }
  if (const int columns = sqlite3_column_count(statement.get()); columns != 2) {
    throw SqliteError(SQLITE_ERROR, prefix + "must return two columns (id, text), it returns " +
                                        std::to_string(columns));
  }
  return statement;
}

// Runs the query and hands every row with a fingerprint and features to
// `dedup`, in the query's order.
void read_rows(sqlite3* db, sqlite3_stmt* statement, FeatureExtractor& fingerprints,
               FeatureExtractor& verification, VerifiedDedup& dedup) {
  FeatureVector features;
  int rc = SQLITE_OK;
  for (std::size_t row = 1; (rc = sqlite3_step(statement)) == SQLITE_ROW; ++row) {
    if (row % kRowsBetweenChecks == 0) {
      throw_if_interrupted(db);
    }
    sqlite3_value* id = sqlite3_column_value(statement, 0);
    if (sqlite3_value_type(id) != SQLITE_INTEGER) {
      throw SqliteError(SQLITE_ERROR, std::string(kName) +
                                          ": the query's first column (id) must be an "
                                          "INTEGER, got " +
                                          type_name(id) + " in row " + std::to_string(row));
    }
    const std::optional<std::string_view> text = text_of(sqlite3_column_value(statement, 1));
    if (!text) {
      continue;
    }
    const std::optional<std::uint64_t> fingerprint = fingerprints.fingerprint(*text);
    if (!fingerprint) {
      continue;  // no word: no fingerprint, as the recipe's index leaves it out
    }
    verification.feature_vector(*text, features);
    if (!features.empty()) {  // simhash_jaccard is NULL for it: it verifies nothing
      dedup.add(sqlite3_value_int64(id), *fingerprint, features);
    }
  }
  if (rc == SQLITE_INTERRUPT) {
    throw SqliteError(rc, "interrupted");
  }
  if (rc != SQLITE_DONE) {
    throw SqliteError(rc, std::string(kName) + ": the query failed: " + sqlite3_errmsg(db));
  }
}

int x_filter(sqlite3_vtab_cursor* base, int idx_num, const char* /*idx_str*/, int argc,
             sqlite3_value** argv) {
  DedupCursor* cursor = cursor_of(base);
  sqlite3* db = table_of(base->pVtab)->db;
  return guard(base->pVtab, [&]() -> int {
    cursor->rows.clear();
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
    cursor->threshold = arguments[1] != nullptr ? read_threshold(arguments[1]) : kDefaultThreshold;
    // Left out: the default radius; NULL: no radius, the threshold join.
    cursor->radius = kDefaultRadius;
    if (arguments[2] != nullptr) {
      cursor->radius = read_radius(arguments[2], RadiusValue::kArgument, kName);
    }
    cursor->options = kDefaultOptions;
    if (arguments[3] != nullptr && sqlite3_value_type(arguments[3]) != SQLITE_NULL) {
      cursor->options = options_text_of(arguments[3], kName);
    }
    // Parsed before the query runs, so a typo costs nothing.
    const std::unique_ptr<CachedExtractor> verification = make_extractor(cursor->options, kName);
    const std::unique_ptr<CachedExtractor> fingerprints = make_extractor("", kName);

    if (!cursor->radius && verification->extractor.options().weight != WeightScheme::binary) {
      throw SqliteError(SQLITE_ERROR,
                        std::string(kName) + ": radius NULL (every pair at the threshold) " +
                            "serves set Jaccard, weight=binary, with any unit and n; the " +
                            "options ask for " + to_string(verification->extractor.options()) +
                            ": add weight=binary or give a radius");
    }
    const Statement statement = prepare_query(db, cursor->query);
    VerifiedDedup dedup;
    read_rows(db, statement.get(), fingerprints->extractor, verification->extractor, dedup);
    if (const std::optional<std::int64_t> repeated = dedup.repeated_id()) {
      throw SqliteError(SQLITE_ERROR, std::string(kName) + ": the query returns id " +
                                          std::to_string(*repeated) +
                                          " more than once; ids must be distinct");
    }
    const CheckPoint check = [db] { throw_if_interrupted(db); };
    cursor->rows = cursor->radius
                       ? dedup.groups_within_radius(cursor->threshold, *cursor->radius, check)
                       : dedup.groups_by_threshold_join(cursor->threshold, check);
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
      sqlite3_result_int(context, row.distance);
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
