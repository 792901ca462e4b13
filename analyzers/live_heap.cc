// LiveHeap: what is not inline (live_heap.h).
#include "analyzers/live_heap.h"

#include "format/sampling.h"

namespace heaprec::analyzers {

Estimate LiveHeap::SampledEstimateOf(uint64_t id, const LiveBlock& block) const {
  // The weight the reader gave the event that made it (format/sampling.h).
  return analyzers::EstimateOf(block.size, format::SampleWeight(block.size, sample_rate_), id);
}

}  // namespace heaprec::analyzers
