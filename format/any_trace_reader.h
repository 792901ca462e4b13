// ReadAnyTraceFile: heapreplay's way in. A heaptrack recording (told by its
// content: heaptrack_reader.h) is read by ReadHeaptrackFile, anything else
// as a heaprec trace by ReadTraceFileAhead (read_ahead.h); the same
// ReadResult either way. Not thread-safe; allocates; for tools.
#ifndef HEAPREC_FORMAT_ANY_TRACE_READER_H_
#define HEAPREC_FORMAT_ANY_TRACE_READER_H_

#include <optional>
#include <string>

#include "format/heaptrack_reader.h"
#include "format/trace_reader.h"
#include "format/trace_visitor.h"

namespace heaprec::format {

// *heaptrack is set to the recording's facts when path is a heaptrack
// recording, reset otherwise. options apply to heaprec traces.
ReadResult ReadAnyTraceFile(const std::string& path, TraceVisitor& visitor,
                            std::optional<HeaptrackFacts>* heaptrack,
                            const ReaderOptions& options = {});

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_ANY_TRACE_READER_H_
