// UninitializedVector<T>: a std::vector whose resize leaves new entries of a
// plain type unwritten (as malloc would) instead of zeroing them, for
// buffers sized for what is about to be written into them (decompressed
// bytes, a batch of events' columns): zeroing them first was a memset of
// every byte. Values of a class type are still default-constructed.
// Header-only; thread-safety as std::vector's.
#ifndef HEAPREC_BASE_UNINITIALIZED_H_
#define HEAPREC_BASE_UNINITIALIZED_H_

#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace heaprec::base {

// std::allocator, except that a value-initialization (what resize asks for)
// is a default-initialization.
template <typename T>
struct UninitializedAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <typename U>
  UninitializedAllocator(const UninitializedAllocator<U>&) {}  // NOLINT: rebinding
  template <typename U>
  void construct(U* p) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <typename T>
using UninitializedVector = std::vector<T, UninitializedAllocator<T>>;

}  // namespace heaprec::base

#endif  // HEAPREC_BASE_UNINITIALIZED_H_
