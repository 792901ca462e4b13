// A chunk's symbols as columns (3.5; format/FORMAT.md, "Symbols"): one
// definition of their encoding, used by the writer (ChunkBuilder) and the
// reader (ChunkDecoder). The distinct function and file names of the
// chunk's frames are stored once, in order of first use, and each frame
// names them by index; addresses are zigzag deltas from the previous symbol
// (the launcher writes them in address order), the rest plain varints.
//
// Not thread-safe; allocates; for tools and the launcher, never the traced
// process.
#ifndef HEAPREC_FORMAT_SYMBOL_COLUMNS_H_
#define HEAPREC_FORMAT_SYMBOL_COLUMNS_H_

#include <flatbuffers/flatbuffers.h>

#include <string>
#include <vector>

#include "format/records.h"
#include "format/trace_generated.h"

namespace heaprec::format {

// Serializes symbols into b.
flatbuffers::Offset<fb::SymbolColumns> EncodeSymbolColumns(flatbuffers::FlatBufferBuilder& b,
                                                           const std::vector<Symbol>& symbols);

// Appends the symbols at f to *out. False, with *error saying what is
// wrong, if a column does not hold exactly one varint per symbol or frame,
// the frame counts do not add up, a name is cut short, or a frame names a
// string that is not there.
bool DecodeSymbolColumns(const fb::SymbolColumns& f, std::vector<Symbol>* out, std::string* error);

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_SYMBOL_COLUMNS_H_
