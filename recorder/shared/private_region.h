// PrivateRegion: a region-sized private anonymous mapping with the region's
// layout, for tests and benchmarks of the stack table (no launcher, no file).
// Stack id 0 stays "none" (the arena starts at word 1). Test-only; aborts if
// the mapping fails.
#ifndef HEAPREC_RECORDER_SHARED_PRIVATE_REGION_H_
#define HEAPREC_RECORDER_SHARED_PRIVATE_REGION_H_

#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>

#include "recorder/shared/region_layout.h"

namespace heaprec::recorder {

class PrivateRegion {
 public:
  PrivateRegion() {
    void* p = mmap(nullptr, kRegionBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      std::perror("mmap");
      std::abort();
    }
    view_.base = static_cast<uint8_t*>(p);
    view_.header()->stack_arena_used.store(1, std::memory_order_relaxed);  // id 0 = none
  }
  ~PrivateRegion() { munmap(view_.base, kRegionBytes); }
  PrivateRegion(const PrivateRegion&) = delete;
  PrivateRegion& operator=(const PrivateRegion&) = delete;

  const RegionView& view() const { return view_; }

  // Empties the stack table (index and arena back to zero pages).
  void Reset() {
    madvise(view_.base + kStackIndexOffset, kRingsOffset - kStackIndexOffset, MADV_DONTNEED);
    view_.header()->stack_arena_used.store(1, std::memory_order_relaxed);
  }

 private:
  RegionView view_;
};

}  // namespace heaprec::recorder

#endif  // HEAPREC_RECORDER_SHARED_PRIVATE_REGION_H_
