// SyntheticProcess: a process image in a FakeMemory, laid out like the
// valgrind runs of the leak spec's Appendix B (executable .data/.bss at
// 0x10c000, memcheck's client arena at 0x4a42000 handing out ascending
// addresses 64 bytes apart, a TLS area, .text and .data.rel.ro for vtables),
// so that a test can rebuild an experiment's heap and compare the LEAK
// SUMMARY with valgrind's verbatim.
//
// Test-only. Not thread-safe; allocates.
#ifndef HEAPREC_RECORDER_LEAKSCAN_SYNTHETIC_PROCESS_H_
#define HEAPREC_RECORDER_LEAKSCAN_SYNTHETIC_PROCESS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "recorder/leakscan/fake_memory.h"
#include "recorder/leakscan/leak_graph.h"
#include "recorder/leakscan/vtable_oracle.h"

namespace heaprec::recorder::leakscan {

class SyntheticProcess {
 public:
  static constexpr uint64_t kText = 0x108000;   // r-x, file: code
  static constexpr uint64_t kRelRo = 0x10a000;  // r--, file: vtables, typeinfo
  static constexpr uint64_t kData = 0x10c000;   // rw-, file: .data/.bss (a root)
  static constexpr uint64_t kTls = 0x4835000;   // rw-, anon: the main thread's TLS (a root)
  static constexpr uint64_t kHeap = 0x4a42000;  // the arena (never a root)
  static constexpr uint64_t kHeapBytes = 16 << 20;

  static constexpr RootId kDataRoot = 1;
  static constexpr RootId kTlsRoot = 2;

  SyntheticProcess();

  // A block of size bytes at the arena's next address (valgrind's: the first
  // at kHeap + 0x40, each next one 64 bytes after the previous one's end
  // rounded up to 16).
  uint64_t Malloc(uint64_t size);
  // A block at a chosen address (inside the arena).
  void MallocAt(uint64_t address, uint64_t size);
  // The block stops being live; its bytes stay.
  void Free(uint64_t address);

  // The next 8-byte variable in .bss (ascending, from 0x10c050 as in E23).
  uint64_t Global();
  // The next 8-byte __thread variable of the main thread.
  uint64_t ThreadLocal();
  void Set(uint64_t address, uint64_t value) { memory_.Write64(address, value); }
  // A register value of a thread that did not call exit_group.
  void AddRegister(uint64_t value, RootId thread) { registers_.push_back({value, thread}); }
  // An Itanium vtable group in .data.rel.ro: offset-to-top, typeinfo, then
  // `functions` code pointers; returns the address point (the first of those).
  uint64_t Vtable(int functions, int64_t offset_to_top = 0);

  FakeMemory& memory() { return memory_; }
  VtableOracle* vtables() { return &vtables_; }
  std::vector<LiveBlock> Blocks() const;
  // .data/.bss (kDataRoot) and the TLS area (kTlsRoot), unless replaced.
  std::vector<RootRange> RootRanges() const;
  void SetRootRanges(std::vector<RootRange> ranges) { root_ranges_ = std::move(ranges); }
  const std::vector<RootValue>& Registers() const { return registers_; }
  // The index of the block at address in Blocks().
  uint32_t IndexOf(uint64_t address) const;

  // ClassifyLeaks over all of the above (aborts the test on an input error).
  LeakScanResult Scan(const LeakScanOptions& options = LeakScanOptions(),
                      const PointerFilter* filter = nullptr);
  // FormatLeakSummary of a Scan.
  std::string Summary(const LeakScanOptions& options = LeakScanOptions(),
                      const PointerFilter* filter = nullptr);

 private:
  FakeMemory memory_;
  SegmentVtableOracle vtables_;
  std::map<uint64_t, uint64_t> blocks_;  // address -> size
  std::vector<RootValue> registers_;
  std::vector<RootRange> root_ranges_;
  uint64_t next_block_ = kHeap + 0x40;
  uint64_t next_global_ = kData + 0x50;
  uint64_t next_tls_ = kTls + 0x100;
  uint64_t next_relro_ = kRelRo + 0x100;
  uint64_t next_function_ = kText + 0x40;
};

}  // namespace heaprec::recorder::leakscan

#endif  // HEAPREC_RECORDER_LEAKSCAN_SYNTHETIC_PROCESS_H_
