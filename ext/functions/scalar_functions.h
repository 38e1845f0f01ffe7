// SPDX-License-Identifier: MIT
// The callbacks behind the SQL functions that functions.cpp registers; each
// file named in a comment implements its group.
#pragma once

#include <memory>

#include "ext/common/sqlite_api.h"
#include "ext/functions/extractor_cache.h"
#include "fingerprint/feature_similarity.h"

namespace simhash::sql {

// simhash(text [, options]) (simhash_function.cpp). Its user data is a
// SimhashDefaults: the connection's extractor for the default options, built
// on first use and freed with the function.
struct SimhashDefaults {
  std::unique_ptr<CachedExtractor> extractor;
};
void simhash_function(sqlite3_context* context, int argc, sqlite3_value** argv);

// simhash_agg(feature [, weight]) (simhash_agg.cpp), an aggregate and
// window function.
void simhash_agg_step(sqlite3_context* context, int argc, sqlite3_value** argv);
void simhash_agg_inverse(sqlite3_context* context, int argc, sqlite3_value** argv);
void simhash_agg_value(sqlite3_context* context);
void simhash_agg_final(sqlite3_context* context);

// hamming(a, b) and simhash_hamming(a, b) (hamming_function.cpp). The user
// data is the function's name, used in its error messages.
void hamming_function(sqlite3_context* context, int argc, sqlite3_value** argv);

// simhash_cosine, simhash_jaccard and simhash_containment
// (similarity_functions.cpp): registers `name` with `argc` arguments
// computing `measure`; each registration owns its extractor for the default
// options and its remembered feature vectors. The result is NULL when a
// text has no features: either one when `needs_both`, else only the first.
int register_similarity_function(sqlite3* db, const char* name, int argc,
                                 double (*measure)(const FeatureVector&, const FeatureVector&),
                                 int flags, bool needs_both = true);

}  // namespace simhash::sql
