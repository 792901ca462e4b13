// ThreadBlock: the per-thread pointer and the pool behind it (thread_block.h).
#include "recorder/preload/thread_block.h"

#include <atomic>
#include <cstring>

#include "recorder/preload/block_pool.h"

namespace heaprec::recorder::preload {

__thread ThreadBlockSlot t_thread_block __attribute__((tls_model("initial-exec")));

namespace {

constinit BlockPool g_thread_blocks{sizeof(ThreadBlock), kThreadBlockCapacity,
                                    kThreadBlockStateBytes};

// The shared block (BorrowSharedBlock), and the borrower number
// (ThreadBlockSlot::borrower) of the thread that has it borrowed, or 0;
// last_borrower: the number of the thread whose unwinder state it holds.
// Numbers, not addresses: a new thread often gets a dead one's stack, TLS
// and pthread_t.
std::atomic<ThreadBlock*> g_shared_block{nullptr};
std::atomic<uint32_t> g_shared_holder{0};
uint32_t g_shared_last_borrower = 0;  // written by the holder only
std::atomic<uint32_t> g_borrowers{0};

// The calling thread's borrower number, given on its first borrow.
uint32_t BorrowerNumber() {
  ThreadBlockSlot& slot = t_thread_block;
  if (slot.borrower == 0) {
    uint32_t n = 0;
    while (n == 0) n = g_borrowers.fetch_add(1, std::memory_order_relaxed) + 1;
    slot.borrower = n;
  }
  return slot.borrower;
}

// Takes the shared block from the pool once, if not done yet.
void TakeSharedBlock() {
  if (g_shared_block.load(std::memory_order_acquire) != nullptr) return;
  auto* block = static_cast<ThreadBlock*>(g_thread_blocks.TryAcquire());
  ThreadBlock* expected = nullptr;
  if (block != nullptr &&
      !g_shared_block.compare_exchange_strong(expected, block, std::memory_order_acq_rel)) {
    g_thread_blocks.Release(block);  // another thread took it first
  }
}

// Orders the slot's stores against a signal handler on this thread (which
// reads them through ThisThreadBlock), not against other threads.
inline void SignalFence() { std::atomic_signal_fence(std::memory_order_seq_cst); }

}  // namespace

ThreadBlock* AcquireThreadBlock() {
  ThreadBlockSlot& slot = t_thread_block;
  if (slot.block != nullptr) return slot.block;
  switch (slot.state) {
    case kBlockAcquiring:  // a handler interrupted this thread's acquisition
    case kBlockReleased:
      return nullptr;
    case kBlockFailed:
      if (++slot.misses % kThreadBlockRetry != 0) return nullptr;
      break;
    default:
      break;
  }
  slot.state = kBlockAcquiring;
  SignalFence();
  auto* block = static_cast<ThreadBlock*>(g_thread_blocks.TryAcquire());
  SignalFence();
  slot.block = block;
  slot.misses = 0;
  slot.state = block != nullptr ? kBlockNone : kBlockFailed;
  return block;
}

void ReleaseThreadBlock() {
  ThreadBlockSlot& slot = t_thread_block;
  slot.state = kBlockReleased;
  ThreadBlock* block = slot.block;
  slot.block = nullptr;
  SignalFence();  // a handler from here on sees no block: this one may be another thread's soon
  g_thread_blocks.Release(block);
}

ThreadBlock* BorrowSharedBlock() {
  const uint32_t me = BorrowerNumber();
  uint32_t expected = 0;
  if (!g_shared_holder.compare_exchange_strong(expected, me, std::memory_order_acquire,
                                               std::memory_order_relaxed)) {
    return nullptr;  // another thread has it (or, in a handler, this one)
  }
  ThreadBlock* block = g_shared_block.load(std::memory_order_acquire);
  if (block == nullptr) {
    g_shared_holder.store(0, std::memory_order_release);
    return nullptr;
  }
  if (g_shared_last_borrower != me) {
    // Another thread's frames and stack range are no use here.
    memset(block->unwind, 0, sizeof(block->unwind));
    g_shared_last_borrower = me;
  }
  return block;
}

void ReturnSharedBlock() { g_shared_holder.store(0, std::memory_order_release); }

ThreadBlock* BorrowThreadBlock() {
  ThreadBlockSlot& slot = t_thread_block;
  if (slot.borrowed != nullptr) return nullptr;  // nested in this thread's capture
  if (ThreadBlock* shared = BorrowSharedBlock()) return shared;
  slot.borrowed = reinterpret_cast<ThreadBlock*>(1);  // taken, for a handler from here on
  SignalFence();
  auto* block = static_cast<ThreadBlock*>(g_thread_blocks.TryAcquire());
  SignalFence();
  slot.borrowed = block;
  return block;
}

void ReturnThreadBlock(ThreadBlock* block) {
  if (block == nullptr) return;
  if (block == g_shared_block.load(std::memory_order_relaxed)) {
    ReturnSharedBlock();
    return;
  }
  ThreadBlockSlot& slot = t_thread_block;
  slot.borrowed = nullptr;
  SignalFence();
  g_thread_blocks.Release(block);
}

void ResetThreadBlocksAfterFork() {
  const uint32_t me = t_thread_block.borrower;
  ThreadBlock* const shared = g_shared_block.load(std::memory_order_relaxed);
  // A fork from a handler that interrupted this thread's acquisition: the
  // block being taken is in no slot, so the pool stays as the parent left it
  // (the parent's other threads' blocks stay taken in this child; no harm).
  // Likewise a fork from a handler that interrupted a borrow's acquisition.
  // A block this thread borrowed stays this thread's.
  const ThreadBlock* borrowed = t_thread_block.borrowed;
  if (t_thread_block.state != kBlockAcquiring && borrowed != reinterpret_cast<ThreadBlock*>(1)) {
    const void* keep[3] = {t_thread_block.block, shared, borrowed};
    g_thread_blocks.ResetAfterFork(keep, 3);
  }
  // A thread of the parent's that had it borrowed is not in the child.
  // Its unwinder state may be mid-capture (busy): wiped at the next borrow.
  if (me == 0 || g_shared_holder.load(std::memory_order_relaxed) != me) {
    g_shared_holder.store(0, std::memory_order_relaxed);
    g_shared_last_borrower = 0;
  }
}

const void* ThreadBlocksMemory(size_t* bytes) {
  if (!g_thread_blocks.Reserve()) return nullptr;
  TakeSharedBlock();
  *bytes = g_thread_blocks.reserved_bytes();
  return reinterpret_cast<const void*>(g_thread_blocks.start());
}

BlockPool& ThreadBlockPoolForTesting() { return g_thread_blocks; }

}  // namespace heaprec::recorder::preload
