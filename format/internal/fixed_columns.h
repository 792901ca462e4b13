// Format 1's stages of ChunkDecoder (format/FORMAT.md, "Format 1"; read, no
// longer written): fixed-width columns in seq order, addresses only, event
// addresses from deltas or address refs (AddressRefs), and block numbers
// derived from the addresses (BlockNumbers) so that analyses see the same
// Event::block as for later formats.
//
// Internal to ChunkDecoder. Not thread-safe; allocates (the columns, the
// block table); for tools, never the traced process.
#ifndef HEAPREC_FORMAT_INTERNAL_FIXED_COLUMNS_H_
#define HEAPREC_FORMAT_INTERNAL_FIXED_COLUMNS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "format/block_numbers.h"
#include "format/event_batch.h"
#include "format/internal/chunk_columns.h"

namespace heaprec::format::detail {

// Load: copies the event and stack columns into *k and checks their lengths.
bool LoadFixedColumns(const fb::Chunk& c, Columns* k, std::string* error);

// Check: each seq delta fits 32 bits and the seqs do not wrap around.
bool CheckFixedSeqs(const fb::Chunk& c, const Columns& k, std::string* error);
// Check: every address ref names an address (reconstructs the addresses).
bool CheckAddresses(const fb::Chunk& c, const Columns& k, std::string* error);

// The events in seq order, blocks numbered with *blocks (which spans
// chunks), into (*pieces)[0, p) (SizePieces, chunk_delivery.h); returns p.
// After the checks.
size_t FillFixedEvents(const fb::Chunk& c, const Columns& k, BlockNumbers* blocks,
                       std::vector<EventBatch>* pieces);

}  // namespace heaprec::format::detail

#endif  // HEAPREC_FORMAT_INTERNAL_FIXED_COLUMNS_H_
