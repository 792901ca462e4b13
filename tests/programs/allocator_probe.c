// A program for heaprec --compare-allocators: allocates and touches about
// 8 MiB in blocks of 64 bytes to 64 KiB, frees them in an interleaved
// order, and exits 0. With MARKER EXIT: exits EXIT instead when the symbol
// MARKER is defined in the process (an allocator preloaded: mallctl for
// jemalloc, tc_malloc for tcmalloc, mi_version for mimalloc), so that a run
// fails under that allocator only.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

enum { kBlocks = 512 };

int main(int argc, char** argv) {
  static char* blocks[kBlocks];
  size_t total = 0;
  for (int i = 0; i < kBlocks; ++i) {
    const size_t size = (size_t)64 << (i % 11);  // 64 B .. 64 KiB
    blocks[i] = malloc(size);
    if (blocks[i] == NULL) return 2;
    memset(blocks[i], i & 0xff, size);
    total += size;
  }
  for (int i = 0; i < kBlocks; i += 2) free(blocks[i]);
  for (int i = 1; i < kBlocks; i += 2) free(blocks[i]);
  if (total < (size_t)4 << 20) return 2;
  if (argc == 3 && dlsym(RTLD_DEFAULT, argv[1]) != NULL) return atoi(argv[2]);
  return 0;
}
