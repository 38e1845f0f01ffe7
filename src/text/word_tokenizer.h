// SPDX-License-Identifier: MIT
// Text to word tokens: NFKC_Casefold normalization, then the ICU word break
// iterator (root locale: UAX #29 plus dictionary segmentation of Chinese,
// Japanese, Thai, Khmer, Lao, Burmese), keeping only word-like segments:
// numbers, letters, kana and ideographs, never spaces, punctuation or emoji;
// with option symbols=keep or strict also the runs of symbol characters
// between them (text/symbol_runs.h).
#pragma once

#include <concepts>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <unicode/unistr.h>

#include "text/symbol_tokens.h"

U_NAMESPACE_BEGIN
class BreakIterator;
U_NAMESPACE_END

namespace simhash {

class Utf16Normalizer;

class TokenSink;

// Anything TokenSink can refer to: a callable taking a token (but not another
// TokenSink, so the converting constructor never hides the copy constructor).
template <typename Callable>
concept TokenCallback = std::invocable<Callable&, std::string_view> &&
    !std::same_as<std::remove_cvref_t<Callable>, TokenSink>;

// A non-owning reference to a callable taking one token; cheap to pass by
// value, valid only while the callable it was made from lives.
class TokenSink {
 public:
  // Implicit on purpose: it adapts a lambda argument.
  template <TokenCallback Callable>
  // NOLINTNEXTLINE(google-explicit-constructor,bugprone-forwarding-reference-overload)
  TokenSink(Callable&& callable)
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(callable)))),
        call_([](void* object, std::string_view token) {
          (*static_cast<std::remove_reference_t<Callable>*>(object))(token);
        }) {}

  void operator()(std::string_view token) const { call_(object_, token); }

 private:
  void* object_;
  void (*call_)(void*, std::string_view);
};

// Holds a normalizer and a break iterator; reuse one across texts. Not
// thread-safe. ICU failures throw std::runtime_error.
class WordTokenizer {
 public:
  // symbols keep or strict: each run of symbol characters between words (+,
  // <=, &, C++'s ++) is a token too, in text order.
  explicit WordTokenizer(SymbolTokens symbols = SymbolTokens::drop);
  ~WordTokenizer();
  WordTokenizer(const WordTokenizer&) = delete;
  WordTokenizer& operator=(const WordTokenizer&) = delete;

  // Calls `on_token` with each word token of `utf8` (well-formed UTF-8, see
  // repair_utf8), in text order. Tokens are normalized, never empty and never
  // contain U+0020. A token's bytes are valid only during the call.
  // This and tokenize_words_and_symbols() are the only entry points of
  // tokenization, one implementation behind both: any faster path for some
  // inputs must live there and give exactly the same tokens.
  void tokenize(std::string_view utf8, TokenSink on_token);

  // One cut for two settings of symbols: the tokens of tokenize() with
  // symbols kept (as this tokenizer's option says; keep's when it drops
  // them), in text order, the word tokens to `on_word` and the symbol runs
  // to `on_symbol`. The word tokens alone are exactly tokenize()'s under
  // symbols=drop: a symbol run only ever adds a token between two words,
  // never changes one.
  void tokenize_words_and_symbols(std::string_view utf8, TokenSink on_word, TokenSink on_symbol);

 private:
  // The one implementation behind both entry points; on_symbol null: symbol
  // runs are dropped.
  void tokenize_split(std::string_view utf8, TokenSink on_word, const TokenSink* on_symbol);
  void tokenize_with_icu(std::string_view utf8, TokenSink on_word, const TokenSink* on_symbol);
  void tokenize_ascii_with_symbols(std::string_view ascii, TokenSink on_word, TokenSink on_symbol);

  // The runs a symbol-keeping cut collects: this tokenizer's, or keep's
  // when it drops them (tokenize_words_and_symbols).
  SymbolTokens symbols_kept() const {
    return symbols_ == SymbolTokens::drop ? SymbolTokens::keep : symbols_;
  }

  SymbolTokens symbols_;
  std::unique_ptr<Utf16Normalizer> normalizer_;
  std::unique_ptr<icu::BreakIterator> word_breaker_;
  std::string lowercase_;          // reused buffer: an ASCII line, lowercased
  icu::UnicodeString normalized_;  // reused buffer: the normalized text, UTF-16
  std::string token_;              // reused buffer: one token, UTF-8
  std::string gap_;                // reused buffer: the text between two words, UTF-8
};

}  // namespace simhash
