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
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"
#include "ext/common/table_function.h"
#include "ext/functions/extractor_cache.h"
#include "ext/registration.h"
#include "fingerprint/shared_features.h"

namespace simhash::sql {

namespace {

// What tells the two functions apart: the columns are `value_columns`
// values, then `text_arguments` hidden texts, then the hidden options.
struct ListKind {
  TableFunction function;
  int value_columns;
  int text_arguments;  // 1: list one text's features; 2: the shared ones
  const char* missing_texts;
};

const ListKind& kind_of(const TableFunctionTable& table);

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
struct ExtractorCache : TableFunctionState {
  std::unique_ptr<CachedExtractor> defaults;
  std::unique_ptr<CachedExtractor> last_options;

  FeatureExtractor& extractor_for(std::string_view options_text, const char* name) {
    if (options_text.empty()) {
      if (!defaults) {
        defaults = make_extractor("", name);
      }
      return defaults->extractor;
    }
    if (!last_options || last_options->options_text != options_text) {
      last_options.reset();
      last_options = make_extractor(options_text, name);
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

// The text arguments are required: without them there is nothing to list
// (one not yet usable has already asked the planner for another order).
int plan(TableFunctionTable& table, sqlite3_index_info* info, std::span<const int> constraint_of) {
  const ListKind& kind = kind_of(table);
  for (int text = 0; text < kind.text_arguments; ++text) {
    if (constraint_of[static_cast<std::size_t>(text)] < 0) {
      set_error(&table, kind.missing_texts);
      return SQLITE_ERROR;
    }
  }
  info->estimatedCost = 100;
  info->estimatedRows = 100;
  return SQLITE_OK;
}

// The rows of one text's features, or of the features two texts share.
std::vector<ListedFeature> listed_features(FeatureExtractor& extractor, int text_arguments,
                                           std::span<sqlite3_value* const> texts) {
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

class FeaturesCursor : public RowsCursor<ListedFeature> {
 public:
  void filter(std::span<sqlite3_value* const> arguments) override;
  void column(sqlite3_context* context, int column) const override;
  // From 1, as the features are numbered.
  sqlite3_int64 rowid() const override { return static_cast<sqlite3_int64>(position_) + 1; }

 private:
  std::vector<OwnedValue> texts_;  // the arguments, returned by the hidden columns
  OwnedValue options_;             // null pointer when not passed
};

void FeaturesCursor::filter(std::span<sqlite3_value* const> arguments) {
  const ListKind& kind = kind_of(table());
  clear_rows();
  texts_.clear();
  options_.reset();
  const auto text_arguments = static_cast<std::size_t>(kind.text_arguments);
  const std::span<sqlite3_value* const> texts = arguments.first(text_arguments);
  if (std::ranges::find(texts, nullptr) != texts.end()) {
    throw SqliteError(SQLITE_ERROR, kind.missing_texts);  // unreachable: plan asks for them
  }
  sqlite3_value* options = arguments[text_arguments];
  const std::string_view options_text =
      options != nullptr ? options_text_of(options, kind.function.name) : std::string_view();
  FeatureExtractor& extractor =
      static_cast<ExtractorCache&>(*table().state).extractor_for(options_text, kind.function.name);
  for (sqlite3_value* text : texts) {
    texts_.push_back(copy_of(text));
  }
  if (options != nullptr) {
    options_ = copy_of(options);
  }
  rows_ = listed_features(extractor, kind.text_arguments, texts);
}

void FeaturesCursor::column(sqlite3_context* context, int column) const {
  const ListKind& kind = kind_of(table());
  if (column >= kind.value_columns) {
    const auto argument = static_cast<std::size_t>(column - kind.value_columns);
    if (argument < texts_.size()) {
      sqlite3_result_value(context, texts_[argument].get());
    } else if (options_) {
      sqlite3_result_value(context, options_.get());
    } else {
      sqlite3_result_null(context);
    }
    return;
  }
  const ListedFeature& row = this->row();
  // The value columns: feature, the weight (or weight_a and weight_b), hash.
  if (column == 0) {
    sqlite3_result_text(context, row.text.data(), static_cast<int>(row.text.size()),
                        SQLITE_TRANSIENT);
  } else if (column == kind.value_columns - 1) {
    sqlite3_result_int64(context, static_cast<sqlite3_int64>(row.hash));
  } else {
    sqlite3_result_double(context, column == 1 ? row.weight_a : row.weight_b);
  }
}

std::unique_ptr<TableFunctionCursor> open_cursor() { return std::make_unique<FeaturesCursor>(); }
std::unique_ptr<TableFunctionState> new_cache() { return std::make_unique<ExtractorCache>(); }

// Pure functions of their arguments: INNOCUOUS, so views and triggers may
// call them.
const ListKind kFeatures{
    {"simhash_features",
     "CREATE TABLE x(feature TEXT, weight REAL, hash INTEGER, text HIDDEN, options HIDDEN)", 3, 2,
     SQLITE_VTAB_INNOCUOUS, plan, open_cursor, new_cache},
    3,
    1,
    "simhash_features: missing text argument: use simhash_features(text) or "
    "simhash_features(text, options)"};
const ListKind kSharedFeatures{
    {"simhash_shared_features",
     "CREATE TABLE x(feature TEXT, weight_a REAL, weight_b REAL, hash INTEGER, a HIDDEN, "
     "b HIDDEN, options HIDDEN)",
     4, 3, SQLITE_VTAB_INNOCUOUS, plan, open_cursor, new_cache},
    4,
    2,
    "simhash_shared_features: missing text argument: use simhash_shared_features(a, b) or "
    "simhash_shared_features(a, b, options)"};

const ListKind& kind_of(const TableFunctionTable& table) {
  return table.function == &kFeatures.function ? kFeatures : kSharedFeatures;
}

}  // namespace

int register_features_table(sqlite3* db, char** error) {
  const int rc = register_table_function(db, kFeatures.function, error);
  if (rc != SQLITE_OK) {
    return rc;
  }
  return register_table_function(db, kSharedFeatures.function, error);
}

}  // namespace simhash::sql
