// SPDX-License-Identifier: MIT
// Where two texts first differ: the line and column, both lines, the ends of
// texts and lines, repaired UTF-8, and nothing for equal texts.
#include "text/first_difference.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace simhash {
namespace {

std::optional<std::string> described(std::string_view a, std::string_view b) {
  const std::optional<FirstDifference> difference = first_difference(a, b);
  return difference ? std::optional<std::string>(describe(*difference)) : std::nullopt;
}

TEST(FirstDifference, LineColumnAndBothLines) {
  const auto difference = first_difference("one\ntwo\nthree", "one\ntwo!\nthree");
  ASSERT_TRUE(difference);
  EXPECT_EQ(difference->line, 2U);
  EXPECT_EQ(difference->column, 4U);
  EXPECT_EQ(difference->line_a, "two");
  EXPECT_EQ(difference->line_b, "two!");
  EXPECT_EQ(describe(*difference), "line 2, column 4\n- two\n+ two!");
  // The first line, the first column.
  EXPECT_EQ(described("abc", "xbc"), "line 1, column 1\n- abc\n+ xbc");
}

TEST(FirstDifference, EqualTextsHaveNone) {
  EXPECT_EQ(first_difference("", ""), std::nullopt);
  EXPECT_EQ(first_difference("same\ntext\n", "same\ntext\n"), std::nullopt);
  // Equal once repaired: each invalid byte is one U+FFFD, as simhash() reads it.
  EXPECT_EQ(first_difference("a\xff"
                             "b",
                             "a\xef\xbf\xbd"
                             "b"),
            std::nullopt);
}

TEST(FirstDifference, TextsThatEndFirst) {
  EXPECT_EQ(described("one\n", "one\ntwo"), "line 2, column 1\n- (end of text)\n+ two");
  EXPECT_EQ(described("", "x"), "line 1, column 1\n- (end of text)\n+ x");
  // Only the final newline differs: the lines look equal, so it is said.
  EXPECT_EQ(described("x\n", "x"), "line 1, column 2\n- x\n+ x (no newline at the end)");
  EXPECT_EQ(described("x", "x\n"), "line 1, column 2\n- x (no newline at the end)\n+ x");
}

TEST(FirstDifference, ColumnsCountCodePointsAndCarriageReturnsAreNotShown) {
  // "é" and "è" share their first byte: the column is the character's.
  EXPECT_EQ(described("caf\xc3\xa9 au lait", "caf\xc3\xa8 au lait"),
            "line 1, column 4\n- caf\xc3\xa9 au lait\n+ caf\xc3\xa8 au lait");
  EXPECT_EQ(described("a\r\nb\r\n", "a\r\nc\r\n"), "line 2, column 1\n- b\n+ c");
}

}  // namespace
}  // namespace simhash
