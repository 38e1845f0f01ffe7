// SPDX-License-Identifier: MIT
// The arguments of the eponymous table-valued functions (simhash_pairs and
// the other batch functions, simhash_dedup): each is a hidden column that
// SQLite passes as a "column = value" constraint. xBestIndex asks for the
// given ones in column order and records which were given in idxNum (bit i
// for argument i), because an argument left out and one given as NULL can
// mean different things; xFilter puts them back in their places.
#pragma once

#include <span>

#include "ext/common/sqlite_api.h"

namespace simhash::sql {

// Plans the arguments, the hidden columns first_column .. first_column +
// constraint_of.size() - 1: sets their argvIndex and omit, and idxNum, and
// fills constraint_of[i] with argument i's constraint (-1 when not given).
// Returns SQLITE_CONSTRAINT when an argument is not usable yet (it comes from
// a table later in the join order), so that SQLite tries another order.
inline int plan_arguments(sqlite3_index_info* info, int first_column,
                          std::span<int> constraint_of) {
  const int count = static_cast<int>(constraint_of.size());
  for (int& constraint : constraint_of) {
    constraint = -1;
  }
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& constraint = info->aConstraint[i];
    const int argument = constraint.iColumn - first_column;
    if (argument < 0 || argument >= count || constraint.op != SQLITE_INDEX_CONSTRAINT_EQ) {
      continue;
    }
    if (!constraint.usable) {
      return SQLITE_CONSTRAINT;
    }
    constraint_of[static_cast<std::size_t>(argument)] = i;
  }
  int given = 0;
  info->idxNum = 0;
  for (int argument = 0; argument < count; ++argument) {
    if (const int i = constraint_of[static_cast<std::size_t>(argument)]; i >= 0) {
      info->aConstraintUsage[i].argvIndex = ++given;
      info->aConstraintUsage[i].omit = 1;
      info->idxNum |= 1 << argument;
    }
  }
  return SQLITE_OK;
}

// In xFilter: arguments[i] is argument i's value, nullptr when not given.
inline void place_arguments(int idx_num, int argc, sqlite3_value** argv,
                            std::span<sqlite3_value*> arguments) {
  for (std::size_t argument = 0, next = 0; argument < arguments.size(); ++argument) {
    const bool given = (idx_num & (1 << argument)) != 0 && next < static_cast<std::size_t>(argc);
    arguments[argument] = given ? argv[next++] : nullptr;
  }
}

}  // namespace simhash::sql
