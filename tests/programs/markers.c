/* markers: heaprec_mark() around known allocations (tests/markers_test.cc).
 *   heaprec_mark("before"); 3 x marked_alloc() (malloc(99)); heaprec_mark("after");
 * then the 3 blocks are freed. Also runs without heaprec (the API is a weak
 * symbol then) and prints the same line. */
#include <stdio.h>
#include <stdlib.h>

#include "heaprec.h"

__attribute__((noinline)) static void* marked_alloc(void) { return malloc(99); }

int main(void) {
  void* blocks[3];
  heaprec_mark("before");
  for (int i = 0; i < 3; ++i) blocks[i] = marked_alloc();
  heaprec_mark("after");
  for (int i = 0; i < 3; ++i) free(blocks[i]);
  printf("markers: ok\n");
  return 0;
}
