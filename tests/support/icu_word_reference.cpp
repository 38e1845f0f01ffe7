// SPDX-License-Identifier: MIT
// ICU reference segmentation for the fast-path tests (see the header).
#include "icu_word_reference.h"

#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/ubrk.h>
#include <unicode/unistr.h>

#include <stdexcept>

namespace simhash::testing {

struct IcuWordReference::Impl {
  std::unique_ptr<icu::BreakIterator> breaker;
  const icu::Normalizer2* normalizer = nullptr;
};

IcuWordReference::IcuWordReference() : impl_(std::make_unique<Impl>()) {
  UErrorCode status = U_ZERO_ERROR;
  impl_->breaker.reset(icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
  impl_->normalizer = icu::Normalizer2::getNFKCCasefoldInstance(status);
  if (U_FAILURE(status)) {
    throw std::runtime_error(std::string("ICU reference: ") + u_errorName(status));
  }
}

IcuWordReference::~IcuWordReference() = default;

std::vector<IcuSegment> IcuWordReference::segments(std::string_view utf8) {
  const icu::UnicodeString text = icu::UnicodeString::fromUTF8(
      icu::StringPiece(utf8.data(), static_cast<int32_t>(utf8.size())));
  impl_->breaker->setText(text);
  std::vector<IcuSegment> result;
  std::int32_t begin = impl_->breaker->first();
  for (std::int32_t end = impl_->breaker->next(); end != icu::BreakIterator::DONE;
       begin = end, end = impl_->breaker->next()) {
    result.push_back({static_cast<std::size_t>(begin), static_cast<std::size_t>(end),
                      impl_->breaker->getRuleStatus()});
  }
  return result;
}

std::string IcuWordReference::normalize(std::string_view utf8) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::UnicodeString normalized =
      impl_->normalizer->normalize(icu::UnicodeString::fromUTF8(icu::StringPiece(
                                       utf8.data(), static_cast<int32_t>(utf8.size()))),
                                   status);
  if (U_FAILURE(status)) {
    throw std::runtime_error(std::string("ICU reference: ") + u_errorName(status));
  }
  std::string result;
  normalized.toUTF8String(result);
  return result;
}

std::vector<std::string> IcuWordReference::tokens(std::string_view utf8) {
  const std::string normalized = normalize(utf8);
  const icu::UnicodeString text = icu::UnicodeString::fromUTF8(normalized);
  std::vector<std::string> result;
  for (const IcuSegment& segment : segments(normalized)) {
    if (segment.rule_status >= UBRK_WORD_NUMBER) {
      std::string token;
      text.tempSubStringBetween(static_cast<int32_t>(segment.begin),
                                static_cast<int32_t>(segment.end))
          .toUTF8String(token);
      result.push_back(std::move(token));
    }
  }
  return result;
}

}  // namespace simhash::testing
