/* alloc_wrapper: one malloc wrapper, my_xmalloc, called from two callers, so
 * that every leaked block's innermost frame is my_xmalloc and only the frame
 * outside it (its "via") tells the two apart: heapreplay --alloc-fn
 * my_xmalloc (tests/alloc_fn_test.cc, tests/html/report_browser_test.sh).
 *   from_parser()  3 x my_xmalloc(1000)   never freed
 *   from_loader()  2 x my_xmalloc(3000)   never freed
 *   scratch()      1 x malloc(100000)     freed at the end
 * 6 allocations, 1 free, 109000 bytes allocated, peak 109000, 9000 bytes
 * leaked in 5 blocks (definitely lost: the pointers are forgotten): the
 * leaks are 8% of the peak. No stdio. */
#include <stdlib.h>
#include <unistd.h>

static void* volatile g_parsed[3];
static void* volatile g_loaded[2];

__attribute__((noinline)) static void* my_xmalloc(size_t n) {
  void* p = malloc(n);
  if (p == NULL) abort();
  return p;
}
__attribute__((noinline)) static void* from_parser(void) { return my_xmalloc(1000); }
__attribute__((noinline)) static void* from_loader(void) { return my_xmalloc(3000); }
__attribute__((noinline)) static void* scratch(void) { return malloc(100000); }

int main(void) {
  void* volatile big = scratch();
  for (int i = 0; i < 3; ++i) g_parsed[i] = from_parser();
  for (int i = 0; i < 2; ++i) g_loaded[i] = from_loader();
  free(big);
  for (int i = 0; i < 3; ++i) g_parsed[i] = NULL;
  for (int i = 0; i < 2; ++i) g_loaded[i] = NULL;
  (void)!write(1, "alloc_wrapper: ok\n", 18);
  return 0;
}
