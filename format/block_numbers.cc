// BlockNumbers: live address -> block number in an OpenTable.
#include "format/block_numbers.h"

namespace heaprec::format {

void BlockNumbers::Assign(Event* e) {
  e->block = 0;
  e->old_block = 0;
  uint64_t unused;
  switch (e->kind()) {
    case EventKind::kAlloc:
      if (e->address != 0) {
        e->block = ++made_;
        live_.Put(e->address, e->block, &unused);
      }
      return;
    case EventKind::kFree:
      if (e->address != 0) live_.Take(e->address, &e->block);
      return;
    case EventKind::kRealloc:
      if (e->old_address != 0) {
        const uint64_t* old = live_.Get(e->old_address);
        e->old_block = old == nullptr ? 0 : *old;
      }
      if (e->address != 0) {
        if (e->old_block != 0) live_.Take(e->old_address, &unused);
        e->block = ++made_;
        live_.Put(e->address, e->block, &unused);
      } else if (e->size == 0 && e->old_block != 0) {
        live_.Take(e->old_address, &unused);
      }
      return;
    case EventKind::kInvalid:
      return;
  }
}

}  // namespace heaprec::format
