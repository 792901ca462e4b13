// AtDepth(depth, body): runs body() `depth` real frames below the caller, so
// that benchmarks can measure stack-dependent costs at known depths.
// Header-only; no allocation. Shared by the benchmarks of this folder.
#ifndef HEAPREC_RECORDER_BENCHMARKS_AT_DEPTH_H_
#define HEAPREC_RECORDER_BENCHMARKS_AT_DEPTH_H_

namespace heaprec::benchmarks {

template <typename Body>
__attribute__((noinline)) void AtDepth(int depth, Body& body) {
  if (depth > 0) {
    AtDepth(depth - 1, body);
    asm volatile("" ::: "memory");  // not a tail call: the frame stays
    return;
  }
  body();
}

}  // namespace heaprec::benchmarks

#endif  // HEAPREC_RECORDER_BENCHMARKS_AT_DEPTH_H_
