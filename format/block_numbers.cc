// BlockNumbers: live addresses in an OpenTable, released ones direct-mapped.
#include "format/block_numbers.h"

#include <algorithm>

namespace heaprec::format {

void BlockNumbers::Make(uint64_t address, uint64_t block, uint64_t size, uint64_t tag) {
  Live old;
  // A live address made again (damaged trace): replaced.
  if (live_.Put(address, Live{block, size, tag}, &old)) live_bytes_ -= Bytes(old.size);
  live_bytes_ += Bytes(size);
  if (live_bytes_ > peak_bytes_) peak_bytes_ = live_bytes_;
  // A released entry of address, if any, is left: it is read only while
  // address is not live, and address stops being live only by a release,
  // which overwrites it, or during a pause, which began by forgetting every
  // entry. (Clearing it cost a random read of released_ per block made.)
}

void BlockNumbers::Release(uint64_t address, const Live& l) {
  if (remember_released_) released_[ReleasedSlot(address)] = Released{address, l.block, l.tag};
}

void BlockNumbers::RecordingSwitched(bool paused) {
  std::fill(released_.begin(), released_.end(), Released{});
  remember_released_ = !paused;
}

void BlockNumbers::Assign(const Event& e, uint64_t tag, uint64_t* block, uint64_t* old_block,
                          uint64_t* named_tag) {
  *block = 0;
  *old_block = 0;
  *named_tag = 0;
  switch (e.kind()) {
    case EventKind::kAlloc:
      if (e.address != 0) {
        *block = ++made_;
        Make(e.address, *block, e.size, tag);
      }
      return;
    case EventKind::kFree: {
      if (e.address == 0) return;
      Live l;
      if (live_.Take(e.address, &l)) {
        live_bytes_ -= Bytes(l.size);
        *block = l.block;
        *named_tag = l.tag;
        Release(e.address, l);
        return;
      }
      const Released& r = released_[ReleasedSlot(e.address)];
      if (r.address == e.address) {  // released before: a double free
        *block = r.block;
        *named_tag = r.tag;
      }
      return;
    }
    case EventKind::kRealloc: {
      // Only a live block counts as passed in (a released one is unknown).
      const Live* l = e.old_address == 0 ? nullptr : live_.Get(e.old_address);
      if (l != nullptr) {
        *old_block = l->block;
        *named_tag = l->tag;
      }
      if (*old_block != 0 && (e.address != 0 || e.size == 0)) {
        Live taken;
        live_.Take(e.old_address, &taken);
        live_bytes_ -= Bytes(taken.size);
        Release(e.old_address, taken);
      }
      if (e.address != 0) {
        *block = ++made_;
        Make(e.address, *block, e.size, tag);
      }
      return;
    }
    case EventKind::kInvalid:
      return;
  }
}

}  // namespace heaprec::format
