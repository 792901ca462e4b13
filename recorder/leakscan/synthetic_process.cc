// SyntheticProcess (synthetic_process.h).
#include "recorder/leakscan/synthetic_process.h"

#include <cstdio>
#include <cstdlib>

#include "recorder/leakscan/leak_summary.h"

namespace heaprec::recorder::leakscan {

namespace {

std::vector<Segment> Layout() {
  return {
      {SyntheticProcess::kText, SyntheticProcess::kText + 0x2000, true, true, true},
      {SyntheticProcess::kRelRo, SyntheticProcess::kRelRo + 0x1000, true, true, false},
      {SyntheticProcess::kData, SyntheticProcess::kData + 0x1000, true, true, false},
      {SyntheticProcess::kTls, SyntheticProcess::kTls + 0x2000, true, false, false},
      {SyntheticProcess::kHeap, SyntheticProcess::kHeap + SyntheticProcess::kHeapBytes, true, false,
       false},
  };
}

}  // namespace

SyntheticProcess::SyntheticProcess() : vtables_(Layout(), &memory_) {
  for (const Segment& s : Layout()) memory_.Map(s.start, s.end - s.start);
}

uint64_t SyntheticProcess::Malloc(uint64_t size) {
  const uint64_t address = next_block_;
  MallocAt(address, size);
  return address;
}

void SyntheticProcess::MallocAt(uint64_t address, uint64_t size) {
  blocks_[address] = size;
  const uint64_t rounded = size < 16 ? 16 : (size + 15) / 16 * 16;
  if (address + rounded + 64 > next_block_) next_block_ = address + rounded + 64;
}

void SyntheticProcess::Free(uint64_t address) { blocks_.erase(address); }

uint64_t SyntheticProcess::Global() {
  const uint64_t a = next_global_;
  next_global_ += 8;
  return a;
}

uint64_t SyntheticProcess::ThreadLocal() {
  const uint64_t a = next_tls_;
  next_tls_ += 8;
  return a;
}

uint64_t SyntheticProcess::Vtable(int functions, int64_t offset_to_top) {
  const uint64_t typeinfo = kRelRo + 0x10;  // not code
  memory_.Write64(next_relro_, static_cast<uint64_t>(offset_to_top));
  memory_.Write64(next_relro_ + 8, typeinfo);
  const uint64_t address_point = next_relro_ + 16;
  for (int f = 0; f < functions; ++f) {
    memory_.Write64(address_point + 8 * f, next_function_);
    next_function_ += 0x20;
  }
  next_relro_ = address_point + 8 * functions;
  return address_point;
}

std::vector<LiveBlock> SyntheticProcess::Blocks() const {
  std::vector<LiveBlock> out;
  for (const auto& [address, size] : blocks_) out.push_back({address, size});
  return out;
}

std::vector<RootRange> SyntheticProcess::RootRanges() const {
  if (!root_ranges_.empty()) return root_ranges_;
  return {{kData, kData + 0x1000, kDataRoot}, {kTls, kTls + 0x2000, kTlsRoot}};
}

uint32_t SyntheticProcess::IndexOf(uint64_t address) const {
  uint32_t i = 0;
  for (const auto& entry : blocks_) {
    if (entry.first == address) return i;
    ++i;
  }
  std::fprintf(stderr, "SyntheticProcess: no block at 0x%llx\n",
               static_cast<unsigned long long>(address));
  std::abort();
}

LeakScanResult SyntheticProcess::Scan(const LeakScanOptions& options, const PointerFilter* filter) {
  const std::vector<LiveBlock> blocks = Blocks();
  const std::vector<RootRange> ranges = RootRanges();
  LeakScanInput input;
  input.blocks = blocks;
  input.root_ranges = ranges;
  input.root_values = registers_;
  input.memory = &memory_;
  input.vtables = &vtables_;
  input.filter = filter;
  LeakScanResult result;
  std::string error;
  if (!ClassifyLeaks(input, options, &result, &error)) {
    std::fprintf(stderr, "SyntheticProcess: %s\n", error.c_str());
    std::abort();
  }
  return result;
}

std::string SyntheticProcess::Summary(const LeakScanOptions& options, const PointerFilter* filter) {
  return FormatLeakSummary(SummaryOf(Scan(options, filter)));
}

}  // namespace heaprec::recorder::leakscan
