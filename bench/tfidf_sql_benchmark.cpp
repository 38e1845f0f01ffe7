// SPDX-License-Identifier: MIT
// TF-IDF fingerprints computed in pure SQL (sql/tfidf.sql) against the plain
// simhash() default, on the English corpus (Debian copyright files and
// common licenses):
//   - pairs of different documents: mean Hamming distance, and the fraction
//     within 3 bits among pairs whose word-3-shingle Jaccard is below 0.5
//     (false positives);
//   - recall: the fraction of edited copies (1%, 5%, 10% of words
//     substituted, deleted or inserted; fixed seed) within 3 bits of their
//     original.
// The edited copies are fingerprinted against the corpus statistics through
// the script's tfidf_queries table.
//
// Usage (from the repository root): build/tfidf_sql_benchmark [sql/tfidf.sql]
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_support.h"
#include "corpus.h"
#include "fingerprint/feature_extractor.h"
#include "fingerprint/hamming.h"
#include "fingerprint/simhash_options.h"

namespace {

using simhash::bench::exec;
using simhash::bench::fail;
using simhash::bench::thread_seconds;

// id -> fingerprint for a two-column query (NULL fingerprints left out).
std::map<std::int64_t, std::uint64_t> fingerprints(sqlite3* db, const std::string& sql) {
  std::map<std::int64_t, std::uint64_t> result;
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
    fail(db, sql);
  }
  int rc = SQLITE_OK;
  while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
    if (sqlite3_column_type(statement, 1) == SQLITE_INTEGER) {
      result[sqlite3_column_int64(statement, 0)] =
          static_cast<std::uint64_t>(sqlite3_column_int64(statement, 1));
    }
  }
  if (rc != SQLITE_DONE) {
    fail(db, sql);
  }
  sqlite3_finalize(statement);
  return result;
}

void fill_table(sqlite3* db, const std::string& table, const std::vector<std::string>& bodies) {
  exec(db, "DELETE FROM " + table);
  exec(db, "BEGIN");
  sqlite3_stmt* insert = nullptr;
  sqlite3_prepare_v2(db, ("INSERT INTO " + table + "(id, body) VALUES (?, ?)").c_str(), -1, &insert,
                     nullptr);
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    sqlite3_bind_int64(insert, 1, static_cast<sqlite3_int64>(i + 1));
    sqlite3_bind_text(insert, 2, bodies[i].data(), static_cast<int>(bodies[i].size()),
                      SQLITE_STATIC);
    if (sqlite3_step(insert) != SQLITE_DONE) {
      fail(db, "insert");
    }
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);
  exec(db, "COMMIT");
}

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream stream(text);
  std::string word;
  while (stream >> word) {
    words.push_back(word);
  }
  return words;
}

// Edits round(rate * words) (at least one) random positions of the text's
// whitespace-separated words: each a substitution, deletion or insertion
// (equally likely) with a word drawn from the corpus.
std::string edit(const std::string& text, double rate, const std::vector<std::string>& vocabulary,
                 std::mt19937_64& random) {
  std::vector<std::string> words = split_words(text);
  const auto edits = std::max<std::size_t>(
      1, static_cast<std::size_t>(rate * static_cast<double>(words.size()) + 0.5));
  for (std::size_t i = 0; i < edits; ++i) {
    const std::string& replacement = vocabulary[random() % vocabulary.size()];
    const std::size_t position = words.empty() ? 0 : random() % words.size();
    switch (random() % 3) {
      case 0:
        if (!words.empty()) {
          words[position] = replacement;
        }
        break;
      case 1:
        if (!words.empty()) {
          words.erase(words.begin() + static_cast<std::ptrdiff_t>(position));
        }
        break;
      default:
        words.insert(words.begin() + static_cast<std::ptrdiff_t>(position), replacement);
        break;
    }
  }
  std::string result;
  for (const auto& word : words) {
    result += word;
    result += ' ';
  }
  return result;
}

double jaccard(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  std::size_t common = 0;
  auto i = a.begin();
  auto j = b.begin();
  while (i != a.end() && j != b.end()) {
    if (*i < *j) {
      ++i;
    } else if (*j < *i) {
      ++j;
    } else {
      ++common;
      ++i;
      ++j;
    }
  }
  const std::size_t together = a.size() + b.size() - common;
  return together == 0 ? 1.0 : static_cast<double>(common) / static_cast<double>(together);
}

struct PairFigures {
  double mean_distance = 0;
  double within_3 = 0;  // among pairs with Jaccard < 0.5
  std::size_t pairs = 0;
};

PairFigures pair_figures(const std::map<std::int64_t, std::uint64_t>& fps,
                         const std::vector<std::vector<std::uint64_t>>& shingles) {
  PairFigures figures;
  double total_distance = 0;
  std::size_t close = 0;
  for (auto a = fps.begin(); a != fps.end(); ++a) {
    for (auto b = std::next(a); b != fps.end(); ++b) {
      if (jaccard(shingles[a->first - 1], shingles[b->first - 1]) >= 0.5) {
        continue;
      }
      const int distance = simhash::hamming_distance(a->second, b->second);
      total_distance += distance;
      close += distance <= 3 ? 1 : 0;
      ++figures.pairs;
    }
  }
  figures.mean_distance = total_distance / static_cast<double>(figures.pairs);
  figures.within_3 = static_cast<double>(close) / static_cast<double>(figures.pairs);
  return figures;
}

double recall(const std::map<std::int64_t, std::uint64_t>& originals,
              const std::map<std::int64_t, std::uint64_t>& copies) {
  std::size_t found = 0;
  for (const auto& [id, fp] : originals) {
    const auto copy = copies.find(id);
    found += copy != copies.end() && simhash::hamming_distance(fp, copy->second) <= 3 ? 1 : 0;
  }
  return static_cast<double>(found) / static_cast<double>(originals.size());
}

}  // namespace

int main(int argc, char** argv) {
  const std::string script_path = argc > 1 ? argv[1] : "sql/tfidf.sql";
  std::ifstream script_file(script_path);
  if (!script_file) {
    std::fprintf(stderr, "cannot read %s (run from the repository root)\n", script_path.c_str());
    return 1;
  }
  std::stringstream script;
  script << script_file.rdbuf();

  sqlite3* db = simhash::bench::open_with_extension(":memory:");

  const auto documents = simhash::bench::load_english_corpus();
  std::vector<std::string> bodies;
  std::vector<std::string> vocabulary;
  std::vector<std::vector<std::uint64_t>> shingles;
  std::string error;
  simhash::FeatureExtractor trigrams(*simhash::parse_options("n=3", error));
  for (const auto& document : documents) {
    bodies.push_back(document.text);
    for (auto& word : split_words(document.text)) {
      vocabulary.push_back(std::move(word));
    }
    std::vector<std::uint64_t> hashes;
    for (const auto& feature : trigrams.features(document.text)) {
      hashes.push_back(feature.hash);
    }
    std::sort(hashes.begin(), hashes.end());
    shingles.push_back(std::move(hashes));
  }

  exec(db, "CREATE TABLE corpus(id INTEGER PRIMARY KEY, body TEXT)");
  fill_table(db, "corpus", bodies);
  // One timing of each (the script is not repeated): the script's cost
  // beside plain fingerprints of the same documents, as thread CPU time.
  const double script_start = thread_seconds();
  exec(db, script.str());
  const double script_seconds = thread_seconds() - script_start;
  const double plain_start = thread_seconds();
  exec(db, "CREATE TABLE plain_fps AS SELECT id, simhash(body) AS fp FROM corpus");
  const double plain_seconds = thread_seconds() - plain_start;

  const auto plain = fingerprints(db, "SELECT id, simhash(body) FROM corpus");
  const auto tfidf = fingerprints(db, "SELECT id, fp FROM corpus_tfidf");
  // The query path reproduces the corpus path exactly on unedited texts.
  fill_table(db, "tfidf_queries", bodies);
  if (fingerprints(db, "SELECT id, fp FROM tfidf_query_fingerprints") != tfidf) {
    std::fprintf(stderr, "tfidf_query_fingerprints disagrees with corpus_tfidf\n");
    return 1;
  }

  std::printf("corpus: %zu documents; options: the defaults (%s)\n", documents.size(),
              simhash::to_string(simhash::SimhashOptions{}).c_str());
  const PairFigures plain_pairs = pair_figures(plain, shingles);
  const PairFigures tfidf_pairs = pair_figures(tfidf, shingles);
  std::printf("| weighting | mean distance, different docs | within 3 bits (FP) |");
  std::mt19937_64 random(2026);
  std::vector<std::pair<double, std::pair<double, double>>> recalls;
  for (const double rate : {0.01, 0.05, 0.10}) {
    std::vector<std::string> edited;
    for (const auto& body : bodies) {
      edited.push_back(edit(body, rate, vocabulary, random));
    }
    fill_table(db, "tfidf_queries", edited);
    exec(db, "DROP TABLE IF EXISTS edited; CREATE TABLE edited(id INTEGER PRIMARY KEY, body)");
    fill_table(db, "edited", edited);
    recalls.push_back(
        {rate,
         {recall(plain, fingerprints(db, "SELECT id, simhash(body) FROM edited")),
          recall(tfidf, fingerprints(db, "SELECT id, fp FROM tfidf_query_fingerprints"))}});
    std::printf(" recall %g%% |", rate * 100);
  }
  std::printf("\n| --- | --- | --- |");
  for (std::size_t i = 0; i < recalls.size(); ++i) {
    std::printf(" --- |");
  }
  std::printf("\n");
  std::printf("| plain tf (simhash(body)) | %.1f | %.3f%% |", plain_pairs.mean_distance,
              plain_pairs.within_3 * 100);
  for (const auto& [rate, values] : recalls) {
    std::printf(" %.1f%% |", values.first * 100);
  }
  std::printf("\n| tf-idf (sql/tfidf.sql) | %.1f | %.3f%% |", tfidf_pairs.mean_distance,
              tfidf_pairs.within_3 * 100);
  for (const auto& [rate, values] : recalls) {
    std::printf(" %.1f%% |", values.second * 100);
  }
  std::printf("\npairs with word-3-shingle Jaccard < 0.5: %zu\n", plain_pairs.pairs);
  std::printf(
      "CPU time: sql/tfidf.sql %.2f s; plain simhash(body) of the corpus into a table %.2f s\n",
      script_seconds, plain_seconds);
  sqlite3_close(db);
  return 0;
}
