// The simhash_index virtual table module: option parsing, xBestIndex (plan
// choice and the idxStr encoding), cursors, xUpdate with conflict handling,
// special commands and the transaction callbacks that drive the pending
// buffer of IndexStorage. See ARCHITECTURE.md for the design.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ext/common/radius_argument.h"
#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"
#include "ext/common/virtual_table.h"
#include "ext/index/index_registry.h"
#include "ext/index/index_shadow_tables.h"
#include "ext/index/index_storage.h"
#include "ext/registration.h"
#include "index/permutation_plan.h"
#include "text/icu_versions.h"
#include "util/key_value_options.h"

namespace simhash::sql {
namespace {

// Declared columns, in order; the last one is named after the table and only
// receives special commands (as in FTS5).
constexpr int kColumnFp = 0;
constexpr int kColumnDistance = 1;
constexpr int kColumnQuery = 2;
constexpr int kColumnRadius = 3;
constexpr int kColumnNearest = 4;
constexpr int kColumnCommand = 5;

// The plan encoding (written by x_best_index, read by x_filter).
//
// idxNum: the plan kind in the low bits, plus a flag when ORDER BY distance is
// consumed (results sorted by distance, then rowid).
constexpr int kPlanScan = 0;
constexpr int kPlanRowid = 1;
constexpr int kPlanMatch = 2;
constexpr int kPlanCommand = 3;  // WHERE <table> = 'integrity-check': a check that only reads
constexpr int kPlanMask = 3;
constexpr int kSortedByDistance = 4;

// idxStr: one code per argument the plan asks xFilter for, in argv order,
// then a space and the plan as EXPLAIN QUERY PLAN shows it.
//   kPlanMatch:   q, then any of l t e r, then n and o (see below)
//   kPlanCommand: c       kPlanRowid: i       kPlanScan: - (no argument)
// Every l, t, e and r is an upper bound: the search radius is the smallest.
// With none of them, ORDER BY distance and a LIMIT, the plan returns the
// LIMIT + OFFSET nearest rows at any distance ("nearest"): the index answers
// when it finds that many within k, else one pass over the data does.
constexpr char kArgQuery = 'q';     // the query fingerprint (MATCH, or the hidden column `query`)
constexpr char kArgAtMost = 'l';    // distance <= value
constexpr char kArgBelow = 't';     // distance < value
constexpr char kArgEqual = 'e';     // distance = value (each value of an IN list; SQLite checks it)
constexpr char kArgRadius = 'r';    // the hidden column `radius` (the function form's 2nd argument)
constexpr char kArgLimit = 'n';     // LIMIT (only with no l, t, e or r, and ORDER BY distance)
constexpr char kArgOffset = 'o';    // OFFSET (likewise)
constexpr char kArgNearest = 'm';   // nearest = value: that many nearest rows (within the bound)
constexpr char kArgCommand = 'c';   // WHERE <table> = 'command'
constexpr char kArgRowid = 'i';     // rowid = value
constexpr char kNoArguments = '-';  // a full scan

struct IndexTable : sqlite3_vtab {
  sqlite3* db = nullptr;
  std::string schema;
  std::string name;
  // Null when the stored config cannot be read (a newer format, damage):
  // the table then connects only so that DROP TABLE can remove it, and
  // every other use fails with `unreadable`.
  std::unique_ptr<IndexStorage> storage;
  std::string unreadable;
  int unreadable_code = SQLITE_ERROR;
  // Tells the batch functions this table is an index (index_registry.h).
  std::optional<IndexRegistration> registration;

  IndexStorage& usable_storage() const {
    if (!storage) {
      throw SqliteError(unreadable_code, unreadable);
    }
    return *storage;
  }
};

struct IndexCursor : sqlite3_vtab_cursor {
  bool has_query = false;
  std::int64_t query = 0;
  int radius = 0;
  // Index, rowid and radius-scan plans materialize their hits.
  std::vector<IndexHit> hits;
  std::size_t position = 0;
  // A plain scan steps its own statement over the data table.
  Statement scan;
  bool scan_mode = false;
  bool scan_valid = false;
  // The rowid plan's row has a NULL fp (searches never return such rows).
  bool fp_is_null = false;
  // The count of `nearest = n`, shown in its column.
  std::optional<std::int64_t> nearest_asked;
};

IndexTable* table_of(sqlite3_vtab* vtab) { return sql::table_of<IndexTable>(vtab); }
IndexCursor* cursor_of(sqlite3_vtab_cursor* cursor) { return sql::cursor_of<IndexCursor>(cursor); }

std::string lower(std::string text) {
  for (char& c : text) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return text;
}

// True when `name` (any case) is one of the declared columns. The table also
// declares a hidden column named after itself (for commands), so a table of
// such a name would declare that column twice and be unusable.
bool is_column_name(std::string_view name) {
  const std::string lowered = lower(std::string(name));
  return lowered == "fp" || lowered == "distance" || lowered == "query" || lowered == "radius";
}

// Parses the CREATE VIRTUAL TABLE arguments into k and blocks, by the rule
// of every option string (util/key_value_options.h): SQLite hands them over
// split at commas, so they are joined again first.
IndexConfig parse_options(int argc, const char* const* argv) {
  std::string text;
  for (int i = 3; i < argc; ++i) {
    text += i > 3 ? ", " : "";
    text += argv[i];
  }
  static constexpr std::string_view kKeys[] = {"k", "blocks"};
  std::optional<int> values[2];
  const auto read_value = [&](std::size_t key, std::string_view value, std::string& error) {
    int number = 0;
    const auto [end, problem] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (value.empty() || problem != std::errc() || end != value.data() + value.size()) {
      error = message_text(
          {"simhash_index: option ", kKeys[key], " must be an integer, got \"", value, "\""});
      return false;
    }
    values[key] = number;
    return true;
  };
  std::string error;
  if (!parse_key_values(text, "simhash_index", kKeys, read_value, error)) {
    throw SqliteError(SQLITE_ERROR, error);
  }
  IndexConfig config;
  config.k = values[0].value_or(3);
  if (config.k < 0 || config.k > kMaxIndexK) {
    throw SqliteError(SQLITE_ERROR, "simhash_index: option k=" + std::to_string(config.k) +
                                        " is out of range (0 to " + std::to_string(kMaxIndexK) +
                                        ")");
  }
  config.blocks = values[1].value_or(PermutationPlan::default_blocks(config.k));
  return config;
}

// Every permuted copy stores every row again (about 10 bytes each) and
// every write touches each copy, while a radius above k is served from the
// copies anyway (multi-probe): a plan of more copies than this is refused at
// CREATE. Indexes made before the limit still open.
constexpr int kMaxIndexCopies = 64;

// The plan of a new index, checked: a valid plan, within kMaxIndexCopies.
PermutationPlan make_plan(const IndexConfig& config) {
  std::string error;
  auto plan = PermutationPlan::create(config.k, config.blocks, error);
  if (!plan) {
    throw SqliteError(SQLITE_ERROR, "simhash_index: option " + error);
  }
  if (plan->table_count() > kMaxIndexCopies) {
    throw SqliteError(
        SQLITE_ERROR,
        "simhash_index: option k=" + std::to_string(config.k) + " with blocks=" +
            std::to_string(plan->blocks()) + " stores " + std::to_string(plan->table_count()) +
            " permuted copies of every row (the limit is " + std::to_string(kMaxIndexCopies) +
            "); keep k small (k=3 stores 4) and give the radius when searching, as in "
            "near(:q, " +
            std::to_string(config.k) + "): the index answers any radius exactly from its copies");
  }
  return *plan;
}

// An index made under another ICU or Unicode version still answers exactly
// (it stores the fingerprints it was given), but simhash() of the same text
// may now give a slightly different fingerprint, so a query by text can miss
// rows it used to find. Not an error: the warning goes to SQLite's error log
// (sqlite3_config(SQLITE_CONFIG_LOG)), and the README shows the SQL that
// compares the index's config with simhash_icu_version().
void warn_on_icu_mismatch(const std::string& name, const IndexConfig& config) {
  if (config.icu.empty() && config.unicode.empty()) {
    return;  // created before the versions were recorded
  }
  const IcuVersions running = icu_versions();
  if (config.icu != running.icu || config.unicode != running.unicode) {
    sqlite3_log(SQLITE_WARNING,
                "simhash_index %s: created with ICU %s (Unicode %s), now running ICU %s (Unicode "
                "%s): fingerprints of the same text may differ",
                name.c_str(), config.icu.c_str(), config.unicode.c_str(), running.icu.c_str(),
                running.unicode.c_str());
  }
}

int connect_or_create(sqlite3* db, int argc, const char* const* argv, sqlite3_vtab** vtab,
                      char** error, bool create) {
  *vtab = nullptr;
  return guard(error, [&] {
    const std::string schema = argv[1];
    const std::string name = argv[2];
    std::optional<StoredIndex> stored;
    if (create) {
      if (is_column_name(name)) {
        throw SqliteError(SQLITE_ERROR, "simhash_index: a table cannot be named '" + name +
                                            "' (a column has that name)");
      }
      IndexConfig config = parse_options(argc, argv);
      PermutationPlan plan = make_plan(config);  // validates before anything is created
      const IcuVersions versions = icu_versions();
      config.icu = versions.icu;
      config.unicode = versions.unicode;
      create_shadow_tables(db, schema, name, config);
      stored.emplace(StoredIndex{config, std::move(plan)});
    }
    auto table = std::make_unique<IndexTable>();
    table->db = db;
    table->schema = schema;
    table->name = name;
    table->registration.emplace(db, schema, name);
    if (!create) {
      try {
        stored.emplace(read_index_config(db, schema, name));
        warn_on_icu_mismatch(name, stored->config);
      } catch (const SqliteError& error) {
        table->unreadable =
            std::string(error.what()) + " (DROP TABLE " + name + " still removes it)";
        table->unreadable_code = error.code();
      }
    }
    // The hidden column of the n nearest is `nearest`, but `nearest_count` in
    // a table named nearest, whose command column has that name.
    const char* nearest_column = lower(name) == "nearest" ? "nearest_count" : "nearest";
    const std::string declaration = format_sql(
        "CREATE TABLE x(fp, distance, query HIDDEN, radius HIDDEN, %s HIDDEN, \"%w\" HIDDEN)",
        nearest_column, name.c_str());
    const int rc = sqlite3_declare_vtab(db, declaration.c_str());
    if (rc != SQLITE_OK) {
      throw SqliteError(rc, sqlite3_errmsg(db));
    }
    sqlite3_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1);
    // Innocuous, as rtree is: a statement on the index reads and writes only
    // the index's own shadow tables in the same database, so a trigger or a
    // view of an untrusted schema can do nothing through it that it could
    // not do to an ordinary table (PRAGMA trusted_schema=OFF allows it).
    sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
    if (stored) {
      table->storage = std::make_unique<IndexStorage>(db, schema, name, *stored);
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

int x_disconnect(sqlite3_vtab* vtab) {
  free_error(vtab);
  take_back<IndexTable>(vtab);
  return SQLITE_OK;
}

int x_destroy(sqlite3_vtab* vtab) {
  IndexTable* table = table_of(vtab);
  const int rc = guard(vtab, [&] {
    if (table->storage) {
      table->storage->discard_pending();
      table->storage->finalize_statements();
    }
    drop_shadow_tables(table->db, table->schema, table->name);
    return SQLITE_OK;
  });
  if (rc == SQLITE_OK) {
    x_disconnect(vtab);
  }
  return rc;
}

// The radius a constraint's value asks for (radius_argument.h): `radius` is
// an argument, the others bound the distance.
std::optional<int> radius_from(char code, sqlite3_value* value, const std::string& name) {
  const RadiusValue kind = code == kArgRadius  ? RadiusValue::kArgument
                           : code == kArgBelow ? RadiusValue::kBelow
                                               : RadiusValue::kAtMost;
  return read_radius(value, kind, "simhash_index " + name);
}

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
  description += std::to_string(probe.parts().size());
  description += " tables within ";
  description += thresholds;
  description += " bits; a scan below ";
  description += std::to_string(rows);
  description += " rows)";
  return description;
}

int x_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  IndexTable* table = table_of(vtab);
  return guard(vtab, [&] {
    const IndexStorage& storage = table->usable_storage();
    const PermutationPlan& plan = storage.plan();
    int match = -1;
    bool match_unusable = false;
    bool bound_unusable = false;
    int rowid_eq = -1;
    int command_eq = -1;
    int limit = -1;
    int offset = -1;
    int nearest_eq = -1;
    std::vector<std::pair<int, char>> radius_constraints;
    for (int i = 0; i < info->nConstraint; ++i) {
      const auto& constraint = info->aConstraint[i];
      const bool is_match =
          (constraint.iColumn == kColumnFp && constraint.op == SQLITE_INDEX_CONSTRAINT_MATCH) ||
          (constraint.iColumn == kColumnQuery && constraint.op == SQLITE_INDEX_CONSTRAINT_EQ);
      if (is_match) {
        if (!constraint.usable) {
          match_unusable = true;
        } else if (match < 0) {
          match = i;
        }
        continue;
      }
      if (constraint.iColumn == kColumnNearest && constraint.op == SQLITE_INDEX_CONSTRAINT_EQ) {
        if (!constraint.usable) {
          bound_unusable = true;
        } else if (nearest_eq < 0) {
          nearest_eq = i;
        }
        continue;
      }
      const char code = radius_code(constraint);
      if (code != 0 && !constraint.usable) {
        bound_unusable = true;
      } else if (code != 0) {
        radius_constraints.emplace_back(i, code);
      } else if (constraint.usable && constraint.iColumn == -1 &&
                 constraint.op == SQLITE_INDEX_CONSTRAINT_EQ && rowid_eq < 0) {
        rowid_eq = i;
      } else if (constraint.usable && constraint.iColumn == kColumnCommand &&
                 constraint.op == SQLITE_INDEX_CONSTRAINT_EQ && command_eq < 0) {
        command_eq = i;
      } else if (constraint.usable && constraint.op == SQLITE_INDEX_CONSTRAINT_LIMIT) {
        limit = i;
      } else if (constraint.usable && constraint.op == SQLITE_INDEX_CONSTRAINT_OFFSET) {
        offset = i;
      }
    }
    // A search whose radius or count comes from a value SQLite cannot give
    // yet (a column of a table later in the join) would run at radius k and
    // miss rows: refuse it, so that SQLite picks a join order that supplies it.
    if (match >= 0 && bound_unusable) {
      return SQLITE_CONSTRAINT;
    }
    std::string codes;
    std::string description;
    if (match >= 0) {
      int argument = 0;
      info->aConstraintUsage[match].argvIndex = ++argument;
      info->aConstraintUsage[match].omit = 1;
      codes += kArgQuery;
      // A constant radius is known now, so the plan text can say whether it scans.
      std::optional<int> known_radius;
      bool all_known = true;
      bool distance_equal = false;
      for (auto [index, code] : radius_constraints) {
        info->aConstraintUsage[index].argvIndex = ++argument;
        // `=` stays for SQLite to check: the search returns every row within
        // the radius, and an IN list runs one search per value.
        info->aConstraintUsage[index].omit = code == kArgEqual ? 0 : 1;
        distance_equal = distance_equal || code == kArgEqual;
        codes += code;
        sqlite3_value* value = nullptr;
        std::optional<int> radius;
        if (sqlite3_vtab_rhs_value(info, index, &value) == SQLITE_OK && value != nullptr) {
          try {
            radius = radius_from(code, value, table->name);
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
      const std::string tables = std::to_string(plan.table_count()) + " tables";
      const std::string k = std::to_string(plan.k());
      if (radius_constraints.empty() || (all_known && known_radius && *known_radius <= plan.k())) {
        description = "index (" + tables + ", k=" + k + ")";
      } else if (all_known && known_radius) {
        description = above_k_description(storage, *known_radius);
      } else {
        description = "index (" + tables + ", k=" + k + "; above k a multi-probe or a scan)";
      }
      // One search per IN value would return each value's rows sorted, but
      // not the whole answer: leave ORDER BY to SQLite then.
      bool sorted = false;
      if (!distance_equal && info->nOrderBy >= 1 && info->aOrderBy[0].iColumn == kColumnDistance &&
          !info->aOrderBy[0].desc) {
        sorted = info->nOrderBy == 1 || (info->nOrderBy == 2 && info->aOrderBy[1].iColumn == -1 &&
                                         !info->aOrderBy[1].desc);
      }
      if (sorted) {
        info->orderByConsumed = 1;
        description += ", sorted by distance";
      }
      if (nearest_eq >= 0) {
        info->aConstraintUsage[nearest_eq].argvIndex = ++argument;
        info->aConstraintUsage[nearest_eq].omit = 1;
        codes += kArgNearest;
        description =
            (radius_constraints.empty() ? "nearest (index, k=" + k +
                                              ", the radius grown while a multi-probe "
                                              "beats a scan; then a scan)"
                                        : "nearest within the bound (" + description + ")") +
            (sorted ? ", sorted by distance" : "");
      }
      // LIMIT and OFFSET stay for SQLite to apply: the plan only needs to
      // produce the first LIMIT + OFFSET rows in order.
      if (sorted && radius_constraints.empty() && nearest_eq < 0 && limit >= 0) {
        info->aConstraintUsage[limit].argvIndex = ++argument;
        codes += kArgLimit;
        if (offset >= 0) {
          info->aConstraintUsage[offset].argvIndex = ++argument;
          codes += kArgOffset;
        }
        description = "nearest (index, k=" + k +
                      ", the radius grown while a multi-probe beats a "
                      "scan; then a scan), sorted by distance";
      }
      info->idxNum = kPlanMatch | (sorted ? kSortedByDistance : 0);
      info->estimatedCost = 20.0 * plan.table_count();
      info->estimatedRows = 10;
    } else if (command_eq >= 0) {
      info->aConstraintUsage[command_eq].argvIndex = 1;
      info->aConstraintUsage[command_eq].omit = 1;
      codes.push_back(kArgCommand);
      description = "command";
      info->idxNum = kPlanCommand;
      info->estimatedCost = 1;
      info->estimatedRows = 1;
    } else if (rowid_eq >= 0) {
      info->aConstraintUsage[rowid_eq].argvIndex = 1;
      info->aConstraintUsage[rowid_eq].omit = 1;
      codes.push_back(kArgRowid);
      description = "rowid lookup";
      info->idxNum = kPlanRowid;
      info->estimatedCost = 10;
      info->estimatedRows = 1;
      info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
    } else {
      codes.push_back(kNoArguments);
      description = "full scan";
      info->idxNum = kPlanScan;
      // Without its MATCH operand the plan cannot run: make it a last resort.
      info->estimatedCost = match_unusable ? 1e15 : 1e6;
      info->estimatedRows = 1000000;
    }
    info->idxStr = sqlite3_mprintf("%s %s", codes.c_str(), description.c_str());
    if (info->idxStr == nullptr) {
      return SQLITE_NOMEM;
    }
    info->needToFreeIdxStr = 1;
    return SQLITE_OK;
  });
}

int x_open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** cursor) {
  return guard(vtab, [&] { return hand_over(std::make_unique<IndexCursor>(), cursor); });
}

int x_close(sqlite3_vtab_cursor* cursor) {
  take_back<IndexCursor>(cursor);
  return SQLITE_OK;
}

void step_scan(IndexCursor* cursor, sqlite3* db) {
  const int rc = sqlite3_step(cursor->scan.get());
  cursor->scan_valid = rc == SQLITE_ROW;
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    throw SqliteError(rc, sqlite3_errmsg(db));
  }
}

// A command as SQL shows it (42 reads as "42"), for matching and messages.
std::string text_argument(sqlite3_value* command) {
  const unsigned char* text = sqlite3_value_text(command);
  return text != nullptr ? reinterpret_cast<const char*>(text) : std::string();
}

void check_integrity(IndexStorage& storage) {
  if (const std::string problem = storage.integrity_problem(); !problem.empty()) {
    throw SqliteError(SQLITE_CORRUPT_VTAB, problem);
  }
}

// The `wanted` rows nearest to the query at any distance, ties by rowid.
// Searching within a radius r finds every row within r; once those are at
// least `wanted`, the first `wanted` of them are the answer (any nearer row
// is within r too). So the radius grows from k (Multi-Index Hashing's kNN)
// while a search is cheaper than a scan; past that, one pass over the data
// keeps the nearest.
void find_nearest(IndexStorage& storage, std::uint64_t query, std::uint64_t wanted,
                  IndexCursor& cursor) {
  const std::size_t count = wanted > SIZE_MAX ? SIZE_MAX : static_cast<std::size_t>(wanted);
  for (int radius = storage.plan().k();
       radius == storage.plan().k() || storage.multi_probe_pays(radius); ++radius) {
    cursor.hits.clear();
    storage.search(query, radius, cursor.hits);
    cursor.radius = radius;
    if (cursor.hits.size() >= count) {
      std::sort(cursor.hits.begin(), cursor.hits.end(), nearer);
      cursor.hits.resize(count);
      return;
    }
  }
  cursor.radius = kMaxRadius;
  storage.scan_nearest(query, count, cursor.hits);
}

// The count of `nearest = value`: an INTEGER >= 0.
std::int64_t nearest_count(sqlite3_value* value, const std::string& name) {
  if (sqlite3_value_type(value) != SQLITE_INTEGER || sqlite3_value_int64(value) < 0) {
    throw SqliteError(SQLITE_MISMATCH,
                      "simhash_index " + name +
                          ": nearest must be a count of rows, an INTEGER of 0 or more, got " +
                          (sqlite3_value_type(value) == SQLITE_INTEGER
                               ? std::to_string(sqlite3_value_int64(value))
                               : described(value)));
  }
  return sqlite3_value_int64(value);
}

int x_filter(sqlite3_vtab_cursor* base, int idx_num, const char* idx_str, int argc,
             sqlite3_value** argv) {
  IndexCursor* cursor = cursor_of(base);
  IndexTable* table = table_of(base->pVtab);
  return guard(base->pVtab, [&] {
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
    if (nearest && !radius) {
      find_nearest(storage, query_bits, static_cast<std::uint64_t>(*nearest), *cursor);
      return SQLITE_OK;
    }
    if (nearest) {  // the n nearest within the bound
      storage.search(query_bits, cursor->radius, cursor->hits);
      std::sort(cursor->hits.begin(), cursor->hits.end(), nearer);
      // Compared as 64 bits: a count past SIZE_MAX (a 32-bit size_t) keeps all.
      if (static_cast<std::uint64_t>(*nearest) < cursor->hits.size()) {
        cursor->hits.resize(static_cast<std::size_t>(*nearest));
      }
      return SQLITE_OK;
    }
    storage.search(query_bits, cursor->radius, cursor->hits);
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
  return guard(base->pVtab, [&] {
    if (cursor->scan_mode) {
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

int run_command(IndexTable* table, sqlite3_value* command) {
  IndexStorage& storage = table->usable_storage();
  const std::string text = text_argument(command);
  if (text == "integrity-check") {
    check_integrity(storage);
    return SQLITE_OK;
  }
  if (text == "rebuild") {
    storage.rebuild();
    return SQLITE_OK;
  }
  throw SqliteError(SQLITE_ERROR, "simhash_index " + storage.name() + ": unknown command '" + text +
                                      "' (known: 'integrity-check', 'rebuild')");
}

// The fp written: an INTEGER, or NULL (a text without words has no
// fingerprint: stored, never found). Anything else is an error.
StoredFingerprint fingerprint_argument(sqlite3_value* value, const std::string& name) {
  const int type = sqlite3_value_type(value);
  if (type == SQLITE_NULL) {
    return std::nullopt;
  }
  if (type != SQLITE_INTEGER) {
    throw SqliteError(SQLITE_MISMATCH, "simhash_index " + name +
                                           ": fp must be an INTEGER fingerprint or NULL, got " +
                                           described(value));
  }
  return sqlite3_value_int64(value);
}

std::int64_t rowid_argument(sqlite3_value* value, const std::string& name) {
  if (sqlite3_value_type(value) != SQLITE_INTEGER) {
    throw SqliteError(SQLITE_MISMATCH, "simhash_index " + name +
                                           ": rowid must be an INTEGER, got " + type_name(value));
  }
  return sqlite3_value_int64(value);
}

[[noreturn]] void throw_computed_column_written(int column, const std::string& name) {
  if (column == kColumnCommand) {
    throw SqliteError(SQLITE_ERROR, "simhash_index " + name + ": column " + name +
                                        " takes commands in INSERT only");
  }
  const char* const names[] = {"fp", "distance", "query", "radius", "nearest"};
  throw SqliteError(SQLITE_ERROR, "simhash_index " + name + ": column " + names[column] +
                                      " is computed by queries and cannot be written");
}

int x_update(sqlite3_vtab* vtab, int argc, sqlite3_value** argv, sqlite3_int64* rowid) {
  IndexTable* table = table_of(vtab);
  const int conflict = sqlite3_vtab_on_conflict(table->db);
  const sqlite3_int64 last_rowid = sqlite3_last_insert_rowid(table->db);
  const int rc = guard(vtab, [&] {
    IndexStorage& storage = table->usable_storage();
    if (argc == 1) {
      storage.remove(sqlite3_value_int64(argv[0]));
      return SQLITE_OK;
    }
    sqlite3_value** columns = argv + 2;
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
      if (sqlite3_value_type(columns[kColumnCommand]) != SQLITE_NULL) {
        *rowid = last_rowid;  // SQLite sets last_insert_rowid() to it
        return run_command(table, columns[kColumnCommand]);
      }
      for (int column : {kColumnDistance, kColumnQuery, kColumnRadius, kColumnNearest}) {
        if (sqlite3_value_type(columns[column]) != SQLITE_NULL) {
          throw_computed_column_written(column, storage.name());
        }
      }
      const StoredFingerprint fp = fingerprint_argument(columns[kColumnFp], storage.name());
      std::optional<std::int64_t> id;
      if (sqlite3_value_type(argv[1]) != SQLITE_NULL) {
        id = rowid_argument(argv[1], storage.name());
      }
      *rowid = storage.insert(id, fp, conflict);
      return SQLITE_OK;
    }
    // UPDATE: every column it does not set arrives unchanged (see x_column).
    for (int column :
         {kColumnDistance, kColumnQuery, kColumnRadius, kColumnNearest, kColumnCommand}) {
      if (!sqlite3_value_nochange(columns[column])) {
        throw_computed_column_written(column, storage.name());
      }
    }
    const StoredFingerprint fp = fingerprint_argument(columns[kColumnFp], storage.name());
    const std::int64_t new_id = rowid_argument(argv[1], storage.name());
    storage.update(sqlite3_value_int64(argv[0]), new_id, fp, conflict);
    return SQLITE_OK;
  });
  if (argc == 1 || sqlite3_value_type(argv[0]) != SQLITE_NULL) {
    sqlite3_set_last_insert_rowid(table->db, last_rowid);
  }
  if ((rc & 0xff) == SQLITE_CONSTRAINT && conflict == SQLITE_IGNORE) {
    sqlite3_free(vtab->zErrMsg);
    vtab->zErrMsg = nullptr;
  }
  return rc;
}

int x_begin(sqlite3_vtab*) { return SQLITE_OK; }

int x_sync(sqlite3_vtab* vtab) {
  return guard(vtab, [&] {
    table_of(vtab)->usable_storage().flush();
    return SQLITE_OK;
  });
}

int x_commit(sqlite3_vtab* vtab) {
  if (IndexTable* table = table_of(vtab); table->storage) {
    table->storage->discard_pending();
  }
  return SQLITE_OK;
}

int x_rollback(sqlite3_vtab* vtab) {
  if (IndexTable* table = table_of(vtab); table->storage) {
    table->storage->discard_pending();
  }
  return SQLITE_OK;
}

int x_rename(sqlite3_vtab* vtab, const char* new_name) {
  return guard(vtab, [&] {
    // Renamed after a column, the table could then not even be dropped
    // (is_column_name); a rowid alias would hide the rowid behind the
    // command column.
    const std::string lowered = lower(new_name);
    if (is_column_name(new_name) || lowered == "rowid" || lowered == "oid" ||
        lowered == "_rowid_") {
      throw SqliteError(SQLITE_ERROR, "simhash_index " + table_of(vtab)->name +
                                          ": cannot rename to '" + new_name +
                                          "': the name of one of its columns");
    }
    table_of(vtab)->usable_storage().rename(new_name);
    table_of(vtab)->name = new_name;
    table_of(vtab)->registration->rename(new_name);
    return SQLITE_OK;
  });
}

int x_savepoint(sqlite3_vtab* vtab, int) {
  return guard(vtab, [&] {
    table_of(vtab)->usable_storage().flush();
    return SQLITE_OK;
  });
}

int x_release(sqlite3_vtab*, int) { return SQLITE_OK; }

int x_rollback_to(sqlite3_vtab* vtab, int) {
  if (IndexTable* table = table_of(vtab); table->storage) {
    table->storage->discard_pending();
  }
  return SQLITE_OK;
}

int x_shadow_name(const char* suffix) { return is_shadow_suffix(suffix) ? 1 : 0; }

#if SQLITE_VERSION_NUMBER >= 3044000
int x_integrity(sqlite3_vtab* vtab, const char*, const char*, int, char** error) {
  return guard(vtab, [&] {
    const std::string problem = table_of(vtab)->usable_storage().integrity_problem();
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
  module.xDisconnect = x_disconnect;
  module.xDestroy = x_destroy;
  module.xOpen = x_open;
  module.xClose = x_close;
  module.xFilter = x_filter;
  module.xNext = x_next;
  module.xEof = x_eof;
  module.xColumn = x_column;
  module.xRowid = x_rowid;
  module.xUpdate = x_update;
  module.xBegin = x_begin;
  module.xSync = x_sync;
  module.xCommit = x_commit;
  module.xRollback = x_rollback;
  module.xRename = x_rename;
  module.xSavepoint = x_savepoint;
  module.xRelease = x_release;
  module.xRollbackTo = x_rollback_to;
  module.xShadowName = x_shadow_name;
  return module;
}

const sqlite3_module index_module = make_module();

}  // namespace

int register_index_module(sqlite3* db, char** error) {
  return register_module(db, "simhash_index", &index_module, error);
}

}  // namespace simhash::sql
