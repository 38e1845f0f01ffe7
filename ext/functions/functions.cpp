// SPDX-License-Identifier: MIT
// Registers the scalar and aggregate functions on a connection: simhash,
// simhash_agg, hamming, simhash_hamming, simhash_cosine, simhash_jaccard,
// simhash_containment, simhash_first_difference, simhash_change,
// simhash_changed_words, simhash_hex, simhash_version, simhash_icu_version
// and simhash_raise, and holds the small ones (all but the first six).
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"
#include "ext/functions/scalar_functions.h"
#include "ext/registration.h"
#include "text/first_difference.h"
#include "text/icu_versions.h"
#include "text/text_change.h"

namespace simhash::sql {

namespace {

// Every function here gives the same result for the same arguments and has no
// side effects, so all may appear in indexes, CHECK constraints, views and
// triggers of untrusted schemas.
constexpr int kFlags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;

void simhash_hex(sqlite3_context* context, int /*argc*/, sqlite3_value** argv) {
  guard(context, [&] {
    switch (sqlite3_value_type(argv[0])) {
      case SQLITE_NULL:
        sqlite3_result_null(context);
        return;
      case SQLITE_INTEGER: {
        char digits[17];
        std::snprintf(digits, sizeof digits, "%016" PRIx64,
                      static_cast<std::uint64_t>(sqlite3_value_int64(argv[0])));
        sqlite3_result_text(context, digits, 16, SQLITE_TRANSIENT);
        return;
      }
      default:
        throw std::runtime_error(std::string("simhash_hex: expected an INTEGER, got ") +
                                 type_name(argv[0]));
    }
  });
}

// simhash_first_difference(a, b): where two texts first differ, as
// describe() words it (text/first_difference.h); NULL when either is NULL
// or they are equal. Arguments are read as the similarity functions read
// them (a number as its text, a BLOB as its bytes).
void simhash_first_difference(sqlite3_context* context, int /*argc*/, sqlite3_value** argv) {
  guard(context, [&] {
    const std::optional<std::string_view> a = text_of(argv[0]);
    const std::optional<std::string_view> b = text_of(argv[1]);
    const std::optional<FirstDifference> difference =
        a && b ? first_difference(*a, *b) : std::nullopt;
    if (!difference) {
      sqlite3_result_null(context);
      return;
    }
    const std::string text = describe(*difference);
    sqlite3_result_text(context, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  });
}

// The last pair simhash_change or simhash_changed_words compared on a
// connection, shared by both: a query that asks for the kind and the words
// of one pair (the look-then-delete recipe) diffs it once.
struct LastChange {
  std::string text;
  std::string kept;
  TextChange change;
  bool valid = false;

  const TextChange& of(std::string_view new_text, std::string_view new_kept) {
    if (!valid || new_text != text || new_kept != kept) {
      valid = false;  // stays so if text_change throws
      change = text_change(new_text, new_kept);
      text.assign(new_text);
      kept.assign(new_kept);
      valid = true;
    }
    return change;
  }
};

// simhash_change(text, kept) and simhash_changed_words(text, kept): what
// deleting `text` and keeping `kept` loses, as text/text_change.h says: the
// kind's name, and the words each has that the other lacks ('' for none).
// NULL when either is NULL; arguments are read as simhash_first_difference
// reads them.
template <bool kWords>
void simhash_change(sqlite3_context* context, int /*argc*/, sqlite3_value** argv) {
  guard(context, [&] {
    const std::optional<std::string_view> text = text_of(argv[0]);
    const std::optional<std::string_view> kept = text_of(argv[1]);
    if (!text || !kept) {
      sqlite3_result_null(context);
      return;
    }
    auto& last = *static_cast<std::shared_ptr<LastChange>*>(sqlite3_user_data(context));
    const TextChange& change = last->of(*text, *kept);
    if (kWords) {
      sqlite3_result_text(context, change.words.c_str(), static_cast<int>(change.words.size()),
                          SQLITE_TRANSIENT);
    } else {
      sqlite3_result_text(context, name_of(change.kind), -1, SQLITE_STATIC);
    }
  });
}

void destroy_last_change(void* last) {
  std::unique_ptr<std::shared_ptr<LastChange>> owned(
      static_cast<std::shared_ptr<LastChange>*>(last));
}

// Registers both functions, each holding a reference to one LastChange.
int register_change_functions(sqlite3* db) {
  const auto last = std::make_shared<LastChange>();
  int rc = SQLITE_OK;
  for (const auto& [name, function] : {std::pair{"simhash_change", &simhash_change<false>},
                                       std::pair{"simhash_changed_words", &simhash_change<true>}}) {
    if (rc == SQLITE_OK) {
      // On failure SQLite calls the destructor itself, so ownership passes now.
      auto user_data = std::make_unique<std::shared_ptr<LastChange>>(last);
      rc = sqlite3_create_function_v2(db, name, 2, kFlags, user_data.release(), function, nullptr,
                                      nullptr, destroy_last_change);
    }
  }
  return rc;
}

void simhash_version(sqlite3_context* context, int /*argc*/, sqlite3_value** /*argv*/) {
  sqlite3_result_text(context, SIMHASH_VERSION, -1, SQLITE_STATIC);
}

// "icu=72.1 unicode=15.0": the ICU running and its Unicode version, in the
// options' key=value form so a caller can compare it with an index's config.
void simhash_icu_version(sqlite3_context* context, int /*argc*/, sqlite3_value** /*argv*/) {
  guard(context, [&] {
    const IcuVersions versions = icu_versions();
    const std::string text = "icu=" + versions.icu + " unicode=" + versions.unicode;
    sqlite3_result_text(context, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  });
}

// Fails the statement with SQLITE_CONSTRAINT and `message` as its text: a
// trigger that refuses a row can say which row it collides with, which
// RAISE cannot (SQLite 3.40 takes only a literal there). NULL says so.
void simhash_raise(sqlite3_context* context, int /*argc*/, sqlite3_value** argv) {
  const unsigned char* message = sqlite3_value_text(argv[0]);
  sqlite3_result_error(context,
                       message != nullptr ? reinterpret_cast<const char*>(message)
                                          : "simhash_raise: the message is NULL",
                       -1);
  sqlite3_result_error_code(context, SQLITE_CONSTRAINT);
}

void destroy_defaults(void* defaults) {
  std::unique_ptr<SimhashDefaults> owned(static_cast<SimhashDefaults*>(defaults));
}

// Registers simhash with `argc` arguments; each registration owns its own
// default extractor (SQLite destroys each registration's user data separately).
int register_simhash(sqlite3* db, int argc) {
  auto defaults = std::make_unique<SimhashDefaults>();
  // On failure SQLite calls the destructor itself, so ownership passes now.
  return sqlite3_create_function_v2(db, "simhash", argc, kFlags, defaults.release(),
                                    simhash_function, nullptr, nullptr, destroy_defaults);
}

int register_plain(sqlite3* db, const char* name, int argc, void* user_data,
                   void (*function)(sqlite3_context*, int, sqlite3_value**)) {
  return sqlite3_create_function_v2(db, name, argc, kFlags, user_data, function, nullptr, nullptr,
                                    nullptr);
}

}  // namespace

int register_scalar_functions(sqlite3* db, char** error) {
  // Function names as user data: hamming's messages name the function called.
  static char hamming_name[] = "hamming";
  static char simhash_hamming_name[] = "simhash_hamming";
  int rc = SQLITE_OK;
  try {
    for (const int argc : {1, 2}) {
      if (rc == SQLITE_OK) {
        rc = register_simhash(db, argc);
      }
    }
  } catch (const std::bad_alloc&) {
    rc = SQLITE_NOMEM;
  }
  for (const int argc : {1, 2}) {
    if (rc == SQLITE_OK) {
      rc = sqlite3_create_window_function(db, "simhash_agg", argc, kFlags, nullptr,
                                          simhash_agg_step, simhash_agg_final, simhash_agg_value,
                                          simhash_agg_inverse, nullptr);
    }
  }
  if (rc == SQLITE_OK) {
    rc = register_plain(db, "hamming", 2, hamming_name, hamming_function);
  }
  if (rc == SQLITE_OK) {
    rc = register_plain(db, "simhash_hamming", 2, simhash_hamming_name, hamming_function);
  }
  try {
    for (const int argc : {2, 3}) {
      if (rc == SQLITE_OK) {
        rc = register_similarity_function(db, "simhash_cosine", argc, cosine_similarity, kFlags);
      }
      if (rc == SQLITE_OK) {
        rc = register_similarity_function(db, "simhash_jaccard", argc, weighted_jaccard, kFlags);
      }
      if (rc == SQLITE_OK) {
        rc = register_similarity_function(db, "simhash_containment", argc, containment, kFlags,
                                          /*needs_both=*/false);
      }
    }
  } catch (const std::bad_alloc&) {
    rc = SQLITE_NOMEM;
  }
  if (rc == SQLITE_OK) {
    rc = register_plain(db, "simhash_first_difference", 2, nullptr, simhash_first_difference);
  }
  try {
    if (rc == SQLITE_OK) {
      rc = register_change_functions(db);
    }
  } catch (const std::bad_alloc&) {
    rc = SQLITE_NOMEM;
  }
  if (rc == SQLITE_OK) {
    rc = register_plain(db, "simhash_hex", 1, nullptr, simhash_hex);
  }
  if (rc == SQLITE_OK) {
    rc = register_plain(db, "simhash_version", 0, nullptr, simhash_version);
  }
  if (rc == SQLITE_OK) {
    rc = register_plain(db, "simhash_icu_version", 0, nullptr, simhash_icu_version);
  }
  if (rc == SQLITE_OK) {
    // Not deterministic: SQLite may evaluate a deterministic call with
    // constant arguments once, up front, even where no row would reach it.
    rc = sqlite3_create_function_v2(db, "simhash_raise", 1, SQLITE_UTF8 | SQLITE_INNOCUOUS, nullptr,
                                    simhash_raise, nullptr, nullptr, nullptr);
  }
  if (rc != SQLITE_OK && error != nullptr) {
    *error = sqlite3_mprintf("simhash: cannot register functions: %s", sqlite3_errstr(rc));
  }
  return rc;
}

}  // namespace simhash::sql
