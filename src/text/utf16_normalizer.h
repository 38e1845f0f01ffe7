// SPDX-License-Identifier: MIT
// NFKC_Casefold from UTF-8 into UTF-16, the form ICU's word break iterator
// reads fastest. Long ASCII stretches, most of most texts, are lowercased
// here without ICU; the text between them goes through ICU's normalizer.
#pragma once

#include <string_view>

#include <unicode/unistr.h>

U_NAMESPACE_BEGIN
class Normalizer2;
U_NAMESPACE_END

namespace simhash {

class Utf16Normalizer {
 public:
  // Whether ASCII stretches skip ICU; `never` exists for tests, to compare.
  enum class AsciiShortcut { when_exact, never };

  // Throws std::runtime_error when ICU cannot load its normalization data.
  explicit Utf16Normalizer(AsciiShortcut shortcut = AsciiShortcut::when_exact);

  // Replaces `out` with the NFKC_Casefold form of `utf8` (well-formed UTF-8,
  // see repair_utf8) in UTF-16: the same text as TextNormalizer::normalize
  // gives, re-encoded. Reusing `out` avoids reallocation.
  void normalize(std::string_view utf8, icu::UnicodeString& out);

 private:
  void append_normalized(std::string_view non_ascii_utf8, icu::UnicodeString& out);

  const icu::Normalizer2* normalizer_;  // an ICU singleton: not owned
  // Whether the shortcut is wanted and ICU's NFKC_Casefold data agrees with
  // it (checked once); if not, everything goes through ICU.
  bool use_ascii_shortcut_;
  icu::UnicodeString piece_;  // reused buffer: one non-ASCII stretch in UTF-16
};

}  // namespace simhash
