// simhash_cosine(a, b [, options]) and simhash_jaccard(a, b [, options]): the
// exact similarity of two texts over the features simhash() votes with.
//
// Verification walks candidate pairs grouped by their first row, so the same
// text arrives in the same argument over and over. Each registration keeps,
// per argument, the last text with its options and its feature vector, and
// reuses the vector when both match byte for byte (comparing costs far less
// than tokenizing again, and can never serve a stale vector).
#include <string>
#include <string_view>

#include "feature_similarity.h"
#include "scalar_functions.h"
#include "sql_values.h"
#include "sqlite_support.h"

namespace simhash::sql {

namespace {

constexpr int kOptionsArgument = 2;

// The feature vector of the last text seen in one argument position.
struct RememberedText {
  bool valid = false;
  std::string options_text;
  std::string text;
  FeatureVector vector;
};

}  // namespace

struct SimilarityFunction {
  const char* name;
  double (*measure)(const FeatureVector&, const FeatureVector&);
  std::unique_ptr<CachedExtractor> defaults;
  RememberedText remembered[2];
};

namespace {

// The vector of `text` under `extractor`, from `slot` when it holds them.
const FeatureVector& vector_of(std::string_view text, CachedExtractor& extractor,
                               RememberedText& slot) {
  if (slot.valid && slot.text == text && slot.options_text == extractor.options_text) {
    return slot.vector;
  }
  // Invalid until the vector is complete, in case extraction throws.
  slot.valid = false;
  extractor.extractor.feature_vector(text, slot.vector);
  slot.text.assign(text);
  slot.options_text = extractor.options_text;
  slot.valid = true;
  return slot.vector;
}

void similarity_function(sqlite3_context* context, int argc, sqlite3_value** argv) {
  guard(context, [&] {
    auto* function = static_cast<SimilarityFunction*>(sqlite3_user_data(context));
    const ExtractorForCall extractor(context, argc, argv, kOptionsArgument, function->defaults,
                                     function->name);
    const std::optional<std::string_view> text_a = text_of(argv[0]);
    const std::optional<std::string_view> text_b = text_of(argv[1]);
    if (!text_a || !text_b) {
      sqlite3_result_null(context);
      return;
    }
    const FeatureVector& a = vector_of(*text_a, extractor.get(), function->remembered[0]);
    const FeatureVector& b = vector_of(*text_b, extractor.get(), function->remembered[1]);
    if (a.empty() || b.empty()) {
      sqlite3_result_null(context);
      return;
    }
    sqlite3_result_double(context, function->measure(a, b));
  });
}

void destroy_similarity_function(void* function) {
  std::unique_ptr<SimilarityFunction> owned(static_cast<SimilarityFunction*>(function));
}

}  // namespace

int register_similarity_function(sqlite3* db, const char* name, int argc,
                                 double (*measure)(const FeatureVector&, const FeatureVector&),
                                 int flags) {
  auto function = std::make_unique<SimilarityFunction>();
  function->name = name;
  function->measure = measure;
  // On failure SQLite calls the destructor itself, so ownership passes now.
  return sqlite3_create_function_v2(db, name, argc, flags, function.release(),
                                    similarity_function, nullptr, nullptr,
                                    destroy_similarity_function);
}

}  // namespace simhash::sql
