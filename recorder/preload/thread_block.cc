// ThreadBlock: the per-thread pointer and the pool behind it (thread_block.h).
#include "recorder/preload/thread_block.h"

#include <atomic>

#include "recorder/preload/block_pool.h"

namespace heaprec::recorder::preload {

__thread ThreadBlockSlot t_thread_block __attribute__((tls_model("initial-exec")));

namespace {

constinit BlockPool g_thread_blocks{sizeof(ThreadBlock), kThreadBlockCapacity};

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

void ResetThreadBlocksAfterFork() {
  // A fork from a handler that interrupted this thread's acquisition: the
  // block being taken is in no slot, so the pool stays as the parent left it
  // (the parent's other threads' blocks stay taken in this child; no harm).
  if (t_thread_block.state == kBlockAcquiring) return;
  g_thread_blocks.ResetAfterFork(t_thread_block.block);
}

const void* ThreadBlocksMemory(size_t* bytes) {
  if (!g_thread_blocks.Reserve()) return nullptr;
  *bytes = g_thread_blocks.reserved_bytes();
  return reinterpret_cast<const void*>(g_thread_blocks.start());
}

BlockPool& ThreadBlockPoolForTesting() { return g_thread_blocks; }

}  // namespace heaprec::recorder::preload
