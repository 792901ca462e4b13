/* phases: allocations known exactly, in phases between markers, for
 * heapreplay's analyses (tests/heapreplay_test.cc).
 *   load_table()  8 x malloc(1000)            live until after "worked"
 *   mark "loaded"
 *   churn()       100 x malloc(32), each freed at once: 100 temporaries
 *   grow()        5 x malloc(4096)            never freed: 20480 B leaked
 *   mark "worked"
 *   the 8 table blocks are freed.
 * Peak: 8000 + 20480 = 28480 B right after the 5th grow(), held by grow()
 * (20480 B, 5 blocks) and load_table() (8000 B, 8 blocks).
 * No stdio (its buffer would be one more allocation). */
#include <stdlib.h>
#include <unistd.h>

#include "heaprec.h"

static void* g_table[8];
static void* g_grown[5];

__attribute__((noinline)) static void* load_table(void) { return malloc(1000); }
__attribute__((noinline)) static void* churn(void) { return malloc(32); }
__attribute__((noinline)) static void* grow(void) { return malloc(4096); }

int main(void) {
  for (int i = 0; i < 8; ++i) g_table[i] = load_table();
  heaprec_mark("loaded");
  for (int i = 0; i < 100; ++i) {
    void* volatile p = churn();
    free(p);
  }
  for (int i = 0; i < 5; ++i) g_grown[i] = grow();
  heaprec_mark("worked");
  for (int i = 0; i < 8; ++i) free(g_table[i]);
  (void)!write(1, "phases: ok\n", 11);
  return 0;
}
