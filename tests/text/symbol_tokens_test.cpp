// SPDX-License-Identifier: MIT
// symbols=keep: runs of symbol characters between words are
// tokens, sentence punctuation is not; the ASCII fast path and ICU agree;
// the check's similarity against a brute-force reference on random texts;
// pairs that differ only in a symbol are told apart, pairs that differ only
// in case, whitespace or sentence punctuation are not.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fast_path_switch.h"
#include "fingerprint/feature_extractor.h"
#include "fingerprint/feature_similarity.h"
#include "fingerprint/simhash_options.h"
#include "random_symbol_texts.h"
#include "text/symbol_runs.h"
#include "text/utf8_repair.h"
#include "text/word_tokenizer.h"

namespace simhash {
namespace {

using Tokens = std::vector<std::string>;

Tokens tokens_of(std::string_view text, SymbolTokens symbols, bool fast_path = true) {
  WordTokenizer tokenizer(symbols);
  return testing::tokens_with_fast_path(tokenizer, text, fast_path);
}

// tokenize_words_and_symbols' two streams: every token in order, and the
// words alone.
struct SplitTokens {
  Tokens all;
  Tokens words;
};

SplitTokens split_tokens(WordTokenizer& tokenizer, std::string_view input) {
  SplitTokens split;
  tokenizer.tokenize_words_and_symbols(
      input,
      [&](std::string_view word) {
        split.all.emplace_back(word);
        split.words.emplace_back(word);
      },
      [&](std::string_view symbols) { split.all.emplace_back(symbols); });
  return split;
}

SimhashOptions options_of(std::string_view text) {
  std::string error;
  const auto options = parse_options(text, error);
  EXPECT_TRUE(options.has_value()) << error;
  return options.value_or(SimhashOptions{});
}

double jaccard(std::string_view a, std::string_view b, std::string_view options) {
  FeatureExtractor extractor(options_of(options));
  FeatureVector x;
  FeatureVector y;
  extractor.feature_vector(a, x);
  extractor.feature_vector(b, y);
  return weighted_jaccard(x, y);
}

TEST(SymbolTokens, SymbolRunsAreTokensOnBothPaths) {
  for (const bool fast_path : {true, false}) {
    EXPECT_EQ(tokens_of("Same as a < b.", SymbolTokens::keep, fast_path),
              (Tokens{"same", "as", "a", "<", "b"}));
    EXPECT_EQ(tokens_of("For C++ source code", SymbolTokens::keep, fast_path),
              (Tokens{"for", "c", "++", "source", "code"}));
    EXPECT_EQ(tokens_of("Same as a ** b.", SymbolTokens::keep, fast_path),
              (Tokens{"same", "as", "a", "**", "b"}));
    EXPECT_EQ(tokens_of("Return ~self, or -self!", SymbolTokens::keep, fast_path),
              (Tokens{"return", "~", "self", "or", "self"}));
    EXPECT_EQ(tokens_of("x<=y && 50% of $3", SymbolTokens::keep, fast_path),
              (Tokens{"x", "<=", "y", "&&", "50", "%", "of", "$", "3"}));
    // A dash or sentence mark touching a symbol is part of the operator;
    // after one only a dash is, so "C++." still ends a sentence.
    EXPECT_EQ(tokens_of("a != b, a -= b; x := y", SymbolTokens::keep, fast_path),
              (Tokens{"a", "!=", "b", "a", "-=", "b", "x", ":=", "y"}));
    EXPECT_EQ(tokens_of("p->q <- r. Use C++. x++;", SymbolTokens::keep, fast_path),
              (Tokens{"p", "->", "q", "<-", "r", "use", "c", "++", "x", "++"}));
    // Sentence punctuation, quotes, brackets and dashes are not symbols.
    EXPECT_EQ(
        tokens_of("\"Hello,\" (she said); well-known: yes? no!", SymbolTokens::keep, fast_path),
        (Tokens{"hello", "she", "said", "well", "known", "yes", "no"}));
  }
  // Off, the tokens are the frozen ones of simhash().
  EXPECT_EQ(tokens_of("Same as a < b.", SymbolTokens::drop), (Tokens{"same", "as", "a", "b"}));
  EXPECT_EQ(tokens_of("For C++ source", SymbolTokens::drop), (Tokens{"for", "c", "source"}));
}

TEST(SymbolTokens, NonAsciiSymbolsAndEmojiSequences) {
  EXPECT_EQ(tokens_of("a ≤ b, 5 €", SymbolTokens::keep), (Tokens{"a", "≤", "b", "5", "€"}));
  // An emoji with a skin tone and a ZWJ sequence stay one run each (the
  // normalization drops U+200D, a default ignorable), as does a symbol with a
  // combining mark (U+20D2 LONG VERTICAL LINE OVERLAY on '=').
  EXPECT_EQ(tokens_of("ok \U0001F44D\U0001F3FD and \U0001F469\u200D\U0001F4BB", SymbolTokens::keep),
            (Tokens{"ok", "\U0001F44D\U0001F3FD", "and", "\U0001F469\U0001F4BB"}));
  EXPECT_EQ(tokens_of("a =\u20D2 b", SymbolTokens::keep), (Tokens{"a", "=\u20D2", "b"}));
  // Full-width and CJK sentence punctuation are dropped (after NFKC).
  EXPECT_EQ(tokens_of("好。是，ＡＢ＋ＣＤ", SymbolTokens::keep),
            (Tokens{"好", "是", "ab", "+", "cd"}));
  EXPECT_FALSE(is_symbol_character(U'。'));
  EXPECT_FALSE(is_symbol_character(U'«'));
  EXPECT_FALSE(is_symbol_character(U'-'));
  EXPECT_TRUE(is_symbol_character(U'&'));
  EXPECT_TRUE(is_symbol_character(U'/'));
}

// symbol_class (a table for ASCII) answers what the three functions answer,
// for every character of the Basic Multilingual Plane (beyond it the same
// function asks ICU, as below ASCII's table it does not).
TEST(SymbolTokens, SymbolClassEqualsTheFunctions) {
  for (UChar32 c = 0; c <= 0xFFFF; ++c) {
    const std::uint8_t kind = symbol_class(c, SymbolTokens::keep);
    ASSERT_EQ((kind & kSymbolCharacter) != 0, is_symbol_character(c)) << c;
    ASSERT_EQ((kind & kContinuesRun) != 0,
              extends_symbol_run(c) || u_charType(c) == U_DASH_PUNCTUATION)
        << c;
    ASSERT_EQ((kind & kJoinsRun) != 0, joins_symbol_run(c)) << c;
    const std::uint8_t strict = symbol_class(c, SymbolTokens::strict);
    const bool bracket = c == U'[' || c == U']' || c == U'{' || c == U'}';
    ASSERT_EQ((strict & kSymbolCharacter) != 0,
              bracket || (is_symbol_character(c) && !is_bullet(c) && !is_dash(c)))
        << c;
    ASSERT_EQ((strict & kDash) != 0, is_dash(c)) << c;
    ASSERT_EQ((strict & kContinuesRun) != 0, extends_symbol_run(c) || is_dash(c)) << c;
    ASSERT_EQ((strict & kJoinsRun) != 0, joins_symbol_run(c) || is_dash(c)) << c;
    ASSERT_EQ((strict & kSpace) != 0, u_isUWhiteSpace(c) != 0) << c;
  }
}

// symbols=strict: brackets and braces, and a dash that stands alone or
// leads a word, count; every dash is "-"; bullets and list markers never
// count; keep's operators are as they were.
TEST(SymbolTokens, StrictCountsBracketsBracesAndLoneDashes) {
  const SymbolTokens strict = SymbolTokens::strict;
  for (const bool fast_path : {true, false}) {
    EXPECT_EQ(tokens_of("Same as a[b].", strict, fast_path),
              (Tokens{"same", "as", "a", "[", "b", "]"}));
    EXPECT_EQ(tokens_of("Same as a - b.", strict, fast_path),
              (Tokens{"same", "as", "a", "-", "b"}));
    EXPECT_EQ(tokens_of("if (foobar) { waldo(); }", strict, fast_path),
              (Tokens{"if", "foobar", "{", "waldo", "}"}));
    EXPECT_EQ(tokens_of("Use --cluster, not -v.", strict, fast_path),
              (Tokens{"use", "-", "cluster", "not", "-", "v"}));
    EXPECT_EQ(tokens_of("x = -1", strict, fast_path), (Tokens{"x", "=", "-", "1"}));
    EXPECT_EQ(tokens_of("p->q <- r, a != b", strict, fast_path),
              (Tokens{"p", "->", "q", "<-", "r", "a", "!=", "b"}));
    // Hyphens inside and after words, list markers, bullets: no token.
    EXPECT_EQ(tokens_of("well-known pre- and post-war", strict, fast_path),
              (Tokens{"well", "known", "pre", "and", "post", "war"}));
    EXPECT_EQ(tokens_of("- one\n* two\n+ three\n  -- four", strict, fast_path),
              (Tokens{"one", "two", "three", "four"}));
    EXPECT_EQ(tokens_of("a * b + c", strict, fast_path), (Tokens{"a", "*", "b", "+", "c"}));
    EXPECT_EQ(tokens_of("-v prints more\n-q less", strict, fast_path),
              (Tokens{"-", "v", "prints", "more", "-", "q", "less"}));
  }
  EXPECT_EQ(tokens_of("a — b – c − d -- e", strict),
            (Tokens{"a", "-", "b", "-", "c", "-", "d", "-", "e"}));
  EXPECT_EQ(tokens_of("• one\n· two ● three", strict), (Tokens{"one", "two", "three"}));
  EXPECT_EQ(tokens_of("x —> y", strict), (Tokens{"x", "->", "y"}));
  // Lines of other scripts go through ICU, a collector of their own each.
  EXPECT_EQ(tokens_of("a -\n- Größe [x]\n-v", strict),
            (Tokens{"a", "-", "grösse", "[", "x", "]", "-", "v"}));
  EXPECT_FALSE(is_bullet(U'-'));
  EXPECT_TRUE(is_bullet(U'•'));
  EXPECT_TRUE(is_dash(U'−'));
}

// Random ASCII texts dense in symbols, punctuation and ICU's joiners ('.',
// '\'', ',', '_', '@', digits): the fast path's symbol runs equal ICU's.
TEST(SymbolTokens, FastPathEqualsIcuOnRandomAscii) {
  constexpr std::string_view kAlphabet = "ab Z9_@.',;:!?\"()[]{}-+<>=&*/%~|^#$\\`\n\t";
  for (const SymbolTokens symbols : {SymbolTokens::keep, SymbolTokens::strict}) {
    std::mt19937 random(34);
    WordTokenizer tokenizer(symbols);
    for (int round = 0; round < 3000; ++round) {
      std::string text(random() % 24, ' ');
      for (char& c : text) {
        c = kAlphabet[random() % kAlphabet.size()];
      }
      ASSERT_EQ(testing::tokens_with_fast_path(tokenizer, text, true),
                testing::tokens_with_fast_path(tokenizer, text, false))
          << "text: [" << text << "] strict " << (symbols == SymbolTokens::strict);
    }
  }
}

// tokenize_words_and_symbols (one cut serving symbols=keep and =drop):
// words and symbol runs together, in order, are exactly the tokens under
// symbols=keep, and the words alone exactly those under symbols=drop, on
// both tokenizer paths and whatever the tokenizer's own option. The same
// for a strict tokenizer, whose split gives strict's runs.
TEST(SymbolTokens, WordsAndSymbolsSplitOfAStrictTokenizerEqualsBothSettings) {
  std::mt19937 random(3436);
  WordTokenizer strict(SymbolTokens::strict);
  WordTokenizer dropping(SymbolTokens::drop);
  for (int round = 0; round < 500; ++round) {
    const std::string text = testing::random_multiscript_text(random);
    std::string repaired;
    const std::string_view input = repair_utf8(text, repaired);
    for (const bool fast_path : {true, false}) {
      const Tokens kept = testing::tokens_with_fast_path(strict, input, fast_path);
      const Tokens dropped = testing::tokens_with_fast_path(dropping, input, fast_path);
      const testing::FastPathSwitch use(fast_path);
      const SplitTokens split = split_tokens(strict, input);
      ASSERT_EQ(split.all, kept) << "[" << input << "] fast path " << fast_path;
      ASSERT_EQ(split.words, dropped) << "[" << input << "] fast path " << fast_path;
    }
  }
}

TEST(SymbolTokens, WordsAndSymbolsSplitEqualsBothSettings) {
  std::mt19937 random(3435);
  WordTokenizer keeping(SymbolTokens::keep);
  WordTokenizer dropping(SymbolTokens::drop);
  int with_symbols = 0;
  int with_icu_lines = 0;
  for (int round = 0; round < 1500; ++round) {
    const std::string text = testing::random_multiscript_text(random);
    std::string repaired;
    const std::string_view input = repair_utf8(text, repaired);  // the tokenizer's input
    for (const bool fast_path : {true, false}) {
      const Tokens kept = testing::tokens_with_fast_path(keeping, input, fast_path);
      const Tokens dropped = testing::tokens_with_fast_path(dropping, input, fast_path);
      for (WordTokenizer* tokenizer : {&keeping, &dropping}) {
        const testing::FastPathSwitch use(fast_path);
        const SplitTokens split = split_tokens(*tokenizer, input);
        ASSERT_EQ(split.all, kept) << "[" << input << "] fast path " << fast_path;
        ASSERT_EQ(split.words, dropped) << "[" << input << "] fast path " << fast_path;
      }
      with_symbols += kept.size() > dropped.size() ? 1 : 0;
    }
    with_icu_lines +=
        input.find('\n') != std::string_view::npos &&
                std::any_of(input.begin(), input.end(), [](char c) { return (c & 0x80) != 0; })
            ? 1
            : 0;
  }
  EXPECT_GT(with_symbols, 1000) << "too few texts had symbol runs";
  EXPECT_GT(with_icu_lines, 200) << "too few texts mixed ASCII and other lines";
}

// A tokenizer written independently for texts of lowercase words, symbol
// characters and sentence punctuation, where punctuation is always followed
// by a space (so ICU never joins it into a word): words are runs of a-z,
// symbols runs of "+<>=&*/%~|^#$", anything else separates.
Tokens reference_tokens(std::string_view text) {
  constexpr std::string_view kSymbols = "+<>=&*/%~|^#$";
  Tokens tokens;
  std::string current;
  int kind = 0;  // 0 none, 1 word, 2 symbols
  for (const char c : text) {
    const int c_kind = (c >= 'a' && c <= 'z')                       ? 1
                       : kSymbols.find(c) != std::string_view::npos ? 2
                                                                    : 0;
    if (c_kind != kind && !current.empty()) {
      tokens.push_back(current);
      current.clear();
    }
    kind = c_kind;
    if (c_kind != 0) {
      current.push_back(c);
    }
  }
  if (!current.empty()) {
    tokens.push_back(current);
  }
  return tokens;
}

std::set<std::string> reference_shingles(const Tokens& tokens, std::size_t n) {
  std::set<std::string> shingles;
  if (tokens.empty()) {
    return shingles;
  }
  const std::size_t count = tokens.size() < n ? 1 : tokens.size() - n + 1;
  for (std::size_t start = 0; start < count; ++start) {
    std::string shingle;
    for (std::size_t k = start; k < std::min(tokens.size(), start + n); ++k) {
      shingle += (k == start ? "" : " ") + tokens[k];
    }
    shingles.insert(shingle);
  }
  return shingles;
}

double reference_jaccard(std::string_view a, std::string_view b, std::size_t n) {
  const auto x = reference_shingles(reference_tokens(a), n);
  const auto y = reference_shingles(reference_tokens(b), n);
  std::size_t shared = 0;
  for (const auto& s : x) {
    shared += y.count(s);
  }
  const std::size_t all = x.size() + y.size() - shared;
  return all == 0 ? 0.0 : static_cast<double>(shared) / static_cast<double>(all);
}

std::string random_text(std::mt19937& random) {
  static const std::vector<std::string> kPieces = {
      "same", "as", "a", "b", "source", "code", "self", "other", "+",  "<",  "&",
      "**",   "~",  "%", "/", "<=",     "c++",  "x|y",  ", ",    ". ", "? ", "\" "};
  std::string text;
  const std::size_t pieces = 1 + random() % 12;
  for (std::size_t k = 0; k < pieces; ++k) {
    text += kPieces[random() % kPieces.size()];
    text += random() % 3 == 0 ? "" : " ";
  }
  return text;
}

// Each random pair's similarity under symbols=keep, on both tokenizer
// paths, equals the brute-force Jaccard of the reference shingles.
TEST(SymbolTokens, JaccardEqualsBruteForceOnRandomTexts) {
  std::mt19937 random(3434);
  for (const std::size_t n : {1U, 2U, 3U}) {
    const std::string options = "weight=binary symbols=keep n=" + std::to_string(n);
    for (int round = 0; round < 300; ++round) {
      const std::string a = random_text(random);
      // Half the pairs share a beginning: one is the other with more added.
      const std::string b = round % 2 == 0 ? random_text(random) : a + random_text(random);
      if (reference_tokens(a).empty() || reference_tokens(b).empty()) {
        continue;  // no features: simhash_jaccard is NULL there, not a number
      }
      const double expected = reference_jaccard(a, b, n);
      for (const bool fast_path : {true, false}) {
        const testing::FastPathSwitch use(fast_path);
        ASSERT_DOUBLE_EQ(jaccard(a, b, options), expected)
            << "[" << a << "] [" << b << "] n=" << n << " fast path " << fast_path;
      }
    }
  }
}

struct Pair {
  std::string_view a;
  std::string_view b;
};

// Real pairs: equal words, different symbols.
constexpr Pair kSymbolPairs[] = {
    {"Same as a < b.", "Same as a & b."},
    {"Same as a ** b.", "Same as a * b."},
    {"For C source code, use the C compiler.", "For C++ source code, use the C++ compiler."},
    {"Return -self.", "Return ~self."},
    {"Same as other % self.", "Same as other / self."},
    {"Same as a != b.", "Same as a -= b."},
    {"Same as a := b.", "Same as a = b."},
    {"Return a | b for the two sets.", "Return a ^ b for the two sets."},
};

// Equal text up to case, whitespace and sentence punctuation.
constexpr Pair kPunctuationPairs[] = {
    {"Same as a < b.", "same as  a < b"},
    {"The quick brown fox, it jumps over the lazy dog.",
     "\"The quick brown fox it jumps over the lazy dog!\""},
    {"Return a | b for the two sets.", "RETURN a | b; for the two sets..."},
    {"Written in C++. Fast.", "Written in C++, fast"},
};

// Real pairs that strict tells apart and keep does not.
constexpr Pair kStrictPairs[] = {
    {"Same as a[b].", "Same as a - b."},
    {"if (foobar) { waldo(); }", "if (foobar) waldo();"},
    {"Start the node with --cluster to join it.", "Start the node with cluster to join it."},
    {"C++ source code: compile it", "c++ source code -- compile it?"},
};

TEST(SymbolTokens, DefaultCheckTellsSymbolPairsApart) {
  for (const Pair& pair : kSymbolPairs) {
    // Without symbols these pairs score 1.0 (the words are equal) ...
    EXPECT_DOUBLE_EQ(jaccard(pair.a, pair.b, "n=3 weight=binary"), 1.0) << pair.a;
    // ... with them, well below the default threshold 0.8.
    EXPECT_LT(jaccard(pair.a, pair.b, "n=3 weight=binary symbols=keep"), 0.8) << pair.a;
    EXPECT_LT(jaccard(pair.a, pair.b, "n=3 weight=binary symbols=strict"), 0.8) << pair.a;
    // Characters count every symbol already (one character in a sentence of
    // thirty may still leave 0.8: the threshold is the user's under unit=char).
    EXPECT_LT(jaccard(pair.a, pair.b, "unit=char n=3 weight=binary"), 1.0) << pair.a;
  }
}

TEST(SymbolTokens, StrictTellsBracketAndDashPairsApart) {
  for (const Pair& pair : kStrictPairs) {
    EXPECT_DOUBLE_EQ(jaccard(pair.a, pair.b, "n=3 weight=binary symbols=keep"), 1.0) << pair.a;
    EXPECT_LT(jaccard(pair.a, pair.b, "n=3 weight=binary symbols=strict"), 0.8) << pair.a;
  }
  // Every dash alike, every bullet and list marker nothing (keep counts "•").
  EXPECT_DOUBLE_EQ(jaccard("- Same as a[b].\n- Next item", "\u2022 same as a[b]\n* next item",
                           "n=3 weight=binary symbols=strict"),
                   1.0);
  EXPECT_DOUBLE_EQ(jaccard("The cache \u2014 on disk \u2014 is kept.",
                           "The cache -- on disk - is kept", "n=3 weight=binary symbols=strict"),
                   1.0);
}

TEST(SymbolTokens, DefaultCheckKeepsPunctuationPairsTogether) {
  for (const Pair& pair : kPunctuationPairs) {
    for (const char* options : {"n=3 weight=binary symbols=keep", "n=1 weight=binary symbols=keep",
                                "n=3 weight=binary symbols=strict"}) {
      EXPECT_DOUBLE_EQ(jaccard(pair.a, pair.b, options), 1.0) << pair.a << " " << options;
    }
  }
  // Under unit=char case and whitespace are free; punctuation counts.
  EXPECT_DOUBLE_EQ(jaccard("Same as a < b.", "SAME  as a < b.", "unit=char n=3 weight=binary"),
                   1.0);
}

TEST(SymbolTokens, OptionParsing) {
  std::string error;
  EXPECT_EQ(parse_options("symbols=keep", error)->symbols, SymbolTokens::keep);
  EXPECT_EQ(parse_options("symbols=strict", error)->symbols, SymbolTokens::strict);
  EXPECT_EQ(parse_options("symbols=drop", error)->symbols, SymbolTokens::drop);
  EXPECT_EQ(parse_options("", error)->symbols, SymbolTokens::drop);
  EXPECT_EQ(to_string(*parse_options("n=3 weight=binary symbols=keep", error)),
            "unit=word n=3 weight=binary symbols=keep");
  EXPECT_EQ(to_string(*parse_options("n=3 weight=binary symbols=strict", error)),
            "unit=word n=3 weight=binary symbols=strict");
  EXPECT_EQ(to_string(*parse_options("n=3 weight=binary symbols=drop", error)),
            "unit=word n=3 weight=binary");
  EXPECT_FALSE(parse_options("symbols=yes", error));
  EXPECT_EQ(error, "simhash: option symbols must be drop, keep or strict, got \"yes\"");
  EXPECT_FALSE(parse_options("unit=char symbols=keep", error));
  EXPECT_EQ(error,
            "simhash: option symbols=keep needs unit=word (unit=char keeps every character)");
  EXPECT_FALSE(parse_options("unit=char symbols=strict", error));
  EXPECT_EQ(error,
            "simhash: option symbols=strict needs unit=word (unit=char keeps every character)");
}

// fingerprint_and_feature_vector shares the cut units only when both
// extractors cut alike: the fingerprint stays simhash()'s, the vector has
// the symbols.
TEST(SymbolTokens, SharedCuttingKeepsEachExtractorsUnits) {
  FeatureExtractor fingerprints(SimhashOptions{});
  FeatureExtractor check(options_of("n=3 weight=binary symbols=keep"));
  FeatureExtractor plain(SimhashOptions{});
  FeatureExtractor alone(options_of("n=3 weight=binary symbols=keep"));
  const std::string text = "Same as a < b, and C++ source & more";
  FeatureVector shared;
  FeatureVector separate;
  EXPECT_EQ(fingerprints.fingerprint_and_feature_vector(text, check, shared),
            plain.fingerprint(text));
  alone.feature_vector(text, separate);
  EXPECT_EQ(shared.hashes, separate.hashes);
}

}  // namespace
}  // namespace simhash
