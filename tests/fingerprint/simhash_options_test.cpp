// SPDX-License-Identifier: MIT
// The option string parser: syntax, every value, and errors that name what
// was wrong.
#include "fingerprint/simhash_options.h"

#include <gtest/gtest.h>

#include <string>

namespace simhash {
namespace {

SimhashOptions parse_ok(std::string_view text) {
  std::string error;
  const auto options = parse_options(text, error);
  EXPECT_TRUE(options.has_value()) << text << ": " << error;
  return options.value_or(SimhashOptions{});
}

std::string parse_error(std::string_view text) {
  std::string error;
  const auto options = parse_options(text, error);
  EXPECT_FALSE(options.has_value()) << text;
  return error;
}

TEST(SimhashOptions, EmptyStringMeansDefaults) {
  EXPECT_EQ(parse_ok(""), SimhashOptions{});
  EXPECT_EQ(parse_ok("  , ,"), SimhashOptions{});
}

TEST(SimhashOptions, ParsesEveryValue) {
  EXPECT_EQ(parse_ok("unit=word").unit, TokenUnit::word);
  EXPECT_EQ(parse_ok("unit=char").unit, TokenUnit::character);
  for (int n = 1; n <= 16; ++n) {
    EXPECT_EQ(parse_ok("n=" + std::to_string(n)).n, n);
  }
  EXPECT_EQ(parse_ok("n=007").n, 7);
  EXPECT_EQ(parse_ok("weight=tf").weight, WeightScheme::tf);
  EXPECT_EQ(parse_ok("weight=log").weight, WeightScheme::log_tf);
  EXPECT_EQ(parse_ok("weight=binary").weight, WeightScheme::binary);
}

TEST(SimhashOptions, SeparatorsAndOrderAreFree) {
  SimhashOptions expected;
  expected.unit = TokenUnit::character;
  expected.n = 4;
  expected.weight = WeightScheme::binary;
  EXPECT_EQ(parse_ok("unit=char n=4 weight=binary"), expected);
  EXPECT_EQ(parse_ok("weight=binary,n=4,unit=char"), expected);
  EXPECT_EQ(parse_ok(" n=4 ,, weight=binary\tunit=char "), expected);
}

TEST(SimhashOptions, ToStringRoundTripsEveryCombination) {
  for (const TokenUnit unit : {TokenUnit::word, TokenUnit::character}) {
    for (int n = 1; n <= 16; ++n) {
      for (const WeightScheme weight :
           {WeightScheme::tf, WeightScheme::log_tf, WeightScheme::binary}) {
        const SimhashOptions options{unit, n, weight};
        EXPECT_EQ(parse_ok(to_string(options)), options) << to_string(options);
      }
    }
  }
  EXPECT_EQ(to_string(SimhashOptions{TokenUnit::character, 3, WeightScheme::log_tf}),
            "unit=char n=3 weight=log");
}

TEST(SimhashOptions, UnknownKeyIsNamed) {
  EXPECT_EQ(parse_error("foo=1"),
            "simhash: unknown option \"foo\" (known: unit, n, weight, symbols)");
  EXPECT_EQ(parse_error("n=2 units=word"),
            "simhash: unknown option \"units\" (known: unit, n, weight, symbols)");
}

// A NUL (or another control byte) in the options is shown
// escaped, so SQLite, which reads the message as a C string, shows it whole.
TEST(SimhashOptions, ControlBytesAreEscapedInMessages) {
  using namespace std::string_literals;
  EXPECT_EQ(parse_error("n=3\0x=1"s),
            "simhash: option n must be an integer from 1 to 16, got \"3\\x00x=1\"");
  EXPECT_EQ(parse_error("col\x01our=1"),
            "simhash: unknown option \"col\\x01our\" (known: unit, n, weight, symbols)");
}

TEST(SimhashOptions, PairWithoutEqualsIsNamed) {
  EXPECT_EQ(parse_error("n"), "simhash: expected key=value in options, got \"n\"");
  EXPECT_EQ(parse_error("unit=word char"), "simhash: expected key=value in options, got \"char\"");
  EXPECT_EQ(parse_error("=3"), "simhash: expected key=value in options, got \"=3\"");
  EXPECT_EQ(parse_error("unit = word n 3"), "simhash: expected key=value in options, got \"n\"");
}

TEST(SimhashOptions, BadValuesAreNamed) {
  EXPECT_EQ(parse_error("n=0"), "simhash: option n must be an integer from 1 to 16, got \"0\"");
  EXPECT_EQ(parse_error("n=17"), "simhash: option n must be an integer from 1 to 16, got \"17\"");
  EXPECT_EQ(parse_error("n=-1"), "simhash: option n must be an integer from 1 to 16, got \"-1\"");
  EXPECT_EQ(parse_error("n=2.5"), "simhash: option n must be an integer from 1 to 16, got \"2.5\"");
  EXPECT_EQ(parse_error("n=99999999999999999999"),
            "simhash: option n must be an integer from 1 to 16, got \"99999999999999999999\"");
  EXPECT_EQ(parse_error("n="), "simhash: option n must be an integer from 1 to 16, got \"\"");
  EXPECT_EQ(parse_error("unit=WORD"), "simhash: option unit must be word or char, got \"WORD\"");
  EXPECT_EQ(parse_error("unit="), "simhash: option unit must be word or char, got \"\"");
  EXPECT_EQ(parse_error("unit=word=char"),
            "simhash: option unit must be word or char, got \"word=char\"");
  EXPECT_EQ(parse_error("weight=idf"),
            "simhash: option weight must be tf, log or binary, got \"idf\"");
}

// The rule shared with simhash_index's arguments (util/key_value_options.h):
// keys in any case, spaces allowed around '='. Values keep their case.
TEST(SimhashOptions, KeysIgnoreCaseAndEqualsMayHaveSpaces) {
  std::string error;
  const SimhashOptions expected{TokenUnit::character, 3, WeightScheme::binary};
  for (const char* text : {"Unit=char N=3 WEIGHT=binary", "unit = char, n= 3 ,weight =binary"}) {
    EXPECT_EQ(parse_options(text, error), expected) << text << ": " << error;
  }
  EXPECT_EQ(parse_error("n=2 N=3"), "simhash: option n given more than once");
}

TEST(SimhashOptions, DuplicateKeyIsNamed) {
  EXPECT_EQ(parse_error("n=2 n=2"), "simhash: option n given more than once");
  EXPECT_EQ(parse_error("weight=tf,unit=char,weight=log"),
            "simhash: option weight given more than once");
}

}  // namespace
}  // namespace simhash
