// The leak scans of a chunk (3.1; format/FORMAT.md, "Leak scans"): one
// definition of their encoding, used by the writer (ChunkBuilder) and the
// reader (ChunkDecoder): block numbers as varint deltas, one kind byte per
// block, the retaining root as a varint per still-reachable block.
//
// Not thread-safe; allocates; for tools and the launcher, never the traced
// process.
#ifndef HEAPREC_FORMAT_LEAK_SCAN_COLUMNS_H_
#define HEAPREC_FORMAT_LEAK_SCAN_COLUMNS_H_

#include <flatbuffers/flatbuffers.h>

#include <string>
#include <vector>

#include "format/records.h"
#include "format/trace_generated.h"

namespace heaprec::format {

// Serializes s into b. s.blocks must increase, kinds and block_roots have one
// entry per block (EncodeLeakScan does not check: the writer's caller builds
// scans from a live set).
flatbuffers::Offset<fb::LeakScan> EncodeLeakScan(flatbuffers::FlatBufferBuilder& b,
                                                 const LeakScan& s);

// The scan at f into *s. False, with *error saying what is wrong, if its
// columns do not decode to one entry per block, blocks do not increase, a
// kind or heuristic is out of range, or a root id names no root (a later
// part's root ids name the roots of part 0: there are root_count of them).
bool DecodeLeakScan(const fb::LeakScan& f, size_t root_count, LeakScan* s, std::string* error);

// Splits s into parts of at most max_blocks blocks (part 0 keeps the roots
// and the rest; every part after it only blocks), or returns s alone.
std::vector<LeakScan> SplitLeakScan(const LeakScan& s, size_t max_blocks);

// A scan written in parts whose next part the next chunk must start with
// (the reader's state between chunks).
struct OpenLeakScan {
  bool open = false;
  uint64_t seq = 0;
  uint32_t next_part = 0;
  size_t roots = 0;  // part 0's
};

// Approximate bytes of s in a chunk (for deciding when to flush).
size_t LeakScanBytes(const LeakScan& s);

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_LEAK_SCAN_COLUMNS_H_
