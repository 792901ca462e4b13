// BlockNumbers: names every block by the order in which it was made
// (Event::block): the first block an allocation or a realloc returned is 1,
// the next 2, and so on. Given events with addresses, in seq order, Assign()
// fills block and old_block the way FORMAT.md ("Blocks") defines them, keeping
// the set of live addresses, and released ones for a while (an OpenTable).
//
// TraceWriter uses it to turn addresses into block refs (format 2), and the
// reader uses it to number the blocks of format 1 traces, which hold only
// addresses. Memory: one entry per live block. Not thread-safe; allocates.
#ifndef HEAPREC_FORMAT_BLOCK_NUMBERS_H_
#define HEAPREC_FORMAT_BLOCK_NUMBERS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "format/open_table.h"
#include "format/records.h"

namespace heaprec::format {

class BlockNumbers {
 public:
  // Sets e->block and e->old_block from e's kind and addresses:
  //   alloc:   address != 0 makes a new block.
  //   free:    the live block at address, if any, is released; a free of an
  //            address whose block was already released (and not made
  //            again) names that block: a double free.
  //   realloc: old_block = the live block at old_address, if any; address != 0
  //            makes a new block (which replaces the old one); address 0 with
  //            size 0 releases the old block; address 0 with size > 0 leaves
  //            it live (the call failed).
  void Assign(Event* e);
  // Blocks made so far.
  uint64_t made() const { return made_; }
  size_t live() const { return live_count_; }

  // Released addresses are remembered (to name double frees) until there
  // are more than kFreedSlack + 4 x live of them; then all are forgotten.
  static constexpr uint64_t kFreedSlack = 65536;
  static constexpr uint64_t kFreed = uint64_t{1} << 63;  // a released block

 private:
  void Make(uint64_t address, uint64_t block);
  void Release(uint64_t address, uint64_t block);

  OpenTable<uint64_t> table_;  // address -> block, | kFreed once released
  uint64_t made_ = 0;
  size_t live_count_ = 0, freed_count_ = 0;
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_BLOCK_NUMBERS_H_
