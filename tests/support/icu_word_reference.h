// SPDX-License-Identifier: MIT
// Test helper: word segmentation straight from ICU's public C++ API (UTF-16
// UnicodeString, root-locale word BreakIterator, NFKC_Casefold Normalizer2),
// written independently of src/ so that the fast path is compared against
// ICU itself rather than against the engine's own use of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace simhash::testing {

struct IcuSegment {
  std::size_t begin = 0;  // offsets in UTF-16 code units (bytes, for ASCII)
  std::size_t end = 0;
  std::int32_t rule_status = 0;
};

class IcuWordReference {
 public:
  IcuWordReference();
  ~IcuWordReference();
  IcuWordReference(const IcuWordReference&) = delete;
  IcuWordReference& operator=(const IcuWordReference&) = delete;

  // Every segment of `utf8` (not normalized), with its rule status.
  std::vector<IcuSegment> segments(std::string_view utf8);

  // NFKC_Casefold of `utf8`, as UTF-8.
  std::string normalize(std::string_view utf8);

  // The word tokens (rule status >= UBRK_WORD_NUMBER) of the normalized text.
  std::vector<std::string> tokens(std::string_view utf8);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace simhash::testing
