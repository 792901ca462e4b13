// BatchReader: reads many address ranges ("units": root ranges, heap blocks,
// the words the heuristics look at) through a MemorySource in few, large
// calls, and hands each unit's readable bytes to a visitor, in unit order.
//
// A batch holds at most batch_bytes of data in at most kMaxReadRequests
// requests. A unit that starts at or after the previous unit's end, at most
// merge_gap bytes after it, joins the previous request: heap blocks lie a
// chunk header apart, and reading those few bytes costs less than another
// iovec (process_vm_readv pins pages per iovec). A unit longer than what
// remains of a batch is cut at an 8-aligned address, so no aligned word is
// ever split between two pieces. A request that fails is read again page by
// page; pages that fail again are holes the visitor never sees, so their
// words are never taken for pointers (memcheck skips words it cannot read).
//
// Not thread-safe. Allocates its buffer once (batch_bytes plus padding) and
// small vectors per batch. Used by pointer_graph.cc and heuristics.cc.
#ifndef HEAPREC_RECORDER_LEAKSCAN_BATCH_READER_H_
#define HEAPREC_RECORDER_LEAKSCAN_BATCH_READER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "recorder/leakscan/memory_source.h"

namespace heaprec::recorder::leakscan {

struct AddressRange {
  uint64_t address = 0;
  uint64_t length = 0;
};

class BatchReader {
 public:
  struct Totals {
    uint64_t calls = 0;             // MemorySource::Read calls
    uint64_t requests = 0;          // ranges asked for, retries included
    uint64_t bytes_read = 0;        // bytes copied (merged gaps included)
    uint64_t bytes_unreadable = 0;  // bytes in holes
  };

  static constexpr uint64_t kPageBytes = 4096;

  // batch_bytes is raised to at least kPageBytes.
  BatchReader(MemorySource* source, uint64_t batch_bytes, uint64_t merge_gap);

  // Reads units 0 .. count-1, range_of(i) -> AddressRange, and calls
  // visit(i, address, const std::byte* bytes, length) for every readable
  // piece: units in order, a unit's pieces in ascending address order.
  template <typename RangeOf, typename Visit>
  void Scan(size_t count, RangeOf&& range_of, Visit&& visit) {
    size_t unit = 0;
    uint64_t done = 0;  // bytes of `unit` already put in a batch
    while (unit < count) {
      Clear();
      while (unit < count) {
        const AddressRange r = range_of(unit);
        if (done >= r.length) {
          ++unit;
          done = 0;
          continue;
        }
        const uint64_t took = Add(unit, r.address + done, r.length - done);
        if (took == 0) break;  // the batch is full
        done += took;
      }
      if (items_.empty()) continue;
      ReadBatch();
      Dispatch(visit);
    }
  }

  const Totals& totals() const { return totals_; }

 private:
  struct Item {  // a unit's piece inside a request
    size_t unit;
    uint64_t address;
    uint64_t length;
    uint64_t offset;  // in buffer_
    uint32_t request;
  };
  struct Hole {
    uint32_t request;
    uint64_t low;
    uint64_t high;
  };

  void Clear();
  // Puts up to `length` bytes at address of unit into the batch; returns how
  // many (0: the batch is full).
  uint64_t Add(size_t unit, uint64_t address, uint64_t length);
  // How much of [address, address+length) fits in room bytes (0: none worth
  // a piece).
  static uint64_t Fit(uint64_t address, uint64_t length, uint64_t room);
  void ReadBatch();
  void AddHole(uint32_t request, uint64_t low, uint64_t high);

  template <typename Visit>
  void Dispatch(Visit& visit) {
    size_t h = 0;  // holes_ is sorted by (request, low)
    for (const Item& it : items_) {
      while (h < holes_.size() && holes_[h].request < it.request) ++h;
      uint64_t a = it.address;
      const uint64_t end = it.address + it.length;
      while (a < end) {
        while (h < holes_.size() && holes_[h].request == it.request && holes_[h].high <= a) ++h;
        uint64_t piece_end = end;
        if (h < holes_.size() && holes_[h].request == it.request && holes_[h].low < end) {
          if (holes_[h].low <= a) {
            a = holes_[h].high < end ? holes_[h].high : end;
            continue;
          }
          piece_end = holes_[h].low;
        }
        visit(it.unit, a, buffer_.get() + it.offset + (a - it.address), piece_end - a);
        a = piece_end;
      }
    }
  }

  MemorySource* source_;
  uint64_t batch_bytes_;
  uint64_t merge_gap_;
  std::unique_ptr<std::byte[]> buffer_;
  uint64_t buffer_capacity_ = 0;
  uint64_t buffer_used_ = 0;  // bytes of buffer_ taken, padding included
  uint64_t data_bytes_ = 0;   // bytes asked for in this batch
  std::vector<ReadRequest> requests_;
  std::unique_ptr<bool[]> ok_;
  std::vector<Item> items_;
  std::vector<Hole> holes_;
  std::vector<ReadRequest> retry_;
  std::vector<uint32_t> retry_owner_;
  Totals totals_;
};

}  // namespace heaprec::recorder::leakscan

#endif  // HEAPREC_RECORDER_LEAKSCAN_BATCH_READER_H_
