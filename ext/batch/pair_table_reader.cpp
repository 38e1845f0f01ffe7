// SPDX-License-Identifier: MIT
// Reads a user's table of pairs with one SELECT *, finding the columns by
// name, so a view that computes its similarity works as well as a table.
#include "ext/batch/pair_table_reader.h"

#include <cmath>
#include <string>

#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"

namespace simhash::sql {
namespace {

constexpr int kAbsent = -1;

struct PairColumns {
  int a = kAbsent;
  int b = kAbsent;
  int similarity = kAbsent;
  int distance = kAbsent;
};

PairColumns find_columns(sqlite3_stmt* statement) {
  PairColumns columns;
  for (int column = 0; column < sqlite3_column_count(statement); ++column) {
    const char* name = sqlite3_column_name(statement, column);
    if (name == nullptr) {
      throw std::bad_alloc();
    }
    for (auto [wanted, slot] :
         {std::pair{"a", &columns.a}, std::pair{"b", &columns.b},
          std::pair{"similarity", &columns.similarity}, std::pair{"distance", &columns.distance}}) {
      if (*slot == kAbsent && sqlite3_stricmp(name, wanted) == 0) {
        *slot = column;
      }
    }
  }
  return columns;
}

}  // namespace

PairTable read_pair_table(sqlite3* db, const SchemaObject& table, std::string_view function) {
  const std::string prefix = std::string(function) + ": " + quoted(table.name);
  Statement statement;
  const std::string sql =
      format_sql("SELECT * FROM \"%w\".\"%w\"", table.schema.c_str(), table.name.c_str());
  if (prepare(db, sql, statement) != SQLITE_OK) {
    throw BatchError(prefix + " cannot be read (" + sqlite3_errmsg(db) + ")", sqlite3_errcode(db));
  }
  const PairColumns columns = find_columns(statement.get());
  if (columns.a == kAbsent || columns.b == kAbsent) {
    throw BatchError(std::string(function) + ": " + quoted(table.name) +
                     " is neither a simhash_index nor a table of pairs (it is " +
                     table.kind_text() + " without columns a and b)");
  }
  const int rank_column = columns.similarity != kAbsent ? columns.similarity : columns.distance;
  PairTable result;
  int rc = SQLITE_OK;
  while ((rc = sqlite3_step(statement.get())) == SQLITE_ROW) {
    sqlite3_stmt* row = statement.get();
    const auto id = [&](int column, const char* name) {
      if (sqlite3_column_type(row, column) != SQLITE_INTEGER) {
        throw BatchError(prefix + ": column " + name + " must hold INTEGER ids, got " +
                         type_name(sqlite3_column_type(row, column)));
      }
      return static_cast<std::int64_t>(sqlite3_column_int64(row, column));
    };
    const std::int64_t a = id(columns.a, "a");
    const std::int64_t b = id(columns.b, "b");
    double rank = 0;
    if (rank_column != kAbsent) {
      const int type = sqlite3_column_type(row, rank_column);
      rank = sqlite3_column_double(row, rank_column);
      if ((type != SQLITE_INTEGER && type != SQLITE_FLOAT) || std::isnan(rank)) {
        throw BatchError(prefix + ": the pair (" + std::to_string(a) + ", " + std::to_string(b) +
                         ") has " + (type == SQLITE_NULL ? "a NULL" : "a non-numeric") + " " +
                         sqlite3_column_name(row, rank_column) +
                         "; leave such pairs out or give a number");
      }
      rank = rank_column == columns.similarity ? -rank : rank;
    }
    // The pair, its similarity and distance, room for each to double, and
    // what grouping them takes per pair (leader_groups.h: ids, links).
    result.charge.add(2 * (sizeof(RankedPair) + sizeof(std::optional<double>) +
                           sizeof(std::optional<std::int64_t>)) +
                      64);
    result.pairs.push_back(RankedPair{a, b, rank});
    if (columns.similarity != kAbsent) {
      result.similarity.push_back(sqlite3_column_double(row, columns.similarity));
    }
    if (columns.distance != kAbsent) {
      if (sqlite3_column_type(row, columns.distance) == SQLITE_NULL) {
        result.distance.emplace_back();
      } else if (sqlite3_column_type(row, columns.distance) == SQLITE_INTEGER) {
        result.distance.emplace_back(sqlite3_column_int64(row, columns.distance));
      } else {
        throw BatchError(prefix + ": column distance must hold INTEGER distances, got " +
                         type_name(sqlite3_column_type(row, columns.distance)));
      }
    }
  }
  if (rc != SQLITE_DONE) {
    throw BatchError(prefix + " cannot be read (" + sqlite3_errmsg(db) + ")", sqlite3_errcode(db));
  }
  return result;
}

}  // namespace simhash::sql
