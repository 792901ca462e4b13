// AddressRefs: the chunk-local memory behind the address_ref column (format
// 1.2). Most frees release a block allocated a few events before, and most
// allocations reuse a block freed a few events before (allocators keep
// recently freed blocks at hand), so instead of a 64-bit address delta such an
// event names "the d-th most recently allocated (or freed) address" with one
// small number. Writer and reader both keep these two rings, reset at each
// chunk start so chunks stay independent, and update them with NoteEvent.
//
// Header-only, no allocation; not thread-safe (one per chunk being built or
// read).
#ifndef HEAPREC_FORMAT_ADDRESS_REFS_H_
#define HEAPREC_FORMAT_ADDRESS_REFS_H_

#include <cstdint>

#include "format/records.h"

namespace heaprec::format {

class AddressRefs {
 public:
  static constexpr uint32_t kWindow = 32;

  // d in 1..kWindow if address is the d-th most recent entry, else 0.
  uint32_t FindAllocated(uint64_t address) const { return allocated_.Find(address); }
  uint32_t FindFreed(uint64_t address) const { return freed_.Find(address); }
  // The d-th most recent entry; false if there is none (a damaged chunk).
  bool Allocated(uint32_t d, uint64_t* address) const { return allocated_.Get(d, address); }
  bool Freed(uint32_t d, uint64_t* address) const { return freed_.Get(d, address); }

  // What a kind of event may refer to: a free names an allocated address, an
  // allocation a freed one; realloc events never use refs.
  static bool MayRefer(const Event& e) {
    return e.address != 0 && (e.kind() == EventKind::kFree || e.kind() == EventKind::kAlloc);
  }
  // The ref an event would get (0: none).
  uint32_t RefFor(const Event& e) const {
    if (!MayRefer(e)) return 0;
    return e.kind() == EventKind::kFree ? FindAllocated(e.address) : FindFreed(e.address);
  }

  // Updates the rings with an event whose fields are all known.
  void NoteEvent(const Event& e) {
    switch (e.kind()) {
      case EventKind::kAlloc:
        if (e.address != 0) allocated_.Push(e.address);
        break;
      case EventKind::kFree:
        if (e.address != 0) freed_.Push(e.address);
        break;
      case EventKind::kRealloc:
        if (e.old_address != 0 && e.address != e.old_address && !(e.address == 0 && e.size > 0)) {
          freed_.Push(e.old_address);
        }
        if (e.address != 0 && e.address != e.old_address) allocated_.Push(e.address);
        break;
      case EventKind::kInvalid:
        break;
    }
  }

 private:
  struct Ring {
    uint64_t entries[kWindow] = {};
    uint32_t count = 0;  // entries pushed, saturating at kWindow
    uint32_t next = 0;   // where the next push goes

    void Push(uint64_t a) {
      entries[next] = a;
      next = (next + 1) % kWindow;
      if (count < kWindow) ++count;
    }
    uint32_t Find(uint64_t a) const {
      for (uint32_t d = 1; d <= count; ++d) {
        if (entries[(next + kWindow - d) % kWindow] == a) return d;
      }
      return 0;
    }
    bool Get(uint32_t d, uint64_t* a) const {
      if (d == 0 || d > count) return false;
      *a = entries[(next + kWindow - d) % kWindow];
      return true;
    }
  };
  Ring allocated_;
  Ring freed_;
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_ADDRESS_REFS_H_
