// ReplayThread<Allocator>: the timed loop. Runs one replay thread's ops in
// order against an allocator policy: waits where the compiler said so,
// stores each block in its slot, touches new memory, publishes progress.
//
// The policy is a class with static Alloc(op), Realloc(p, op), Free(p, op)
// (system_allocator.h: the process's malloc family; null_allocator.h: none;
// tests add checking ones). The loop itself never allocates, hashes or
// locks; everything it uses was mapped before the clock started.
// Called on a replay thread (replayer.h), one call per thread.
#ifndef HEAPREC_REPLAY_REPLAY_LOOP_H_
#define HEAPREC_REPLAY_REPLAY_LOOP_H_

#include <cstdint>
#include <cstring>

#include "format/api.h"
#include "replay/compiled_image.h"
#include "replay/compiled_ops.h"
#include "replay/thread_progress.h"

namespace heaprec::replay {

// How allocated memory is written, so that RSS is real.
enum class Touch { kNone, kPage, kFull };

// What replay threads share: the slot table and each thread's progress.
struct ReplayState {
  void** slots = nullptr;
  ThreadProgress* progress = nullptr;
  Touch touch = Touch::kPage;
};

inline constexpr uintptr_t kPageBytes = 4096;

// kPage: one byte in every page the block covers; kFull: every byte.
inline void TouchBlock(void* block, uint64_t size, Touch touch) {
  if (block == nullptr || size == 0 || touch == Touch::kNone) return;
  auto* bytes = static_cast<volatile char*>(block);
  if (touch == Touch::kFull) {
    std::memset(block, 0xa5, size);
    return;
  }
  bytes[0] = 1;
  const auto start = reinterpret_cast<uintptr_t>(block);
  for (uintptr_t page = (start + kPageBytes) & ~(kPageBytes - 1); page < start + size;
       page += kPageBytes) {
    bytes[page - start] = 1;
  }
}

// The loop for one touch mode (a constant, so the null replay's kNone costs
// no test per op).
template <class Allocator, Touch touch>
void ReplayOps(const Image& image, uint32_t t, ReplayState& state) {
  const Op* ops = image.ops(t);
  const uint64_t count = image.op_count(t);
  const Wait* wait = image.waits(t);
  void** slots = state.slots;
  for (uint64_t i = 0; i < count; ++i) {
    const Op& op = ops[i];
    // One page (256 ops) ahead: the hardware prefetcher alone leaves the null
    // replay waiting on the op stream (9.8 -> 8.2% of glibc's time on
    // alloc_heavy). Address arithmetic, as it may point past the array.
    __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(&op) + 4096));
    if (__builtin_expect(op.flags & kWaits, 0)) {
      WaitFor(state.progress[wait->thread], wait->ops_done);
      ++wait;
    }
    void*& slot = slots[op.slot];
    switch (static_cast<format::EventKind>(op.kind)) {
      case format::EventKind::kAlloc:
        slot = Allocator::Alloc(op);
        TouchBlock(slot, op.size, touch);
        break;
      case format::EventKind::kFree:
        Allocator::Free(slot, op);
        break;
      case format::EventKind::kRealloc:
        slot = Allocator::Realloc((op.flags & kFromNull) ? nullptr : slot, op);
        if (op.flags & kToZero) {
          // glibc frees and returns NULL; an allocator that returns a
          // minimal block instead gets it freed, so live bytes stay as recorded.
          if (slot != nullptr) Allocator::FreeAfterRealloc(slot);
          slot = nullptr;
        } else {
          TouchBlock(slot, op.size, touch);
        }
        break;
      case format::EventKind::kInvalid:
        break;
    }
    if (__builtin_expect(op.flags & kPublish, 0))
      Publish(state.progress[t], static_cast<uint32_t>(i + 1));
    if ((i & 255) == 255) state.progress[t].ops_run.store(i + 1, std::memory_order_relaxed);
  }
  state.progress[t].ops_run.store(count, std::memory_order_relaxed);
}

template <class Allocator>
void ReplayThread(const Image& image, uint32_t t, ReplayState& state) {
  switch (state.touch) {
    case Touch::kNone:
      return ReplayOps<Allocator, Touch::kNone>(image, t, state);
    case Touch::kPage:
      return ReplayOps<Allocator, Touch::kPage>(image, t, state);
    case Touch::kFull:
      return ReplayOps<Allocator, Touch::kFull>(image, t, state);
  }
}

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_REPLAY_LOOP_H_
