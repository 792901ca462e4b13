// ZeroedArray<T>: a fixed number of T whose bytes start as zeros, from
// calloc: a large one is fresh mapped memory, whose pages the kernel gives
// zeroed when first touched, so neither the constructor nor the pages a
// short run never reaches cost anything. A std::vector<T>(n) writes every
// element: heapreplay's rings (BlockMap's nursery, the mismatches' released
// blocks: ~5 MiB in all) were more than half of the 2,700 page faults of a
// pass over a 45,000-event trace, and most of its fixed cost.
//
// For T whose all-zero bytes are a valid empty state of the array's user (no
// constructor of T runs: the elements are zero bytes, not T{}); T trivially
// copyable (copies are memcpy). Not thread-safe; header-only.
#ifndef HEAPREC_BASE_ZEROED_ARRAY_H_
#define HEAPREC_BASE_ZEROED_ARRAY_H_

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace heaprec::base {

template <typename T>
class ZeroedArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  explicit ZeroedArray(size_t n) : data_(Allocate(n)), size_(n) {}
  ZeroedArray(const ZeroedArray& other) : data_(Allocate(other.size_)), size_(other.size_) {
    if (size_ != 0) std::memcpy(data_, other.data_, size_ * sizeof(T));
  }
  ZeroedArray(ZeroedArray&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  ZeroedArray& operator=(ZeroedArray other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    return *this;
  }
  ~ZeroedArray() { std::free(data_); }

  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  size_t size() const { return size_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

 private:
  static T* Allocate(size_t n) {
    if (n == 0) return nullptr;
    void* p = std::calloc(n, sizeof(T));
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }

  T* data_;
  size_t size_;
};

}  // namespace heaprec::base

#endif  // HEAPREC_BASE_ZEROED_ARRAY_H_
