// Reads a heaptrack recording (heaptrack 1.x's interpreted text, file
// formats 1 to 3, as heaptrack 1.4 writes heaptrack.APP.PID.zst; zstd, gzip
// or plain) into a TraceVisitor, as if it were a heaprec trace, so every
// analysis of heapreplay answers from it. A recording is told by its content
// (the decompressed text's first line is heaptrack's `v` or `X` line), never
// by its name.
//
// What a heaptrack recording holds and how it becomes records
// (heaptrack's src/interpret/heaptrack_interpret.cpp writes it;
// src/analyze/accumulatedtracedata.cpp reads it; all numbers are hex):
//   v VERSION FILEVERSION   heaptrack's version (0x010400) and the file format
//   X COMMAND LINE          -> ProcessInfo (program, args)
//   I PAGESIZE PAGES        -> ProcessInfo::page_size
//   A                       attached to a running process -> from_start false
//   s [LEN ]STRING          interned string (sized from file format 3)
//   i IP MODULE [FN [FILE LINE [FN FILE LINE]...]]
//                           -> Module (one per module string), Symbol (the
//                              frame, then its inlined callers, outward)
//   t IP_INDEX PARENT       trace node -> StackNode (a node whose frame is
//                           `operator new(unsigned long)` or `[]` stands for
//                           its parent, as heaptrack_print skips it)
//   a SIZE TRACE            allocation info: a (size, stack) pair
//   + INFO / - INFO         an allocation / a free of that pair -> Event
//   c MILLISECONDS          time since start (every ~10 ms) -> Event::time_ns
//   R PAGES                 RSS sample (statm's resident pages, every ~10 ms
//                           after a `c`) -> RssSample::unsplit_bytes (pages
//                           times the `I` line's page size; statm does not
//                           tell anonymous from file pages), before the next
//                           event, at the latest `c` time; the highest kept
//                           in HeaptrackFacts
//   S SUPPRESSION           leak suppression embedded by the program (kept)
//   # ...                   comment; heaptrack ends with "# strings:"/"# ips:"
// A free names an allocation info, not a block: the reader gives each `+` a
// new block number and a `-` releases the newest live block of its info
// (last in, first out), so per-site live bytes, the peak and leaks are
// heaptrack_print's. Every event is a malloc or a free on one thread.
//
// Damage never crashes: a malformed line or an index out of range ends
// kError with "PATH: line N: what is wrong"; a cut file (mid-stream, mid-line,
// or without heaptrack's closing lines) delivers every whole line before the
// cut and ends kTruncated. Not thread-safe; allocates; for tools.
#ifndef HEAPREC_FORMAT_HEAPTRACK_READER_H_
#define HEAPREC_FORMAT_HEAPTRACK_READER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "format/trace_reader.h"
#include "format/trace_visitor.h"

namespace heaprec::format {

// What a heaptrack recording says beyond the records it becomes.
struct HeaptrackFacts {
  uint32_t heaptrack_version = 0;  // 0x010400 = 1.4.0
  uint32_t file_version = 0;
  bool attached = false;
  uint64_t page_size = 0;
  uint64_t peak_rss_pages = 0;  // the highest R sample (heaptrack's own memory included)
  // Temporaries as heaptrack_print counts them: a `-` whose info equals the
  // latest `+`'s, where a `-` resets "the latest" to 0, which is also the
  // first info's index. So heaptrack_print also counts a free of info 0 that
  // follows another free (typically libstdc++'s emergency pool, freed at
  // exit); the block rule (analyzers/temporaries.h) does not.
  uint64_t heaptrack_print_temporaries = 0;
  // `-` lines of an info with no live block (heaptrack_print still
  // subtracts their size); not delivered.
  uint64_t unmatched_frees = 0;
  uint64_t unknown_lines = 0;             // record types this reader does not know; skipped
  std::vector<std::string> suppressions;  // the `S` lines
  // "heaptrack 1.4.0 (file format 3)".
  std::string Describe() const;
};

// Whether the file at path is a heaptrack recording (by its first line).
bool IsHeaptrackFile(const std::string& path);

// What a heaptrack recording does not hold that a heaprec trace does, one
// phrase each ("threads", ...), for the reports to say.
std::vector<std::string> HeaptrackLacks();

// Reads the recording at path into visitor (every record type of
// trace_visitor.h but markers and leak scans). ReadResult::events counts the
// events delivered; version stays 0.0 (not a heaprec format).
ReadResult ReadHeaptrackFile(const std::string& path, TraceVisitor& visitor,
                             HeaptrackFacts* facts = nullptr);

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_HEAPTRACK_READER_H_
