// big_heap: a live heap of about 1 GiB in 10 million blocks, for the cost of
// one leak scan (tools/bench_leakcheck.sh, docs/BENCHMARKS.md). Blocks of
// 16 to 192 bytes (average 104), most in lists hung from a global table of
// heads (reachable), every 16th list dropped (lost), each block pointing to
// the next of its list; then heaprec_leak_check() once (the pause measured)
// and a normal exit (the scan at the end).
//   big_heap [BLOCKS]   default 10000000
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "heaprec.h"

namespace {

struct Block {
  Block* next;
  unsigned long payload[1];
};

constexpr unsigned kLists = 65536;
Block* g_heads[kLists];

}  // namespace

int main(int argc, char** argv) {
  const unsigned long blocks = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 10000000;
  unsigned long bytes = 0;
  unsigned seed = 12345;
  for (unsigned long i = 0; i < blocks; ++i) {
    seed = seed * 1103515245u + 12345u;
    const size_t size = 16 + 8 * ((seed >> 16) % 23);  // 16..192
    Block* b = static_cast<Block*>(std::malloc(size));
    std::memset(b, 0, size);
    const unsigned list = static_cast<unsigned>(i % kLists);
    b->next = g_heads[list];
    g_heads[list] = b;
    bytes += size;
  }
  for (unsigned list = 0; list < kLists; list += 16) g_heads[list] = nullptr;  // lost
  std::printf("big_heap: %lu blocks, %lu bytes\n", blocks, bytes);
  std::fflush(stdout);
  heaprec_leak_check();
  return 0;
}
