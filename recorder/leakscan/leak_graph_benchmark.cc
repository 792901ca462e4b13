// ClassifyLeaks on a synthetic heap the size the issue names: 10 million
// blocks, about 1 GiB requested, sizes like a real program's (most 16-96
// bytes, some KiBs, a few tens of KiBs), joined into lists, doubly linked
// lists and binary trees (half of them of neighbouring blocks, half of
// blocks anywhere), new[]-style leaves reached by block+8, weak interior
// pointers, some structures shared, 10% of them lost; roots are a 4 MiB
// .data holding the structures' heads and a 1 MiB stack. The rest of each
// block is zeros, small integers, text and doubles.
//
// Memory is served through the same MemorySource interface two ways:
// memcpy from this process (the engine's own cost), and process_vm_readv on
// this process (what reading another process adds: the syscalls and page
// pinning). Each phase's time is a counter (seconds, of the fastest of the
// iterations: the machine is shared).
//
//   bazel run -c opt //recorder/leakscan:leak_graph_benchmark
//
// Needs about 3 GiB of memory. The heap is built once (~10 s), not timed.
#include <benchmark/benchmark.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/large_buffers.h"
#include "recorder/leakscan/batch_reader.h"
#include "recorder/leakscan/block_index.h"
#include "recorder/leakscan/leak_graph.h"
#include "recorder/leakscan/leak_summary.h"

namespace heaprec::recorder::leakscan {
namespace {

constexpr uint64_t kBlockCount = 10'000'000;
constexpr uint64_t kRootBytes = 4 << 20;
constexpr uint64_t kStackBytes = 1 << 20;

class Rng {  // splitmix64: fast enough to fill a GiB
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
    return z ^ (z >> 31);
  }
  uint64_t Below(uint64_t n) { return Next() % n; }

 private:
  uint64_t s_;
};

uint64_t RandomSize(Rng& rng) {
  const uint64_t dice = rng.Below(1000);
  if (dice < 600) return 16 + rng.Below(17);     // 16-32
  if (dice < 850) return 33 + rng.Below(64);     // 33-96
  if (dice < 970) return 97 + rng.Below(160);    // 97-256
  if (dice < 999) return 257 + rng.Below(1792);  // 257-2048
  return 4096 + rng.Below(32768);                // 4-36 KiB
}

struct SyntheticHeap {
  std::byte* heap = nullptr;
  uint64_t heap_bytes = 0;
  std::vector<uint64_t> roots;  // .data, then the stack
  // In huge pages, as leak_graph.h asks of a large block array.
  std::vector<LiveBlock, base::LargeBufferAllocator<LiveBlock>> blocks;
  std::vector<RootRange> root_ranges;
  std::vector<RootValue> registers;
  uint64_t requested = 0;

  uint64_t Base() const { return reinterpret_cast<uint64_t>(heap); }
  void Set(uint64_t address, uint64_t value) { std::memcpy(heap + (address - Base()), &value, 8); }
};

uint64_t Filler(Rng& rng) {
  const uint64_t x = rng.Next();
  switch (x & 7) {
    case 0:
    case 1:
    case 2:
    case 3:
      return 0;
    case 4:
    case 5:
      return x >> 54;  // a small integer
    case 6:
      return 0x6f6c6c6568207461 ^ (x & 0x0f0f0f0f0f0f0f0f & 0x0f0f);  // text
    default:
      return 0x4000000000000000 | (x >> 12);  // a double
  }
}

SyntheticHeap* BuildHeap() {
  auto* h = new SyntheticHeap;
  Rng rng(20240611);
  std::vector<uint64_t> sizes(kBlockCount);
  uint64_t span = 0;
  for (uint64_t& s : sizes) {
    s = RandomSize(rng);
    span += std::max<uint64_t>(32, (s + 8 + 15) / 16 * 16);
  }
  h->heap_bytes = span + 4096;
  void* mem = mmap(nullptr, h->heap_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem == MAP_FAILED) {
    std::perror("mmap");
    std::abort();
  }
  h->heap = static_cast<std::byte*>(mem);
  // glibc-like: a 16-byte chunk header before each block.
  uint64_t at = h->Base() + 16;
  h->blocks.reserve(kBlockCount);
  for (const uint64_t s : sizes) {
    h->blocks.push_back({at, s});
    h->requested += s;
    at += std::max<uint64_t>(32, (s + 8 + 15) / 16 * 16);
  }
  std::vector<uint64_t>().swap(sizes);

  // Fill every block with non-pointers first.
  for (const LiveBlock& b : h->blocks) {
    for (uint64_t a = b.address; a + 8 <= b.address + b.size; a += 8) h->Set(a, Filler(rng));
  }

  // Structures over an order in which half the blocks are shuffled among
  // themselves: members are neighbours or anywhere.
  std::vector<uint32_t> order(kBlockCount);
  for (uint32_t i = 0; i < kBlockCount; ++i) order[i] = i;
  std::vector<uint32_t> moved;
  for (uint32_t i = 0; i < kBlockCount; ++i) {
    if (rng.Below(2) == 0) moved.push_back(i);
  }
  std::vector<uint32_t> targets = moved;
  for (size_t i = targets.size(); i > 1; --i) std::swap(targets[i - 1], targets[rng.Below(i)]);
  for (size_t i = 0; i < moved.size(); ++i) order[moved[i]] = targets[i];
  std::vector<uint32_t>().swap(moved);
  std::vector<uint32_t>().swap(targets);

  const uint64_t data = 0, stack = kRootBytes / 8;
  h->roots.assign((kRootBytes + kStackBytes) / 8, 0);
  uint64_t next_root = 0;
  std::vector<uint64_t> heads;
  auto block = [&](uint32_t i) -> const LiveBlock& { return h->blocks[i]; };
  for (uint64_t first = 0; first < kBlockCount;) {
    const uint64_t length =
        std::min<uint64_t>(kBlockCount - first, 1 + rng.Below(rng.Below(8) == 0 ? 5000 : 60));
    const uint32_t* m = order.data() + first;
    const uint64_t kind = rng.Below(100);
    for (uint64_t k = 0; k < length; ++k) {
      const LiveBlock& b = block(m[k]);
      if (kind < 55) {  // list
        if (k + 1 < length) h->Set(b.address, block(m[k + 1]).address);
      } else if (kind < 70) {  // doubly linked list
        if (k + 1 < length) h->Set(b.address, block(m[k + 1]).address);
        if (k > 0) h->Set(b.address + 8, block(m[k - 1]).address);
      } else {  // binary tree; some leaves are new[]-style, reached by +8
        for (uint64_t c = 2 * k + 1; c <= 2 * k + 2 && c < length; ++c) {
          const LiveBlock& child = block(m[c]);
          uint64_t value = child.address;
          if (2 * c + 1 >= length && rng.Below(10) == 0) {
            h->Set(child.address, 1);  // newarray: 1 divides anything
            value += 8;
          } else if (rng.Below(200) == 0) {
            value += 16;  // weak: the child is possibly lost unless held elsewhere
          }
          h->Set(b.address + 8 * (c - 2 * k - 1), value);
        }
      }
      // Large blocks point into their own structure a lot (vectors of
      // pointers, hash tables).
      if (b.size > 512) {
        for (uint64_t a = b.address + 16; a + 8 <= b.address + b.size; a += 8) {
          if (rng.Below(4) == 0) h->Set(a, block(m[rng.Below(length)]).address);
        }
      }
    }
    const uint64_t head = block(m[0]).address;
    if (rng.Below(10) != 0) {
      if (next_root < kRootBytes / 8) h->roots[data + next_root++] = head;  // held
    }
    if (!heads.empty() && rng.Below(100) == 0) {  // shared with another structure
      const LiveBlock& last = block(m[length - 1]);
      if (last.size >= 24) h->Set(last.address + 16, heads[rng.Below(heads.size())]);
    }
    heads.push_back(head);
    first += length;
  }
  // The stack: a few pointers among stale junk.
  for (uint64_t k = 0; k < kStackBytes / 8; ++k) {
    h->roots[stack + k] =
        rng.Below(50) == 0 ? h->blocks[rng.Below(kBlockCount)].address : Filler(rng);
  }
  const uint64_t roots = reinterpret_cast<uint64_t>(h->roots.data());
  h->root_ranges = {{roots, roots + kRootBytes, 1},
                    {roots + kRootBytes, roots + kRootBytes + kStackBytes, 2}};
  for (int r = 0; r < 16; ++r)
    h->registers.push_back({h->blocks[rng.Below(kBlockCount)].address, 3});
  return h;
}

SyntheticHeap& Heap() {
  static SyntheticHeap* heap = BuildHeap();
  return *heap;
}

// memcpy from this process.
class LocalMemory : public MemorySource {
 public:
  void Read(std::span<const ReadRequest> requests, std::span<bool> ok) override {
    for (size_t i = 0; i < requests.size(); ++i) {
      std::memcpy(requests[i].destination, reinterpret_cast<const void*>(requests[i].address),
                  requests[i].length);
      ok[i] = true;
    }
  }
};

// process_vm_readv on this process: one call a batch, as the launcher reads
// the traced process. A partial transfer stops at a failing iovec: that one
// fails, the rest is asked for again.
class ProcessVmMemory : public MemorySource {
 public:
  void Read(std::span<const ReadRequest> requests, std::span<bool> ok) override {
    local_.resize(requests.size());
    remote_.resize(requests.size());
    for (size_t i = 0; i < requests.size(); ++i) {
      local_[i] = {requests[i].destination, requests[i].length};
      remote_[i] = {reinterpret_cast<void*>(requests[i].address), requests[i].length};
      ok[i] = false;
    }
    size_t first = 0;
    while (first < requests.size()) {
      const ssize_t got = process_vm_readv(getpid(), local_.data() + first, requests.size() - first,
                                           remote_.data() + first, requests.size() - first, 0);
      uint64_t left = got < 0 ? 0 : static_cast<uint64_t>(got);
      while (first < requests.size() && left >= requests[first].length) {
        left -= requests[first].length;
        ok[first++] = true;
      }
      ++first;  // the one that failed (or was cut)
    }
  }

 private:
  std::vector<iovec> local_, remote_;
};

// A line of /proc/self/status, in KiB ("VmRSS:", "VmHWM:").
double StatusKiB(const char* key) {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return 0;
  char line[256];
  double kib = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, key, std::strlen(key)) == 0) kib = std::atof(line + std::strlen(key));
  }
  std::fclose(f);
  return kib;
}

// Resets the peak RSS (VmHWM) to the current RSS (Linux: clear_refs 5).
void ResetPeak() {
  FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (f == nullptr) return;
  std::fputs("5", f);
  std::fclose(f);
}

void Report(benchmark::State& state, const LeakScanResult& r) {
  const LeakScanStats& s = r.stats;
  auto sec = [](uint64_t ns) { return static_cast<double>(ns) / 1e9; };
  state.counters["index_s"] = sec(s.index_ns);
  state.counters["read_s"] = sec(s.read_ns);
  state.counters["heur_s"] = sec(s.heuristic_ns);
  state.counters["phase1_s"] = sec(s.phase1_ns);
  state.counters["phase2_s"] = sec(s.phase2_ns);
  state.counters["retain_s"] = sec(s.retention_ns);
  state.counters["total_s"] = sec(s.total_ns);
  state.counters["GiB_read"] =
      static_cast<double>(s.root_bytes_read + s.block_bytes_read) / (1 << 30);
  state.counters["reads"] = static_cast<double>(s.read_calls);
  state.counters["pointers"] = static_cast<double>(s.pointers);
  state.counters["strong_edges"] = static_cast<double>(s.strong_edges);
}

void BM_ClassifyLeaks(benchmark::State& state) {
  SyntheticHeap& h = Heap();
  LocalMemory local;
  ProcessVmMemory remote;
  LeakScanInput input;
  input.blocks = h.blocks;
  input.root_ranges = h.root_ranges;
  input.root_values = h.registers;
  input.memory = state.range(0) == 0 ? static_cast<MemorySource*>(&local) : &remote;
  LeakScanOptions options;
  options.retention = state.range(1) != 0;
  LeakScanResult result;
  LeakScanStats best;
  best.total_ns = UINT64_MAX;
  std::string error;
  ResetPeak();
  const double rss_before = StatusKiB("VmRSS:");
  for (auto _ : state) {
    if (!ClassifyLeaks(input, options, &result, &error)) {
      state.SkipWithError(error.c_str());
      return;
    }
    if (result.stats.total_ns < best.total_ns) best = result.stats;
  }
  result.stats = best;
  Report(state, result);
  // What the scan added to the process at its peak (its result included).
  state.counters["peak_MiB"] = (StatusKiB("VmHWM:") - rss_before) / 1024;
  static bool printed = false;
  if (!printed) {
    printed = true;
    std::fprintf(stderr, "%llu blocks, %.3f GiB requested, %llu words, %llu pointers\n%s",
                 static_cast<unsigned long long>(h.blocks.size()),
                 static_cast<double>(h.requested) / (1 << 30),
                 static_cast<unsigned long long>(result.stats.words_examined),
                 static_cast<unsigned long long>(result.stats.pointers),
                 FormatLeakSummary(SummaryOf(result)).c_str());
  }
}

// The parts of the read phase alone: reading the blocks through the batch
// reader (memcpy source, no scanning), and looking up every pointer-like
// value the blocks hold.
void BM_ReadBlocks(benchmark::State& state) {
  SyntheticHeap& h = Heap();
  LocalMemory local;
  uint64_t bytes = 0;
  for (auto _ : state) {
    BatchReader reader(&local, 1 << 20, 4096);
    reader.Scan(
        h.blocks.size(),
        [&](size_t i) {
          return AddressRange{h.blocks[i].address, h.blocks[i].size};
        },
        [&](size_t, uint64_t, const std::byte*, uint64_t length) { bytes += length; });
  }
  benchmark::DoNotOptimize(bytes);
}
BENCHMARK(BM_ReadBlocks)->Unit(benchmark::kSecond)->Iterations(3)->UseRealTime();

void BM_FindMany(benchmark::State& state) {
  SyntheticHeap& h = Heap();
  const BlockIndex index(std::span<const LiveBlock>(h.blocks.data(), h.blocks.size()));
  std::vector<uint64_t> values;
  for (const LiveBlock& b : h.blocks) {
    for (uint64_t a = b.address; a + 8 <= b.address + b.size; a += 8) {
      uint64_t v;
      std::memcpy(&v, reinterpret_cast<const void*>(a), 8);
      if (index.InRange(v)) values.push_back(v);
    }
  }
  std::vector<uint32_t> out(BlockIndex::kBatch);
  uint64_t found = 0;
  for (auto _ : state) {
    for (size_t k = 0; k < values.size(); k += BlockIndex::kBatch) {
      const size_t m = std::min<size_t>(BlockIndex::kBatch, values.size() - k);
      index.FindMany(values.data() + k, m, out.data());
      for (size_t j = 0; j < m; ++j) found += out[j] != kNoBlock;
    }
  }
  state.counters["values"] = static_cast<double>(values.size());
  state.counters["ns_per_value"] =
      benchmark::Counter(static_cast<double>(values.size()) * state.iterations(),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  benchmark::DoNotOptimize(found);
}
BENCHMARK(BM_FindMany)->Unit(benchmark::kSecond)->Iterations(3)->UseRealTime();

BENCHMARK(BM_ClassifyLeaks)
    ->ArgNames({"vm_readv", "retention"})
    ->Args({0, 1})
    ->Args({1, 1})
    ->Args({0, 0})
    ->Unit(benchmark::kSecond)
    ->Iterations(3)
    ->UseRealTime();

}  // namespace
}  // namespace heaprec::recorder::leakscan
