// SPDX-License-Identifier: MIT
// An allocator for std::vector whose storage starts on a cache line (64
// bytes): a vector loop over it then never loads across two lines, which
// costs a stream of codes that is not in the cache.
#pragma once

#include <cstddef>
#include <new>

namespace simhash {

template <typename T, std::size_t Alignment = 64>
class AlignedAllocator {
 public:
  using value_type = T;
  template <typename U>
  struct rebind {
    using other = AlignedAllocator<U, Alignment>;
  };

  AlignedAllocator() = default;
  template <typename U>
  explicit AlignedAllocator(const AlignedAllocator<U, Alignment>&) noexcept {}

  T* allocate(std::size_t count) {
    return static_cast<T*>(::operator new (count * sizeof(T), std::align_val_t{Alignment}));
  }
  // The unsized delete: the sized one is declared only where the compiler
  // has sized deallocation on (clang before 19 has not by default).
  void deallocate(T* data, std::size_t) noexcept {
    ::operator delete (data, std::align_val_t{Alignment});
  }

  friend bool operator==(const AlignedAllocator&, const AlignedAllocator&) { return true; }
};

}  // namespace simhash
