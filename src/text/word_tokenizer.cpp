// SPDX-License-Identifier: MIT
// ICU word segmentation over the normalized text in UTF-16: ICU's break
// iterator reads UTF-16 natively, while a UTF-8 UText costs it a conversion
// of each chunk and a map back to byte offsets at every boundary (it
// segments UTF-16 1.2 times as fast). Only the kept tokens are converted back
// to UTF-8, the form that is hashed.
#include "text/word_tokenizer.h"

#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/ubrk.h>
#include <unicode/utext.h>

#include <cstdint>
#include <string>

#include "text/ascii_words.h"
#include "text/icu_error.h"
#include "text/symbol_runs.h"
#include "text/utf16_normalizer.h"
#include "text/utf16_to_utf8.h"

namespace simhash {
namespace {

// Closes a UText opened on the stack when the scope ends.
class ScopedUText {
 public:
  explicit ScopedUText(const icu::UnicodeString& utf16) {
    UErrorCode status = U_ZERO_ERROR;
    utext_openConstUnicodeString(&text_, &utf16, &status);
    throw_if_icu_failed(status, "ICU cannot open the text");
  }
  ~ScopedUText() { utext_close(&text_); }
  ScopedUText(const ScopedUText&) = delete;
  ScopedUText& operator=(const ScopedUText&) = delete;

  UText* get() { return &text_; }

 private:
  UText text_ = UTEXT_INITIALIZER;
};

}  // namespace

WordTokenizer::WordTokenizer(SymbolTokens symbols)
    : symbols_(symbols), normalizer_(std::make_unique<Utf16Normalizer>()) {
  UErrorCode status = U_ZERO_ERROR;
  word_breaker_.reset(icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
  if (U_FAILURE(status) || !word_breaker_) {
    throw_icu_error(status, "cannot create the ICU word break iterator");
  }
}

WordTokenizer::~WordTokenizer() = default;

void WordTokenizer::tokenize(std::string_view utf8, TokenSink on_token) {
  tokenize_split(utf8, on_token, symbols_ != SymbolTokens::drop ? &on_token : nullptr);
}

void WordTokenizer::tokenize_words_and_symbols(std::string_view utf8, TokenSink on_word,
                                               TokenSink on_symbol) {
  tokenize_split(utf8, on_word, &on_symbol);
}

void WordTokenizer::tokenize_split(std::string_view utf8, TokenSink on_word,
                                   const TokenSink* on_symbol) {
  if (!ascii_fast_path_enabled()) {
    tokenize_with_icu(utf8, on_word, on_symbol);
    return;
  }
  // All-ASCII lines: the same tokens as ICU, without ICU (ascii_words.h).
  for_each_ascii_line_run(utf8, [&](std::string_view run, bool ascii) {
    if (ascii && on_symbol != nullptr) {
      tokenize_ascii_with_symbols(run, on_word, *on_symbol);
    } else if (ascii) {
      tokenize_ascii(run, lowercase_, on_word);
    } else {
      tokenize_with_icu(run, on_word, on_symbol);
    }
  });
}

void WordTokenizer::tokenize_with_icu(std::string_view utf8, TokenSink on_word,
                                      const TokenSink* on_symbol) {
  normalizer_->normalize(utf8, normalized_);
  ScopedUText text(normalized_);
  const std::u16string_view normalized(normalized_.getBuffer(),
                                       static_cast<std::size_t>(normalized_.length()));
  UErrorCode status = U_ZERO_ERROR;
  // The break iterator keeps a shallow clone of the UText, which points into
  // normalized_; it is re-targeted by the next call before it is used again.
  word_breaker_->setText(text.get(), status);
  throw_if_icu_failed(status, "ICU word segmentation failed");
  SymbolRuns symbols(symbols_kept());
  std::int32_t start = word_breaker_->first();
  for (std::int32_t end = word_breaker_->next(); end != icu::BreakIterator::DONE;
       start = end, end = word_breaker_->next()) {
    const std::u16string_view segment =
        normalized.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(end - start));
    // Rule status ranges (ubrk.h): NONE [0,100), NUMBER [100,200), LETTER,
    // KANA, IDEO above; only the word-like ones are tokens.
    if (word_breaker_->getRuleStatus() >= UBRK_WORD_NUMBER) {
      if (on_symbol != nullptr) {
        symbols.flush(*on_symbol);
      }
      on_word(utf16_to_utf8(segment, token_));
    } else if (on_symbol != nullptr) {
      // ICU cuts "++" into two segments: the run spans them (SymbolRuns).
      symbols.feed(utf16_to_utf8(segment, gap_), *on_symbol);
    }
  }
  if (on_symbol != nullptr) {
    symbols.flush(*on_symbol);
  }
}

void WordTokenizer::tokenize_ascii_with_symbols(std::string_view ascii, TokenSink on_word,
                                                TokenSink on_symbol) {
  // The fast path's words are views into lowercase_: what lies between two
  // of them is exactly what ICU's non-word segments cover there.
  SymbolRuns symbols(symbols_kept());
  std::size_t gap_start = 0;
  tokenize_ascii(ascii, lowercase_, [&](std::string_view word) {
    const auto word_start = static_cast<std::size_t>(word.data() - lowercase_.data());
    symbols.feed(std::string_view(lowercase_).substr(gap_start, word_start - gap_start), on_symbol);
    symbols.flush(on_symbol);
    on_word(word);
    gap_start = word_start + word.size();
  });
  symbols.feed(std::string_view(lowercase_).substr(gap_start), on_symbol);
  symbols.flush(on_symbol);
}

}  // namespace simhash
