// SPDX-License-Identifier: MIT
// What simhash_clusters reads of a table (or view) of pairs the user made,
// typically candidates that passed a simhash_jaccard or simhash_cosine
// threshold: columns a and b (INTEGER ids), and optionally similarity (larger
// is nearer) and distance (smaller is nearer), found by name in any case.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "batch/leader_groups.h"
#include "ext/batch/batch_index_reader.h"
#include "ext/common/sqlite_api.h"

namespace simhash::sql {

struct PairTable {
  // Every row as a link; its rank is -similarity, else distance, else 0.
  MemoryCharge charge;  // the pairs and their grouping, against the heap limit
  std::vector<RankedPair> pairs;
  // Per row, when the table has the column (NULL is nullopt).
  std::vector<std::optional<double>> similarity;
  std::vector<std::optional<std::int64_t>> distance;
};

// Reads every row through the caller's connection. Throws BatchError naming
// the table when it lacks a or b, when an id is not an INTEGER, or when the
// column that ranks the pairs holds NULL or a non-number.
PairTable read_pair_table(sqlite3* db, const SchemaObject& table, std::string_view function);

}  // namespace simhash::sql
