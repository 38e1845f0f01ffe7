// SPDX-License-Identifier: MIT
// The one key=value parser (util/key_value_options.h): option strings and
// CREATE argument lists read alike, every value as written or unquoted, and
// each problem named in the message its callers show.
#include "util/key_value_options.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace simhash {
namespace {

constexpr std::string_view kKeys[] = {"threshold", "options", "hidden"};

struct Parsed {
  bool ok = false;
  std::map<std::size_t, std::string> values;
  std::string error;
};

Parsed parse_string(std::string_view text, std::size_t listed = 2) {
  Parsed parsed;
  parsed.ok = parse_key_values(
      text, "who", kKeys,
      [&](std::size_t key, std::string_view value, std::string&) {
        parsed.values[key] = std::string(value);
        return true;
      },
      parsed.error, listed);
  return parsed;
}

Parsed parse_arguments(std::vector<std::string_view> arguments, std::size_t listed = 2) {
  Parsed parsed;
  parsed.ok = parse_key_value_arguments(
      arguments, "who", kKeys,
      [&](std::size_t key, std::string_view value, std::string&) {
        parsed.values[key] = std::string(value);
        return true;
      },
      parsed.error, listed);
  return parsed;
}

TEST(KeyValueOptions, AStringOfPairs) {
  const Parsed parsed = parse_string(" Threshold = 0.5,options=x  hidden=3");
  ASSERT_TRUE(parsed.ok) << parsed.error;
  EXPECT_EQ(parsed.values.at(0), "0.5");
  EXPECT_EQ(parsed.values.at(1), "x");
  EXPECT_EQ(parsed.values.at(2), "3");
}

TEST(KeyValueOptions, AStringsProblemsAreNamed) {
  EXPECT_EQ(parse_string("threshold").error,
            "who: expected key=value in options, got \"threshold\"");
  EXPECT_EQ(parse_string("threshold=' 3'").error,
            "who: option threshold takes its value without quotes, got \"' 3'\"");
  EXPECT_EQ(parse_string("nope=1").error,
            "who: unknown option \"nope\" (known: threshold, options)");
  EXPECT_EQ(parse_string("threshold=1 THRESHOLD=2").error,
            "who: option threshold given more than once");
}

TEST(KeyValueOptions, ArgumentsTakeSqlStrings) {
  const Parsed parsed =
      parse_arguments({" threshold = 0.5 ", "OPTIONS='n=3 weight=binary'", "hidden=\"it''s\""});
  ASSERT_TRUE(parsed.ok) << parsed.error;
  EXPECT_EQ(parsed.values.at(0), "0.5");
  EXPECT_EQ(parsed.values.at(1), "n=3 weight=binary");
  EXPECT_EQ(parsed.values.at(2), "it''s");  // only the quote that delimits is doubled
  EXPECT_EQ(parse_arguments({"options='it''s'"}).values.at(1), "it's");
  EXPECT_EQ(parse_arguments({"options=''"}).values.at(1), "");
  EXPECT_EQ(parse_arguments({"options='unclosed"}).values.at(1), "'unclosed");
}

TEST(KeyValueOptions, ArgumentsProblemsAreNamed) {
  EXPECT_EQ(parse_arguments({"threshold"}).error,
            "who: expected key=value, got \"threshold\" (keys: threshold, options)");
  EXPECT_EQ(parse_arguments({"nope=1"}).error,
            "who: unknown option \"nope\" (known: threshold, options)");
  EXPECT_EQ(parse_arguments({"threshold=1", "Threshold=2"}).error,
            "who: option threshold given more than once");
  EXPECT_EQ(parse_arguments({"a\x01=1"}).error,
            "who: unknown option \"a\\x01\" (known: threshold, options)");
}

TEST(KeyValueOptions, AReaderRefusalStopsTheParse) {
  std::string error;
  int calls = 0;
  const bool ok = parse_key_value_arguments(
      std::vector<std::string_view>{"threshold=1", "options=2"}, "who", kKeys,
      [&](std::size_t, std::string_view value, std::string& why) {
        ++calls;
        why = "bad " + std::string(value);
        return false;
      },
      error);
  EXPECT_FALSE(ok);
  EXPECT_EQ(error, "bad 1");
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace simhash
