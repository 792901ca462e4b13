// BlockPool: fixed-size blocks of memory from one mmap'd reservation, handed
// out and taken back without locks, for per-thread state that is too large
// for static TLS (thread_block.h is its one user in the recorder).
//
// Memory: Reserve() maps capacity * stride bytes PROT_NONE (no memory, no
// commit charge; one mapping, so that the leak scan can leave all of it out:
// RegionHeader::own_memory). A block is made readable and writable
// (mprotect) the first time it is handed out ("carved"); every index below
// carved() is, so the pool's blocks are always [start, start + carved *
// stride). Blocks are never unmapped: a released block goes onto a free list
// and is handed out again, zeroed (all of it, or the part its user asks
// for), so a program that starts and ends
// millions of threads uses as many blocks as it had threads alive at once,
// and pays a system call only for each block's first use.
//
// Free list: a Treiber stack of block indices whose head carries a
// generation that every push and pop bumps, so a pop that read a head,
// slept while the block was popped, reused and pushed back, fails its
// compare-and-swap (the ABA problem) instead of installing a stale next.
// Each block's link lives in a 64-byte header before the block, which its
// user never writes, as a std::atomic: a pop may read the link of a block
// another thread has just taken (its CAS then fails).
//
// Thread-safe, lock-free (never waits for another thread), async-signal-safe
// (atomics, mmap, mprotect and memset only), never allocates from the heap.
// Constant-initialized: a global pool works before any constructor runs.
// Has no destructor on purpose: a global must outlive threads still running
// at exit (tests unmap theirs with UnmapForTesting).
#ifndef HEAPREC_RECORDER_PRELOAD_BLOCK_POOL_H_
#define HEAPREC_RECORDER_PRELOAD_BLOCK_POOL_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace heaprec::recorder::preload {

class BlockPool {
 public:
  // The header before each block (its free-list link), and the blocks' alignment.
  static constexpr size_t kHeaderBytes = 64;
  static constexpr size_t kPageBytes = 4096;

  // Blocks of `bytes` bytes (64-byte aligned), at most `capacity` of them;
  // the first wiped_bytes of a block are zero whenever it is handed out, the
  // rest only the first time (scratch its user need not have cleared).
  constexpr BlockPool(size_t bytes, uint32_t capacity, size_t wiped_bytes)
      : bytes_(bytes),
        wiped_bytes_(wiped_bytes < bytes ? wiped_bytes : bytes),
        stride_((kHeaderBytes + bytes + kPageBytes - 1) / kPageBytes * kPageBytes),
        capacity_(capacity) {}
  constexpr BlockPool(size_t bytes, uint32_t capacity) : BlockPool(bytes, capacity, bytes) {}
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;

  // Maps the reservation if it is not mapped yet (concurrent callers agree on
  // one; a loser unmaps its own). False if mmap failed.
  bool Reserve();

  // A block of bytes() bytes (zero as the constructor says), or nullptr: the reservation or the
  // mprotect failed, or capacity blocks are in use. A free block is taken
  // first; else the next one is carved (reserving first if need be).
  void* TryAcquire();

  // Gives back a block TryAcquire returned; any thread may release it.
  void Release(void* block);

  // In a fork child, where only the calling thread lives: every carved block
  // but the keep_count in keep (this thread's, blocks held for all; nullptr
  // entries are ignored) is free again, whatever other threads held or were
  // doing when the parent forked.
  void ResetAfterFork(const void* const* keep, int keep_count);
  void ResetAfterFork(const void* keep) { ResetAfterFork(&keep, 1); }

  // The reservation: [start, start + reserved_bytes()), or 0 before Reserve().
  uintptr_t start() const { return base_.load(std::memory_order_acquire); }
  size_t reserved_bytes() const { return stride_ * capacity_; }
  size_t bytes() const { return bytes_; }
  size_t stride() const { return stride_; }
  uint32_t capacity() const { return capacity_; }
  // Blocks made usable so far (in use or free).
  uint32_t carved() const { return carved_.load(std::memory_order_acquire); }

  // Blocks on the free list. Tests only: nothing may acquire or release meanwhile.
  uint32_t CountFreeForTesting() const;
  // Unmaps the reservation and empties the pool. Tests only, no block in use.
  void UnmapForTesting();
  // Calls hook(arg) in every pop between reading the top's link and the
  // compare-and-swap: a test makes the ABA interleaving happen there.
  // Tests only; set while no other thread uses the pool.
  void SetPopHookForTesting(void (*hook)(void*), void* arg) {
    pop_hook_ = hook;
    pop_hook_arg_ = arg;
  }

 private:
  struct Header {
    std::atomic<uint32_t> next;  // the next free block's index + 1; 0 = none
  };
  static_assert(sizeof(Header) <= kHeaderBytes);

  Header& HeaderOf(uintptr_t base, uint32_t index) const {
    return *reinterpret_cast<Header*>(base + stride_ * index);
  }
  void* BlockAt(uintptr_t base, uint32_t index) const {
    return reinterpret_cast<void*>(base + stride_ * index + kHeaderBytes);
  }
  void Push(uintptr_t base, uint32_t index);
  void* TryPop(uintptr_t base);
  void* TryCarve(uintptr_t base);

  const size_t bytes_;
  const size_t wiped_bytes_;
  const size_t stride_;  // header + block, whole pages
  const uint32_t capacity_;
  std::atomic<uintptr_t> base_{0};
  std::atomic<uint32_t> carved_{0};
  // The free list: generation << 32 | (top block's index + 1); low half 0 = empty.
  std::atomic<uint64_t> head_{0};
  void (*pop_hook_)(void*) = nullptr;
  void* pop_hook_arg_ = nullptr;
};

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_BLOCK_POOL_H_
