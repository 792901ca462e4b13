// Zeroing the dead part of a stack (stack_scrub.h).
#include "recorder/preload/stack_scrub.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "recorder/preload/recorder.h"

namespace heaprec::recorder::preload {
namespace {

constexpr uintptr_t kPage = 4096;

inline uintptr_t StackPointer() {
  uintptr_t sp;
  asm volatile("mov %%rsp, %0" : "=r"(sp));
  return sp;
}

uintptr_t ParseHex(const char** p) {
  uintptr_t v = 0;
  for (;; ++*p) {
    const char c = **p;
    if (c >= '0' && c <= '9') {
      v = v * 16 + static_cast<uintptr_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      v = v * 16 + static_cast<uintptr_t>(c - 'a' + 10);
    } else {
      return v;
    }
  }
}

// The lowest address of the mapping of /proc/self/maps that holds address
// (0 if none), read with a buffer on the stack.
uintptr_t MappingStart(uintptr_t address) {
  const int fd =
      static_cast<int>(syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC));
  if (fd < 0) return 0;
  char buf[4096];
  size_t have = 0;
  uintptr_t found = 0;
  for (;;) {
    const ssize_t n = syscall(SYS_read, fd, buf + have, sizeof(buf) - 1 - have);
    if (n <= 0) break;
    have += static_cast<size_t>(n);
    buf[have] = '\0';
    // Whole lines only; a partial last line waits for the next read.
    size_t consumed = 0;
    for (size_t i = 0; i < have; ++i) {
      if (buf[i] != '\n') continue;
      const char* p = buf + consumed;
      const uintptr_t start = ParseHex(&p);
      ++p;  // '-'
      const uintptr_t end = ParseHex(&p);
      if (start <= address && address < end) found = start;
      consumed = i + 1;
    }
    if (found != 0) break;
    for (size_t i = consumed; i < have; ++i) buf[i - consumed] = buf[i];
    have -= consumed;
    if (have == sizeof(buf) - 1) have = 0;  // a line longer than the buffer: drop it
  }
  syscall(SYS_close, fd);
  return found;
}

// The lowest address of the calling thread's stack.
uintptr_t StackBottom(uintptr_t sp) {
  if (syscall(SYS_gettid) != getpid()) {
    // Another thread's: its pthread attributes (no allocation but for the
    // main thread, which reads the map itself).
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      void* addr = nullptr;
      size_t size = 0;
      const bool ok = pthread_attr_getstack(&attr, &addr, &size) == 0;
      pthread_attr_destroy(&attr);
      const auto lo = reinterpret_cast<uintptr_t>(addr);
      if (ok && lo <= sp && sp < lo + size) return lo;
    }
    return 0;
  }
  return MappingStart(sp);
}

}  // namespace

// Everything below the stack pointer is dead once the calls that look up
// the stack's bounds and give pages back have returned: the last loop, which
// calls nothing, clears up to the stack pointer itself (a function that
// calls others keeps nothing in the red zone).
__attribute__((noinline)) void ScrubStackBelowHere() {
  const int saved = errno;
  // pthread_getattr_np allocates (a CPU set) and frees: not the program's
  // calls, so they go to the real allocator unrecorded.
  ThreadState& ts = Tls();
  ts.guard++;
  const uintptr_t bottom = StackBottom(StackPointer());
  ts.guard--;
  const uintptr_t sp = StackPointer();
  if (bottom != 0 && sp > bottom + kPage) {
    const uintptr_t whole_end = (sp - kPage) & ~(kPage - 1);
    const uintptr_t whole_start = (bottom + kPage - 1) & ~(kPage - 1);
    if (whole_end > whole_start) {
      madvise(reinterpret_cast<void*>(whole_start), whole_end - whole_start, MADV_DONTNEED);
    }
    const uintptr_t top = StackPointer();
    for (auto* p = reinterpret_cast<volatile uint64_t*>(whole_end > bottom ? whole_end : bottom);
         reinterpret_cast<uintptr_t>(p + 1) <= top; ++p) {
      *p = 0;
    }
  }
  errno = saved;
}

}  // namespace heaprec::recorder::preload
