// SPDX-License-Identifier: MIT
// Unicode normalization of the pipeline: NFKC with case folding (ICU's
// NFKC_Casefold), done directly on UTF-8.
#pragma once

#include <string>
#include <string_view>

#include <unicode/uversion.h>

U_NAMESPACE_BEGIN
class Normalizer2;
U_NAMESPACE_END

namespace simhash {

class TextNormalizer {
 public:
  // Throws std::runtime_error when ICU cannot load its normalization data.
  TextNormalizer();

  // Replaces `out` with the NFKC_Casefold form of `utf8`, which must be
  // well-formed UTF-8 (see repair_utf8). Reusing `out` avoids reallocation.
  void normalize(std::string_view utf8, std::string& out) const;

 private:
  const icu::Normalizer2* normalizer_;  // an ICU singleton: not owned
};

}  // namespace simhash
