// FakeMemory: a sparse address space for tests: mapped ranges of bytes
// (zero-filled when mapped), holes that cannot be read, and counts of how it
// was read (to check the engine's batching). A read succeeds iff its whole
// range lies in one mapping and touches no hole, as process_vm_readv would
// for one iovec.
//
// Test-only. Not thread-safe; allocates.
#ifndef HEAPREC_RECORDER_LEAKSCAN_FAKE_MEMORY_H_
#define HEAPREC_RECORDER_LEAKSCAN_FAKE_MEMORY_H_

#include <cstdint>
#include <map>
#include <vector>

#include "recorder/leakscan/memory_source.h"

namespace heaprec::recorder::leakscan {

class FakeMemory : public MemorySource {
 public:
  struct Counts {
    uint64_t calls = 0;
    uint64_t requests = 0;
    uint64_t bytes = 0;
    uint64_t max_requests_in_a_call = 0;
    uint64_t smallest_request = UINT64_MAX;
  };

  // Maps [address, address + size), zeros; must not overlap a mapping.
  void Map(uint64_t address, uint64_t size);
  // [address, address + size) becomes unreadable (it stays mapped).
  void MakeUnreadable(uint64_t address, uint64_t size);

  void Write64(uint64_t address, uint64_t value);
  void WriteBytes(uint64_t address, const void* bytes, uint64_t size);
  uint64_t Read64(uint64_t address) const;
  // Whether the 8 bytes at address can be read.
  bool Readable(uint64_t address, uint64_t size) const;

  void Read(std::span<const ReadRequest> requests, std::span<bool> ok) override;

  const Counts& counts() const { return counts_; }
  void ResetCounts() { counts_ = Counts(); }

 private:
  // The mapping holding [address, address + size) whole, or nullptr.
  const std::vector<uint8_t>* Find(uint64_t address, uint64_t size, uint64_t* start) const;
  uint8_t* Bytes(uint64_t address, uint64_t size);

  std::map<uint64_t, std::vector<uint8_t>> mappings_;  // by start address
  std::map<uint64_t, uint64_t> holes_;                 // start -> end
  Counts counts_;
};

}  // namespace heaprec::recorder::leakscan

#endif  // HEAPREC_RECORDER_LEAKSCAN_FAKE_MEMORY_H_
