// A heaprec trace or a heaptrack recording (any_trace_reader.h).
#include "format/any_trace_reader.h"

#include "format/read_ahead.h"

namespace heaprec::format {

ReadResult ReadAnyTraceFile(const std::string& path, TraceVisitor& visitor,
                            std::optional<HeaptrackFacts>* heaptrack,
                            const ReaderOptions& options) {
  heaptrack->reset();
  if (!IsHeaptrackFile(path)) return ReadTraceFileAhead(path, visitor, options);
  heaptrack->emplace();
  return ReadHeaptrackFile(path, visitor, &**heaptrack);
}

}  // namespace heaprec::format
