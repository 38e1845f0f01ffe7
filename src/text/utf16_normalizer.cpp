// SPDX-License-Identifier: MIT
// NFKC_Casefold into UTF-16, long ASCII stretches without ICU.
//
// Why the shortcut is exact: NFKC_Casefold maps each ASCII character to
// itself, A-Z to a-z, and every ASCII character has a normalization boundary
// before it (it never combines with what precedes it). So a text cut before
// any ASCII character normalizes piece by piece, and an ASCII stretch's
// normal form is its lowercase. The one piece that reaches back is one
// starting with a combining mark ("e" + U+0301 gives U+00E9):
// Normalizer2::normalizeSecondAndAppend handles exactly that, by
// re-normalizing from the last boundary of what was already written. Both
// facts are checked against ICU's data when the normalizer is created.
#include "text/utf16_normalizer.h"

#include <unicode/normalizer2.h>
#include <unicode/ustring.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>

#include "text/ascii_scan.h"
#include "text/icu_error.h"

namespace simhash {
namespace {

bool is_ascii_byte(char byte) { return static_cast<unsigned char>(byte) < 0x80; }

char16_t ascii_lowercase(char byte) {
  return static_cast<char16_t>(byte >= 'A' && byte <= 'Z' ? byte + ('a' - 'A') : byte);
}

// Appends the lowercase of ASCII text straight into the string's buffer (a
// loop the compiler vectorizes), growing it geometrically.
void append_lowercase(std::string_view ascii, icu::UnicodeString& out) {
  if (ascii.empty()) {
    return;
  }
  const int32_t length = out.length();
  if (ascii.size() > static_cast<std::size_t>(INT32_MAX - length)) {
    throw std::runtime_error("simhash: normalized text longer than 2^31 UTF-16 code units");
  }
  const int32_t wanted = length + static_cast<int32_t>(ascii.size());
  // getBuffer(capacity) keeps the contents in the buffer (documented in
  // unistr.h); it reallocates only when asked for more than its capacity.
  const int32_t capacity =
      wanted <= out.getCapacity() ? wanted : (wanted > INT32_MAX / 2 ? INT32_MAX : 2 * wanted);
  char16_t* buffer = out.getBuffer(capacity);
  if (buffer == nullptr) {
    throw std::bad_alloc();
  }
  for (std::size_t index = 0; index < ascii.size(); ++index) {
    buffer[static_cast<std::size_t>(length) + index] = ascii_lowercase(ascii[index]);
  }
  out.releaseBuffer(wanted);
}

// Whether, in ICU's data, every ASCII character starts a normalization
// segment and normalizes to its ASCII lowercase.
bool ascii_shortcut_matches_icu(const icu::Normalizer2& normalizer) {
  for (int byte = 0; byte < 0x80; ++byte) {
    UErrorCode status = U_ZERO_ERROR;
    const icu::UnicodeString normalized =
        normalizer.normalize(icu::UnicodeString(static_cast<UChar32>(byte)), status);
    if (U_FAILURE(status) || !normalizer.hasBoundaryBefore(byte) || normalized.length() != 1 ||
        normalized[0] != ascii_lowercase(static_cast<char>(byte))) {
      return false;
    }
  }
  return true;
}

}  // namespace

Utf16Normalizer::Utf16Normalizer(AsciiShortcut shortcut) {
  UErrorCode status = U_ZERO_ERROR;
  normalizer_ = icu::Normalizer2::getNFKCCasefoldInstance(status);
  throw_if_icu_failed(status, "cannot load ICU NFKC_Casefold data");
  use_ascii_shortcut_ =
      shortcut == AsciiShortcut::when_exact && ascii_shortcut_matches_icu(*normalizer_);
}

void Utf16Normalizer::normalize(std::string_view utf8, icu::UnicodeString& out) {
  if (utf8.size() > static_cast<std::size_t>(INT32_MAX)) {
    throw std::runtime_error("simhash: text longer than 2 GiB");
  }
  out.remove();
  if (!use_ascii_shortcut_) {
    append_normalized(utf8, out);
    return;
  }
  // ICU gets the text between long ASCII stretches, short ASCII bits
  // included (spaces and punctuation in Chinese, the letters between
  // accented ones in French): an ICU call per short bit costs more than ICU
  // normalizing the bit (text alternating "a" and U+00E9 ran 5 times slower).
  constexpr std::size_t kShortcutMinimum = 16;
  std::size_t icu_start = 0;  // the text from here on is not appended yet
  std::size_t position = 0;
  while (position < utf8.size()) {
    const std::size_t ascii_end = end_of_ascii(utf8, position);
    if (ascii_end - position >= kShortcutMinimum) {
      if (position > icu_start) {
        append_normalized(utf8.substr(icu_start, position - icu_start), out);
      }
      append_lowercase(utf8.substr(position, ascii_end - position), out);
      icu_start = ascii_end;
    }
    position = ascii_end;
    while (position < utf8.size() && !is_ascii_byte(utf8[position])) {
      ++position;
    }
  }
  if (utf8.size() > icu_start) {
    append_normalized(utf8.substr(icu_start), out);
  }
}

void Utf16Normalizer::append_normalized(std::string_view non_ascii_utf8, icu::UnicodeString& out) {
  const auto length = static_cast<int32_t>(non_ascii_utf8.size());
  // UTF-16 never needs more code units than UTF-8 has bytes.
  char16_t* buffer = piece_.getBuffer(length);
  if (buffer == nullptr) {
    throw std::bad_alloc();
  }
  int32_t converted = 0;
  UErrorCode status = U_ZERO_ERROR;
  u_strFromUTF8(buffer, length, &converted, non_ascii_utf8.data(), length, &status);
  piece_.releaseBuffer(U_SUCCESS(status) ? converted : 0);
  throw_if_icu_failed(status, "cannot convert the text to UTF-16");
  normalizer_->normalizeSecondAndAppend(out, piece_, status);
  throw_if_icu_failed(status, "ICU normalization failed");
}

}  // namespace simhash
