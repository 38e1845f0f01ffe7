// SPDX-License-Identifier: MIT
// kSanitizedBuild: whether the test program is built with AddressSanitizer
// or ThreadSanitizer, which run several times slower, for the tests that
// take a smaller randomized size there. Plain C++ (no SQLite), so the engine
// tests can read it as well as the SQL tests.
#pragma once

namespace simhash::testing {

inline constexpr bool kSanitizedBuild =
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    true;
#else
    false;
#endif
#else
    false;
#endif

}  // namespace simhash::testing
