// SPDX-License-Identifier: MIT
// The benchmark corpora, loaded from files every Debian machine has (header
// only: each bench/*.cpp is its own executable and includes this).
//   English: every /usr/share/doc/*/copyright and /usr/share/common-licenses/*
//     (regular files, deduplicated by content; about 415 texts).
//   Chinese: paragraphs of the manual pages of Debian's manpages-zh package
//     (`scripts/install-deps.sh --bench`), gzip'd roff under /usr/share/man/zh_CN
//     and zh_TW, read with zcat and stripped of roff requests and escapes;
//     either single paragraphs or runs of them as long as English documents.
//   English paragraphs: paragraphs of the English corpus about as long as the
//     Chinese ones.
// Documents come back sorted by path, so every run sees the same order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_set>
#include <utility>
#include <vector>

namespace simhash::bench {

struct Document {
  std::string source;  // the file it came from
  std::string text;
};

namespace corpus_detail {

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream stream(path, std::ios::binary);
  std::ostringstream content;
  content << stream.rdbuf();
  return content.str();
}

inline std::vector<std::filesystem::path> sorted_regular_files(
    const std::vector<std::filesystem::path>& candidates) {
  std::vector<std::filesystem::path> files;
  for (const auto& path : candidates) {
    std::error_code error;
    // is_regular_file follows symlinks; a dangling one is skipped.
    if (std::filesystem::is_regular_file(path, error)) {
      files.push_back(path);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Keeps the first document of each distinct text.
inline std::vector<Document> deduplicate(std::vector<Document> documents) {
  std::unordered_set<std::string> seen;
  std::vector<Document> unique;
  for (auto& document : documents) {
    if (!document.text.empty() && seen.insert(document.text).second) {
      unique.push_back(std::move(document));
    }
  }
  return unique;
}

// The decompressed bytes of a gzip file, through zcat (no zlib dependency).
inline std::string read_gzip(const std::filesystem::path& path) {
  std::string quoted = "'";
  for (const char c : path.string()) {
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  quoted += "'";
  const std::string command = "zcat -- " + quoted + " 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::string content;
  if (!pipe) {
    return content;
  }
  char buffer[65536];
  std::size_t read = 0;
  while ((read = std::fread(buffer, 1, sizeof buffer, pipe.get())) > 0) {
    content.append(buffer, read);
  }
  return content;
}

// Removes roff escapes from one line of text: fonts (\fB, \f(CW, \f[..]),
// special characters (\(xx, \[..]), strings (\*x, \*(xx), sizes (\s+1),
// zero-width marks (\&, \|, \^, \,, \/, \c) and comments (\"); \- and \e
// become '-' and '\'.
inline std::string strip_roff_escapes(std::string_view line) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '\\' || i + 1 == line.size()) {
      out += line[i];
      continue;
    }
    const char escape = line[++i];
    auto skip_name = [&]() {  // the name after \f, \*, \( forms: x, (xx or [name]
      if (i + 1 >= line.size()) return;
      if (line[i + 1] == '(') {
        i = std::min(i + 3, line.size() - 1);
      } else if (line[i + 1] == '[') {
        const std::size_t close = line.find(']', i + 1);
        i = close == std::string_view::npos ? line.size() - 1 : close;
      } else {
        ++i;
      }
    };
    switch (escape) {
      case '"':
        return out;
      case 'f':
      case '*':
      case 'n':
        skip_name();
        break;
      case '(':
        i = std::min(i + 2, line.size() - 1);
        break;
      case '[': {
        const std::size_t close = line.find(']', i);
        i = close == std::string_view::npos ? line.size() - 1 : close;
        break;
      }
      case 's':
        if (i + 1 < line.size() && (line[i + 1] == '+' || line[i + 1] == '-')) ++i;
        while (i + 1 < line.size() && line[i + 1] >= '0' && line[i + 1] <= '9') ++i;
        break;
      case '-':
        out += '-';
        break;
      case 'e':
      case '\\':
        out += '\\';
        break;
      case ' ':
      case '~':
        out += ' ';
        break;
      case '&':
      case '|':
      case '^':
      case ',':
      case '/':
      case 'c':
      case '%':
        break;
      default:
        out += escape;
    }
  }
  return out;
}

// Number of CJK ideographs (U+3400..U+9FFF, enough to tell Chinese prose).
inline std::size_t count_ideographs(std::string_view utf8) {
  std::size_t count = 0;
  for (std::size_t i = 0; i + 2 < utf8.size(); ++i) {
    const auto lead = static_cast<unsigned char>(utf8[i]);
    if (lead >= 0xE3 && lead <= 0xE9) {
      const unsigned code =
          ((lead & 0x0FU) << 12U) | ((static_cast<unsigned char>(utf8[i + 1]) & 0x3FU) << 6U);
      if (code >= 0x3400 && code <= 0x9FFF) {
        ++count;
        i += 2;
      }
    }
  }
  return count;
}

// Splits a roff page into paragraphs of running text. Font requests (.B, .I,
// .BR, ...) contribute their arguments; other requests and blank lines end
// the paragraph.
inline std::vector<std::string> roff_paragraphs(std::string_view page) {
  std::vector<std::string> paragraphs;
  std::string current;
  auto flush = [&]() {
    if (!current.empty()) paragraphs.push_back(std::move(current));
    current.clear();
  };
  std::size_t start = 0;
  while (start < page.size()) {
    std::size_t end = page.find('\n', start);
    if (end == std::string_view::npos) end = page.size();
    std::string_view line = page.substr(start, end - start);
    start = end + 1;
    if (line.empty()) {
      flush();
      continue;
    }
    if (line[0] == '.' || line[0] == '\'') {
      const std::size_t space = line.find_first_of(" \t");
      const std::string_view request =
          line.substr(1, space == std::string_view::npos ? std::string_view::npos : space - 1);
      static const std::unordered_set<std::string_view> kFontRequests = {
          "B", "I", "BR", "RB", "BI", "IB", "IR", "RI", "SM", "SB"};
      if (space != std::string_view::npos && kFontRequests.count(request) != 0) {
        std::string argument;
        for (const char c : line.substr(space + 1)) {
          if (c != '"') argument += c;
        }
        line = argument;
        const std::string text = strip_roff_escapes(line);
        if (!current.empty()) current += ' ';
        current += text;
        continue;
      }
      flush();
      continue;
    }
    const std::string text = strip_roff_escapes(line);
    if (!current.empty() && !text.empty()) current += ' ';
    current += text;
  }
  flush();
  return paragraphs;
}

}  // namespace corpus_detail

// English: the copyright files and common licenses, deduplicated by content.
inline std::vector<Document> load_english_corpus() {
  std::vector<std::filesystem::path> candidates;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/share/doc", error)) {
    candidates.push_back(entry.path() / "copyright");
  }
  for (const auto& entry :
       std::filesystem::directory_iterator("/usr/share/common-licenses", error)) {
    candidates.push_back(entry.path());
  }
  std::vector<Document> documents;
  for (const auto& path : corpus_detail::sorted_regular_files(candidates)) {
    documents.push_back({path.string(), corpus_detail::read_file(path)});
  }
  return corpus_detail::deduplicate(std::move(documents));
}

namespace corpus_detail {

// The manual pages of manpages-zh, sorted by path.
inline std::vector<std::filesystem::path> chinese_manual_pages() {
  std::vector<std::filesystem::path> candidates;
  for (const char* root : {"/usr/share/man/zh_CN", "/usr/share/man/zh_TW"}) {
    std::error_code error;
    for (auto it = std::filesystem::recursive_directory_iterator(root, error);
         !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
      if (it->path().extension() == ".gz") candidates.push_back(it->path());
    }
  }
  return sorted_regular_files(candidates);
}

}  // namespace corpus_detail

// Chinese: manpages-zh paragraphs with at least `min_ideographs` CJK
// ideographs and at most `max_bytes` bytes, deduplicated by content. Empty
// when manpages-zh is not installed.
inline std::vector<Document> load_chinese_corpus(std::size_t min_ideographs = 60,
                                                 std::size_t max_bytes = 4000) {
  std::vector<Document> documents;
  for (const auto& path : corpus_detail::chinese_manual_pages()) {
    const std::string page = corpus_detail::read_gzip(path);
    int index = 0;
    for (auto& paragraph : corpus_detail::roff_paragraphs(page)) {
      ++index;
      if (paragraph.size() <= max_bytes &&
          corpus_detail::count_ideographs(paragraph) >= min_ideographs) {
        documents.push_back({path.string() + "#" + std::to_string(index), std::move(paragraph)});
      }
    }
  }
  return corpus_detail::deduplicate(std::move(documents));
}

// Chinese documents of about the English corpus's length: consecutive
// paragraphs of one manual page (those with at least 10 ideographs, so not
// option lists) joined by blank lines until the document holds at least
// `min_ideographs` ideographs; a page's remainder shorter than that is
// dropped. Deduplicated by content.
inline std::vector<Document> load_chinese_long_documents(std::size_t min_ideographs = 700) {
  std::vector<Document> documents;
  for (const auto& path : corpus_detail::chinese_manual_pages()) {
    const std::string page = corpus_detail::read_gzip(path);
    std::string current;
    std::size_t ideographs = 0;
    int index = 0;
    for (const auto& paragraph : corpus_detail::roff_paragraphs(page)) {
      const std::size_t count = corpus_detail::count_ideographs(paragraph);
      if (count < 10) continue;
      if (!current.empty()) current += "\n\n";
      current += paragraph;
      ideographs += count;
      if (ideographs >= min_ideographs) {
        documents.push_back({path.string() + "@" + std::to_string(++index), std::move(current)});
        current.clear();
        ideographs = 0;
      }
    }
  }
  return corpus_detail::deduplicate(std::move(documents));
}

// English texts of about the Chinese paragraphs' length: the paragraphs
// (runs of lines between blank lines) of the English corpus's documents
// that hold `min_words` to `max_words` whitespace-separated words,
// deduplicated by content. They let the quality benchmark separate the
// effect of length from the effect of language.
inline std::vector<Document> load_english_paragraphs(std::size_t min_words = 40,
                                                     std::size_t max_words = 120) {
  std::vector<Document> paragraphs;
  for (const auto& document : load_english_corpus()) {
    std::string current;
    std::size_t words = 0;
    int index = 0;
    auto finish = [&] {
      if (words >= min_words && words <= max_words) {
        paragraphs.push_back({document.source + "@" + std::to_string(++index), current});
      }
      current.clear();
      words = 0;
    };
    std::size_t start = 0;
    while (start <= document.text.size()) {
      std::size_t end = document.text.find('\n', start);
      if (end == std::string::npos) end = document.text.size();
      const std::string_view line(document.text.data() + start, end - start);
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
        finish();
      } else {
        if (!current.empty()) current += '\n';
        current += line;
        bool in_word = false;
        for (const char c : line) {
          const bool space = c == ' ' || c == '\t' || c == '\r';
          words += !space && !in_word ? 1 : 0;
          in_word = !space;
        }
      }
      start = end + 1;
    }
    finish();
  }
  return corpus_detail::deduplicate(std::move(paragraphs));
}

// Total size of the documents' texts in bytes.
inline std::size_t total_bytes(const std::vector<Document>& documents) {
  std::size_t bytes = 0;
  for (const auto& document : documents) bytes += document.text.size();
  return bytes;
}

}  // namespace simhash::bench
