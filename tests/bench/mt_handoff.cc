// Benchmark workload (b): multi-threaded small malloc/free with cross-thread
// handoff.
//
// THREADS threads (default 4) each make ALLOCS small malloc calls (default
// 1000000, sizes 16..271 bytes). Each thread keeps its blocks in a window of
// 64 and frees the one a new block replaces, except that every 8th block is
// handed to the next thread (in batches of 256, under a mutex) and freed
// there. So most frees are by the allocating thread, about 1 in 8 by another.
//
// usage: mt_handoff [THREADS [ALLOCS]]; prints a checksum.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace {

constexpr size_t kWindow = 64;
constexpr size_t kBatch = 256;

struct Mailbox {
  std::mutex mu;
  std::vector<void*> blocks;  // handed over by the previous thread
};

__attribute__((noinline)) void* NewBlock(uint64_t i) {
  const size_t size = 16 + (i * 7919) % 256;
  auto* p = static_cast<unsigned char*>(std::malloc(size));
  p[0] = static_cast<unsigned char>(i);
  p[size - 1] = static_cast<unsigned char>(i >> 8);
  return p;
}

__attribute__((noinline)) uint64_t FreeMail(Mailbox& box, std::vector<void*>& scratch) {
  {
    std::lock_guard<std::mutex> lock(box.mu);
    scratch.swap(box.blocks);
  }
  uint64_t sum = 0;
  for (void* p : scratch) {
    sum += *static_cast<unsigned char*>(p);
    std::free(p);
  }
  scratch.clear();
  return sum;
}

__attribute__((noinline)) void Post(Mailbox& box, std::vector<void*>& outgoing) {
  std::lock_guard<std::mutex> lock(box.mu);
  box.blocks.insert(box.blocks.end(), outgoing.begin(), outgoing.end());
  outgoing.clear();
}

uint64_t Worker(uint32_t id, uint64_t allocs, Mailbox& mine, Mailbox& next) {
  void* window[kWindow] = {};
  std::vector<void*> outgoing, scratch;
  outgoing.reserve(kBatch);
  scratch.reserve(4 * kBatch);
  uint64_t sum = 0;
  for (uint64_t i = 0; i < allocs; ++i) {
    void* p = NewBlock(i * 4 + id);
    if (i % 8 == 7) {
      outgoing.push_back(p);
      if (outgoing.size() == kBatch) Post(next, outgoing);
    } else {
      void*& slot = window[i % kWindow];
      if (slot != nullptr) {
        sum += *static_cast<unsigned char*>(slot);
        std::free(slot);
      }
      slot = p;
    }
    if (i % 4096 == 0) sum += FreeMail(mine, scratch);
  }
  if (!outgoing.empty()) Post(next, outgoing);
  for (void* p : window) std::free(p);
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  const uint32_t threads = argc > 1 ? static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10)) : 4;
  const uint64_t allocs = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000000;
  if (threads == 0) return 2;
  std::vector<Mailbox> boxes(threads);
  std::atomic<uint64_t> sum{0};
  std::vector<std::thread> pool;
  for (uint32_t t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] { sum += Worker(t, allocs, boxes[t], boxes[(t + 1) % threads]); });
  }
  for (std::thread& th : pool) th.join();
  // Whatever is still in a mailbox is freed by the main thread.
  std::vector<void*> scratch;
  for (Mailbox& box : boxes) sum += FreeMail(box, scratch);
  std::printf("mt_handoff: %u threads x %llu allocations, checksum %llu\n", threads,
              static_cast<unsigned long long>(allocs), static_cast<unsigned long long>(sum.load()));
  return 0;
}
