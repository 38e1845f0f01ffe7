// SPDX-License-Identifier: MIT
// The ASCII fast path against ICU itself (tests/support/icu_word_reference.h):
// the same word segments, at the same offsets, on hand-picked tricky strings,
// on every ASCII character between every kind of neighbour, on every short
// string over one character of each class, and on random separator-rich text.
#include "text/ascii_words.h"

#include <gtest/gtest.h>
#include <unicode/ubrk.h>

#include <cstddef>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "icu_word_reference.h"

namespace {

using Span = std::pair<std::size_t, std::size_t>;  // [begin, end) in bytes

std::vector<Span> fast_word_spans(std::string_view text, const simhash::WordMaskKernel& kernel) {
  std::vector<Span> spans;
  simhash::for_each_ascii_word(
      text,
      [&](std::string_view word) {
        const auto begin = static_cast<std::size_t>(word.data() - text.data());
        spans.emplace_back(begin, begin + word.size());
      },
      kernel);
  return spans;
}

std::vector<Span> icu_word_spans(simhash::testing::IcuWordReference& icu, std::string_view text) {
  std::vector<Span> spans;
  for (const auto& segment : icu.segments(text)) {
    if (segment.rule_status >= UBRK_WORD_NUMBER) {
      spans.emplace_back(segment.begin, segment.end);
    }
  }
  return spans;
}

// Printable form of a test string for failure messages.
std::string shown(std::string_view text) {
  std::string result = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f && c != '\\') {
      result += c;
    } else {
      constexpr char kHex[] = "0123456789abcdef";
      result += "\\x";
      result += kHex[byte >> 4];
      result += kHex[byte & 15];
    }
  }
  return result + "\"";
}

std::string shown(const std::vector<Span>& spans, std::string_view text) {
  std::string result;
  for (const auto& [begin, end] : spans) {
    result += shown(text.substr(begin, end - begin)) + " ";
  }
  return result;
}

class AsciiWords : public ::testing::Test {
 protected:
  // Fast path (with every word-mask kernel this CPU runs) and ICU agree on
  // `text`, word for word and offset for offset.
  void expect_same_words(std::string_view text) {
    const std::vector<Span> expected = icu_word_spans(icu_, text);
    for (const auto& kernel : simhash::word_mask_kernels_on_this_cpu()) {
      const std::vector<Span> actual = fast_word_spans(text, kernel);
      ASSERT_EQ(actual, expected) << kernel.name << " kernel, text " << shown(text)
                                  << "\n  ICU:  " << shown(expected, text)
                                  << "\n  fast: " << shown(actual, text);
    }
  }

  simhash::testing::IcuWordReference icu_;
};

TEST_F(AsciiWords, TrickyStrings) {
  const std::vector<std::string> tricky = {"",
                                           "can't",
                                           "Can't stop",
                                           "e.g.",
                                           "i.e. this",
                                           "3.14",
                                           "-3.14",
                                           "1,000",
                                           "1,000.50",
                                           "1,,000",
                                           "1.,2",
                                           "a_b",
                                           "_",
                                           "__",
                                           "___",
                                           "_a",
                                           "a_",
                                           "_1",
                                           "1_",
                                           "x:y",
                                           "1:2",
                                           "12:30",
                                           "foo.bar",
                                           "foo..bar",
                                           "foo.",
                                           ".foo",
                                           "don't.",
                                           "don't'",
                                           "dogs'",
                                           "'tis",
                                           "''",
                                           "'a'",
                                           "rock'n'roll",
                                           "O'Neil's",
                                           "abc123",
                                           "123abc",
                                           "a1.5",
                                           "1.a",
                                           "a.1",
                                           "1.2.a",
                                           "a.b1.2",
                                           "a;b",
                                           "1;2",
                                           "1'2",
                                           "a'1",
                                           "a\tb",
                                           "a\r\nb",
                                           "a\n\rb",
                                           "a\rb",
                                           "a  b",
                                           "\v\va",
                                           "a\fb",
                                           "a\"b",
                                           "1\"2",
                                           "a@b.com",
                                           "user@example.org.",
                                           "@",
                                           "@@",
                                           "a@",
                                           "@1",
                                           "a-b",
                                           "well-known",
                                           "a/b",
                                           "http://www.example.com/path?q=1&r=2",
                                           "C++",
                                           "C#",
                                           "$100",
                                           "100%",
                                           "#include",
                                           "x=y+z",
                                           "a.b.c.d",
                                           "1,2,3",
                                           "a,b",
                                           "_._",
                                           "a_.b",
                                           "a._b",
                                           "A.B",
                                           "x_1.5",
                                           "1_a:b",
                                           "a__",
                                           "_ _",
                                           "__1",
                                           "1__",
                                           std::string("a\0b", 3),
                                           std::string("\0", 1),
                                           "\x7f\x61\x7f",
                                           "\x01\x02word\x1f",
                                           "v1.2.3-rc1",
                                           "GPL-2+",
                                           "(c) 2001, 2002",
                                           "Copyright: 1999-2004",
                                           "Files: debian/*",
                                           "Upstream-Name: foo_bar",
                                           "<a@b.c>",
                                           "'quoted' \"words\"",
                                           "end.\nNext",
                                           "trailing   ",
                                           "   leading",
                                           "tab\tseparated\tvalues",
                                           "MiXeD CaSe"};
  for (const std::string& text : tricky) {
    expect_same_words(text);
  }
}

TEST_F(AsciiWords, EveryCharacterBetweenEveryKindOfNeighbour) {
  // One character of each class the rules tell apart, plus both cases.
  const std::string neighbours = "aZ@7_.',;: \t\r\n\v\"-";
  for (int c = 0; c < 128; ++c) {
    const char middle = static_cast<char>(c);
    expect_same_words(std::string(1, middle));
    expect_same_words(std::string(2, middle));
    expect_same_words(std::string(3, middle));
    for (const char before : neighbours) {
      expect_same_words(std::string{before, middle});
      expect_same_words(std::string{middle, before});
      for (const char after : neighbours) {
        expect_same_words(std::string{before, middle, after});
        expect_same_words(std::string{before, before, middle, after, after});
      }
    }
  }
}

TEST_F(AsciiWords, EveryShortStringOverOneCharacterPerClass) {
  // Every string of up to 5 characters over representatives of every word
  // break class ASCII has (ALetter, '@', Numeric, ExtendNumLet, MidNumLet,
  // Single_Quote, MidNum, ':', Double_Quote, WSegSpace, CR, LF, Other).
  const std::string alphabet = "a@7_.',:\" \r\n-";
  const std::size_t letters = alphabet.size();
  std::string text;
  for (std::size_t length = 1; length <= 5; ++length) {
    std::size_t total = 1;
    for (std::size_t i = 0; i < length; ++i) {
      total *= letters;
    }
    text.assign(length, ' ');
    for (std::size_t index = 0; index < total; ++index) {
      std::size_t rest = index;
      for (std::size_t i = 0; i < length; ++i, rest /= letters) {
        text[i] = alphabet[rest % letters];
      }
      expect_same_words(text);
      if (HasFatalFailure()) {
        return;
      }
    }
  }
}

TEST_F(AsciiWords, RandomSeparatorRichStrings) {
  // Words, numbers and every separator the rules care about, with enough
  // weight on the separators that long chains (a.b.c, 1,000.5) and their
  // broken forms (a..b, 1.a) occur often.
  const std::string common = "aeinrstEST0123456789";
  const std::string separators = "._',;:@ \t\r\n\v\f\"-/()#$%&*+<=>?[]^`{|}~!\x01\x7f";
  std::mt19937_64 random(20261121);
  std::string text;
  for (int trial = 0; trial < 50000; ++trial) {
    const std::size_t length = random() % 48;
    text.clear();
    for (std::size_t i = 0; i < length; ++i) {
      switch (random() % 4) {
        case 0:
        case 1:
          text += common[random() % common.size()];
          break;
        case 2:
          text += separators[random() % 10];  // the ones that matter most
          break;
        default:
          text += separators[random() % separators.size()];
      }
    }
    expect_same_words(text);
    if (HasFatalFailure()) {
      return;
    }
  }
}

TEST_F(AsciiWords, LowercasingIsNfkcCasefoldOnAscii) {
  std::string all;
  for (int c = 0; c < 128; ++c) {
    const std::string one(1, static_cast<char>(c));
    std::string lowered;
    simhash::ascii_to_lower(one, lowered);
    EXPECT_EQ(lowered, icu_.normalize(one)) << "character " << c;
    all += one;
  }
  std::string lowered;
  simhash::ascii_to_lower(all, lowered);
  EXPECT_EQ(lowered, icu_.normalize(all));
}

TEST_F(AsciiWords, TokenizeAsciiGivesIcuTokensOfTheNormalizedText) {
  const std::string text =
      "Copyright (C) 1999-2004 The FOO Project <foo@Example.ORG>. Don't PANIC: v1.2.3, "
      "1,000.50 USD; e.g. A_B __init__ _ @ C:\\Path\r\nEND.";
  std::vector<std::string> tokens;
  std::string buffer;
  simhash::tokenize_ascii(text, buffer,
                          [&](std::string_view token) { tokens.emplace_back(token); });
  EXPECT_EQ(tokens, icu_.tokens(text));
}

TEST_F(AsciiWords, LongTextsAcrossBlockBoundaries) {
  // Separators and joins straddling the 64-byte blocks and 1 KiB kernel
  // calls: texts of every length around those sizes, words at every offset.
  std::mt19937_64 random(99);
  const std::string pieces[] = {"ab", "1.5", "a.b", "x", "_", "__", "1,000", "can't", "@",
                                " ",  ".",   "\n",  ",", "'", ":",  "9",     "Q"};
  for (const std::size_t target : {63U, 64U, 65U, 127U, 128U, 129U, 1023U, 1024U, 1025U, 3000U}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::string text;
      while (text.size() < target) {
        text += pieces[random() % std::size(pieces)];
      }
      text.resize(target);
      expect_same_words(text);
      if (HasFatalFailure()) {
        return;
      }
    }
  }
}

TEST(AsciiWordMasks, EveryKernelMatchesTheScalarOne) {
  std::mt19937_64 random(5);
  const std::string alphabet = "aZ@7_.',;: \t\r\n-\x01\x7f";
  const auto& scalar = simhash::word_mask_kernels_on_this_cpu().front();
  ASSERT_EQ(scalar.name, "scalar");
  for (int trial = 0; trial < 3000; ++trial) {
    std::string text(1 + random() % 700, ' ');
    for (char& c : text) {
      c = alphabet[random() % alphabet.size()];
    }
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t blocks = (text.size() + 63) / 64;
    const std::size_t first = random() % blocks;
    const std::size_t count = 1 + random() % (blocks - first);
    std::vector<std::uint64_t> expected(count);
    scalar.mark(bytes, text.size(), first, count, expected.data());
    for (const auto& kernel : simhash::word_mask_kernels_on_this_cpu()) {
      std::vector<std::uint64_t> actual(count);
      kernel.mark(bytes, text.size(), first, count, actual.data());
      ASSERT_EQ(actual, expected) << kernel.name << " trial " << trial;
    }
  }
  std::cout << "word-mask kernels on this CPU:";
  for (const auto& kernel : simhash::word_mask_kernels_on_this_cpu()) {
    std::cout << ' ' << kernel.name;
  }
  std::cout << '\n';
}

TEST(AsciiDetection, MatchesAByteByByteCheck) {
  std::mt19937_64 random(7);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string text(random() % 1100, 'x');
    for (char& c : text) {
      c = static_cast<char>(random() % 128);
    }
    if (!text.empty() && random() % 2 == 0) {
      text[random() % text.size()] = static_cast<char>(0x80 | (random() % 128));
    }
    bool expected = true;
    for (const char c : text) {
      expected = expected && static_cast<unsigned char>(c) < 0x80;
    }
    ASSERT_EQ(simhash::is_ascii(text), expected) << "length " << text.size();
  }
  EXPECT_TRUE(simhash::is_ascii(""));
  EXPECT_FALSE(simhash::is_ascii("caf\xc3\xa9"));
}

}  // namespace
