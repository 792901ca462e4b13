/* report_phases: allocations known exactly, in phases 300 ms apart, for the
 * HTML report's browser test (tests/html/report_browser_test.sh).
 *   early_leak()   3 x malloc(1000)   never freed
 *   load_cache()   4 x malloc(2048)   freed at the end
 *   mark "loaded", sleep 300 ms
 *   parse_chunk()  200 x malloc(64), each freed at once: 200 temporaries
 *   late_leak()    N x malloc(4096)   never freed (N = 5, or argv[1])
 *   mark "worked", sleep 300 ms
 *   the 4 cache blocks are freed, and the pointers to the leaked blocks
 *   forgotten: they are definitely lost.
 * With N = 5: 212 allocations, 204 frees, 44472 bytes allocated, peak 31672
 * (3000 + 8192 + 20480, after the last late_leak), 23480 bytes leaked in 8
 * blocks. No stdio (its buffer would be one more allocation). */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "heaprec.h"

static void* volatile g_early[3];
static void* g_cache[4];
static void* volatile g_late[64];

__attribute__((noinline)) static void* early_leak(void) { return malloc(1000); }
__attribute__((noinline)) static void* load_cache(void) { return malloc(2048); }
__attribute__((noinline)) static void* parse_chunk(void) { return malloc(64); }
__attribute__((noinline)) static void* late_leak(void) { return malloc(4096); }

static void Pause(void) {
  const struct timespec t = {0, 300 * 1000 * 1000};
  nanosleep(&t, NULL);
}

int main(int argc, char** argv) {
  const int late = argc > 1 ? atoi(argv[1]) : 5;
  for (int i = 0; i < 3; ++i) g_early[i] = early_leak();
  for (int i = 0; i < 4; ++i) g_cache[i] = load_cache();
  heaprec_mark("loaded");
  Pause();
  for (int i = 0; i < 200; ++i) {
    void* volatile p = parse_chunk();
    free(p);
  }
  for (int i = 0; i < late && i < 64; ++i) g_late[i] = late_leak();
  heaprec_mark("worked");
  Pause();
  for (int i = 0; i < 4; ++i) free(g_cache[i]);
  for (int i = 0; i < 3; ++i) g_early[i] = NULL;
  for (int i = 0; i < 64; ++i) g_late[i] = NULL;
  (void)!write(1, "report_phases: ok\n", 18);
  return 0;
}
