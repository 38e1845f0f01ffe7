// SPDX-License-Identifier: MIT
// The simhash_similar virtual table module: CREATE's arguments (threshold,
// options), the plans (a query by text, a rowid lookup, a scan of the
// stored rows), the cursors, xUpdate and the special commands. The storage
// and the search are in similar_storage.h and the engine's
// similar/similar_search.h; see docs/similar.md.
//
// Columns: similarity, then the hidden query, threshold, text and a column
// named after the table for commands. query and threshold come first among
// the hidden ones so that sim('a text', 0.8) gives them in that order.
// The text is not stored: only its features are, so reading `text` gives NULL.
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ext/common/function_arguments.h"
#include "ext/common/shadow_tables.h"
#include "ext/common/shared_storage.h"
#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"
#include "ext/common/storage_table.h"
#include "ext/common/test_knobs.h"
#include "ext/common/threshold_argument.h"
#include "ext/common/virtual_table.h"
#include "ext/registration.h"
#include "ext/similar/similar_shadow_tables.h"
#include "ext/similar/similar_storage.h"
#include "util/key_value_options.h"

namespace simhash::sql {
namespace {

constexpr const char* kModule = "simhash_similar";
constexpr double kDefaultCreationThreshold = 0.5;

enum Column { kSimilarity, kQuery, kThreshold, kText, kCommand };
constexpr const char* kColumnNames[] = {"similarity", "query", "threshold", "text"};

// idxNum: the plan, and above kGivenShift which arguments a query plan was
// given (function_arguments.h's bits: 1 the query, 2 the threshold).
enum Plan { kPlanQuery = 1, kPlanRowid = 2, kPlanScan = 3 };
constexpr int kPlanMask = 3;
constexpr int kGivenShift = 2;
constexpr int kArgumentCount = 2;  // the hidden columns kQuery and kThreshold
// A query plan sorted by similarity that was given LIMIT (and OFFSET) after
// its arguments.
constexpr int kLimitGiven = 1 << 4;
constexpr int kOffsetGiven = 1 << 5;

std::string lower(std::string_view text) {
  std::string lowered(text);
  for (char& c : lowered) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return lowered;
}

bool is_column_name(std::string_view name) {
  const std::string lowered = lower(name);
  for (const char* column : kColumnNames) {
    if (lowered == column) {
      return true;
    }
  }
  return lowered == "rowid" || lowered == "oid" || lowered == "_rowid_";
}

struct SimilarTable : sqlite3_vtab {
  sqlite3* db = nullptr;
  std::string schema;
  std::string name;
  // None when the config could not be read at connect: the table still
  // connects, so that DROP TABLE removes it; every other use fails with
  // `unreadable`.
  // Shared with the table's other connected objects (ext/common/shared_storage.h).
  std::shared_ptr<SimilarStorage> storage;
  std::string unreadable;
  int unreadable_code = SQLITE_ERROR;
  // The calls of this table under way that run SQL on its shadow tables
  // (ShadowCallGuard): 0 or 1.
  int calls_under_way = 0;

  ShadowCallGuard inside() { return ShadowCallGuard(calls_under_way, kModule, name); }

  SimilarStorage& usable_storage() const {
    if (!storage) {
      throw SqliteError(unreadable_code, unreadable);
    }
    return *storage;
  }
};

struct SimilarCursor : sqlite3_vtab_cursor {
  int plan = kPlanScan;
  // A query plan's answer and what it was asked.
  std::vector<SimilarMatch> matches;
  std::size_t position = 0;
  std::string query;  // the query column's value: empty when no row was found
  double threshold = 0;
  // A scan or a rowid lookup: the ids of the rows table.
  Statement rows;
  bool row_ready = false;
};

SimilarTable* table_of_cursor(sqlite3_vtab_cursor* cursor) {
  return table_of<SimilarTable>(cursor->pVtab);
}

// The set Jaccard options the index serves; anything else is refused,
// naming what was asked and what is served.
SimhashOptions served_options(const std::string& text) {
  std::string error;
  const std::optional<SimhashOptions> options = parse_options(text, error);
  if (!options) {
    throw SqliteError(SQLITE_ERROR, named_message(kModule, error));
  }
  if (options->weight != WeightScheme::binary) {
    throw SqliteError(
        SQLITE_ERROR,
        message_text({kModule, ": options '", text, "' ask for ", to_string(*options),
                      "; the index serves set Jaccard only: weight=binary with unit=word or "
                      "unit=char and any n (add weight=binary)"}));
  }
  return *options;
}

// The CREATE arguments' keys: the three a user gives, then flush_after and
// format, in a build with tests alone (ext/common/test_knobs.h), which the
// messages do not list (format, a storage format older than the newest,
// is stored; flush_after is not).
constexpr std::string_view kArgumentKeys[] = {"threshold", "options", "max_features", "flush_after",
                                              "format"};
constexpr std::size_t kOptionsKey = 1;
constexpr std::size_t kMaxFeaturesKey = 2;
constexpr std::size_t kListedArgumentKeys = 3;
constexpr std::size_t kFlushAfterKey = 3;
constexpr std::size_t kFormatKey = 4;
constexpr std::span<const std::string_view> kAcceptedArgumentKeys =
    std::span(kArgumentKeys).first(kTestKnobs ? std::size(kArgumentKeys) : kListedArgumentKeys);

// The CREATE arguments after the module's name, as SQLite gives them.
std::vector<std::string_view> create_arguments(int argc, const char* const* argv) {
  std::vector<std::string_view> arguments;
  for (int i = 3; i < argc; ++i) {
    arguments.emplace_back(argv[i]);
  }
  return arguments;
}

// The hidden option flush_after=N, in a build with tests alone
// (ext/common/test_knobs.h): the
// postings pending after which a write flushes them inside the transaction,
// so that a test reaches the flush with a few rows instead of 2^21 postings.
// Not stored in the config: the CREATE statement gives it again at connect.
std::size_t flush_after_of(const std::string& value) {
  std::size_t count = 0;
  const auto [end, problem] = std::from_chars(value.data(), value.data() + value.size(), count);
  if (value.empty() || problem != std::errc() || end != value.data() + value.size() || count == 0) {
    throw SqliteError(SQLITE_ERROR, message_text({kModule,
                                                  ": option flush_after must be a whole number "
                                                  "of postings of at least 1, got \"",
                                                  value, "\""}));
  }
  return count;
}

// The value of max_features, in the CREATE option and the command alike: a
// whole number of distinct features, 0 for no limit.
std::uint64_t max_features_of(std::string_view value) {
  std::uint64_t most = 0;
  const auto [end, problem] = std::from_chars(value.data(), value.data() + value.size(), most);
  if (value.empty() || problem != std::errc() || end != value.data() + value.size() ||
      most > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    throw SqliteError(SQLITE_ERROR,
                      message_text({kModule,
                                    ": max_features must be a whole number of distinct features "
                                    "(0 for no limit), got \"",
                                    value, "\""}));
  }
  return most;
}

// CREATE VIRTUAL TABLE ... USING simhash_similar(threshold=0.5, options='n=3 weight=binary').
SimilarConfig parse_arguments(int argc, const char* const* argv) {
  SimilarConfig config;
  config.threshold = kDefaultCreationThreshold;
  // Stored canonical in X_config at creation and read from there at every
  // connect, so a table keeps the options its features were built with
  // whatever the default becomes.
  std::string options = kDefaultCheckOptions;
  const auto read_value = [&](std::size_t key, std::string_view value, std::string& /*error*/) {
    if (key == kOptionsKey) {
      options = value;
    } else if (key == kMaxFeaturesKey) {
      config.max_features = max_features_of(value);
    } else if (key == kFlushAfterKey) {
      config.flush_after = flush_after_of(std::string(value));
    } else if (key == kFormatKey) {
      // The hidden option format=N: a table of an older storage format,
      // for the tests that keep those formats working.
      if (value.size() != 1 || value[0] < '0' + kSimilarFormatWithoutCounts ||
          value[0] > '0' + kSimilarFormat) {
        throw SqliteError(
            SQLITE_ERROR,
            message_text({kModule, ": option format must be 1, 2 or 3, got \"", value, "\""}));
      }
      config.format = value[0] - '0';
    } else {
      double threshold = 0;
      const auto [end, problem] =
          std::from_chars(value.data(), value.data() + value.size(), threshold);
      if (value.empty() || problem != std::errc() || end != value.data() + value.size() ||
          !(threshold > 0 && threshold <= 1)) {
        throw SqliteError(SQLITE_ERROR,
                          message_text({kModule,
                                        ": option threshold must be a number in (0, 1], "
                                        "got \"",
                                        value, "\""}));
      }
      config.threshold = threshold;
    }
    return true;
  };
  std::string error;
  if (!parse_key_value_arguments(create_arguments(argc, argv), kModule, kAcceptedArgumentKeys,
                                 read_value, error, kListedArgumentKeys)) {
    throw SqliteError(SQLITE_ERROR, error);
  }
  config.options = served_options(options);
  return config;
}

// At connect: what the config table does not hold, from the CREATE
// statement's arguments (checked when it ran).
void read_connect_arguments(int argc, const char* const* argv, SimilarConfig& config) {
  const auto read_value = [&](std::size_t key, std::string_view value, std::string& /*error*/) {
    if (key == kFlushAfterKey) {
      config.flush_after = flush_after_of(std::string(value));
    }
    return true;
  };
  std::string error;
  parse_key_value_arguments(create_arguments(argc, argv), kModule, kAcceptedArgumentKeys,
                            read_value, error);
}

int connect_or_create(sqlite3* db, int argc, const char* const* argv, sqlite3_vtab** vtab,
                      char** error, bool create) {
  *vtab = nullptr;
  return guard(error, [&] {
    const std::string schema = argv[1];
    const std::string name = argv[2];
    if (is_column_name(name)) {
      throw SqliteError(SQLITE_ERROR, std::string(kModule) + ": a table cannot be named '" + name +
                                          "' (a column has that name)");
    }
    auto table = std::make_unique<SimilarTable>();
    table->db = db;
    table->schema = schema;
    table->name = name;
    std::optional<SimilarConfig> config;
    if (create) {
      config = parse_arguments(argc, argv);  // checked before anything is created
      create_similar_tables(db, schema, name, *config);
    } else {
      try {
        config = read_similar_config(db, schema, name);
        read_connect_arguments(argc, argv, *config);
      } catch (const SqliteError& error) {
        table->unreadable =
            std::string(error.what()) + " (DROP TABLE " + name + " still removes it)";
        table->unreadable_code = error.code();
      }
    }
    const std::string declaration = format_sql(
        "CREATE TABLE x(similarity REAL, query HIDDEN, threshold HIDDEN, text HIDDEN, \"%w\" "
        "HIDDEN)",
        name.c_str());
    if (const int rc = sqlite3_declare_vtab(db, declaration.c_str()); rc != SQLITE_OK) {
      throw SqliteError(rc, sqlite3_errmsg(db));
    }
    sqlite3_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1);
    // Innocuous, as simhash_index: a statement on it reads and writes only
    // its own shadow tables in the same database.
    sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
    if (config) {
      table->storage = SharedStorages<SimilarStorage>::instance().connect(
          db, schema, name, create,
          [&] { return std::make_shared<SimilarStorage>(db, schema, name, *config); });
    }
    return hand_over(std::move(table), vtab);
  });
}

int x_create(sqlite3* db, void*, int argc, const char* const* argv, sqlite3_vtab** vtab,
             char** error) {
  return connect_or_create(db, argc, argv, vtab, error, true);
}

int x_connect(sqlite3* db, void*, int argc, const char* const* argv, sqlite3_vtab** vtab,
              char** error) {
  return connect_or_create(db, argc, argv, vtab, error, false);
}

// ORDER BY similarity DESC [, rowid] LIMIT n [OFFSET k] needs only the
// first n + k rows of the answer, which the search finds with a rising
// threshold (find_similar's limit). SQLite 3.38+ passes LIMIT and OFFSET
// only when every WHERE term is on this table; the plan takes them only
// when every term is one of its arguments: any other (on similarity or
// rowid, say) would remove rows after the search, which would then have
// found too few. (SQLite 3.40 passes no LIMIT where the WHERE clause holds
// `rowid IS NOT v`: the refuse recipe asks for two rows in a subquery and
// leaves its own row out around it.) Returns the idxNum bits; the values
// follow the arguments in xFilter's argv.
int limit_plan(sqlite3_index_info* info, std::span<const int> arguments) {
  int limit = -1;
  int offset = -1;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& constraint = info->aConstraint[i];
    if (std::find(arguments.begin(), arguments.end(), i) != arguments.end()) {
      continue;
    }
    if (constraint.op == SQLITE_INDEX_CONSTRAINT_LIMIT && constraint.usable && limit < 0) {
      limit = i;
    } else if (constraint.op == SQLITE_INDEX_CONSTRAINT_OFFSET && constraint.usable && offset < 0) {
      offset = i;
    } else {
      return 0;
    }
  }
  if (limit < 0) {
    return 0;
  }
  int next = 0;
  for (const int argument : arguments) {
    next += argument >= 0 ? 1 : 0;
  }
  info->aConstraintUsage[limit].argvIndex = ++next;
  int bits = kLimitGiven;
  if (offset >= 0) {
    info->aConstraintUsage[offset].argvIndex = ++next;
    bits |= kOffsetGiven;
  }
  return bits;
}

// The rows a query plan given LIMIT must find: LIMIT + OFFSET; 0 (all of
// them) for a negative LIMIT, which is none, or one too large to be worth
// counting. `after_arguments`: xFilter's values after the arguments
// place_arguments took, where limit_plan put LIMIT and then OFFSET.
std::size_t search_limit(int idx_num, std::span<sqlite3_value* const> after_arguments) {
  if ((idx_num & kLimitGiven) == 0) {
    return 0;
  }
  const auto integer = [&](std::size_t at) -> std::optional<sqlite3_int64> {
    if (at >= after_arguments.size() || sqlite3_value_type(after_arguments[at]) != SQLITE_INTEGER) {
      return std::nullopt;
    }
    return sqlite3_value_int64(after_arguments[at]);
  };
  constexpr sqlite3_int64 kLargest = sqlite3_int64{1} << 32;
  const std::optional<sqlite3_int64> limit = integer(0);
  if (!limit || *limit <= 0 || *limit > kLargest) {
    return 0;
  }
  sqlite3_int64 rows = *limit;
  if ((idx_num & kOffsetGiven) != 0) {
    const std::optional<sqlite3_int64> offset = integer(1);
    if (!offset || *offset > kLargest) {
      return 0;
    }
    rows += std::max<sqlite3_int64>(0, *offset);
  }
  return static_cast<std::size_t>(rows);
}

int x_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  return guard(vtab, [&] {
    table_of<SimilarTable>(vtab)->usable_storage();
    // The query and threshold are hidden argument columns, planned as the
    // table-valued functions' are (function_arguments.h); one not usable
    // yet asks SQLite for another join order.
    std::array<int, kArgumentCount> arguments{};
    if (const int rc = plan_arguments(info, kQuery, arguments); rc != SQLITE_OK) {
      return rc;
    }
    const int given = info->idxNum;
    const int query = arguments[0];
    const int threshold = arguments[1];
    int rowid = -1;
    for (int i = 0; i < info->nConstraint; ++i) {
      const auto& constraint = info->aConstraint[i];
      if (constraint.op == SQLITE_INDEX_CONSTRAINT_EQ && constraint.iColumn == -1 &&
          constraint.usable && rowid < 0) {
        rowid = i;
      }
    }
    const char* description = nullptr;
    if (given != 0) {
      info->idxNum = kPlanQuery | (given << kGivenShift);
      // The answer comes most similar first, ties by rowid; but one search
      // per value of an IN list is not one answer in order.
      const bool in_list = (query >= 0 && sqlite3_vtab_in(info, query, -1) != 0) ||
                           (threshold >= 0 && sqlite3_vtab_in(info, threshold, -1) != 0);
      const bool by_similarity = !in_list && info->nOrderBy >= 1 &&
                                 info->aOrderBy[0].iColumn == kSimilarity && info->aOrderBy[0].desc;
      const bool sorted =
          by_similarity &&
          (info->nOrderBy == 1 ||
           (info->nOrderBy == 2 && info->aOrderBy[1].iColumn == -1 && !info->aOrderBy[1].desc));
      description = "similar to the query (postings of its rarest features)";
      if (sorted) {
        info->orderByConsumed = 1;
        info->idxNum |= limit_plan(info, arguments);
        if ((info->idxNum & kLimitGiven) != 0) {
          description = "the most similar to the query, as many as LIMIT asks (a rising threshold)";
        }
      }
      info->estimatedCost = 100;
      info->estimatedRows = 10;
    } else if (rowid >= 0) {
      info->aConstraintUsage[rowid].argvIndex = 1;
      info->aConstraintUsage[rowid].omit = 1;
      info->idxNum = kPlanRowid;
      description = "rowid lookup";
      info->estimatedCost = 10;
      info->estimatedRows = 1;
      info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
    } else {
      info->idxNum = kPlanScan;
      description = "scan of the stored rows";
      info->estimatedCost = 1e6;
      info->estimatedRows = 1000000;
    }
    info->idxStr = sqlite3_mprintf("%s", description);
    if (info->idxStr == nullptr) {
      return SQLITE_NOMEM;
    }
    info->needToFreeIdxStr = 1;
    return SQLITE_OK;
  });
}

int x_open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** cursor) {
  return guard(vtab, [&] { return hand_over(std::make_unique<SimilarCursor>(), cursor); });
}

int x_close(sqlite3_vtab_cursor* cursor) {
  take_back<SimilarCursor>(cursor);
  return SQLITE_OK;
}

// Steps a scan or lookup cursor's statement to its next row.
void step_rows(SimilarTable* table, SimilarCursor* cursor) {
  const int rc = sqlite3_step(cursor->rows.get());
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    throw SqliteError(rc, sqlite3_errmsg(table->db));
  }
  cursor->row_ready = rc == SQLITE_ROW;
}

int x_filter(sqlite3_vtab_cursor* base, int idx_num, const char*, int argc, sqlite3_value** argv) {
  SimilarCursor* cursor = cursor_of<SimilarCursor>(base);
  SimilarTable* table = table_of_cursor(base);
  return guard(base->pVtab, kModule, [&] {
    const ShadowCallGuard inside = table->inside();
    SimilarStorage& storage = table->usable_storage();
    const std::string who = std::string(kModule) + " " + storage.name();
    cursor->plan = idx_num & kPlanMask;
    cursor->matches.clear();
    cursor->position = 0;
    cursor->rows.reset();
    cursor->row_ready = false;
    if (cursor->plan == kPlanQuery) {
      std::array<sqlite3_value*, kArgumentCount> arguments{};
      place_arguments(idx_num >> kGivenShift, argc, argv, arguments);
      sqlite3_value* query = arguments[0];
      sqlite3_value* threshold = arguments[1];
      if (query == nullptr) {
        throw SqliteError(SQLITE_ERROR, who + ": a threshold needs a query text, as in " +
                                            storage.name() + "(:text, :threshold)");
      }
      const std::optional<std::string_view> text = text_of(query);
      if (!text) {
        throw SqliteError(SQLITE_ERROR, who + ": the query text is NULL");
      }
      cursor->threshold = storage.config().threshold;
      if (threshold != nullptr) {
        cursor->threshold = read_threshold(threshold, who);
        if (cursor->threshold < storage.config().threshold) {
          throw SqliteError(SQLITE_ERROR,
                            who + ": threshold " + number_text(cursor->threshold) +
                                " is below the table's threshold " +
                                number_text(storage.config().threshold) +
                                ", the lowest it answers (create it with a lower one)");
        }
      }
      // The argument's text is searched in place; the cursor keeps a copy
      // for the query column only when there are rows to read it from (a
      // 10 MB query text that finds nothing is not copied).
      const auto given = static_cast<std::size_t>(
          std::count_if(arguments.begin(), arguments.end(),
                        [](const sqlite3_value* value) { return value != nullptr; }));
      cursor->matches = storage.search(
          *text, cursor->threshold,
          search_limit(idx_num, std::span<sqlite3_value* const>(argv, argc).subspan(given)));
      if (cursor->matches.empty()) {
        cursor->query.clear();
      } else {
        cursor->query.assign(*text);
      }
      return SQLITE_OK;
    }
    const std::string sql =
        format_sql(cursor->plan == kPlanRowid ? kSelectSimilarRowId : kScanSimilarRowIds,
                   table->schema.c_str(), storage.name().c_str());
    if (const int rc = prepare(table->db, sql, cursor->rows); rc != SQLITE_OK) {
      throw SqliteError(rc, sqlite3_errmsg(table->db));
    }
    if (cursor->plan == kPlanRowid) {
      if (argc < 1 || sqlite3_value_numeric_type(argv[0]) != SQLITE_INTEGER) {
        return SQLITE_OK;  // no row has a rowid that is not an integer
      }
      sqlite3_bind_int64(cursor->rows.get(), 1, sqlite3_value_int64(argv[0]));
    }
    step_rows(table, cursor);
    return SQLITE_OK;
  });
}

int x_next(sqlite3_vtab_cursor* base) {
  SimilarCursor* cursor = cursor_of<SimilarCursor>(base);
  if (cursor->plan == kPlanQuery) {
    ++cursor->position;
    return SQLITE_OK;
  }
  return guard(base->pVtab, kModule, [&] {
    const ShadowCallGuard inside = table_of_cursor(base)->inside();
    step_rows(table_of_cursor(base), cursor);
    return SQLITE_OK;
  });
}

int x_eof(sqlite3_vtab_cursor* base) {
  const SimilarCursor* cursor = cursor_of<SimilarCursor>(base);
  if (cursor->plan == kPlanQuery) {
    return cursor->position >= cursor->matches.size() ? 1 : 0;
  }
  return cursor->row_ready ? 0 : 1;
}

int x_column(sqlite3_vtab_cursor* base, sqlite3_context* context, int column) {
  const SimilarCursor* cursor = cursor_of<SimilarCursor>(base);
  if (sqlite3_vtab_nochange(context) != 0) {
    return SQLITE_OK;  // an UPDATE that leaves the column as it is
  }
  if (cursor->plan != kPlanQuery) {
    sqlite3_result_null(context);
    return SQLITE_OK;
  }
  switch (column) {
    case kSimilarity:
      sqlite3_result_double(context, cursor->matches[cursor->position].similarity);
      break;
    case kQuery:
      sqlite3_result_text(context, cursor->query.data(), static_cast<int>(cursor->query.size()),
                          SQLITE_TRANSIENT);
      break;
    case kThreshold:
      sqlite3_result_double(context, cursor->threshold);
      break;
    default:
      sqlite3_result_null(context);
      break;
  }
  return SQLITE_OK;
}

int x_rowid(sqlite3_vtab_cursor* base, sqlite3_int64* rowid) {
  const SimilarCursor* cursor = cursor_of<SimilarCursor>(base);
  *rowid = cursor->plan == kPlanQuery ? cursor->matches[cursor->position].id
                                      : sqlite3_column_int64(cursor->rows.get(), 0);
  return SQLITE_OK;
}

void run_command(SimilarStorage& storage, sqlite3_value* command) {
  const unsigned char* raw = sqlite3_value_text(command);
  const std::string text = raw != nullptr ? reinterpret_cast<const char*>(raw) : "";
  if (text == "integrity-check") {
    if (const std::string problem = storage.integrity_problem(); !problem.empty()) {
      throw SqliteError(SQLITE_CORRUPT_VTAB, problem);
    }
    return;
  }
  constexpr std::string_view kMaxFeatures = "max_features=";
  if (std::string_view(text).starts_with(kMaxFeatures)) {
    storage.set_max_features(max_features_of(std::string_view(text).substr(kMaxFeatures.size())));
    return;
  }
  throw SqliteError(SQLITE_ERROR,
                    message_text({kModule, " ", storage.name(), ": unknown command '", text,
                                  "' (known: 'integrity-check', 'max_features=N')"}));
}

std::int64_t rowid_argument(sqlite3_value* value, const std::string& who) {
  if (sqlite3_value_type(value) != SQLITE_INTEGER) {
    throw SqliteError(SQLITE_MISMATCH, who + ": rowid must be an INTEGER, got " + described(value));
  }
  return sqlite3_value_int64(value);
}

[[noreturn]] void throw_computed_written(int column, const std::string& who,
                                         const std::string& name) {
  if (column == kCommand) {
    throw SqliteError(SQLITE_ERROR, who + ": column " + name + " takes commands in INSERT only");
  }
  throw SqliteError(SQLITE_ERROR, who + ": column " + kColumnNames[column] +
                                      " is computed by queries and cannot be written");
}

int x_update(sqlite3_vtab* vtab, int argc, sqlite3_value** argv, sqlite3_int64* rowid) {
  SimilarTable* table = table_of<SimilarTable>(vtab);
  const int conflict = sqlite3_vtab_on_conflict(table->db);
  const int rc = guard(vtab, kModule, [&] {
    const ShadowCallGuard inside = table->inside();
    SimilarStorage& storage = table->usable_storage();
    const std::string who = std::string(kModule) + " " + storage.name();
    if (argc == 1) {
      storage.remove(sqlite3_value_int64(argv[0]));
      return SQLITE_OK;
    }
    sqlite3_value** columns = argv + 2;
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
      if (sqlite3_value_type(columns[kCommand]) != SQLITE_NULL) {
        *rowid = sqlite3_last_insert_rowid(table->db);
        run_command(storage, columns[kCommand]);
        return SQLITE_OK;
      }
      for (int column : {kSimilarity, kQuery, kThreshold}) {
        if (sqlite3_value_type(columns[column]) != SQLITE_NULL) {
          throw_computed_written(column, who, storage.name());
        }
      }
      std::optional<std::int64_t> id;
      if (sqlite3_value_type(argv[1]) != SQLITE_NULL) {
        id = rowid_argument(argv[1], who);
      }
      *rowid = storage.insert(id, text_of(columns[kText]), conflict);
      return SQLITE_OK;
    }
    for (int column : {kSimilarity, kQuery, kThreshold, kCommand}) {
      if (sqlite3_value_nochange(columns[column]) == 0) {
        throw_computed_written(column, who, storage.name());
      }
    }
    std::optional<StoredText> text;
    if (sqlite3_value_nochange(columns[kText]) == 0) {
      text = text_of(columns[kText]);
    }
    storage.update(sqlite3_value_int64(argv[0]), rowid_argument(argv[1], who), text, conflict);
    return SQLITE_OK;
  });
  // A refused row under INSERT OR IGNORE is skipped quietly.
  if ((rc & 0xff) == SQLITE_CONSTRAINT && conflict == SQLITE_IGNORE) {
    free_error(vtab);
  }
  return rc;
}

int x_rename(sqlite3_vtab* vtab, const char* new_name) {
  return guard(vtab, kModule, [&] {
    SimilarTable* table = table_of<SimilarTable>(vtab);
    const ShadowCallGuard inside = table->inside();
    if (is_column_name(new_name)) {
      throw SqliteError(SQLITE_ERROR, std::string(kModule) + " " + table->name +
                                          ": cannot rename to '" + new_name +
                                          "': the name of one of its columns");
    }
    table->usable_storage().rename(new_name);
    table->name = new_name;
    return SQLITE_OK;
  });
}

// The transaction: the postings of writes stay pending across savepoints
// and are written at xSync (SimilarStorage::flush).
int x_begin(sqlite3_vtab*) { return SQLITE_OK; }

int x_sync(sqlite3_vtab* vtab) {
  return guard(vtab, kModule, [&] {
    SimilarTable* table = table_of<SimilarTable>(vtab);
    const ShadowCallGuard inside = table->inside();
    if (table->storage) {
      table->storage->flush();
    }
    return SQLITE_OK;
  });
}

int x_end(sqlite3_vtab* vtab) {
  if (SimilarTable* table = table_of<SimilarTable>(vtab); table->storage) {
    table->storage->discard_pending();
  }
  return SQLITE_OK;
}

int x_savepoint(sqlite3_vtab* vtab, int level) {
  return guard(vtab, kModule, [&] {
    if (SimilarTable* table = table_of<SimilarTable>(vtab); table->storage) {
      table->storage->savepoint(level);
    }
    return SQLITE_OK;
  });
}

int x_release(sqlite3_vtab* vtab, int level) {
  if (SimilarTable* table = table_of<SimilarTable>(vtab); table->storage) {
    table->storage->release(level);
  }
  return SQLITE_OK;
}

int x_rollback_to(sqlite3_vtab* vtab, int level) {
  return guard(vtab, kModule, [&] {
    if (SimilarTable* table = table_of<SimilarTable>(vtab); table->storage) {
      table->storage->rollback_to(level);
    }
    return SQLITE_OK;
  });
}

int x_shadow_name(const char* suffix) { return is_similar_shadow_suffix(suffix) ? 1 : 0; }

#if SQLITE_VERSION_NUMBER >= 3044000
int x_integrity(sqlite3_vtab* vtab, const char*, const char*, int, char** error) {
  return guard(vtab, kModule, [&] {
    const ShadowCallGuard inside = table_of<SimilarTable>(vtab)->inside();
    const std::string problem = table_of<SimilarTable>(vtab)->usable_storage().integrity_problem();
    if (!problem.empty()) {
      *error = sqlite3_mprintf("%s", problem.c_str());
    }
    return SQLITE_OK;
  });
}
#endif

sqlite3_module make_module() {
  sqlite3_module module{};
#if SQLITE_VERSION_NUMBER >= 3044000
  module.iVersion = 4;
  module.xIntegrity = x_integrity;
#else
  module.iVersion = 3;
#endif
  module.xCreate = x_create;
  module.xConnect = x_connect;
  module.xBestIndex = x_best_index;
  module.xDisconnect = disconnect_storage_table<SimilarTable>;
  module.xDestroy = destroy_storage_table<SimilarTable, drop_similar_tables>;
  module.xOpen = x_open;
  module.xClose = x_close;
  module.xFilter = x_filter;
  module.xNext = x_next;
  module.xEof = x_eof;
  module.xColumn = x_column;
  module.xRowid = x_rowid;
  module.xUpdate = x_update;
  module.xRename = x_rename;
  module.xBegin = x_begin;
  module.xSync = x_sync;
  module.xCommit = x_end;
  module.xRollback = x_end;
  module.xSavepoint = x_savepoint;
  module.xRelease = x_release;
  module.xRollbackTo = x_rollback_to;
  module.xShadowName = x_shadow_name;
  return module;
}

const sqlite3_module similar_module = make_module();

}  // namespace

int register_similar_module(sqlite3* db, char** error) {
  return register_module(db, kModule, &similar_module, error);
}

}  // namespace simhash::sql
