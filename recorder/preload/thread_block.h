// ThreadBlock: each recording thread's large state (the unwinder's caches,
// the stack cache), in memory from mmap behind one initial-exec TLS pointer,
// so that libheaprec.so's static TLS stays a few dozen bytes.
//
// Why: glibc carves every module's static TLS out of each thread's stack. A
// program that starts a thread with a small stack (PTHREAD_STACK_MIN, as
// runtimes do for watchdog and signal threads) gets EINVAL from
// pthread_create when a preloaded library adds kilobytes of TLS: heaprec
// would change the program. What must be in TLS stays there (ThreadState
// with the re-entry guard, recorder.h; SignalHold's flag; this pointer).
//
// Contract:
// - ThisThreadBlock() is the hot path: one TLS load and a branch that is
//   taken once per thread; the first call goes out of line to take a block
//   from the pool (block_pool.h: lock-free, mmap/mprotect only, no heap, no
//   lock), so a thread has a block from its first recorded call that needs
//   one. A block is all zeros when a thread gets it, as TLS would be.
// - nullptr means "no block": the pool could not map memory, its capacity
//   (kThreadBlockCapacity threads alive at once) is used up, the thread has
//   released its block (it is exiting), or the call interrupted this
//   thread's own acquisition (a signal handler). Callers then do their job
//   without the state (the unwinder asks libunwind, the stack is interned
//   without the cache): slower, never wrong. A thread that failed to get
//   one tries again every kThreadBlockRetry calls, not on each.
// - ReleaseThreadBlock() at thread exit (the recorder's thread-exit
//   destructor, recorder.cc, registered for every thread that records): the
//   block goes back to the pool for the next thread; the thread takes none
//   again (what it records later, as it exits, goes without).
// - fork: the child's thread keeps its block (the memory is copied); every
//   other block the parent's threads held is free again in the child after
//   ResetThreadBlocksAfterFork() (the child's atfork handler). exec: nothing.
//
// Per thread, async-signal-safe (a handler that interrupts the block's
// acquisition gets nullptr), never allocates from the heap. Used by
// fast_unwind.cc and recorder.cc, each in its own part of the block.
#ifndef HEAPREC_RECORDER_PRELOAD_THREAD_BLOCK_H_
#define HEAPREC_RECORDER_PRELOAD_THREAD_BLOCK_H_

#include <cstddef>
#include <cstdint>

namespace heaprec::recorder::preload {

class BlockPool;

// Each part is raw memory for its owner's type, which static_asserts that it
// fits (the owners' types are private to their files).
struct ThreadBlock {
  alignas(64) unsigned char unwind[9856];         // fast_unwind.cc's UnwindState
  alignas(64) unsigned char stack_cache[18496];  // recorder.cc's StackCache (stack_cache.h)
};

// Threads alive at once that get a block (the reservation: 28 KiB each, 224
// MiB of address space, mapped PROT_NONE until used).
inline constexpr uint32_t kThreadBlockCapacity = 8192;
// A thread without a block asks the pool again after this many calls.
inline constexpr uint32_t kThreadBlockRetry = 1024;

// The thread's TLS: its block and where it stands (zero-initialized).
struct ThreadBlockSlot {
  ThreadBlock* block;  // nullptr until acquired, after release or failure
  uint32_t state;      // kBlockNone, kBlockAcquiring, kBlockReleased, kBlockFailed
  uint32_t misses;     // calls without a block since a failure
};
inline constexpr uint32_t kBlockNone = 0;
inline constexpr uint32_t kBlockAcquiring = 1;
inline constexpr uint32_t kBlockReleased = 2;
inline constexpr uint32_t kBlockFailed = 3;

extern __thread ThreadBlockSlot t_thread_block __attribute__((tls_model("initial-exec")));

// The cold half of ThisThreadBlock().
__attribute__((noinline, cold)) ThreadBlock* AcquireThreadBlock();

// The calling thread's block, acquired on the first call; nullptr if none
// (see the contract above).
inline ThreadBlock* ThisThreadBlock() {
  ThreadBlock* block = t_thread_block.block;
  if (__builtin_expect(block != nullptr, 1)) return block;
  return AcquireThreadBlock();
}

// The calling thread's block if it has one, without acquiring.
inline ThreadBlock* PeekThreadBlock() { return t_thread_block.block; }

// At thread exit: the block back to the pool, none taken again.
void ReleaseThreadBlock();

// In the fork child's handler: see the contract above.
void ResetThreadBlocksAfterFork();

// The pool's reservation (mapped now if it was not), for the leak scan to
// leave out (recorder.cc AnnounceOwnMemory); nullptr if it cannot be mapped.
const void* ThreadBlocksMemory(size_t* bytes);

// The pool itself, for tests to count its blocks.
BlockPool& ThreadBlockPoolForTesting();

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_THREAD_BLOCK_H_
