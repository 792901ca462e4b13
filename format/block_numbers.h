// BlockNumbers: names every block by the order in which it was made
// (Event::block): the first block an allocation or a realloc returned is 1,
// the next 2, and so on. Given events with addresses, in seq order, Assign()
// fills block and old_block the way FORMAT.md ("Blocks") defines them, keeping
// the set of live addresses (an OpenTable) and the recently released ones (a
// direct-mapped table: a released address is remembered until it is made
// again or another released address hashes to its slot).
//
// TraceWriter uses it to turn addresses into block refs (format 2), and the
// reader uses it to number the blocks of format 1 traces, which hold only
// addresses. Memory: one entry (32 bytes, at 3/4 load at most) per live
// block, plus the fixed released table (96 KiB). Not thread-safe; allocates.
#ifndef HEAPREC_FORMAT_BLOCK_NUMBERS_H_
#define HEAPREC_FORMAT_BLOCK_NUMBERS_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/open_table.h"
#include "format/records.h"
#include "format/sampling.h"

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
  void Assign(Event* e) {
    uint64_t tag;
    Assign(*e, 0, &e->block, &e->old_block, &tag);
  }
  // The same for an event that stays as it is: its block numbers go to
  // *block and *old_block (e's own block fields are ignored). A block made
  // keeps tag (the caller's, here 0 = none) for as long as it is live or
  // remembered as released: *named_tag is the tag of the block the event
  // names as released (*block of a free, *old_block of a realloc), 0 if it
  // names none. ChunkBuilder keeps a block's maker there, so that a free
  // finds it in the line its lookup loaded anyway.
  void Assign(const Event& e, uint64_t tag, uint64_t* block, uint64_t* old_block,
              uint64_t* named_tag);
  // A hint that an event at address comes soon: its table line is asked
  // for ahead (the table outgrows the caches; each event touches one line).
  void Prefetch(uint64_t address) const { live_.Prefetch(address); }
  // Whether hints pay: the table is larger than the caches keep. A hint an
  // event, 8 events ahead, cost the launcher more than it saved with a
  // table of 0.5-1 MiB (churn: +140 ms, -24 ms) and saved a third of the
  // table's time with one of 128 MiB (big_heap 3000000); with one of 2 MiB
  // (churn on 4 threads, 31,000 live blocks) it saved 2-11% of the
  // launcher's CPU (1,572 -> 1,512 ms, medians of 11 alternating runs).
  bool PrefetchPays() const { return live_.table_bytes() >= kPrefetchTableBytes; }
  static constexpr size_t kPrefetchTableBytes = size_t{2} << 20;
  // Recording was switched off (paused) or on (format/switch_markers.h):
  // the addresses released so far are forgotten, and while paused none is
  // remembered. An allocation the trace does not hold may have reused any
  // of them, so a later free of one is of an unknown block (block 0), not a
  // double free.
  void RecordingSwitched(bool paused);
  // Blocks made so far.
  uint64_t made() const { return made_; }
  size_t live() const { return live_.size(); }
  // Bytes of the live blocks (as made), and the most there were after any
  // event so far: the launcher's per-process peak and "not freed", the same
  // numbers heapreplay's live heap gives.
  // In a sampled trace (set_sample_rate), estimates: each block's size
  // times its weight (format/sampling.h), rounded, as heapreplay counts it.
  uint64_t live_bytes() const { return live_bytes_; }
  uint64_t peak_bytes() const { return peak_bytes_; }
  void set_sample_rate(uint64_t rate) { sample_rate_ = rate; }
  // Calls f(address, block, size) for every live block, in no order (the
  // launcher's leak scan: size is the size the block was made with).
  template <typename F>
  void ForEachLive(F&& f) const {
    live_.ForEach([&](uint64_t address, const Live& l) { f(address, l.block, l.size); });
  }

  // Released addresses are remembered in this many slots, at the slot
  // ReleasedSlot(address): a later release hashed to the same slot replaces it.
  static constexpr unsigned kReleasedBits = 12;
  static size_t ReleasedSlot(uint64_t address) {
    return static_cast<size_t>((address * 0x9E3779B97F4A7C15ull) >> (64 - kReleasedBits));
  }

 private:
  struct Released {
    uint64_t address = 0;  // 0 = empty
    uint64_t block = 0;
    uint64_t tag = 0;
  };
  struct Live {
    uint64_t block = 0;
    uint64_t size = 0;
    uint64_t tag = 0;  // with the address, a 32-byte slot: one line, never two
  };
  void Make(uint64_t address, uint64_t block, uint64_t size, uint64_t tag);
  // The bytes a block of size stands for (size in an exact trace).
  uint64_t Bytes(uint64_t size) const {
    if (sample_rate_ == 0) return size;
    return static_cast<uint64_t>(
        std::llround(static_cast<double>(size) * SampleWeight(size, sample_rate_)));
  }
  void Release(uint64_t address, const Live& l);

  base::OpenTable<Live, 4> live_;  // address -> live block; nearby addresses share lines
  std::vector<Released> released_ = std::vector<Released>(size_t{1} << kReleasedBits);
  bool remember_released_ = true;  // false while recording is paused
  uint64_t made_ = 0;
  uint64_t sample_rate_ = 0;
  uint64_t live_bytes_ = 0;
  uint64_t peak_bytes_ = 0;
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_BLOCK_NUMBERS_H_
