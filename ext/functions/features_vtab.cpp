// SPDX-License-Identifier: MIT
// The table-valued functions that list features, two eponymous-only modules
// over one machinery (a kind says the columns and the text arguments):
//
// simhash_features(text [, options]) lists the features simhash() would use
// for the text, in the order it adds them, so that
//   simhash(t, o) = (SELECT simhash_agg(feature, weight) FROM simhash_features(t, o))
// holds exactly. Columns: feature TEXT, weight REAL (always REAL, so the
// column has one type and the value is the engine's double bit for bit),
// hash INTEGER (the signed form of the feature's XXH3-64), and the hidden
// argument columns text and options.
//
// simhash_shared_features(a, b [, options]) lists the features the two
// texts share, in A's order: feature TEXT, weight_a REAL, weight_b REAL,
// hash INTEGER, and the hidden columns a, b and options. Why a pair matched:
// sum(min(weight_a, weight_b)) is the numerator of simhash_jaccard and
// simhash_containment.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"
#include "ext/common/virtual_table.h"
#include "ext/functions/extractor_cache.h"
#include "ext/registration.h"
#include "fingerprint/shared_features.h"

namespace simhash::sql {

namespace {

// What tells the two functions apart: the columns are `value_columns`
// values, then `text_arguments` hidden texts, then the hidden options.
struct ListKind {
  const char* name;
  const char* schema;
  int value_columns;
  int text_arguments;  // 1: list one text's features; 2: the shared ones
  const char* missing_texts;
};

constexpr ListKind kFeatures{
    "simhash_features",
    "CREATE TABLE x(feature TEXT, weight REAL, hash INTEGER, text HIDDEN, options HIDDEN)", 3, 1,
    "simhash_features: missing text argument: use simhash_features(text) or "
    "simhash_features(text, options)"};
constexpr ListKind kSharedFeatures{
    "simhash_shared_features",
    "CREATE TABLE x(feature TEXT, weight_a REAL, weight_b REAL, hash INTEGER, a HIDDEN, b HIDDEN, "
    "options HIDDEN)",
    4, 2,
    "simhash_shared_features: missing text argument: use simhash_shared_features(a, b) or "
    "simhash_shared_features(a, b, options)"};

constexpr int kHasOptions = 1;  // idxNum bit: the options argument is passed

struct ValueFree {
  void operator()(sqlite3_value* value) const { sqlite3_value_free(value); }
};
using OwnedValue = std::unique_ptr<sqlite3_value, ValueFree>;

OwnedValue copy_of(sqlite3_value* value) {
  OwnedValue copy(sqlite3_value_dup(value));
  if (!copy) {
    throw std::bad_alloc();
  }
  return copy;
}

// One per connection (the table is eponymous). Keeps the extractor for the
// defaults and the last one built from an option string, so a join that
// calls the function once per outer row parses its options once.
struct FeaturesTable : sqlite3_vtab {
  const ListKind* kind = nullptr;
  std::unique_ptr<CachedExtractor> defaults;
  std::unique_ptr<CachedExtractor> last_options;

  FeatureExtractor& extractor_for(std::string_view options_text) {
    if (options_text.empty()) {
      if (!defaults) {
        defaults = make_extractor("", kind->name);
      }
      return defaults->extractor;
    }
    if (!last_options || last_options->options_text != options_text) {
      last_options.reset();
      last_options = make_extractor(options_text, kind->name);
    }
    return last_options->extractor;
  }
};

// One listed row: a feature of the text, or one the two texts share.
struct ListedFeature {
  std::string text;
  double weight_a = 0;  // simhash_features: the weight
  double weight_b = 0;
  std::uint64_t hash = 0;
};

struct FeaturesCursor : sqlite3_vtab_cursor {
  std::vector<ListedFeature> features;
  std::size_t position = 0;
  std::vector<OwnedValue> texts;  // the arguments, returned by the hidden columns
  OwnedValue options;             // null pointer when not passed
};

FeaturesTable& table_of(sqlite3_vtab_cursor* cursor) {
  return *sql::table_of<FeaturesTable>(cursor->pVtab);
}

int features_connect(sqlite3* db, void* aux, int /*argc*/, const char* const* /*argv*/,
                     sqlite3_vtab** out, char** error) {
  return guard(error, [&] {
    const auto* kind = static_cast<const ListKind*>(aux);
    const int rc = sqlite3_declare_vtab(db, kind->schema);
    if (rc != SQLITE_OK) {
      throw SqliteError(rc, sqlite3_errmsg(db));
    }
    sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
    auto table = std::make_unique<FeaturesTable>();
    table->kind = kind;
    return hand_over(std::move(table), out);
  });
}

int features_disconnect(sqlite3_vtab* vtab) {
  free_error(vtab);
  take_back<FeaturesTable>(vtab);
  return SQLITE_OK;
}

// The text arguments are required: without them there is nothing to list.
// When one is present but not yet usable (a join ordering that has not bound
// it), SQLITE_CONSTRAINT makes the planner try another order.
int choose_plan(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  const ListKind& kind = *sql::table_of<FeaturesTable>(vtab)->kind;
  const int first_argument = kind.value_columns;
  const int options_column = first_argument + kind.text_arguments;
  // The usable constraint of each argument (texts, then options), or -1.
  std::vector<int> constraint_of(static_cast<std::size_t>(kind.text_arguments + 1), -1);
  std::vector<bool> unusable(constraint_of.size(), false);
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& constraint = info->aConstraint[i];
    if (constraint.op != SQLITE_INDEX_CONSTRAINT_EQ || constraint.iColumn < first_argument ||
        constraint.iColumn > options_column) {
      continue;
    }
    const auto argument = static_cast<std::size_t>(constraint.iColumn - first_argument);
    if (!constraint.usable) {
      unusable[argument] = true;
    } else if (constraint_of[argument] < 0) {
      constraint_of[argument] = i;
    }
  }
  for (int text = 0; text < kind.text_arguments; ++text) {
    if (constraint_of[static_cast<std::size_t>(text)] < 0) {
      if (unusable[static_cast<std::size_t>(text)]) {
        return SQLITE_CONSTRAINT;
      }
      set_error(vtab, kind.missing_texts);
      return SQLITE_ERROR;
    }
  }
  const int options_constraint = constraint_of.back();
  if (options_constraint < 0 && unusable.back()) {
    return SQLITE_CONSTRAINT;
  }
  for (int text = 0; text < kind.text_arguments; ++text) {
    auto& usage = info->aConstraintUsage[constraint_of[static_cast<std::size_t>(text)]];
    usage.argvIndex = text + 1;
    usage.omit = 1;
  }
  info->idxNum = 0;
  if (options_constraint >= 0) {
    info->aConstraintUsage[options_constraint].argvIndex = kind.text_arguments + 1;
    info->aConstraintUsage[options_constraint].omit = 1;
    info->idxNum |= kHasOptions;
  }
  info->estimatedCost = 100;
  info->estimatedRows = 100;
  return SQLITE_OK;
}

int features_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  return guard(vtab, [&] { return choose_plan(vtab, info); });
}

int features_open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out) {
  return guard(vtab, [&] { return hand_over(std::make_unique<FeaturesCursor>(), out); });
}

int features_close(sqlite3_vtab_cursor* cursor) {
  take_back<FeaturesCursor>(cursor);
  return SQLITE_OK;
}

// The rows of one text's features, or of the features two texts share.
std::vector<ListedFeature> listed_features(FeatureExtractor& extractor, int text_arguments,
                                           sqlite3_value** texts) {
  std::vector<ListedFeature> rows;
  const std::optional<std::string_view> a = text_of(texts[0]);
  if (text_arguments == 1) {
    if (a) {
      for (Feature& feature : extractor.features(*a)) {
        rows.push_back({std::move(feature.text), feature.weight, 0, feature.hash});
      }
    }
    return rows;
  }
  const std::optional<std::string_view> b = text_of(texts[1]);
  if (a && b) {
    const std::vector<Feature> features_a = extractor.features(*a);
    const std::vector<Feature> features_b = extractor.features(*b);
    for (SharedFeature& shared : shared_features(features_a, features_b)) {
      rows.push_back({std::move(shared.text), shared.weight_a, shared.weight_b, shared.hash});
    }
  }
  return rows;
}

int features_filter(sqlite3_vtab_cursor* base, int index_number, const char* /*index_string*/,
                    int argc, sqlite3_value** argv) {
  auto* cursor = cursor_of<FeaturesCursor>(base);
  return guard(cursor->pVtab, [&] {
    FeaturesTable& table = table_of(cursor);
    const int text_arguments = table.kind->text_arguments;
    cursor->features.clear();
    cursor->position = 0;
    cursor->texts.clear();
    cursor->options.reset();
    if (argc < text_arguments) {
      return SQLITE_ERROR;  // unreachable: best_index always asks for the texts
    }
    sqlite3_value* options =
        (index_number & kHasOptions) != 0 && argc > text_arguments ? argv[text_arguments] : nullptr;
    const std::string_view options_text =
        options != nullptr ? options_text_of(options, table.kind->name) : std::string_view();
    FeatureExtractor& extractor = table.extractor_for(options_text);
    for (int text = 0; text < text_arguments; ++text) {
      cursor->texts.push_back(copy_of(argv[text]));
    }
    if (options != nullptr) {
      cursor->options = copy_of(options);
    }
    cursor->features = listed_features(extractor, text_arguments, argv);
    return SQLITE_OK;
  });
}

int features_next(sqlite3_vtab_cursor* base) {
  ++cursor_of<FeaturesCursor>(base)->position;
  return SQLITE_OK;
}

int features_eof(sqlite3_vtab_cursor* base) {
  const auto* cursor = cursor_of<FeaturesCursor>(base);
  return cursor->position >= cursor->features.size() ? 1 : 0;
}

int features_column(sqlite3_vtab_cursor* base, sqlite3_context* context, int column) {
  const auto* cursor = cursor_of<FeaturesCursor>(base);
  const ListKind& kind = *static_cast<const FeaturesTable*>(cursor->pVtab)->kind;
  if (column >= kind.value_columns) {
    const auto argument = static_cast<std::size_t>(column - kind.value_columns);
    if (argument < cursor->texts.size()) {
      sqlite3_result_value(context, cursor->texts[argument].get());
    } else if (cursor->options) {
      sqlite3_result_value(context, cursor->options.get());
    } else {
      sqlite3_result_null(context);
    }
    return SQLITE_OK;
  }
  const ListedFeature& row = cursor->features[cursor->position];
  // The value columns: feature, the weight (or weight_a and weight_b), hash.
  if (column == 0) {
    sqlite3_result_text(context, row.text.data(), static_cast<int>(row.text.size()),
                        SQLITE_TRANSIENT);
  } else if (column == kind.value_columns - 1) {
    sqlite3_result_int64(context, static_cast<sqlite3_int64>(row.hash));
  } else {
    sqlite3_result_double(context, column == 1 ? row.weight_a : row.weight_b);
  }
  return SQLITE_OK;
}

int features_rowid(sqlite3_vtab_cursor* base, sqlite3_int64* rowid) {
  *rowid = static_cast<sqlite3_int64>(cursor_of<FeaturesCursor>(base)->position) + 1;
  return SQLITE_OK;
}

sqlite3_module make_features_module() {
  sqlite3_module module{};
  module.iVersion = 0;
  module.xCreate = nullptr;  // eponymous-only: no CREATE VIRTUAL TABLE
  module.xConnect = features_connect;
  module.xBestIndex = features_best_index;
  module.xDisconnect = features_disconnect;
  module.xDestroy = nullptr;
  module.xOpen = features_open;
  module.xClose = features_close;
  module.xFilter = features_filter;
  module.xNext = features_next;
  module.xEof = features_eof;
  module.xColumn = features_column;
  module.xRowid = features_rowid;
  return module;
}

const sqlite3_module features_module = make_features_module();

}  // namespace

int register_features_table(sqlite3* db, char** error) {
  const int rc = register_module(db, kFeatures.name, &features_module, error,
                                 const_cast<ListKind*>(&kFeatures));
  if (rc != SQLITE_OK) {
    return rc;
  }
  return register_module(db, kSharedFeatures.name, &features_module, error,
                         const_cast<ListKind*>(&kSharedFeatures));
}

}  // namespace simhash::sql
