// SPDX-License-Identifier: MIT
// NFKC_Casefold through ICU's UTF-8 normalizer (no UTF-16 round trip).
#include "text/text_normalizer.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/stringpiece.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "text/icu_error.h"

namespace simhash {

TextNormalizer::TextNormalizer() {
  UErrorCode status = U_ZERO_ERROR;
  normalizer_ = icu::Normalizer2::getNFKCCasefoldInstance(status);
  if (U_FAILURE(status) || normalizer_ == nullptr) {
    throw_icu_error(status, "cannot load ICU NFKC_Casefold data");
  }
}

void TextNormalizer::normalize(std::string_view utf8, std::string& out) const {
  if (utf8.size() > static_cast<std::size_t>(INT32_MAX)) {
    throw std::runtime_error("simhash: text longer than 2 GiB");
  }
  out.clear();
  icu::StringByteSink<std::string> sink(&out, static_cast<int32_t>(utf8.size()));
  UErrorCode status = U_ZERO_ERROR;
  normalizer_->normalizeUTF8(0, icu::StringPiece(utf8.data(), static_cast<int32_t>(utf8.size())),
                             sink, nullptr, status);
  throw_if_icu_failed(status, "ICU normalization failed");
}

}  // namespace simhash
