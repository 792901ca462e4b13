/* exec_target: the program exec runs (tests/exec_test.cc).
 *   target_alloc()  6 x malloc(555), the first one freed -> 5 blocks, 2775 B leaked
 * Prints one line, waits 200 ms (so that heaprec finds this image while it
 * still runs, as it would for any longer program) and exits 5. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) static void* target_alloc(void) { return malloc(555); }

static void* g_kept[6];

int main(void) {
  for (int i = 0; i < 6; ++i) g_kept[i] = target_alloc();
  free(g_kept[0]);
  g_kept[0] = NULL;
  printf("exec_target: ok\n");
  fflush(stdout);
  const struct timespec pause = {0, 200 * 1000 * 1000};
  nanosleep(&pause, NULL);
  return 5;
}
