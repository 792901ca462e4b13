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

template <class Allocator>
void ReplayThread(const Image& image, uint32_t t, ReplayState& state) {
  const Op* ops = image.ops(t);
  const uint64_t count = image.op_count(t);
  const Wait* wait = image.waits(t);
  void** slots = state.slots;
  const Touch touch = state.touch;
  for (uint64_t i = 0; i < count; ++i) {
    const Op& op = ops[i];
    if (op.flags & kWaits) {
      WaitFor(state.progress[wait->thread], wait->ops_done);
      ++wait;
    }
    void*& slot = slots[op.slot];
    switch (format::KindOf(static_cast<format::Api>(op.api))) {
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
    if (op.flags & kPublish) Publish(state.progress[t], static_cast<uint32_t>(i + 1));
    if ((i & 255) == 255) state.progress[t].ops_run.store(i + 1, std::memory_order_relaxed);
  }
  state.progress[t].ops_run.store(count, std::memory_order_relaxed);
}

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_REPLAY_LOOP_H_
