// SPDX-License-Identifier: MIT
// libFuzzer target: simhash_dedup against brute force. The input's first
// two bytes choose the threshold (0.3 to 1.0) and the candidates (the exact
// join, or a radius of 0 to 12 bits); each following pair of bytes is a row
// of docs(id, body), a text near one of a few bases (copies, operators,
// wordless ones). The answer must be the leader groups of every verified
// pair: in id order each row joins the most similar leader before it (ties:
// the smallest id) at the threshold or more (and within the radius, when
// one is given), or leads; groups of one left out; with each row's
// similarity and distance to its leader.
#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "fuzz_database.h"
#include "fuzz_texts.h"

namespace {

constexpr const char* kOptions = "n=3 weight=binary symbols=strict";

// id, cluster, distance (-1 for NULL), similarity
using Member = std::tuple<std::int64_t, std::int64_t, int, double>;

class Database : public simhash::fuzz::FuzzDatabase {
 public:
  Database() : FuzzDatabase("dedup_sql_fuzzer") {
    exec("CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)");
  }

  // One value of `sql` over two texts: a REAL or an INTEGER, nullopt for NULL.
  std::optional<double> pair_value(const std::string& sql, const std::string& a,
                                   const std::string& b) {
    return rows<std::optional<double>>(
               sql,
               [&](sqlite3_stmt* statement) {
                 sqlite3_bind_text(statement, 1, a.data(), static_cast<int>(a.size()),
                                   SQLITE_TRANSIENT);
                 sqlite3_bind_text(statement, 2, b.data(), static_cast<int>(b.size()),
                                   SQLITE_TRANSIENT);
               },
               [](sqlite3_stmt* statement) -> std::optional<double> {
                 if (sqlite3_column_type(statement, 0) == SQLITE_NULL) {
                   return std::nullopt;
                 }
                 return sqlite3_column_double(statement, 0);
               })
        .at(0);
  }

  std::vector<Member> dedup(double threshold, std::optional<int> radius) {
    const std::string sql =
        "SELECT id, cluster, distance, similarity FROM simhash_dedup("
        "'SELECT id, body FROM docs ORDER BY id', ?1, " +
        (radius ? std::to_string(*radius) : std::string("NULL")) + ", '" + kOptions + "')";
    return rows<Member>(
        sql, [&](sqlite3_stmt* statement) { sqlite3_bind_double(statement, 1, threshold); },
        [](sqlite3_stmt* statement) {
          return Member(sqlite3_column_int64(statement, 0), sqlite3_column_int64(statement, 1),
                        sqlite3_column_type(statement, 2) == SQLITE_NULL
                            ? -1
                            : sqlite3_column_int(statement, 2),
                        sqlite3_column_double(statement, 3));
        });
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) {
    return 0;
  }
  Database db;
  const double threshold = 0.3 + 0.05 * static_cast<double>(data[0] % 15);
  const std::optional<int> radius =
      data[1] % 14 == 13 ? std::nullopt : std::optional<int>(data[1] % 14);
  std::map<std::int64_t, std::string> bodies;
  for (std::size_t at = 2; at + 2 <= size && bodies.size() < 24; at += 2) {
    // Few words replaced: near copies are common.
    const std::uint8_t replaced = data[at + 1] & (data[at + 1] >> 4) & 0x0f;
    const auto id = static_cast<std::int64_t>(bodies.size()) + 1;
    bodies[id] = simhash::fuzz::text(data[at], replaced);
    db.exec("INSERT INTO docs(id, body) VALUES (" + std::to_string(id) + ", '" + bodies[id] + "')");
  }

  // Every verified pair, by simhash_jaccard and hamming of simhash() itself.
  std::map<std::pair<std::int64_t, std::int64_t>, std::pair<double, int>> verified;
  for (const auto& [a, text_a] : bodies) {
    for (const auto& [b, text_b] : bodies) {
      if (a >= b) {
        continue;
      }
      const std::optional<double> similarity = db.pair_value(
          std::string("SELECT simhash_jaccard(?1, ?2, '") + kOptions + "')", text_a, text_b);
      const std::optional<double> distance =
          db.pair_value("SELECT hamming(simhash(?1), simhash(?2))", text_a, text_b);
      const bool near = !radius || (distance && *distance <= *radius);
      if (similarity && *similarity >= threshold && near) {
        verified[{a, b}] = {*similarity, distance ? static_cast<int>(*distance) : -1};
      }
    }
  }
  // The leader rule in id order.
  std::map<std::int64_t, std::int64_t> leader;
  std::map<std::int64_t, std::pair<double, int>> link;
  std::map<std::int64_t, int> members;
  for (const auto& entry : bodies) {
    const std::int64_t id = entry.first;
    std::int64_t best = id;
    std::pair<double, int> best_link{0, 0};
    for (const auto& [other, kept] : leader) {
      const auto found = verified.find({other, id});
      if (other == kept && found != verified.end() &&
          (best == id || found->second.first > best_link.first)) {
        best = other;
        best_link = found->second;
      }
    }
    leader[id] = best;
    link[id] = best == id ? std::pair<double, int>{1.0, 0} : best_link;
    ++members[best];
  }
  std::vector<Member> expected;
  for (const auto& [id, kept] : leader) {
    if (members[kept] > 1) {
      expected.emplace_back(id, kept, link[id].second, link[id].first);
    }
  }
  std::vector<Member> found = db.dedup(threshold, radius);
  // The kept row's own distance is 0, or NULL when it has no fingerprint.
  for (Member& member : found) {
    if (std::get<0>(member) == std::get<1>(member) && std::get<2>(member) == -1) {
      std::get<2>(member) = 0;
    }
  }
  if (found != expected) {
    db.fail("simhash_dedup at " + std::to_string(threshold) + ", radius " +
            (radius ? std::to_string(*radius) : std::string("NULL")) + ": " +
            std::to_string(found.size()) + " rows, brute force " + std::to_string(expected.size()));
  }
  return 0;
}
