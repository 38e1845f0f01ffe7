// SPDX-License-Identifier: MIT
// Engine fingerprint speed on the benchmark corpora (tests/support/corpus.h), single
// thread. Every row is one pass over a corpus; the rows run interleaved, one
// pass each per repetition, so that load from other processes hits them
// alike, and are timed in CPU time of the thread. Reported: the median MB/s
// of each row, and its median ratio to the baselines (a plain byte scan, ICU
// word segmentation alone, the scalar accumulator) measured in the same
// repetitions. An extra row segments the texts already converted to UTF-16:
// ICU's own speed on the form the engine's ICU path hands it, so the ceiling
// of that path. Prints a Markdown table.
//
//   engine_speed_benchmark [repetitions]   (default 11)
#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/unistr.h>
#include <unicode/utext.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench_support.h"
#include "corpus.h"
#include "fingerprint/feature_extractor.h"
#include "fingerprint/simhash_options.h"
#include "fingerprint/vote_kernels.h"
#include "text/ascii_words.h"

namespace {

using simhash::bench::median;
using simhash::bench::thread_seconds;

using simhash::bench::Document;

// Keeps results alive so the compiler cannot drop the work.
volatile std::uint64_t g_sink = 0;

std::uint64_t byte_scan(const std::vector<Document>& documents) {
  // Counts spaces: touches every byte, as any tokenizer must.
  std::uint64_t spaces = 0;
  for (const auto& document : documents) {
    for (const char c : document.text) {
      spaces += c == ' ' ? 1 : 0;
    }
  }
  return spaces;
}

// ICU word segmentation alone: the root-locale word BreakIterator over the
// UTF-8 text (no normalization), reading every boundary's rule status.
class IcuSegmentation {
 public:
  IcuSegmentation() {
    UErrorCode status = U_ZERO_ERROR;
    breaker_.reset(icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
    if (U_FAILURE(status)) {
      throw std::runtime_error("cannot create the ICU word break iterator");
    }
  }

  std::uint64_t run(const std::vector<Document>& documents) {
    std::uint64_t words = 0;
    for (const auto& document : documents) {
      UErrorCode status = U_ZERO_ERROR;
      UText text = UTEXT_INITIALIZER;
      utext_openUTF8(&text, document.text.data(), static_cast<int64_t>(document.text.size()),
                     &status);
      breaker_->setText(&text, status);
      if (U_FAILURE(status)) {
        throw std::runtime_error("ICU setText failed");
      }
      for (std::int32_t end = breaker_->next(); end != icu::BreakIterator::DONE;
           end = breaker_->next()) {
        words += breaker_->getRuleStatus() >= UBRK_WORD_NUMBER ? 1 : 0;
      }
      utext_close(&text);
    }
    return words;
  }

  // The same over the texts already in UTF-16, ICU's native form (the
  // engine's ICU path segments its normalized text in UTF-16).
  std::uint64_t run(const std::vector<icu::UnicodeString>& texts) {
    std::uint64_t words = 0;
    for (const auto& text : texts) {
      breaker_->setText(text);
      for (std::int32_t end = breaker_->next(); end != icu::BreakIterator::DONE;
           end = breaker_->next()) {
        words += breaker_->getRuleStatus() >= UBRK_WORD_NUMBER ? 1 : 0;
      }
    }
    return words;
  }

 private:
  std::unique_ptr<icu::BreakIterator> breaker_;
};

// The whole fingerprint of every document, with the ASCII fast path on or
// off and the extractor's accumulator on the kernel active at its creation.
class Fingerprinting {
 public:
  Fingerprinting(const simhash::SimhashOptions& options, const simhash::VoteKernel& kernel,
                 bool fast_path)
      : extractor_(make_extractor(options, kernel)), fast_path_(fast_path) {}

  std::uint64_t run(const std::vector<Document>& documents) {
    simhash::set_ascii_fast_path_enabled(fast_path_);
    std::uint64_t combined = 0;
    for (const auto& document : documents) {
      combined ^= extractor_->fingerprint(document.text).value_or(0);
    }
    simhash::set_ascii_fast_path_enabled(true);
    return combined;
  }

 private:
  static std::unique_ptr<simhash::FeatureExtractor> make_extractor(
      const simhash::SimhashOptions& options, const simhash::VoteKernel& kernel) {
    const simhash::VoteKernel previous = simhash::active_vote_kernel();
    simhash::use_vote_kernel(kernel);
    auto extractor = std::make_unique<simhash::FeatureExtractor>(options);
    simhash::use_vote_kernel(previous);
    return extractor;
  }

  std::unique_ptr<simhash::FeatureExtractor> extractor_;
  bool fast_path_;
};

using Pass = std::function<std::uint64_t(const std::vector<Document>&)>;

struct Row {
  std::string name;
  const std::vector<Document>* corpus;
  Pass pass;
  // Same-run baselines: row indexes of the byte scan and the ICU segmentation
  // of this corpus, and of the scalar-accumulator twin of a fingerprint row.
  int scan_row = -1;
  int segmentation_row = -1;
  int scalar_row = -1;
  std::vector<double> seconds{};
};

// Seconds of CPU time of this thread: unlike wall time, it leaves out the
// time other processes on the shared machine hold the core.
double seconds_of(const Pass& pass, const std::vector<Document>& corpus) {
  const double start = thread_seconds();
  g_sink = g_sink + pass(corpus);
  return thread_seconds() - start;
}

}  // namespace

int main(int argc, char** argv) {
  const int repetitions = argc > 1 ? std::max(1, std::atoi(argv[1])) : 11;

  const std::vector<Document> english = simhash::bench::load_english_corpus();
  std::vector<Document> english_ascii;
  for (const auto& document : english) {
    if (simhash::is_ascii(document.text)) {
      english_ascii.push_back(document);
    }
  }
  const std::vector<Document> chinese = simhash::bench::load_chinese_corpus();
  if (english.empty()) {
    std::fprintf(stderr, "no English corpus under /usr/share/doc\n");
    return 1;
  }

  const simhash::SimhashOptions options;  // the defaults

  IcuSegmentation segmentation;
  std::vector<Row> rows;
  std::vector<std::unique_ptr<std::vector<icu::UnicodeString>>> utf16_corpora;
  auto add_corpus_rows = [&](const std::string& label, const std::vector<Document>& corpus,
                             bool fast_path_rows) {
    if (corpus.empty()) {
      return;
    }
    const int scan = static_cast<int>(rows.size());
    rows.push_back(
        {.name = label + ": plain byte scan (baseline)", .corpus = &corpus, .pass = byte_scan});
    const int icu = static_cast<int>(rows.size());
    rows.push_back({.name = label + ": ICU word segmentation alone (baseline)",
                    .corpus = &corpus,
                    .pass = [&segmentation](const auto& c) { return segmentation.run(c); },
                    .scan_row = scan});
    // Measured in MB/s of the UTF-8 text, like every row.
    auto& utf16 = *utf16_corpora.emplace_back(std::make_unique<std::vector<icu::UnicodeString>>());
    for (const auto& document : corpus) {
      utf16.push_back(icu::UnicodeString::fromUTF8(document.text));
    }
    rows.push_back(
        {.name = label + ": ICU word segmentation alone, text in UTF-16",
         .corpus = &corpus,
         .pass = [&segmentation, &utf16](const auto&) { return segmentation.run(utf16); },
         .scan_row = scan,
         .segmentation_row = icu});
    auto fingerprint_rows = [&](const std::string& path, bool fast_path) {
      const int scalar = static_cast<int>(rows.size());
      for (const auto& kernel : simhash::vote_kernels_on_this_cpu()) {
        auto fingerprinting = std::make_shared<Fingerprinting>(options, kernel, fast_path);
        rows.push_back({.name = label + ": fingerprint, " + path + ", " + std::string(kernel.name) +
                                " accumulator",
                        .corpus = &corpus,
                        .pass = [fingerprinting](const auto& c) { return fingerprinting->run(c); },
                        .scan_row = scan,
                        .segmentation_row = icu,
                        .scalar_row = scalar});
      }
    };
    fingerprint_rows("ICU", false);
    if (fast_path_rows) {
      fingerprint_rows("ASCII fast path", true);
    }
  };
  add_corpus_rows("English, all files", english, true);
  add_corpus_rows("English, pure-ASCII files", english_ascii, true);
  add_corpus_rows("Chinese (manpages-zh)", chinese, false);

  for (auto& row : rows) {
    seconds_of(row.pass, *row.corpus);  // warm-up: caches, ICU data
  }
  for (int repetition = 0; repetition < repetitions; ++repetition) {
    for (auto& row : rows) {
      row.seconds.push_back(seconds_of(row.pass, *row.corpus));
    }
  }

  std::printf("Options: %s; vote kernels on this CPU:", simhash::to_string(options).c_str());
  for (const auto& kernel : simhash::vote_kernels_on_this_cpu()) {
    std::printf(" %s", kernel.name.data());
  }
  std::printf("; %d repetitions, medians of thread CPU time.\n\n", repetitions);
  std::printf("| corpus: row | MB/s | x byte scan | x ICU segmentation | x scalar accumulator |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: |\n");
  for (std::size_t index = 0; index < rows.size(); ++index) {
    const Row& row = rows[index];
    // Median over repetitions of the ratio to a row timed in the same one.
    auto versus = [&](int other) -> std::string {
      if (other < 0 || other == static_cast<int>(index)) {
        return "";
      }
      std::vector<double> ratios;
      for (int r = 0; r < repetitions; ++r) {
        ratios.push_back(rows[other].seconds[r] / row.seconds[r]);
      }
      char text[32];
      std::snprintf(text, sizeof text, "%.3f", median(ratios));
      return text;
    };
    const double megabytes = static_cast<double>(simhash::bench::total_bytes(*row.corpus)) / 1e6;
    std::printf("| %s | %.1f | %s | %s | %s |\n", row.name.c_str(), megabytes / median(row.seconds),
                versus(row.scan_row).c_str(), versus(row.segmentation_row).c_str(),
                versus(row.scalar_row).c_str());
  }
  std::printf(
      "\nCorpora: English %zu files, %.2f MB (of which %zu pure-ASCII files, %.2f MB); "
      "Chinese %zu paragraphs, %.2f MB.\n",
      english.size(), static_cast<double>(simhash::bench::total_bytes(english)) / 1e6,
      english_ascii.size(), static_cast<double>(simhash::bench::total_bytes(english_ascii)) / 1e6,
      chinese.size(), static_cast<double>(simhash::bench::total_bytes(chinese)) / 1e6);
  return 0;
}
