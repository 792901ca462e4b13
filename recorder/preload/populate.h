// PopulateForWrite: maps pages of the region (or another mapping) in one
// system call, ahead of their first write, instead of one page fault each.
//
// Why: in the virtual machines docs/BENCHMARKS.md was measured in, a page
// fault on a /dev/shm mapping cost ~16 us; madvise(MADV_POPULATE_WRITE)
// 256 KiB at a time brought the whole cost of writing 32 MiB from ~140 ms
// to ~50 ms. Used for what the recorder fills in order (a thread's ring on
// its first lap, the stack arena, a new stack index level) just before it
// gets there. Linux 5.14 or later; elsewhere the call fails and the pages
// fault in as before. Async-signal-safe, no heap, errno preserved.
#ifndef HEAPREC_RECORDER_PRELOAD_POPULATE_H_
#define HEAPREC_RECORDER_PRELOAD_POPULATE_H_

#include <errno.h>
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // linux/mman.h, 5.14
#endif

namespace heaprec::recorder::preload {

// [p, p + bytes) rounded out to whole pages of 4 KiB.
inline void PopulateForWrite(const void* p, size_t bytes) {
  const int saved = errno;
  const uintptr_t start = reinterpret_cast<uintptr_t>(p) & ~uintptr_t{4095};
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes + 4095) & ~uintptr_t{4095};
  madvise(reinterpret_cast<void*>(start), end - start, MADV_POPULATE_WRITE);
  errno = saved;
}

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_POPULATE_H_
