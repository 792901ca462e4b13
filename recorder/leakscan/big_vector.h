// BigVector: the engine's arrays of millions of entries (edges, per-block
// state, the dominator computation's arrays) in memory mapped with
// transparent huge pages asked for (base/large_buffers.h). Their accesses
// are random (pointers go anywhere), and with 4 KiB pages nearly every one
// also misses the TLB: on the 10-million-block benchmark huge pages cut the
// depth-first search and the marking by about half.
//
// Header-only. Thread-safety and allocation: std::vector's.
#ifndef HEAPREC_RECORDER_LEAKSCAN_BIG_VECTOR_H_
#define HEAPREC_RECORDER_LEAKSCAN_BIG_VECTOR_H_

#include <vector>

#include "base/large_buffers.h"

namespace heaprec::recorder::leakscan {

template <typename T>
using BigVector = std::vector<T, base::LargeBufferAllocator<T>>;

}  // namespace heaprec::recorder::leakscan

#endif  // HEAPREC_RECORDER_LEAKSCAN_BIG_VECTOR_H_
