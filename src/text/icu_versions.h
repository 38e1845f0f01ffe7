// SPDX-License-Identifier: MIT
// The versions of the ICU the engine runs with and of the Unicode standard it
// implements: they decide word boundaries and normalization, so fingerprints
// of the same text can differ between them (see the README's compatibility
// promise). Reported by simhash_icu_version() and kept in a new index's config.
#pragma once

#include <string>

namespace simhash {

struct IcuVersions {
  std::string icu;      // "72.1"
  std::string unicode;  // "15.0"
};

// The ICU actually running, not the headers compiled against: the shared
// build may meet a newer minor release of the library than it was built with.
IcuVersions icu_versions();

}  // namespace simhash
