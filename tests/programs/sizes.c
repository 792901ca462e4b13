/* sizes: alignments and sizes at the edges (tests/sizes_test.cc).
 *   bad_align()   posix_memalign(&p, 3, 16): EINVAL comes back, p untouched
 *   huge_align()  posix_memalign(2 MiB, 100), aligned_alloc(64 KiB, 64 KiB),
 *                 memalign(4096, 10): each aligned as asked, all freed
 *   giant()       two malloc(2 GiB), one byte written in each, both freed
 * Prints what it saw; exit status 0. */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void* volatile g_sink;

__attribute__((noinline)) int bad_align(void) {
  void* p = (void*)&g_sink;
  const int rc = posix_memalign(&p, 3, 16);
  return rc == EINVAL && p == (void*)&g_sink;
}

__attribute__((noinline)) int huge_align(void) {
  void* a = NULL;
  if (posix_memalign(&a, 1 << 21, 100) != 0) return 0;
  void* b = aligned_alloc(1 << 16, 1 << 16);
  void* c = memalign(4096, 10);
  const int ok = b != NULL && c != NULL && ((uintptr_t)a & ((1 << 21) - 1)) == 0 &&
                 ((uintptr_t)b & ((1 << 16) - 1)) == 0 && ((uintptr_t)c & 4095) == 0;
  free(a);
  free(b);
  free(c);
  return ok;
}

__attribute__((noinline)) int giant(void) {
  char* a = malloc((size_t)2 << 30);
  char* b = malloc((size_t)2 << 30);
  const int ok = a != NULL && b != NULL;
  if (ok) {
    a[12345] = 1;
    b[(size_t)1 << 30] = 2;
    g_sink = a;
    g_sink = b;
  }
  free(a);
  free(b);
  return ok;
}

int main(void) {
  const int x = bad_align(), y = huge_align(), z = giant();
  printf("sizes: bad alignment refused %d, aligned %d, giant %d\n", x, y, z);
  return 0;
}
