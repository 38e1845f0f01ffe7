// SPDX-License-Identifier: MIT
// simhash_agg(feature [, weight]): the fingerprint of features given as rows.
// TEXT and BLOB features hash over their bytes, INTEGER features over their
// 8-byte little-endian value; REAL features are refused, because hashing a
// decimal rendering would freeze a formatting choice into stored fingerprints.
// It is also a window function: a row leaving the frame adds its negated
// weight. Integer weights (the default 1) are summed exactly, at any size, so
// a window gives the same fingerprint as the aggregate over its frame; with
// fractional weights a total may differ from it by a rounding error, as the
// aggregate's own total differs between row orders.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"
#include "ext/functions/scalar_functions.h"
#include "fingerprint/exact_vote_totals.h"
#include "fingerprint/feature_hash.h"

namespace simhash::sql {

namespace {

// The aggregate context SQLite hands out is zero-filled memory, not an
// object, and only 8-byte aligned, while the accumulator may ask for more
// (its vectorized totals): the context holds a small header and room to
// construct the accumulator at an aligned address inside it. SQLite passes
// the same memory on every call for a group, so the address is stable.
struct AggregateHeader {
  bool constructed;
  std::int64_t rows;  // non-NULL features in the group or window frame
};
static_assert(std::is_trivial_v<AggregateHeader>, "lives in zero-filled memory");
static_assert(std::is_trivially_destructible_v<ExactVoteTotals>,
              "SQLite frees the aggregate context without running destructors");

constexpr std::size_t kContextBytes =
    sizeof(AggregateHeader) + sizeof(ExactVoteTotals) + alignof(ExactVoteTotals);

struct AggregateState {
  AggregateHeader* header = nullptr;
  ExactVoteTotals* accumulator = nullptr;
};

// The state in `context` (from sqlite3_aggregate_context), constructing the
// accumulator on first use.
AggregateState state_in(void* context) {
  AggregateState state;
  state.header = static_cast<AggregateHeader*>(context);
  void* room = static_cast<std::byte*>(context) + sizeof(AggregateHeader);
  std::size_t space = kContextBytes - sizeof(AggregateHeader);
  room = std::align(alignof(ExactVoteTotals), sizeof(ExactVoteTotals), room, space);
  if (!state.header->constructed) {
    new (room) ExactVoteTotals();
    state.header->constructed = true;
  }
  state.accumulator = std::launder(static_cast<ExactVoteTotals*>(room));
  return state;
}

// Checks the weight; REAL weights must be finite.
void check_weight(sqlite3_value* weight) {
  switch (sqlite3_value_type(weight)) {
    case SQLITE_INTEGER:
      return;
    case SQLITE_FLOAT:
      if (const double value = sqlite3_value_double(weight); !std::isfinite(value)) {
        throw std::runtime_error("simhash_agg: weight must be a finite number, got " +
                                 std::string(value > 0 ? "Inf" : "-Inf"));
      }
      return;
    default:
      throw std::runtime_error(std::string("simhash_agg: weight must be a number, got ") +
                               type_name(weight));
  }
}

std::uint64_t hash_of(sqlite3_value* feature) {
  switch (sqlite3_value_type(feature)) {
    case SQLITE_INTEGER:
      return feature_hash(static_cast<std::int64_t>(sqlite3_value_int64(feature)));
    case SQLITE_TEXT:
    case SQLITE_BLOB:
      return feature_hash(*text_of(feature));
    default:
      throw std::runtime_error(
          std::string("simhash_agg: feature must be TEXT, BLOB or INTEGER, got ") +
          type_name(feature));
  }
}

// Adds the row's vote (direction +1) or takes it back (-1, a row leaving a
// window frame: xStep accepted it, so it cannot fail here).
void add_row(sqlite3_context* context, int argc, sqlite3_value** argv, int direction) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    return;  // NULL features are skipped, whatever their weight
  }
  sqlite3_value* weight = argc > 1 ? argv[1] : nullptr;
  if (weight != nullptr) {
    check_weight(weight);
  }
  const std::uint64_t hash = hash_of(argv[0]);
  void* memory = sqlite3_aggregate_context(context, static_cast<int>(kContextBytes));
  if (memory == nullptr) {
    throw std::bad_alloc();
  }
  const AggregateState state = state_in(memory);
  if (weight == nullptr || sqlite3_value_type(weight) == SQLITE_INTEGER) {
    const std::int64_t value = weight == nullptr ? 1 : sqlite3_value_int64(weight);
    if (direction > 0) {
      state.accumulator->add_integer(hash, value);
    } else {
      state.accumulator->remove_integer(hash, value);
    }
  } else {
    state.accumulator->add_real(hash, direction * sqlite3_value_double(weight));
  }
  state.header->rows += direction;
}

void report(sqlite3_context* context) {
  // Size 0: do not allocate a context for a group that saw no rows.
  void* memory = sqlite3_aggregate_context(context, 0);
  if (memory == nullptr || static_cast<AggregateHeader*>(memory)->rows == 0) {
    sqlite3_result_null(context);
    return;
  }
  const AggregateState state = state_in(memory);
  sqlite3_result_int64(context, static_cast<sqlite3_int64>(state.accumulator->fingerprint()));
}

}  // namespace

void simhash_agg_step(sqlite3_context* context, int argc, sqlite3_value** argv) {
  guard(context, [&] { add_row(context, argc, argv, +1); });
}

void simhash_agg_inverse(sqlite3_context* context, int argc, sqlite3_value** argv) {
  guard(context, [&] { add_row(context, argc, argv, -1); });
}

void simhash_agg_value(sqlite3_context* context) {
  guard(context, [&] { report(context); });
}

void simhash_agg_final(sqlite3_context* context) {
  guard(context, [&] { report(context); });
}

}  // namespace simhash::sql
