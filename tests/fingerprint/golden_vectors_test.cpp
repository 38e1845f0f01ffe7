// SPDX-License-Identifier: MIT
// Golden vectors: fingerprints frozen in tests/fingerprint/golden_vectors.tsv. The
// fingerprint format is a promise to users (a stored fingerprint must equal
// the one every later release computes), so any change fails this test.
//
// Adding vectors: add a source to golden_vector_sources() below, then run
//   SIMHASH_GOLDEN_VECTORS_OUT=/tmp/golden.tsv build/engine_tests
//       --gtest_filter=GoldenVectors.WriteFileWithNewVectors   (one line)
//   cp /tmp/golden.tsv tests/fingerprint/golden_vectors.tsv
// That test copies every existing row unchanged (and fails if any no longer
// matches), appends rows for the new sources, and does nothing unless the
// variable is set. Never edit or regenerate an existing row.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fingerprint/feature_extractor.h"

namespace simhash {
namespace {

const char* const kGoldenFile = SIMHASH_SOURCE_DIR "/tests/fingerprint/golden_vectors.tsv";

// ---- Inputs -----------------------------------------------------------------

// Deterministic long texts, named in the file as `recipe:<name>` instead of
// megabytes of hex. FROZEN: changing a recipe changes its vectors' input.
// std::mt19937's output sequence is fixed by the C++ standard; only its raw
// output is used (no distributions, whose results are implementation-defined).
std::string recipe_text(std::string_view name) {
  if (name == "words-1mb" || name == "mixed-scripts-256k") {
    static const std::vector<std::string> english = {
        "the",  "near", "duplicate", "document", "finger", "print", "hash",  "bits",
        "text", "word", "SQLite",    "index",    "Query",  "row",   "table", "a",
        "of",   "and",  "to",        "in",       "is",     "for",   "with",  "2026"};
    static const std::vector<std::string> mixed = {
        "数据库", "指纹", "文本", "データ",  "検索",   "ข้อมูล", "ดัชนี", "текст",
        "поиск",  "نص",   "بحث",  "κείμενο", "텍스트", "😀",    "...", "—"};
    const bool is_mixed = name == "mixed-scripts-256k";
    const std::size_t size = is_mixed ? 256 * 1024 : 1024 * 1024;
    std::mt19937 random(is_mixed ? 2U : 1U);
    std::string text;
    while (text.size() < size) {
      const std::uint32_t draw = random();
      const auto& words = is_mixed && draw % 2 == 0 ? mixed : english;
      text += words[(draw >> 1U) % words.size()];
      const std::uint32_t gap = (draw >> 16U) % 16U;
      text += gap == 0 ? ". " : gap == 1 ? ",\n" : " ";
    }
    return text;
  }
  ADD_FAILURE() << "unknown recipe " << name;
  return {};
}

std::string to_hex(std::string_view bytes) {
  static const char* const kDigits = "0123456789abcdef";
  std::string hex;
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    hex += kDigits[byte >> 4U];
    hex += kDigits[byte & 0xFU];
  }
  return hex;
}

std::string from_hex(std::string_view hex) {
  EXPECT_EQ(hex.size() % 2, 0U) << hex;
  std::string bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    bytes += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  }
  return bytes;
}

// The input column: `hex:<bytes>` or `recipe:<name>`.
std::string decode_input(std::string_view column) {
  if (column.starts_with("hex:")) return from_hex(column.substr(4));
  if (column.starts_with("recipe:")) return recipe_text(column.substr(7));
  ADD_FAILURE() << "bad input column " << column;
  return {};
}

struct Vector {
  std::string name;
  std::string options;
  std::string input;        // the input column, encoded
  std::string fingerprint;  // 16 lowercase hex digits, or "null"
};

// Every vector the file should hold (fingerprints not filled in).
std::vector<Vector> golden_vector_sources() {
  const std::string english =
      "Near-duplicate detection finds documents that are almost the same: a web page "
      "served twice with a different date, a license copied with one clause changed, "
      "a bug report filed again in other words. SimHash turns each text into 64 bits "
      "so that similar texts differ in only a few of them.";
  const std::string chinese =
      "SQLite是一个软件库，实现了自给自足的、无服务器的、零配置的、事务性的SQL数据库引擎。"
      "SQLite是世界上部署最广泛的SQL数据库引擎。SQLite的源代码属于公共领域。";
  std::vector<Vector> sources = {
      {"english-sentence", "", "The quick brown fox jumps over the lazy dog.", ""},
      {"english-paragraph", "", english, ""},
      {"english-case-punctuation", "", "Hello, World!", ""},
      {"english-lowercase", "", "hello world", ""},
      {"english-full-width", "", "ＨＥＬＬＯ　ＷＯＲＬＤ", ""},
      {"english-contractions-numbers", "", "Don't pay $3.14 twice; 1,234 items on 2026-11-21.", ""},
      {"chinese-paragraph", "", chinese, ""},
      {"chinese-classical", "",
       "学而时习之，不亦说乎？有朋自远方来，不亦乐乎？人不知而不愠，不亦君子乎？", ""},
      {"chinese-traditional", "", "資料庫引擎會把近似重複的文件找出來。", ""},
      {"japanese", "", "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。", ""},
      {"japanese-katakana", "", "データベースのインデックスを作成します。", ""},
      {"thai", "", "ภาษาไทยเป็นภาษาราชการของประเทศไทย และใช้อักษรไทยในการเขียน", ""},
      {"arabic", "", "اللغة العربية هي أكثر اللغات السامية تحدثا، ويتحدثها أكثر من 400 مليون نسمة.",
       ""},
      {"russian", "", "Съешь же ещё этих мягких французских булок, да выпей чаю.", ""},
      {"greek", "", "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία.", ""},
      {"korean", "", "다람쥐 헌 쳇바퀴에 타고파. 한국어 텍스트입니다.", ""},
      {"hindi", "", "हिन्दी भारत की राजभाषा है।", ""},
      {"emoji-only", "", "😀🎉👍🏽❤️", ""},
      {"emoji-with-words", "", "I ❤️ SQLite 🚀 and near-duplicates 👍🏽", ""},
      {"mixed-scripts", "", "SQLite 数据库 データベース ฐานข้อมูล база данных قاعدة بيانات 42", ""},
      {"empty", "", "", ""},
      {"whitespace-only", "", " \t\r\n\u3000 ", ""},
      {"punctuation-only", "", "?!... --- ;; (\"«»\") 。、", ""},
      {"invalid-utf8-short", "", "\xC3\x28\xFF\x61", ""},
      {"invalid-utf8-mixed", "", "caf\xC3 \xED\xA0\x80 ok \xF0\x9F\x98 done \xC0\xAF", ""},
      {"invalid-utf8-only", "", "\xFF\xFE\xC0\x80", ""},
      {"combining-marks", "", "cafe\xCC\x81 caf\xC3\xA9 CAFE\xCC\x81", ""},
      {"ligature-and-sharp-s", "", "ﬁnance STRASSE straße", ""},
      {"char-chinese", "unit=char n=2", chinese, ""},
      {"char-emoji", "unit=char n=3", "I ❤️ SQLite 🚀", ""},
      {"char-whitespace-runs", "unit=char n=3", "  Ab \t\n  c \n", ""},
      {"char-punctuation-only", "unit=char n=3", "?!...", ""},
      {"options-spelled-differently", "weight=log,n=2 , unit=word", english, ""},
  };
  for (auto& source : sources) source.input = "hex:" + to_hex(source.input);
  sources.push_back({"long-words-1mb", "", "recipe:words-1mb", ""});
  sources.push_back({"long-words-1mb-trigrams", "n=3 weight=log", "recipe:words-1mb", ""});
  sources.push_back({"long-words-1mb-char4", "unit=char n=4", "recipe:words-1mb", ""});
  sources.push_back({"long-mixed-scripts-256k", "", "recipe:mixed-scripts-256k", ""});
  // Every combination of unit and weight, with several shingle lengths.
  for (const char* unit : {"word", "char"}) {
    for (const char* weight : {"tf", "log", "binary"}) {
      for (const int n : {1, 2, 3, 5, 16}) {
        const std::string options =
            std::string("unit=") + unit + " n=" + std::to_string(n) + " weight=" + weight;
        sources.push_back(
            {std::string("combination-") + unit + "-n" + std::to_string(n) + "-" + weight, options,
             "hex:" + to_hex(english + " " + english.substr(0, 120)), ""});
      }
    }
  }
  return sources;
}

// ---- Computing and reading ----------------------------------------------------

std::string compute_fingerprint(const Vector& vector) {
  std::string error;
  const auto options = parse_options(vector.options, error);
  EXPECT_TRUE(options.has_value()) << vector.name << ": " << error;
  if (!options) return "error";
  FeatureExtractor extractor(*options);
  const auto fingerprint = extractor.fingerprint(decode_input(vector.input));
  if (!fingerprint) return "null";
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(*fingerprint));
  return hex;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1) {
    fields.push_back(line.substr(start, tab - start));
  }
  fields.push_back(line.substr(start));
  return fields;
}

std::vector<Vector> read_golden_file() {
  std::ifstream file(kGoldenFile);
  EXPECT_TRUE(file.good()) << "cannot read " << kGoldenFile;
  std::vector<Vector> vectors;
  std::string line;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto fields = split_tabs(line);
    EXPECT_EQ(fields.size(), 4U) << line;
    if (fields.size() == 4) vectors.push_back({fields[0], fields[1], fields[2], fields[3]});
  }
  return vectors;
}

const char* const kFileHeader =
    "# Golden vectors of the simhash fingerprint format. FROZEN: a row never changes.\n"
    "# Checked by tests/fingerprint/golden_vectors_test.cpp; to add rows see that file.\n"
    "# Columns (tab-separated): name, options (empty = defaults), input, fingerprint.\n"
    "# input: hex:<UTF-8 bytes in hex> or recipe:<name of a deterministic text defined\n"
    "# in the test>. fingerprint: the unsigned 64-bit value as 16 lowercase hex digits,\n"
    "# or null for a text without features.\n";

// ---- Tests --------------------------------------------------------------------

TEST(GoldenVectors, EveryFingerprintIsUnchanged) {
  const auto vectors = read_golden_file();
  EXPECT_GE(vectors.size(), 40U);
  std::set<std::string> names;
  for (const auto& vector : vectors) {
    EXPECT_TRUE(names.insert(vector.name).second) << "duplicate name " << vector.name;
    EXPECT_EQ(compute_fingerprint(vector), vector.fingerprint)
        << vector.name << " [" << vector.options << "]";
  }
}

TEST(GoldenVectors, FileCoversEverySource) {
  std::map<std::string, Vector> in_file;
  for (const auto& vector : read_golden_file()) in_file[vector.name] = vector;
  for (const auto& source : golden_vector_sources()) {
    const auto found = in_file.find(source.name);
    ASSERT_NE(found, in_file.end()) << source.name << " missing: regenerate (see the test file)";
    EXPECT_EQ(found->second.options, source.options) << source.name;
    EXPECT_EQ(found->second.input, source.input) << source.name;
  }
}

TEST(GoldenVectors, NoFeaturesIsNull) {
  for (const auto& vector : read_golden_file()) {
    if (vector.name == "empty" || vector.name == "punctuation-only" ||
        vector.name == "emoji-only" || vector.name == "whitespace-only") {
      EXPECT_EQ(vector.fingerprint, "null") << vector.name;
    }
  }
}

// Writes the file with new vectors appended; only when asked (see the top).
TEST(GoldenVectors, WriteFileWithNewVectors) {
  const char* out_path = std::getenv("SIMHASH_GOLDEN_VECTORS_OUT");
  if (out_path == nullptr || *out_path == '\0') {
    GTEST_SKIP() << "set SIMHASH_GOLDEN_VECTORS_OUT to write a golden file";
  }
  std::ifstream probe(kGoldenFile);
  const std::vector<Vector> existing = probe.good() ? read_golden_file() : std::vector<Vector>{};
  std::set<std::string> names;
  std::ostringstream text;
  text << kFileHeader;
  for (const auto& vector : existing) {
    ASSERT_EQ(compute_fingerprint(vector), vector.fingerprint)
        << vector.name << " changed: the format is frozen, fix the code, not the file";
    names.insert(vector.name);
    text << vector.name << '\t' << vector.options << '\t' << vector.input << '\t'
         << vector.fingerprint << '\n';
  }
  for (auto source : golden_vector_sources()) {
    if (names.count(source.name) != 0) continue;
    source.fingerprint = compute_fingerprint(source);
    text << source.name << '\t' << source.options << '\t' << source.input << '\t'
         << source.fingerprint << '\n';
  }
  std::ofstream out(out_path);
  out << text.str();
  ASSERT_TRUE(out.good()) << "cannot write " << out_path;
}

}  // namespace
}  // namespace simhash
