// SPDX-License-Identifier: MIT
// The fault tests' replacement of operator new (allocation_hooks.cpp), for
// the whole fault_tests process: it can fail the Nth allocation while armed
// (the out-of-memory tests) and counts the bytes C++ code holds (the memory
// bound tests). Only C++ allocations pass here; SQLite's own go through
// SQLITE_CONFIG_MALLOC.
#pragma once

#include <atomic>
#include <cstddef>

namespace simhash::testing::allocation {

// While armed, allocations are counted and the fail_at-th fails (0: none);
// failed says whether one did.
extern std::atomic<bool> armed;
extern std::atomic<long> fail_at;
extern std::atomic<long> allocations;
extern std::atomic<bool> failed;

// Counts an allocation while armed; true when it is the one to fail.
bool should_fail();

// Bytes held through operator new now (as malloc_usable_size counts them),
// and the most held at once since reset_peak().
std::size_t live_bytes();
std::size_t peak_bytes();
void reset_peak();

}  // namespace simhash::testing::allocation
