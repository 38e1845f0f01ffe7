// SPDX-License-Identifier: MIT
// UTF-8 repair: the maximal-subpart rule, checked on the Unicode standard's
// own examples and against ICU's converter (which follows the same rule) on
// random bytes.
#include "text/utf8_repair.h"

#include <unicode/unistr.h>
#include <unicode/ustring.h>

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace simhash {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

std::string repaired(std::string_view bytes) {
  std::string buffer;
  return std::string(repair_utf8(bytes, buffer));
}

// ICU's UTF-8 to UTF-16 conversion with a substitution character, back to UTF-8.
std::string icu_repaired(std::string_view bytes) {
  UErrorCode status = U_ZERO_ERROR;
  int32_t length = 0;
  u_strFromUTF8WithSub(nullptr, 0, &length, bytes.data(), static_cast<int32_t>(bytes.size()),
                       0xFFFD, nullptr, &status);
  std::u16string utf16(static_cast<std::size_t>(length), u'\0');
  status = U_ZERO_ERROR;
  u_strFromUTF8WithSub(utf16.data(), length, &length, bytes.data(),
                       static_cast<int32_t>(bytes.size()), 0xFFFD, nullptr, &status);
  EXPECT_TRUE(U_SUCCESS(status)) << u_errorName(status);
  std::string utf8;
  icu::UnicodeString(utf16.data(), length).toUTF8String(utf8);
  return utf8;
}

TEST(Utf8Repair, ValidTextIsReturnedAsIs) {
  const std::string text = "plain ASCII, caf\xC3\xA9, \xE4\xB8\xAD\xE6\x96\x87, \xF0\x9F\x98\x80";
  std::string buffer;
  const std::string_view result = repair_utf8(text, buffer);
  EXPECT_EQ(result.data(), text.data());  // no copy
  EXPECT_TRUE(is_valid_utf8(text));
  EXPECT_TRUE(is_valid_utf8(""));
}

TEST(Utf8Repair, UnicodeStandardExample) {
  // Unicode 15 section 3.9, Table 3-8: 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64
  // becomes a, 3 x U+FFFD, b, U+FFFD, c, 2 x U+FFFD, d.
  EXPECT_EQ(repaired("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64"),
            "a" + kFffd + kFffd + kFffd + "b" + kFffd + "c" + kFffd + kFffd + "d");
}

TEST(Utf8Repair, IllFormedSequences) {
  EXPECT_EQ(repaired("\xC3\x28\xFF\x61"), kFffd + "(" + kFffd + "a");
  EXPECT_EQ(repaired("\xC0\xAF"), kFffd + kFffd);                          // overlong lead
  EXPECT_EQ(repaired("\xE0\x80\x80"), kFffd + kFffd + kFffd);              // overlong 3-byte
  EXPECT_EQ(repaired("\xED\xA0\x80"), kFffd + kFffd + kFffd);              // surrogate
  EXPECT_EQ(repaired("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);  // above U+10FFFF
  EXPECT_EQ(repaired("x\xE2\x82"), "x" + kFffd);                           // truncated at the end
  EXPECT_EQ(repaired("\xF0\x9F\x98"), kFffd);                              // truncated 4-byte
  EXPECT_EQ(repaired("\xF0\x9F\x98x"), kFffd + "x");
  EXPECT_FALSE(is_valid_utf8("\xC3\x28"));
}

TEST(Utf8Repair, AgreesWithIcuOnRandomBytes) {
  std::mt19937 random(7);
  // Bytes weighted toward the interesting boundaries of Table 3-7.
  const std::vector<unsigned char> interesting = {
      0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
      0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};
  for (int round = 0; round < 20000; ++round) {
    std::string bytes;
    const int length = static_cast<int>(random() % 24);
    for (int i = 0; i < length; ++i) {
      bytes += static_cast<char>(random() % 2 == 0 ? interesting[random() % interesting.size()]
                                                   : random() % 256);
    }
    const std::string ours = repaired(bytes);
    ASSERT_EQ(ours, icu_repaired(bytes)) << testing::PrintToString(bytes);
    ASSERT_TRUE(is_valid_utf8(ours));
    ASSERT_EQ(is_valid_utf8(bytes), ours == bytes);
  }
}

}  // namespace
}  // namespace simhash
