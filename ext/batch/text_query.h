// SPDX-License-Identifier: MIT
// The argument the text batch functions (simhash_dedup,
// simhash_verified_pairs and _between) share: SQL text returning (id, text)
// rows, which they run and read, a batch of texts at a time, into what the
// engine compares (batch/row_features.h: the fingerprint and the
// verification features, built on several threads). Also their other shared
// arguments: the similarity threshold and the thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "batch/row_features.h"
#include "ext/common/sqlite_api.h"
#include "ext/common/sqlite_support.h"
#include "fingerprint/simhash_options.h"
#include "util/progress.h"

namespace simhash::sql {

// Prepares a query argument: one statement that only reads, returns two
// columns and has no parameters (nothing binds them: a `?` or `:name` would
// read as NULL and the call would find nothing). Anything else throws
// SqliteError with a message that starts with `who` and names `argument`
// ("the query", "the new rows' query"); an empty one appends `usage`.
Statement prepare_text_query(sqlite3* db, const std::string& query, std::string_view who,
                             std::string_view argument, std::string_view usage);

// Runs the statement and calls on_row(id, row) for every row whose text has
// features under the verification options, in the query's order. A text
// with such features but no fingerprint (none under simhash()'s defaults,
// which read words: emoji, symbols, to character options) comes with
// row.fingerprint empty: a join with no radius still compares it, a search
// within a radius leaves it out (the index holds a NULL fingerprint for it).
// Rows with a NULL text or no features are left out, but their ids count: an
// id that comes twice, whatever its texts, throws SqliteError ("<who>:
// <argument> returns id 7 more than once"), as do a non-INTEGER id, a
// failing query and an interrupt. on_row and on_blocks are called one at
// a time, in order, but not always on the caller's thread (with more than
// one thread, a builder's thread hands a batch over while the caller reads
// the next): they must touch nothing the reading does.
// `progress` (when given: simhash_progress(1)) hears "reading and
// tokenizing" after each batch: the rows read, of a total counted first only
// where counting costs little beside the reading (count_query_rows_if_cheap
// in text_query.cpp: a table's rows, not an ORDER BY over the text's row, a
// function or a virtual table); else of no total, rather than run the query
// twice. The rule is this one for every text batch function.
// With `on_blocks`, a thread other than the caller's whose texts of a batch
// run out while the caller still reads also lays the features it built out
// in a block of its own (RowFeatureBuilder::build, LayOut's rule), handed
// to on_blocks before the batch's rows, whose view() points into them
// (row.laid_out_block()): what FeatureRows::adopt takes. Where the caller
// is not the bound (one thread, or few cores for the tokenizing) nothing
// is laid out: copying only the rows kept costs less than laying all out,
// and on_blocks is then not called.
void read_text_rows(sqlite3* db, sqlite3_stmt* statement, RowFeatureBuilder& builder,
                    std::string_view who, std::string_view argument,
                    const std::function<void(std::int64_t id, const RowFeatures& row)>& on_row,
                    const ProgressHook& progress = {},
                    const std::function<void(std::vector<FeatureBlock> blocks)>& on_blocks = {});

// The defaults the text batch functions share: the README recipe's
// verification, the default check (kDefaultCheckOptions) at 0.8 or more.
inline constexpr double kDefaultThreshold = 0.8;
inline constexpr const char* kDefaultVerification = kDefaultCheckOptions;

// The thread count argument: NULL or left out (nullptr) for every core the
// machine has, else an integer from 1 to kMaxThreads.
inline constexpr int kMaxThreads = 64;
unsigned read_thread_count(sqlite3_value* value, std::string_view who);

}  // namespace simhash::sql
