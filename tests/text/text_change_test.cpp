// SPDX-License-Identifier: MIT
// What deleting one text and keeping another loses: the diff against a
// brute-force longest common subsequence on random sequences, the tokens'
// formatting marks, and each kind of change on hand-made pairs, the pairs
// that keep-one must never take for copies among them.
#include "text/text_change.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "text/diff_tokens.h"
#include "text/token_diff.h"

namespace simhash {
namespace {

std::size_t common_subsequence(const std::vector<std::uint32_t>& a,
                               const std::vector<std::uint32_t>& b) {
  std::vector<std::vector<std::size_t>> longest(a.size() + 1,
                                                std::vector<std::size_t>(b.size() + 1, 0));
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      longest[i][j] = a[i - 1] == b[j - 1] ? longest[i - 1][j - 1] + 1
                                           : std::max(longest[i - 1][j], longest[i][j - 1]);
    }
  }
  return longest[a.size()][b.size()];
}

TEST(TokenDiff, HunksAreAShortestEditScriptThatTurnsOneSequenceIntoTheOther) {
  std::mt19937 random(52);
  for (int trial = 0; trial < 2000; ++trial) {
    std::uniform_int_distribution<std::size_t> length(0, trial < 1000 ? 12 : 60);
    std::uniform_int_distribution<std::uint32_t> token(0, trial % 3 == 0 ? 1 : 5);
    std::vector<std::uint32_t> a(length(random));
    std::vector<std::uint32_t> b(length(random));
    for (auto& t : a) {
      t = token(random);
    }
    for (auto& t : b) {
      t = token(random);
    }
    const auto hunks = token_diff(a, b);
    ASSERT_TRUE(hunks);
    // Applying the hunks to a gives b, and the tokens they keep are common.
    std::vector<std::uint32_t> rebuilt;
    std::size_t edits = 0;
    std::size_t at = 0;
    std::size_t at_b = 0;
    for (const DiffHunk& hunk : *hunks) {
      ASSERT_LE(at, hunk.a_begin);
      ASSERT_LT(hunk.a_begin == hunk.a_end && hunk.b_begin == hunk.b_end, true);
      for (; at < hunk.a_begin; ++at, ++at_b) {
        ASSERT_EQ(a[at], b[at_b]);
        rebuilt.push_back(a[at]);
      }
      ASSERT_EQ(at_b, hunk.b_begin);
      rebuilt.insert(rebuilt.end(), b.begin() + static_cast<std::ptrdiff_t>(hunk.b_begin),
                     b.begin() + static_cast<std::ptrdiff_t>(hunk.b_end));
      edits += (hunk.a_end - hunk.a_begin) + (hunk.b_end - hunk.b_begin);
      at = hunk.a_end;
      at_b = hunk.b_end;
    }
    rebuilt.insert(rebuilt.end(), a.begin() + static_cast<std::ptrdiff_t>(at), a.end());
    ASSERT_EQ(rebuilt, b) << "trial " << trial;
    ASSERT_EQ(edits, a.size() + b.size() - 2 * common_subsequence(a, b)) << "trial " << trial;
  }
}

TEST(TokenDiff, GivesUpPastTheMostEdits) {
  const std::vector<std::uint32_t> a(50, 1);
  const std::vector<std::uint32_t> b(50, 2);
  EXPECT_FALSE(token_diff(a, b, 99));
  ASSERT_TRUE(token_diff(a, b, 100));
  EXPECT_EQ(token_diff(a, b, 100)->size(), 1U);
  EXPECT_FALSE(token_diff(a, std::vector<std::uint32_t>(200, 1), 100));
  EXPECT_TRUE(token_diff(a, a, 0));
}

std::string formatting_of(std::string_view text) {
  std::string marks;
  for (const DiffToken& token : diff_tokens(text)) {
    marks += token.is_formatting ? 'f' : token.is_word ? 'w' : 's';
  }
  return marks;
}

TEST(DiffTokens, MarksLayoutNotSymbols) {
  EXPECT_EQ(formatting_of("- one\n* two\n\u2022 three"), "fwfwfw");
  EXPECT_EQ(formatting_of("1. one\n2) two"), "ffwffw");
  EXPECT_EQ(formatting_of("Title\n====="), "wfffff");
  EXPECT_EQ(formatting_of("## Heading"), "ffw");
  EXPECT_EQ(formatting_of("read() \"quoted\" `code`, end."), "wfffwffwffwf");
  // Symbols that carry meaning stay: a spaced minus, brackets, leading
  // dashes of an option, "**" between operands, a full stop inside a name.
  EXPECT_EQ(formatting_of("a - b"), "wsw");
  EXPECT_EQ(formatting_of("a[b]"), "wsws");
  EXPECT_EQ(formatting_of("--cluster"), "ssw");
  EXPECT_EQ(formatting_of("a ** b"), "wssw");
  EXPECT_EQ(formatting_of("os.path"), "wsw");
  EXPECT_EQ(formatting_of("JSON::PP, and so on..."), "wsswfwwwfff");
  // Words: an inner apostrophe joins; each Han or kana character is a token.
  EXPECT_EQ(diff_tokens("don't")[0].text, "don't");
  EXPECT_EQ(formatting_of("日本語です"), "wwwww");
  // Every dash is "-", every bullet "•", and case is folded.
  EXPECT_EQ(diff_tokens("A \u2014 B")[1].text, "-");
  EXPECT_EQ(diff_tokens("A \u2014 B")[0].text, "a");
}

std::string kind(std::string_view removed, std::string_view kept) {
  return name_of(text_change(removed, kept).kind);
}

TEST(TextChange, EachKindOnHandMadePairs) {
  EXPECT_EQ(kind("same text", "same text"), "identical");
  EXPECT_EQ(kind("the mem-\nory is  full.", "The memory is full"), "formatting");
  EXPECT_EQ(kind("- one\n- two", "\u2022 one\n\u2022 two"), "formatting");
  EXPECT_EQ(kind("Call read() to \"read\"", "Call read to read."), "formatting");
  EXPECT_EQ(kind("I recieve mail daily", "I receive mail daily"), "spelling");
  EXPECT_EQ(kind("the text is here", "the whole text is here"), "added");
  EXPECT_EQ(kind("that partially maps", "that maps"), "dropped");
  EXPECT_EQ(kind("if a < b then", "if a > b then"), "symbols");
  EXPECT_EQ(kind("Catalan language package", "Aragonese language package"), "substituted");
  // A pair with several changes takes the worst.
  EXPECT_EQ(kind("one two three four", "one 2 three four five"), "substituted");
}

TEST(TextChange, TemplateSiblingsAreNeverFormatting) {
  // Siblings that keep-one must not delete unread: names, numbers, symbols.
  const std::vector<std::pair<std::string, std::string>> siblings = {
      {"STAILQ_HEAD_INITIALIZER() returns an initializer",
       "CIRCLEQ_HEAD_INITIALIZER() returns an initializer"},
      {"ENOSPC no room for the new node.", "ENOSPC no room for the new directory."},
      {"Same as a[b].", "Same as a - b."},
      {"if (foobar) { waldo(); }", "if (foobar) waldo();"},
      {"--cluster", "cluster"},
      {"a < b", "a << b"},
      {"a * b", "a ** b"},
      {"MD5 digest", "SHA-1 digest"},
      {"sha3_384 returns 48 bytes", "sha3_224 returns 28 bytes"},
      {"get the user id with setuid", "get the user id with setgid"},
      {"change owner with chown", "change owner with fchown"},
      {"libflac-dev", "libflac++10"},
      {"Boost 1.83 libraries", "Boost 1.92 libraries"},
  };
  for (const auto& [removed, kept] : siblings) {
    const TextChange change = text_change(removed, kept);
    EXPECT_GT(change.kind, ChangeKind::spelling) << removed << " / " << kept;
    EXPECT_FALSE(change.words.empty()) << removed << " / " << kept;
  }
}

TEST(TextChange, WordsSayWhatEachSideLacks) {
  EXPECT_EQ(text_change("Catalan language package for Catalan",
                        "Aragonese language package for Aragonese")
                .words,
            "-catalan +aragonese -catalan +aragonese");
  EXPECT_EQ(text_change("that partially maps", "that maps").words, "-partially");
  EXPECT_EQ(text_change("a < b", "a > b").words, "-< +>");
  EXPECT_EQ(text_change("The end.", "the  end").words, "");
}

TEST(TextChange, ManyEditsAreRewrittenAndInvalidUtf8IsRead) {
  std::string a;
  std::string b;
  for (int i = 0; i < 3000; ++i) {
    const std::string number = std::to_string(i);
    a.append("a").append(number).append(" ");
    b.append("b").append(number).append(" ");
  }
  const TextChange change = text_change(a, b);
  EXPECT_EQ(change.kind, ChangeKind::rewritten);
  EXPECT_TRUE(change.words.empty());
  EXPECT_EQ(kind("caf\xff", "caf\xef\xbf\xbd"), "formatting");
  EXPECT_EQ(kind("", "word"), "added");
  EXPECT_EQ(kind("word", ""), "dropped");
}

}  // namespace
}  // namespace simhash
