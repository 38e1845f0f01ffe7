// FastPathSwitch: turns the ASCII fast path of the word tokenizer on or off
// for one scope, so a test can compare both paths on the same text.
#pragma once

#include "ascii_words.h"

namespace simhash::testing {

class FastPathSwitch {
 public:
  explicit FastPathSwitch(bool enabled) : before_(ascii_fast_path_enabled()) {
    set_ascii_fast_path_enabled(enabled);
  }
  ~FastPathSwitch() { set_ascii_fast_path_enabled(before_); }
  FastPathSwitch(const FastPathSwitch&) = delete;
  FastPathSwitch& operator=(const FastPathSwitch&) = delete;

 private:
  bool before_;
};

}  // namespace simhash::testing
