// simhash_features(text [, options]): an eponymous-only table-valued function
// listing the features simhash() would use for the text, in the order it adds
// them, so that
//   simhash(t, o) = (SELECT simhash_agg(feature, weight) FROM simhash_features(t, o))
// holds exactly. Columns: feature TEXT, weight REAL (always REAL, so the
// column has one type and the value is the engine's double bit for bit),
// hash INTEGER (the signed form of the feature's XXH3-64), and the hidden
// argument columns text and options.
#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"
#include "ext/common/virtual_table.h"
#include "ext/functions/extractor_cache.h"
#include "ext/registration.h"

namespace simhash::sql {

namespace {

constexpr std::string_view kName = "simhash_features";

enum Column { kFeature, kWeight, kHash, kText, kOptions };
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
  std::unique_ptr<CachedExtractor> defaults;
  std::unique_ptr<CachedExtractor> last_options;

  FeatureExtractor& extractor_for(std::string_view options_text) {
    if (options_text.empty()) {
      if (!defaults) {
        defaults = make_extractor("", kName);
      }
      return defaults->extractor;
    }
    if (!last_options || last_options->options_text != options_text) {
      last_options.reset();
      last_options = make_extractor(options_text, kName);
    }
    return last_options->extractor;
  }
};

struct FeaturesCursor : sqlite3_vtab_cursor {
  std::vector<Feature> features;
  std::size_t position = 0;
  OwnedValue text;     // the arguments, returned by the hidden columns
  OwnedValue options;  // null pointer when not passed
};

FeaturesTable& table_of(sqlite3_vtab_cursor* cursor) {
  return *sql::table_of<FeaturesTable>(cursor->pVtab);
}

int features_connect(sqlite3* db, void* /*aux*/, int /*argc*/, const char* const* /*argv*/,
                     sqlite3_vtab** out, char** error) {
  return guard(error, [&] {
    const int rc = sqlite3_declare_vtab(
        db, "CREATE TABLE x(feature TEXT, weight REAL, hash INTEGER, text HIDDEN, options HIDDEN)");
    if (rc != SQLITE_OK) {
      throw SqliteError(rc, sqlite3_errmsg(db));
    }
    sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
    return hand_over(std::make_unique<FeaturesTable>(), out);
  });
}

int features_disconnect(sqlite3_vtab* vtab) {
  free_error(vtab);
  take_back<FeaturesTable>(vtab);
  return SQLITE_OK;
}

// The text argument is required: without it there is nothing to list. When
// it is present but not yet usable (a join ordering that has not bound it),
// SQLITE_CONSTRAINT makes the planner try another order.
int choose_plan(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  int text_constraint = -1;
  int options_constraint = -1;
  bool text_unusable = false;
  bool options_unusable = false;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& constraint = info->aConstraint[i];
    if (constraint.op != SQLITE_INDEX_CONSTRAINT_EQ) {
      continue;
    }
    if (constraint.iColumn == kText) {
      if (!constraint.usable) {
        text_unusable = true;
      } else if (text_constraint < 0) {
        text_constraint = i;
      }
    } else if (constraint.iColumn == kOptions) {
      if (!constraint.usable) {
        options_unusable = true;
      } else if (options_constraint < 0) {
        options_constraint = i;
      }
    }
  }
  if (text_constraint < 0) {
    if (text_unusable) {
      return SQLITE_CONSTRAINT;
    }
    set_error(vtab,
              "simhash_features: missing text argument: use simhash_features(text) or "
              "simhash_features(text, options)");
    return SQLITE_ERROR;
  }
  if (options_constraint < 0 && options_unusable) {
    return SQLITE_CONSTRAINT;
  }
  info->aConstraintUsage[text_constraint].argvIndex = 1;
  info->aConstraintUsage[text_constraint].omit = 1;
  info->idxNum = 0;
  if (options_constraint >= 0) {
    info->aConstraintUsage[options_constraint].argvIndex = 2;
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

int features_filter(sqlite3_vtab_cursor* base, int index_number, const char* /*index_string*/,
                    int argc, sqlite3_value** argv) {
  auto* cursor = cursor_of<FeaturesCursor>(base);
  return guard(cursor->pVtab, [&] {
    cursor->features.clear();
    cursor->position = 0;
    cursor->text.reset();
    cursor->options.reset();
    if (argc < 1) {
      return SQLITE_ERROR;  // unreachable: best_index always asks for the text
    }
    sqlite3_value* options = (index_number & kHasOptions) != 0 && argc > 1 ? argv[1] : nullptr;
    const std::string_view options_text =
        options != nullptr ? options_text_of(options, kName) : std::string_view();
    FeatureExtractor& extractor = table_of(cursor).extractor_for(options_text);
    cursor->text = copy_of(argv[0]);
    if (options != nullptr) {
      cursor->options = copy_of(options);
    }
    const std::optional<std::string_view> text = text_of(argv[0]);
    if (text) {
      cursor->features = extractor.features(*text);
    }
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
  switch (column) {
    case kFeature: {
      const std::string& text = cursor->features[cursor->position].text;
      sqlite3_result_text(context, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
      break;
    }
    case kWeight:
      sqlite3_result_double(context, cursor->features[cursor->position].weight);
      break;
    case kHash:
      sqlite3_result_int64(context,
                           static_cast<sqlite3_int64>(cursor->features[cursor->position].hash));
      break;
    case kText:
      sqlite3_result_value(context, cursor->text.get());
      break;
    default:
      if (cursor->options) {
        sqlite3_result_value(context, cursor->options.get());
      } else {
        sqlite3_result_null(context);
      }
      break;
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
  return register_module(db, "simhash_features", &features_module, error);
}

}  // namespace simhash::sql
