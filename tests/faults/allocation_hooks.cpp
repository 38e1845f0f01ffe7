// SPDX-License-Identifier: MIT
// operator new and delete replaced for fault_tests (allocation_hooks.h):
// malloc and free underneath, with a failure on demand and a running count
// of the usable bytes held.
#include "allocation_hooks.h"

#include <malloc.h>

#include <algorithm>
#include <cstdlib>
#include <new>

namespace simhash::testing::allocation {

std::atomic<bool> armed{false};
std::atomic<long> fail_at{0};
std::atomic<long> allocations{0};
std::atomic<bool> failed{false};

namespace {

std::atomic<std::size_t> held{0};
std::atomic<std::size_t> most_held{0};

}  // namespace

bool should_fail() {
  if (!armed.load(std::memory_order_relaxed)) {
    return false;
  }
  const long count = allocations.fetch_add(1, std::memory_order_relaxed) + 1;
  if (count == fail_at.load(std::memory_order_relaxed)) {
    failed = true;
    return true;
  }
  return false;
}

std::size_t live_bytes() { return held.load(); }
std::size_t peak_bytes() { return most_held.load(); }
void reset_peak() { most_held = held.load(); }

namespace {

void* allocate(std::size_t size, std::size_t alignment) {
  if (should_fail()) {
    return nullptr;
  }
  void* p = nullptr;
  if (alignment <= alignof(std::max_align_t)) {
    p = std::malloc(size == 0 ? 1 : size);
  } else {
    const std::size_t rounded = (size + alignment - 1) / alignment * alignment;
    p = std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
  }
  if (p != nullptr) {
    const std::size_t now =
        held.fetch_add(malloc_usable_size(p), std::memory_order_relaxed) + malloc_usable_size(p);
    std::size_t most = most_held.load(std::memory_order_relaxed);
    while (now > most && !most_held.compare_exchange_weak(most, now, std::memory_order_relaxed)) {
    }
  }
  return p;
}

void release(void* p) {
  if (p != nullptr) {
    held.fetch_sub(malloc_usable_size(p), std::memory_order_relaxed);
    std::free(p);
  }
}

}  // namespace
}  // namespace simhash::testing::allocation

using simhash::testing::allocation::allocate;
using simhash::testing::allocation::release;

void* operator new(std::size_t size) {
  if (void* p = allocate(size, 0)) {
    return p;
  }
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new(std::size_t size, std::align_val_t alignment) {
  if (void* p = allocate(size, static_cast<std::size_t>(alignment))) {
    return p;
  }
  throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return operator new(size, alignment);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return allocate(size, 0); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return allocate(size, 0); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p); }
