// SPDX-License-Identifier: MIT
// options_probe(): pinned for the default check (tables store it, and every
// machine must compute the same number), different for every option that
// changes the features, the same for one that only changes weights.
#include "fingerprint/options_probe.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace simhash {
namespace {

SimhashOptions options_of(const std::string& text) {
  std::string error;
  const auto options = parse_options(text, error);
  EXPECT_TRUE(options.has_value()) << error;
  return options.value_or(SimhashOptions{});
}

TEST(OptionsProbe, IsPinnedForTheDefaultCheck) {
  EXPECT_EQ(options_probe(options_of(kDefaultCheckOptions)), 0x01a62ab3ac8ac2e7ULL);
}

TEST(OptionsProbe, EachFeatureOptionChangesIt) {
  std::set<std::uint64_t> seen;
  for (const char* options :
       {"n=3 weight=binary symbols=strict", "n=3 weight=binary symbols=keep", "n=3 weight=binary",
        "n=2 weight=binary symbols=strict", "n=1 weight=binary", "unit=char n=3 weight=binary",
        "unit=char n=4 weight=binary"}) {
    EXPECT_TRUE(seen.insert(options_probe(options_of(options))).second) << options;
  }
  // Weights are not features: the same shingles, the same probe.
  EXPECT_EQ(options_probe(options_of("n=3 weight=tf")),
            options_probe(options_of("n=3 weight=binary")));
}

}  // namespace
}  // namespace simhash
