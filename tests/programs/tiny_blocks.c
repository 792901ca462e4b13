/* tiny_blocks: 10,000,000 blocks of 1 byte from tiny_alloc(), every other
 * one freed, so 5,000,000 leak (tests/tiny_blocks_test.cc). The pointer
 * array itself is one malloc of 80,000,000 bytes from table_alloc(), freed.
 * Prints "tiny_blocks: 5000000 kept" and exits 0. */
#include <stdio.h>
#include <stdlib.h>

enum { kBlocks = 10000000 };

__attribute__((noinline)) void* tiny_alloc(void) { return malloc(1); }
__attribute__((noinline)) void* table_alloc(size_t n) { return malloc(n); }

int main(void) {
  void** blocks = table_alloc(kBlocks * sizeof(void*));
  if (blocks == NULL) return 1;
  for (int i = 0; i < kBlocks; ++i) blocks[i] = tiny_alloc();
  int kept = 0;
  for (int i = 0; i < kBlocks; ++i) {
    if (i % 2 == 0) {
      free(blocks[i]);
    } else {
      kept += blocks[i] != NULL;
    }
  }
  free(blocks);
  printf("tiny_blocks: %d kept\n", kept);
  return 0;
}
