/* abort: 1000 x abort_alloc() (malloc(64), kept), then abort()
 * (tests/abort_test.cc): heaprec must exit 134 and the trace must still hold
 * all 1000 allocations. */
#include <stdlib.h>
#include <sys/resource.h>

__attribute__((noinline)) static void* abort_alloc(void) { return malloc(64); }

static void* g_kept[1000];

int main(void) {
  const struct rlimit no_core = {0, 0}; /* no core file for the expected abort */
  setrlimit(RLIMIT_CORE, &no_core);
  for (int i = 0; i < 1000; ++i) g_kept[i] = abort_alloc();
  abort();
}
