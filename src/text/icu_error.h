// SPDX-License-Identifier: MIT
// The one way the engine reports an ICU failure: std::runtime_error with
// "simhash: <what failed>: <ICU's error name>".
#pragma once

#include <unicode/utypes.h>

#include <stdexcept>
#include <string>

namespace simhash {

[[noreturn]] inline void throw_icu_error(UErrorCode status, const char* what) {
  throw std::runtime_error(std::string("simhash: ") + what + ": " + u_errorName(status));
}

inline void throw_if_icu_failed(UErrorCode status, const char* what) {
  if (U_FAILURE(status)) {
    throw_icu_error(status, what);
  }
}

}  // namespace simhash
