// ReadTraceFileAhead: ReadTraceFile on a second thread. A reader thread
// decompresses, checks and decodes the trace into batches of records; the
// calling thread hands them to `visitor` in the same order as ReadTraceFile
// would (events in OnEvents calls of at most kBatchEvents, split where
// ReadTraceFile's are or at a batch's end), so decoding (about half of an
// analysis's time) overlaps with the visitor's work on another core. A third
// thread inflates chunks ahead of the decoding (ReaderOptions::inflate_ahead,
// on a machine of two cores or more).
//
// Same result and the same guarantees as ReadTraceFile (trace_reader.h): a
// damaged or cut trace delivers what precedes the damage. Memory: at most
// kBatchesInFlight batches of kBatchEvents events (as columns, 77 bytes an
// event) beyond ReadTraceFile's.
// The visitor is called on the calling thread only.
#ifndef HEAPREC_FORMAT_READ_AHEAD_H_
#define HEAPREC_FORMAT_READ_AHEAD_H_

#include <cstddef>
#include <string>

#include "format/trace_reader.h"
#include "format/trace_visitor.h"

namespace heaprec::format {

inline constexpr size_t kBatchEvents = 16384;
inline constexpr size_t kBatchesInFlight = 4;

ReadResult ReadTraceFileAhead(const std::string& path, TraceVisitor& visitor,
                              const ReaderOptions& options = {});

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_READ_AHEAD_H_
