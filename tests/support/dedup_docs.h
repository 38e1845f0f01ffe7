// SPDX-License-Identifier: MIT
// The texts the batch text functions' SQL tests read (simhash_dedup,
// simhash_verified_pairs): families of a base text and its edited copies,
// so similarities spread around every threshold, with exact and case-only
// duplicates and texts without a fingerprint.
#pragma once

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "batch_sql_support.h"
#include "index_test_support.h"
#include "test_database.h"

namespace simhash::testing {

// A text of `words` words from a small vocabulary (two scripts).
inline std::string random_text(std::mt19937_64& random, int words) {
  static const char* const vocabulary[] = {
      "alpha", "beta",  "gamma",  "delta",   "license", "software", "free", "copy",
      "the",   "of",    "and",    "program", "Ünïcödé", "数据",     "库",   "warranty",
      "river", "stone", "window", "paper",   "seven",   "orange",   "lamp", "north"};
  std::string text;
  for (int i = 0; i < words; ++i) {
    text += i > 0 ? (random() % 12 == 0 ? ". " : " ") : "";
    text += vocabulary[random() % std::size(vocabulary)];
  }
  return text;
}

// A copy of `text` with `edits` words replaced, dropped or added.
inline std::string edited(const std::string& text, int edits, std::mt19937_64& random) {
  std::vector<std::string> words;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(' ', start), text.size());
    words.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  for (int edit = 0; edit < edits && words.size() > 1; ++edit) {
    const std::size_t at = random() % words.size();
    switch (random() % 3) {
      case 0:
        words[at] = random_text(random, 1);
        break;
      case 1:
        words.erase(words.begin() + static_cast<std::ptrdiff_t>(at));
        break;
      default:
        words.insert(words.begin() + static_cast<std::ptrdiff_t>(at), random_text(random, 1));
        break;
    }
  }
  std::string result;
  for (const std::string& word : words) {
    result += (result.empty() ? "" : " ") + word;
  }
  return result;
}

// docs(id, body): `families` base texts with edited copies (0..6 edits, so
// similarities spread around every threshold), exact and case-only
// duplicates, some NULL, wordless and one-word bodies, under scattered ids
// inserted in random order; and the README's index `near` over them.
inline void fill_docs(TestDatabase& db, int families, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<std::optional<std::string>> bodies;
  for (int family = 0; family < families; ++family) {
    const std::string base = random_text(random, 8 + static_cast<int>(random() % 40));
    bodies.emplace_back(base);
    for (int copies = static_cast<int>(random() % 6); copies > 0; --copies) {
      switch (random() % 6) {
        case 0:
          bodies.emplace_back(base);
          break;
        case 1: {
          std::string upper = base;
          std::transform(upper.begin(), upper.end(), upper.begin(),
                         [](char c) { return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c; });
          bodies.emplace_back(upper);
          break;
        }
        default:
          bodies.emplace_back(edited(base, static_cast<int>(random() % 7), random));
          break;
      }
    }
    if (family % 25 == 0) {
      bodies.emplace_back(std::nullopt);
      bodies.emplace_back("!!! ... ???");
      bodies.emplace_back("alpha");
    }
  }
  std::shuffle(bodies.begin(), bodies.end(), random);
  db.exec("CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)");
  Prepared insert(db.handle(), "INSERT INTO docs(id, body) VALUES (?1, ?2)");
  db.exec("BEGIN");
  std::int64_t id = -100;
  for (const auto& body : bodies) {
    id += 1 + static_cast<std::int64_t>(random() % 4);
    sqlite3_bind_int64(insert.get(), 1, id);
    if (body) {
      sqlite3_bind_text(insert.get(), 2, body->c_str(), static_cast<int>(body->size()),
                        SQLITE_TRANSIENT);
    } else {
      sqlite3_bind_null(insert.get(), 2);
    }
    step_write(db.handle(), insert.get());
  }
  db.exec("COMMIT");
  db.exec(
      "CREATE VIRTUAL TABLE near USING simhash_index(k=3);"
      "INSERT INTO near(rowid, fp) SELECT id, simhash(body) FROM docs "
      "WHERE simhash(body) IS NOT NULL");
}

}  // namespace simhash::testing
