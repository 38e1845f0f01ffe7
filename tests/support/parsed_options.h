// SPDX-License-Identifier: MIT
// Option strings parsed for engine tests: a bad string fails the test.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "fingerprint/simhash_options.h"

namespace simhash {

inline SimhashOptions options_of(std::string_view text) {
  std::string error;
  auto options = parse_options(text, error);
  EXPECT_TRUE(options.has_value()) << error;
  return options.value_or(SimhashOptions{});
}

}  // namespace simhash
