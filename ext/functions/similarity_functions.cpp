// SPDX-License-Identifier: MIT
// simhash_cosine(a, b [, options]), simhash_jaccard(a, b [, options]) and
// simhash_containment(a, b [, options]): the exact similarity of two texts
// over the features simhash() votes with.
//
// Verification walks candidate pairs in which each text appears many times,
// so each registration keeps the feature vectors of the texts it saw last
// (FeatureVectorCache, up to kCacheBytes): a text is tokenized once while it
// stays in the cache, not once per pair.
#include <cstddef>
#include <memory>
#include <string_view>

#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"
#include "ext/functions/scalar_functions.h"
#include "fingerprint/feature_vector_cache.h"

namespace simhash::sql {

namespace {

constexpr int kOptionsArgument = 2;
constexpr std::size_t kCacheBytes = std::size_t{64} << 20U;

}  // namespace

struct SimilarityFunction {
  const char* name = nullptr;
  double (*measure)(const FeatureVector&, const FeatureVector&) = nullptr;
  bool needs_both = true;  // NULL when either text has no features, else only when A has none
  std::unique_ptr<CachedExtractor> defaults;
  FeatureVectorCache vectors{kCacheBytes};
};

namespace {

void similarity_function(sqlite3_context* context, int argc, sqlite3_value** argv) {
  guard(
      context,
      [&] {
        auto* function = static_cast<SimilarityFunction*>(sqlite3_user_data(context));
        const ExtractorForCall extractor(context, argc, argv, kOptionsArgument, function->defaults,
                                         function->name);
        const std::optional<std::string_view> text_a = text_of(argv[0]);
        const std::optional<std::string_view> text_b = text_of(argv[1]);
        if (!text_a || !text_b) {
          sqlite3_result_null(context);
          return;
        }
        CachedExtractor& chosen = extractor.get();
        const auto a = function->vectors.vector_of(chosen.extractor, chosen.options_text, *text_a);
        const auto b = function->vectors.vector_of(chosen.extractor, chosen.options_text, *text_b);
        if (a->empty() || (b->empty() && function->needs_both)) {
          sqlite3_result_null(context);
          return;
        }
        sqlite3_result_double(context, function->measure(*a, *b));
      },
      static_cast<SimilarityFunction*>(sqlite3_user_data(context))->name);
}

void destroy_similarity_function(void* function) {
  std::unique_ptr<SimilarityFunction> owned(static_cast<SimilarityFunction*>(function));
}

}  // namespace

int register_similarity_function(sqlite3* db, const char* name, int argc,
                                 double (*measure)(const FeatureVector&, const FeatureVector&),
                                 int flags, bool needs_both) {
  auto function = std::make_unique<SimilarityFunction>();
  function->name = name;
  function->measure = measure;
  function->needs_both = needs_both;
  // On failure SQLite calls the destructor itself, so ownership passes now.
  return sqlite3_create_function_v2(db, name, argc, flags, function.release(), similarity_function,
                                    nullptr, nullptr, destroy_similarity_function);
}

}  // namespace simhash::sql
