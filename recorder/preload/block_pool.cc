// BlockPool: a reservation carved block by block, and a tagged Treiber stack
// of released blocks (block_pool.h).
#include "recorder/preload/block_pool.h"

#include <sys/mman.h>

#include <cstring>

namespace heaprec::recorder::preload {
namespace {

constexpr uint64_t kIndexMask = 0xFFFFFFFFu;

// head with top (index + 1, or 0) and the generation moved on by one.
uint64_t NextHead(uint64_t head, uint64_t top) { return ((head >> 32) + 1) << 32 | top; }

}  // namespace

bool BlockPool::Reserve() {
  uintptr_t base = base_.load(std::memory_order_acquire);
  if (base != 0) return true;
  void* p = mmap(nullptr, reserved_bytes(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) return false;
  if (!base_.compare_exchange_strong(base, reinterpret_cast<uintptr_t>(p),
                                     std::memory_order_acq_rel)) {
    munmap(p, reserved_bytes());
  }
  return true;
}

void* BlockPool::TryAcquire() {
  uintptr_t base = base_.load(std::memory_order_acquire);
  if (base == 0) {
    if (!Reserve()) return nullptr;
    base = base_.load(std::memory_order_acquire);
  }
  if (void* block = TryPop(base)) {
    memset(block, 0, wiped_bytes_);  // as a fresh one: what its previous user left is gone
    return block;
  }
  return TryCarve(base);
}

void* BlockPool::TryPop(uintptr_t base) {
  uint64_t head = head_.load(std::memory_order_acquire);
  while ((head & kIndexMask) != 0) {
    const auto index = static_cast<uint32_t>((head & kIndexMask) - 1);
    // May be stale if another thread takes this block meanwhile: then the
    // head's generation has moved and the exchange fails.
    const uint32_t next = HeaderOf(base, index).next.load(std::memory_order_relaxed);
    if (__builtin_expect(pop_hook_ != nullptr, 0)) pop_hook_(pop_hook_arg_);
    if (head_.compare_exchange_weak(head, NextHead(head, next), std::memory_order_acquire,
                                    std::memory_order_acquire)) {
      return BlockAt(base, index);
    }
  }
  return nullptr;
}

// Carving block c: made readable and writable first, then counted, so that
// every index below carved_ is usable (ResetAfterFork walks them). Two
// threads may both mprotect block c (harmless: read-write either way); one
// counts it, the other moves on to c + 1.
void* BlockPool::TryCarve(uintptr_t base) {
  uint32_t carved = carved_.load(std::memory_order_acquire);
  for (;;) {
    if (carved >= capacity_) return nullptr;
    if (mprotect(reinterpret_cast<void*>(base + stride_ * carved), stride_,
                 PROT_READ | PROT_WRITE) != 0) {
      return nullptr;
    }
    if (carved_.compare_exchange_weak(carved, carved + 1, std::memory_order_acq_rel,
                                      std::memory_order_acquire)) {
      return BlockAt(base, carved);
    }
  }
}

void BlockPool::Push(uintptr_t base, uint32_t index) {
  Header& h = HeaderOf(base, index);
  uint64_t head = head_.load(std::memory_order_relaxed);
  do {
    h.next.store(static_cast<uint32_t>(head & kIndexMask), std::memory_order_relaxed);
  } while (!head_.compare_exchange_weak(head, NextHead(head, index + 1u), std::memory_order_release,
                                        std::memory_order_relaxed));
}

void BlockPool::Release(void* block) {
  const uintptr_t base = base_.load(std::memory_order_acquire);
  const uintptr_t at = reinterpret_cast<uintptr_t>(block);
  if (block == nullptr || base == 0 || at < base || at >= base + reserved_bytes() ||
      (at - base) % stride_ != kHeaderBytes) {
    return;  // not one of ours
  }
  Push(base, static_cast<uint32_t>((at - base) / stride_));
}

void BlockPool::ResetAfterFork(const void* const* keep, int keep_count) {
  const uintptr_t base = base_.load(std::memory_order_acquire);
  head_.store(head_.load(std::memory_order_relaxed) & ~kIndexMask, std::memory_order_relaxed);
  if (base == 0) return;
  const uint32_t carved = carved_.load(std::memory_order_acquire);
  // Pushed from the last so that the first blocks are handed out first.
  for (uint32_t i = carved; i-- > 0;) {
    bool kept = false;
    for (int k = 0; k < keep_count; ++k) kept = kept || BlockAt(base, i) == keep[k];
    if (!kept) Push(base, i);
  }
}

uint32_t BlockPool::CountFreeForTesting() const {
  const uintptr_t base = base_.load(std::memory_order_acquire);
  uint32_t n = 0;
  for (uint64_t top = head_.load(std::memory_order_acquire) & kIndexMask;
       top != 0 && n <= capacity_;
       top = HeaderOf(base, static_cast<uint32_t>(top - 1)).next.load(std::memory_order_relaxed)) {
    ++n;
  }
  return n;
}

void BlockPool::UnmapForTesting() {
  const uintptr_t base = base_.exchange(0, std::memory_order_acq_rel);
  if (base != 0) munmap(reinterpret_cast<void*>(base), reserved_bytes());
  carved_.store(0, std::memory_order_release);
  head_.store(0, std::memory_order_release);
}

}  // namespace heaprec::recorder::preload
