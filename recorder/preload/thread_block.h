// ThreadBlock: each recording thread's large state (the unwinder's caches,
// the stack cache), in memory from mmap behind one initial-exec TLS pointer,
// so that libheaprec.so's static TLS stays a few dozen bytes.
//
// Why: glibc carves every module's static TLS out of each thread's stack. A
// program that starts a thread with a small stack (PTHREAD_STACK_MIN, as
// runtimes do for watchdog and signal threads) gets EINVAL from
// pthread_create when a preloaded library adds kilobytes of TLS, and such a
// thread has no room for the recorder's ~15 KiB of stack either: heaprec
// would change the program. What must be in TLS stays there (ThreadState
// with the re-entry guard, recorder.h; SignalHold's flag; this pointer).
//
// Contract:
// - ThisThreadBlock() is the hot path: one TLS load and a branch that is
//   taken once per thread; the first call goes out of line to take a block
//   from the pool (block_pool.h: lock-free, mmap/mprotect only, no heap, no
//   lock), so a thread has a block from its first recorded call that needs
//   one. A block's state is all zeros when a thread gets it, as TLS would be.
// - nullptr means "no block": the pool could not map memory, its capacity
//   (kThreadBlockCapacity threads alive at once) is used up, the thread has
//   released its block (it is exiting), or the call interrupted this
//   thread's own acquisition (a signal handler). Such a thread borrows a
//   block for each capture (BorrowThreadBlock: the unwinder's state and
//   spare stack, not the stack cache): the shared block, taken when the
//   recorder starts, or if another thread has it a free block of the
//   pool's. Never libunwind on the thread's own stack: ~10 KiB deep, which
//   overflows a PTHREAD_STACK_MIN stack even as the thread exits. With
//   nothing to borrow, the capture records no stack and counts it. A thread
//   that failed to get one tries again every kThreadBlockRetry calls, not
//   on each.
// - ReleaseThreadBlock() at thread exit (the recorder's thread-exit
//   destructor, recorder.cc, registered for every thread that records): the
//   block goes back to the pool for the next thread; the thread takes none
//   again (what it records later, as it exits, goes without).
// - fork: the child's thread keeps its block (the memory is copied); every
//   other block the parent's threads held is free again in the child after
//   ResetThreadBlocksAfterFork() (the child's atfork handler), and so are
//   the blocks they had borrowed; the shared block is the child's to borrow
//   unless its thread was borrowing it (it gives it back). exec: nothing.
// - The block also holds scratch that need not be cleared (the frames of
//   the capture under way) and the spare stack on which the unwinder's slow
//   path runs (spare_stack.h), so that the recorder's own stack use on the
//   program's stack stays a few hundred bytes: small thread stacks fit.
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

// The block's size: 128 KiB with the pool's header (block_pool.h).
inline constexpr size_t kThreadBlockBytes = (128 << 10) - 64;

// Each part is raw memory for its owner's type, which static_asserts that it
// fits (the owners' types are private to their files). The state is all
// zeros when a thread gets the block; the scratch holds whatever it held.
struct ThreadBlock {
  // State.
  alignas(64) unsigned char unwind[14976];       // fast_unwind.cc's UnwindState
  alignas(64) unsigned char stack_cache[18496];  // recorder.cc's StackCache (stack_cache.h)
  // Scratch.
  alignas(64) unsigned char capture[2176];  // CaptureStack's frames (recorder.cc)
  // The frames of the unwinder's recent captures (fast_unwind.cc; which of
  // them hold a capture is in its state, above).
  alignas(64) unsigned char recent_frames[62464];
  // The unwinder's slow path runs here (spare_stack.h): libunwind and the
  // learning need ~10 KiB of stack, which a small thread stack has not.
  alignas(64) unsigned char spare_stack[kThreadBlockBytes - 14976 - 18496 - 2176 - 62464];
};
static_assert(sizeof(ThreadBlock) == kThreadBlockBytes);
// What the pool zeroes for each thread: the state.
inline constexpr size_t kThreadBlockStateBytes = offsetof(ThreadBlock, capture);

// The top of the block's spare stack (it grows down from there).
inline void* SpareStackTop(ThreadBlock& block) {
  return block.spare_stack + sizeof(block.spare_stack);
}

// Threads alive at once that get a block (the reservation: 128 KiB each, 512
// MiB of address space, mapped PROT_NONE until used; RSS only for the pages
// a thread touches).
inline constexpr uint32_t kThreadBlockCapacity = 4096;
// A thread without a block asks the pool again after this many calls.
inline constexpr uint32_t kThreadBlockRetry = 1024;

// The thread's TLS: its block and where it stands (zero-initialized).
struct ThreadBlockSlot {
  ThreadBlock* block;     // nullptr until acquired, after release or failure
  uint32_t state;         // kBlockNone, kBlockAcquiring, kBlockReleased, kBlockFailed
  uint32_t misses;        // calls without a block since a failure
  uint32_t borrower;      // the thread's number as a borrower of the shared block; 0 = none yet
  ThreadBlock* borrowed;  // a pool block borrowed for the capture under way (BorrowThreadBlock)
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

// For a thread without a block (PeekThreadBlock() == nullptr): the shared
// block, taken from the pool when the recorder starts (ThreadBlocksMemory)
// and kept; nullptr if another thread has borrowed it or it could not be
// had. Its unwinder state is the last borrower's (wiped when another thread
// borrows it: only the rules are shared knowledge), its stack cache unused.
// Never blocks (one compare-and-swap), async-signal-safe. Give it back with
// ReturnSharedBlock() as soon as the capture is done.
ThreadBlock* BorrowSharedBlock();
void ReturnSharedBlock();

// For a thread without a block, one capture's: the shared block if it is
// free, else a free block of the pool's (its state zeroed); nullptr if
// neither can be had, or this thread already has one borrowed (a handler
// nested in the capture). Lock-free, async-signal-safe. Give it back with
// ReturnThreadBlock(block) when the capture is done.
ThreadBlock* BorrowThreadBlock();
void ReturnThreadBlock(ThreadBlock* block);

// In the fork child's handler: see the contract above.
void ResetThreadBlocksAfterFork();

// The pool's reservation (mapped now if it was not, and the shared block
// taken from it), for the leak scan to leave out (recorder.cc
// AnnounceOwnMemory); nullptr if it cannot be mapped.
const void* ThreadBlocksMemory(size_t* bytes);

// The pool itself, for tests to count its blocks.
BlockPool& ThreadBlockPoolForTesting();

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_THREAD_BLOCK_H_
