/* live_sets: a peak whose live set differs from the end's, allocations known
 * exactly, for what heapreplay says is live at a moment
 * (tests/live_sets_test.cc).
 *   scratch() 1 x malloc(500)   freed at once (allocated before T, not live)
 *   keep()  3 x malloc(10000)   the peak: 30000 B in 3 blocks, all from keep()
 *   sleep 500 ms                (--at a time inside it: the peak's live set)
 *   two of the keep() blocks are freed
 *   tail()  1 x malloc(100)     a site the peak never had
 * The end: 10100 B live in 2 blocks (keep 10000, tail 100), both held by
 * globals (still reachable). 5 allocations, 30600 bytes, 3 frees.
 * No stdio (its buffer would be one more allocation). */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void* volatile g_keep[3];
static void* volatile g_tail;

__attribute__((noinline)) static void* scratch(void) { return malloc(500); }
__attribute__((noinline)) static void* keep(void) { return malloc(10000); }
__attribute__((noinline)) static void* tail(void) { return malloc(100); }

int main(void) {
  free(scratch());
  for (int i = 0; i < 3; ++i) g_keep[i] = keep();
  const struct timespec pause = {0, 500 * 1000 * 1000};
  nanosleep(&pause, NULL);
  free(g_keep[0]);
  free(g_keep[1]);
  g_keep[0] = g_keep[1] = NULL;
  g_tail = tail();
  (void)!write(1, "live_sets: ok\n", 14);
  return 0;
}
