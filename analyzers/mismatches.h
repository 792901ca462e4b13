// MismatchAnalyzer: frees that do not match an allocation (heapreplay
// --mismatches), as valgrind's memcheck reports them:
//   kFamily      a block freed by the wrong family of function: malloc'd
//                memory to delete, new to free or delete[], new[] to delete
//                or free, realloc of memory from new;
//   kSize        a sized delete (or free_sized) naming another size than the
//                block was allocated with;
//   kUnknown     a free or realloc of an address the trace never saw
//                allocated (a wild or interior pointer, or memory from
//                before recording started);
//   kDoubleFree  a block released again after it was already released (a
//                trace's free names such a block when the writer still
//                remembered the address as released: format/block_numbers.h).
// Each distinct (kind, functions, allocation stack, free stack) is one
// Mismatch with a count. Free stacks exist when recorded with heaprec
// --free-stacks (else 0). For a double free, the stacks of the allocation
// and of the first free are known while the block is among the last 65,536
// released (a bounded memory of released blocks).
// An Analyzer; not thread-safe; memory: distinct mismatches plus a constant.
#ifndef HEAPREC_ANALYZERS_MISMATCHES_H_
#define HEAPREC_ANALYZERS_MISMATCHES_H_

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "analyzers/analyzer.h"
#include "base/zeroed_array.h"
#include "format/api.h"

namespace heaprec::analyzers {

enum class MismatchKind : uint8_t { kFamily, kSize, kUnknown, kDoubleFree };
const char* MismatchKindName(MismatchKind k);  // "family", "size", "unknown", "double_free"

struct Mismatch {
  MismatchKind kind = MismatchKind::kFamily;
  format::Api alloc_api = format::Api::kMalloc;  // meaningless for kUnknown
  format::Api free_api = format::Api::kFree;
  uint32_t alloc_stack = 0;       // 0 = unknown
  uint32_t free_stack = 0;        // 0 = not recorded
  uint32_t first_free_stack = 0;  // kDoubleFree: the earlier free
  uint64_t count = 0;
  uint64_t bytes = 0;       // of the blocks (kSize: as allocated)
  uint64_t freed_size = 0;  // kSize: the size the free named (first case)
  uint64_t address = 0;     // kUnknown: the first address
  uint64_t first_seq = 0;   // the first occurrence
};

class MismatchAnalyzer : public Analyzer {
 public:
  MismatchAnalyzer();
  bool EventsInBatches() const override { return true; }
  void OnEvents(const format::EventSpan& events, const HeapChange* changes,
                const LiveHeap& heap) override;

  // Most frequent first (ties: earliest first).
  std::vector<Mismatch> Mismatches() const;
  uint64_t total() const { return total_; }

 private:
  void One(const format::Event& e, const HeapChange& c);
  struct Released {
    uint64_t block = 0;
    uint32_t alloc_stack = 0;
    uint32_t free_stack = 0;
    format::Api api = format::Api::kMalloc;
    uint64_t size = 0;
  };
  void Report(const Mismatch& m);

  // Direct-mapped by block number; all zeros at first (block 0: none).
  base::ZeroedArray<Released> released_;
  using Key = std::tuple<int, int, int, uint32_t, uint32_t, uint32_t>;
  std::map<Key, Mismatch> found_;
  uint64_t total_ = 0;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_MISMATCHES_H_
